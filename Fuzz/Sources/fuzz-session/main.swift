// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
import FuzzSupport
#if canImport(Glibc)
import Glibc
#endif

/// Two modes (see the end). The raw-HCI one: the session against a behavioural controller (`ModelController`, answering from
/// `ControllerAdvertisingState`) while another program sends it random advertising commands.
///
/// Input: byte 0 picks the kiosk (1–4 beacons, connectable, rotation dwell), byte 1 the controller's
/// set limit; then actions: a foreign command (opcode from the advertising commands and HCI Reset,
/// parameters from the input) observed with its completion, or with the completion lost; time passing;
/// the device down and up (the controller forgets its advertising), a Hardware Error (with or
/// without the reset), an unplug and the return of a fresh controller, a central's connection to a
/// connectable beacon and its disconnection, a `--cycle` (its boundaries cross with time), and a
/// reload with the same, a changed or a broken config.
/// Invariant: after the inputs stop (the central gone, the device back and up) and the session's
/// timers have run, the session is on air and the controller's state on our placements is exactly the
/// desired state of the session's plan, or, in an off phase, none of ours is on air; after `stop`,
/// nothing of ours is on air.

let opcodes = CommandTable.advertisingOpcodes
let caps: ControllerCapabilities = {
    let fake = ScriptedController(Controllers.probe(extended: true))
    guard let c = try? Advertiser.probe(HCICommandRunner(channel: fake)) else { fatalError("probe of the scripted controller failed") }
    return c
}()
/// FUZZ_SESSION_TRACE=1: print each raw-HCI action and the session's log lines to stderr (to read a finding).
let tracing = getenv("FUZZ_SESSION_TRACE") != nil
func trace(_ line: @autoclosure () -> String) { if tracing { let s = line() + "\n"; _ = s.withCString { write(2, $0, strlen($0)) } } }
let uuid = ProximityUUID(bytes: [0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0])!

func fuzzRawHCI(_ input: [UInt8]) {
    guard input.count >= 2 else { return }
    var rest = input.dropFirst(2)
    func take(_ n: Int) -> [UInt8] {
        let chunk = Array(rest.prefix(n))
        rest = rest.dropFirst(chunk.count)
        return chunk
    }
    let count = Int(input[0] % 4) + 1
    let connectable = input[0] & 0x04 != 0
    let options = AdvertisingOptions(interval: .standard, connectable: connectable)
    func kiosk(_ n: Int, minor: UInt16) -> KioskConfiguration {
        var c = KioskConfiguration(beacons: (0..<n).map {
            BeaconAdvertisement(frame: .iBeacon(IBeacon(uuid: uuid, major: 1, minor: minor + UInt16($0))), options: options)
        })
        c.rotationMilliseconds = 500
        return c
    }
    let limit: Int? = input[1] % 5 == 0 ? nil : Int(input[1] % 5)
    var model = ModelController(state: ControllerAdvertisingState(numberOfSupportedAdvertisingSets: limit))
    let session = AdvertisingSession(configuration: kiosk(count, minor: 1), caps: caps, device: "hci0",
                                     runner: HCICommandRunner(model: model), now: { model.now() }, log: { trace("  log: \($0)") })
    if input[0] & 0x08 != 0 {
        // --cycle: on 1–2.5 s, off 0.5–2 s (byte 1's upper bits), forever.
        session.policy.schedule = AdvertisingSchedule(cycle: .init(onMilliseconds: 1000 + Int64(input[1] >> 4 & 3) * 500,
                                                                   offMilliseconds: 500 + Int64(input[1] >> 6) * 500))
    }
    /// The kernel's device state as the session was told it: down (power off) or gone (unplugged);
    /// a central connected to one of our connectable placements.
    var down = false, gone = false, connection = false
    func device(_ kind: StackInternalDeviceEvent.Kind) { session.handle(.event(StackInternalDeviceEvent(kind: kind, deviceID: 0).event)) }
    func fresh() -> ModelController {
        let back = ModelController(state: ControllerAdvertisingState(numberOfSupportedAdvertisingSets: limit))
        back.advance(model.now())
        return back
    }
    func disconnect() {
        connection = false
        // Disconnection Complete: status 0, handle 0x0040, reason Remote User Terminated Connection.
        session.handle(.event(HCIEvent(code: .disconnectionComplete, parameters: [0x00, 0x40, 0x00, 0x13])))
    }
    do { try session.start() } catch { require(false, "start on an empty model failed: \(error)") }

    var actions = 0
    while !rest.isEmpty, actions < 32 {
        actions += 1
        let kind = take(1)[0], action = kind % 11
        trace("t=\(model.now()) action \(action) (\(kind)) phase \(session.phase)")
        switch action {
        case 0, 1:
            let opcode = opcodes[Int(take(1).first ?? 0) % opcodes.count]
            let length = Int(take(1).first ?? 0) % 40
            guard let command = try? HCICommand(packet: HCICommand(opcode, take(length)).packet) else { continue }
            let inputs = model.foreign(command), completionLost = action == 1
            trace("  foreign \(command)\(completionLost ? ", completion lost" : "")")
            for i in completionLost ? Array(inputs.prefix(1)) : inputs { session.handle(i) }
        case 4 where !gone:
            // Power off (or rfkill): the controller forgets its advertising (and its connections); up again later.
            if down {
                down = false
                device(.up)
            } else {
                down = true
                connection = false
                model.state = ControllerAdvertisingState(numberOfSupportedAdvertisingSets: limit)
                device(.down)
            }
        case 5 where !down && !gone:
            // A Hardware Error; the kernel's reset follows, or not (the grace re-arms).
            session.handle(.event(HCIEvent(code: .hardwareError, parameters: [take(1).first ?? 0])))
            if kind & 0x80 != 0 { model.state = ControllerAdvertisingState(numberOfSupportedAdvertisingSets: limit) }
        case 6:
            // Unplugged, and back as a fresh controller on the same clock.
            if gone {
                gone = false
                down = false
                model = fresh()
                session.attach(HCICommandRunner(model: model), caps: caps, deviceID: 0)
            } else {
                gone = true
                connection = false
                device(.unregistered)
            }
        case 7 where connectable && !down && !gone && !connection:
            // A central connects to what is on air: the controller stops that advertising (an
            // extended set ends with LE Advertising Set Terminated, legacy with LE Connection Complete).
            guard let plan = session.plan else { continue }
            if plan.family == .extended {
                let enabled = plan.handles.filter { model.state.sets[$0]?.enabled == true }
                guard !enabled.isEmpty else { continue }
                let h = enabled[Int(take(1).first ?? 0) % enabled.count]
                model.state.apply(.leSetExtendedAdvertisingEnable(false, sets: [AdvertisingSetEnable(handle: h)]))
                session.handle(.event(HCIEvent(code: .leMeta, parameters: [0x12, 0x00, h, 0x40, 0x00, 0x01])))
            } else {
                guard model.state.legacy.enabled else { continue }
                model.state.apply(.leSetAdvertisingEnable(false))
                // LE Connection Complete: status 0, handle 0x0040, role peripheral, a public peer, 30 ms, 0, 4 s, 0.
                session.handle(.event(HCIEvent(code: .leMeta, parameters: [0x01, 0x00, 0x40, 0x00, 0x01, 0x00, 1, 2, 3, 4, 5, 6,
                                                                           0x18, 0x00, 0x00, 0x00, 0x90, 0x01, 0x00])))
            }
            connection = true
        case 8 where connection:
            disconnect()
        case 9:
            // SIGHUP: the same config, a changed one (another minor, one beacon more or fewer), or one
            // KioskPlan refuses (the handles run out, a dwell shorter than the interval).
            let how = take(1).first ?? 0
            var new = session.configuration
            switch how % 3 {
            case 0: break
            case 1:
                let n = max(1, min(4, new.beacons.count + Int(how / 3 % 3) - 1))
                new = kiosk(n, minor: UInt16(how))
            default:
                new = kiosk(max(2, count), minor: 1)
                new.firstHandle = 0xEF
                new.rotationMilliseconds = 20
            }
            _ = try? session.reload(new)
        default:
            model.advance(Int64(take(1).first ?? 0) * (action == 10 ? 32 : 8))
            if let at = session.machine.nextDeadline, at <= model.now() { session.timerExpired() }
        }
    }

    // The inputs stop: the central disconnects, the device is back and up, and the timers the
    // session set run out (a re-arm, a retry: until it is on air, or off by the schedule).
    if connection { disconnect() }
    if gone {
        model = fresh()
        session.attach(HCICommandRunner(model: model), caps: caps, deviceID: 0)
    } else if down {
        device(.up)
    }
    func settled() -> Bool {
        guard session.machine.pendingRearm == nil, session.machine.clock.disableRetryAt == nil else { return false }
        if case .offPhase = session.phase { return true }
        return session.phase == .onAir
    }
    trace("t=\(model.now()) inputs stop, phase \(session.phase)")
    for _ in 0..<16 {
        guard let at = session.machine.nextDeadline, !(settled() && at > model.now()) else { break }
        if at > model.now() { model.advance(at - model.now()) }
        session.timerExpired()
    }
    trace("t=\(model.now()) settled, phase \(session.phase), controller \(model.state.onAir(session.plan?.placements ?? []))")
    guard let plan = session.plan else { require(false, "no plan after start"); return }
    // A controller whose sets are all taken by another program has no room for ours: not ours to fix.
    let foreignSets = model.state.sets.keys.filter { !plan.handles.contains($0) }.count
    if let limit, foreignSets >= limit { return }
    let ours = Set((0..<max(1, plan.rotationSteps.count)).flatMap { plan.desiredState(rotationIndex: $0).onAir(plan.placements).values.map(\.data) })
    func oursOnAir() -> [ControllerAdvertisingState.Placement: ControllerAdvertisingState.Instance] {
        model.state.onAir(plan.placements).filter { $0.value.enabled && ours.contains($0.value.data) }
    }
    if case .offPhase = session.phase {
        // Off means off (another owner's data handed back may be on air; none of ours).
        require(oursOnAir().isEmpty, "ours on air in an off phase: \(oursOnAir())")
    } else {
        require(session.phase == .onAir, "not on air after the inputs stopped: \(session.phase)")
        let want = plan.desiredState(rotationIndex: session.machine.rotationIndex).onAir(plan.placements)
        require(model.state.onAir(plan.placements) == want,
                "the controller differs from the desired state: \(model.state.onAir(plan.placements)) ≠ \(want)")
    }
    // Stop: none of our beacons stays on air (a legacy instance is handed back to its other owner,
    // whose recorded commands, random bytes here, the model may refuse: not ours to judge).
    do { try session.stop() } catch { return }
    require(session.phase == .stopped, "not stopped: \(session.phase)")
    require(oursOnAir().isEmpty, "ours still on air after stop: \(oursOnAir())")
}

/// The mode: an input starting with "S" (0x53) drives the sharing mode (Share.swift), any other the
/// raw-HCI session. FUZZ_SESSION_MODE=hci or share pins one (for the per-mode figures).
let pinned = getenv("FUZZ_SESSION_MODE").map { String(cString: $0) }
exit(fuzzMain { input in
    let share = input.first == UInt8(ascii: "S")
    switch pinned {
    case "share": fuzzShare(share ? input.dropFirst() : input[...])
    case "hci": if !share { fuzzRawHCI(input) }
    default: if share { fuzzShare(input.dropFirst()) } else { fuzzRawHCI(input) }
    }
})

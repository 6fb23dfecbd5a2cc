// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// Raw HCI under the one `SessionLoop`: the observer hands the raw socket's events and other
/// programs' commands to the `AdvertisingSession` (which carries out the machine's effects with
/// KioskPlan, the family and capacity fallbacks and the hand-back); a reload updates in place or
/// restarts; an unplugged controller is waited for on the host and a new runner attached.
final class RawHCIAdapter: SessionAdapter {
    private(set) var session: OpenedDevice
    let kiosk: AdvertisingSession
    let arguments: ParsedArguments
    let ctx: ToolContext

    init(session: OpenedDevice, kiosk: AdvertisingSession, settings: Settings, arguments: ParsedArguments, ctx: ToolContext) throws(CLIError) {
        self.session = session
        self.kiosk = kiosk
        self.arguments = arguments
        self.ctx = ctx
        try Self.watch(session.channel, settings)
    }

    var device: String { kiosk.device }
    var address: String { session.info.address }
    var machine: SessionMachine { kiosk.machine }
    var onChange: ((SessionPhase) -> Void)? {
        get { kiosk.onPhaseChange }
        set { kiosk.onPhaseChange = newValue }
    }

    func takePendingSignal() -> Int32? { session.runner.takePendingSignal() }

    func receive(timeoutMilliseconds: Int) throws(CLIError) -> SessionWake {
        let received: HCIReceive
        do { received = try session.channel.receive(timeoutMilliseconds: timeoutMilliseconds) } catch {
            guard deviceIsRegistered else {
                kiosk.handle(.event(StackInternalDeviceEvent(kind: .unregistered, deviceID: session.info.id).event))
                return .packet
            }
            throw CLIError(.unavailable, "\(CLIError(error).message); nothing is on air any more")
        }
        switch received {
        case let .signal(n): return .signal(n)
        case let .event(bytes):
            if let e = try? HCIEvent(packet: bytes) { kiosk.handle(.event(e)) }
        case let .command(bytes):
            if let c = try? HCICommand(packet: bytes) { kiosk.handle(.observedCommand(c)) }
        case .timedOut:
            return .timedOut
        }
        return .packet
    }

    func timerExpired() { kiosk.timerExpired() }

    /// The state file and sd_notify: what is on air now (nothing while the machine is off air).
    func reportOnAir(_ service: ServiceReporter, _ s: Settings) {
        guard let plan = kiosk.plan, kiosk.phase == .onAir else { return }
        service.onAir(family: plan.family, beacons: s.beacons, sets: plan.handles, rotation: plan.layout.isRotation && s.beacons.count > 1,
                      rearmReason: kiosk.machine.lastRearm?.cause.text(device: kiosk.device), rearmedAt: kiosk.machine.lastRearm?.at,
                      displacing: kiosk.displacedOwner?.text, ownAddress: kiosk.ownRandomAddress)
    }

    func updateMetrics(_ metrics: KioskMetricsFile, _ s: Settings) { metrics.update(kiosk, s) }

    func reload(_ new: Settings) throws(CLIError) -> SessionReload {
        do {
            let summary = try kiosk.reload(new.kiosk)
            try? session.channel.setEventFilter(AdvertisingSession.inputFilter(for: new.kiosk).events)
            return SessionReload(summary: summary, detail: summary.restarted ? " (all restarted: the layout changed)" : "")
        } catch {
            if case let .plan(p) = error { throw new.planError(p) }
            throw CLIError(error, device: session.name)
        }
    }

    func stop(_ s: Settings) throws(CLIError) -> String {
        do { try kiosk.stop() } catch { throw CLIError(error) }
        KernelInstanceHandBack.handBack(kiosk, session, timeout: s.timeoutMilliseconds, verbose: arguments.has("--verbose"), ctx)
        return "advertising stopped on \(session.name)"
    }

    /// What the session needs to hear on `channel`: its events, and other programs' commands.
    static func watch(_ channel: HCIChannel, _ s: Settings) throws(CLIError) {
        do {
            let filter = AdvertisingSession.inputFilter(for: s.kiosk)
            try channel.setEventFilter(filter.events)
            try channel.observeCommands(filter.observesCommands)
        } catch { throw CLIError(error) }
    }

    /// Whether our controller is still registered under its index with its address.
    var deviceIsRegistered: Bool {
        guard let list = try? session.host.devices() else { return true }
        return list.contains { $0.id == session.info.id && $0.address == session.info.address }
    }

    /// The controller was unregistered (a USB unplug): waits for one with the same address to be
    /// registered and up again (never bringing it up), then opens and probes it and attaches the
    /// session to it.
    func awaitReturn(_ s: Settings, timeoutMilliseconds: Int) throws(CLIError) -> DeviceReturn {
        let address = session.info.address
        // Let go of the dead device (its sockets would keep hciN taken, so that the replugged
        // adapter came back as hci1) and of its lock; both are taken again when it returns.
        session.channel.close()
        session.lock?.release()
        let outcome = try OpenedDevice.waitBeating(session.host, .address(address), timeoutMilliseconds: Int64(timeoutMilliseconds), ctx)
        switch outcome {
        case let .returned(info):
            ctx.note("\(address) is back as \(info.name); re-arming")
            session = try OpenedDevice.open(info, session.host, .init(device: .index(info.id), timeoutMilliseconds: s.timeoutMilliseconds,
                                                                        verbose: arguments.has("--verbose"), watchSignals: true, claim: true), ctx)
            try Self.watch(session.channel, s)
            kiosk.attach(session.runner, caps: session.caps, deviceID: session.info.id)
            return .returned
        case let .signal(n):
            return .signal(n)
        case .timedOut:
            return .timedOut
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import FuzzSupport

/// The sharing mode (`SharedAdvertisingSession` over MGMT, decided by `SessionMachine`) against a
/// minimal model of the kernel's advertising instances.
///
/// Input (after the mode byte): byte 0 the beacons (1–4, connectable), whether the kernel refuses
/// the extended pair (Add Advertising then), a `--cycle` or none; byte 1 the cycle's lengths; then
/// actions: another program's Remove Advertising (of one of ours, any instance, or all), another
/// program's Add Advertising on a free instance, Index Removed / Index Added (+ New Settings
/// Powered), New Settings unpowered / powered (the instances kept or forgotten), the next commands
/// answered with a failing MGMT status, time passing (cycle boundaries, retries), a reload with the
/// same, a changed or a broken (more beacons than free instances) list, and stop.
/// Invariant: once the inputs stop (the device present and powered, commands succeeding) and time
/// passes the retry, each of our beacons is an instance in the kernel with our data, or none of them
/// in an off phase; after stop, none of them is left.

/// What the kernel keeps per instance: the data (nil between Add Extended Advertising Parameters
/// and Add Extended Advertising Data: not on air yet).
final class ModelKernel: MGMTChannel {
    static let maxInstances: UInt8 = 5
    var instances: [UInt8: [UInt8]?] = [:]
    var present = true, powered = true
    /// The kernel refuses Add Extended Advertising Parameters (Unknown Command), as some do.
    let refusesExtended: Bool
    /// Statuses for the next commands (the input's failures), then the kernel's own answers.
    var failures: [MGMTStatus] = []
    /// Events for the session's socket (another program's actions, the device's), in order.
    var outbox: [MGMTEvent] = []
    private var inbound: [[UInt8]] = []
    var clock: Int64 = 0
    func now() -> Int64 { clock }

    init(refusesExtended: Bool) { self.refusesExtended = refusesExtended }

    func close() {}

    func send(_ packet: [UInt8]) throws(TransportError) {
        guard let command = try? MGMTCommand(packet: packet) else { return }
        let (status, returned) = answer(command)
        inbound.append((status == .success ? MGMTEvent.complete(command, status, returned) : .status(command, status)).packet)
    }

    func receive(timeoutMilliseconds: Int) throws(TransportError) -> MGMTReceive {
        if !inbound.isEmpty { return .event(inbound.removeFirst()) }
        clock += Int64(max(0, timeoutMilliseconds))
        return .timedOut
    }

    private func answer(_ c: MGMTCommand) -> (MGMTStatus, [UInt8]) {
        if !failures.isEmpty {
            // The kernel answers Remove Advertising with Invalid Parameters only for an instance it
            // does not have (the session counts that as removed): for one it has, the injected
            // failure is a plain Failed.
            let status = failures.removeFirst()
            let existing = c.opcode == .removeAdvertising && (c.instance ?? 0) != 0 && instances[c.instance ?? 0] != nil
            return (status == .invalidParameters && existing ? .failed : status, [])
        }
        guard present, c.index == 0 else { return (.invalidIndex, []) }
        let instance = c.instance ?? 0
        let valid = instance >= 1 && instance <= Self.maxInstances
        switch c.opcode {
        case .readAdvertisingFeatures:
            let f = MGMTAdvertisingFeatures(supportedFlags: refusesExtended ? [.switchIntoConnectableMode] : [.switchIntoConnectableMode, .durationParameter, .intervalParameters, .txPowerParameter],
                                            maxInstances: Self.maxInstances, instances: instances.keys.sorted())
            return (.success, f.returnParameters)
        case .addAdvertising:
            guard valid, let data = c.advertisingData else { return (.invalidParameters, []) }
            instances[instance] = .some(data)
        case .addExtendedAdvertisingParameters:
            if refusesExtended { return (.unknownCommand, []) }
            guard valid else { return (.invalidParameters, []) }
            if instances[instance] == nil { instances[instance] = .some(nil) }
        case .addExtendedAdvertisingData:
            guard valid, instances[instance] != nil, let data = c.advertisingData else { return (.invalidParameters, []) }
            instances[instance] = .some(data)
        case .removeAdvertising:
            if instance == 0 { instances = [:] } else {
                guard instances[instance] != nil else { return (.invalidParameters, []) }
                instances[instance] = nil
            }
        default:
            return (.unknownCommand, [])
        }
        return (.success, [instance])
    }

    /// Another program's Remove Advertising: Advertising Removed for each instance it removed.
    func foreignRemove(_ instance: UInt8) {
        let gone = instance == 0 ? instances.keys.sorted() : (instances[instance] != nil ? [instance] : [])
        for i in gone {
            instances[i] = nil
            outbox.append(MGMTEvent(.advertisingRemoved, index: 0, [i]))
        }
    }
}

let shareStatuses: [MGMTStatus] = [.failed, .busy, .rejected, .notSupported, .invalidParameters, .notPowered, .unknownCommand]

func fuzzShare(_ input: ArraySlice<UInt8>) {
    guard input.count >= 2 else { return }
    var rest = input.dropFirst(2)
    func take() -> UInt8 {
        let b = rest.first ?? 0
        rest = rest.dropFirst()
        return b
    }
    let head = input[input.startIndex], lengths = input[input.startIndex + 1]
    func beacons(_ count: Int, minor: UInt16) -> [BeaconAdvertisement] {
        (0..<count).map {
            BeaconAdvertisement(frame: .iBeacon(IBeacon(uuid: uuid, major: 2, minor: minor &+ UInt16($0))),
                                options: AdvertisingOptions(interval: .standard, connectable: head & 0x08 != 0))
        }
    }
    let kernel = ModelKernel(refusesExtended: head & 0x04 != 0)
    let session = SharedAdvertisingSession(beacons: beacons(Int(head % 4) + 1, minor: 1), index: 0, device: "hci0",
                                           dwellMilliseconds: 1000, runner: MGMTCommandRunner(channel: kernel, now: kernel.now),
                                           now: kernel.now, log: { _ in })
    if head & 0x10 != 0 {
        session.policy.schedule = AdvertisingSchedule(cycle: .init(onMilliseconds: 1000 + Int64(lengths % 16) * 250,
                                                            offMilliseconds: 500 + Int64(lengths / 16) * 250))
    }
    do { try session.start() } catch { require(false, "start on an empty kernel failed: \(error)"); return }

    var stopped = false

    func deliver() {
        session.send(nil)
        while !kernel.outbox.isEmpty {
            session.handle(kernel.outbox.removeFirst())
        }
    }
    func runTimers() {
        if let at = session.machine.nextDeadline, at <= kernel.clock { session.timerExpired() }
        deliver()
    }
    func plug(_ present: Bool) {
        kernel.present = present
        if present {
            kernel.powered = true
            kernel.outbox += [MGMTEvent(.indexAdded, index: 0), MGMTEvent(.newSettings, index: 0, settings(.powered))]
        } else {
            kernel.instances = [:]
            kernel.outbox.append(MGMTEvent(.indexRemoved, index: 0))
        }
    }
    func settings(_ s: MGMTSettings) -> [UInt8] {
        [UInt8(truncatingIfNeeded: s.rawValue), UInt8(truncatingIfNeeded: s.rawValue >> 8),
         UInt8(truncatingIfNeeded: s.rawValue >> 16), UInt8(truncatingIfNeeded: s.rawValue >> 24)]
    }

    var actions = 0
    while !rest.isEmpty, actions < 32, !stopped {
        actions += 1
        let kind = take()
        switch kind % 12 {
        case 0, 1:
            // Another program's Remove Advertising: one of ours (most often), any instance, or all.
            let b = take()
            let ours = session.plan.instances
            kernel.foreignRemove(b & 0x80 == 0 && !ours.isEmpty ? ours[Int(b) % ours.count] : b % (ModelKernel.maxInstances + 1))
        case 2:
            // Another program's Add Advertising on a free instance (bluetoothd takes the lowest).
            if let free = (1...ModelKernel.maxInstances).first(where: { kernel.instances[$0] == nil && !session.plan.instances.contains($0) }),
               kernel.present {
                kernel.instances[free] = .some([0x02, 0x01, 0x06])
                kernel.outbox.append(MGMTEvent(.advertisingAdded, index: 0, [free]))
            }
        case 3:
            plug(!kernel.present)
        case 4 where kernel.present:
            // Power off and on; the kernel keeps its instances or not (the session re-adds on up).
            kernel.powered.toggle()
            if !kernel.powered, kind & 0x80 != 0 { kernel.instances = [:] }
            kernel.outbox.append(MGMTEvent(.newSettings, index: 0, settings(kernel.powered ? .powered : [])))
        case 5, 6:
            // The next commands fail with a status.
            let b = take()
            for n in 0...Int(b / 64) { kernel.failures.append(shareStatuses[(Int(b) + n) % shareStatuses.count]) }
        case 7:
            // Reload: the same list, a changed one (other minors, 1–4 beacons), or a broken one (more
            // beacons than the kernel has instances: refused, the old ones stay).
            let b = take()
            let list: [BeaconAdvertisement]
            switch b % 3 {
            case 0: list = session.plan.beacons
            case 1: list = beacons(Int(b / 3) % 4 + 1, minor: UInt16(b) &* 7)
            default: list = beacons(Int(ModelKernel.maxInstances) + 1, minor: 9)
            }
            _ = try? session.reload(list, dwellMilliseconds: 1000)
        case 8:
            stopped = true
        default:
            kernel.clock += Int64(take()) * 16
        }
        deliver()
        runTimers()
    }
    // The inputs stop: the device present and powered, every command succeeding, time past the retry.
    kernel.failures = []
    if !kernel.present { plug(true) } else if !kernel.powered {
        kernel.powered = true
        kernel.outbox.append(MGMTEvent(.newSettings, index: 0, settings(.powered)))
    }
    deliver()
    if stopped {
        do { try session.stop() } catch { require(false, "stop with every command succeeding failed: \(error)") }
        // Ours is what carries our UUID; another program's instances carry 02 01 06 only.
        let left = kernel.instances.filter { ($0.value?.count ?? 0) > 3 }.keys.sorted()
        require(left.isEmpty, "instances \(left) still carry our beacons after stop")
        return
    }
    let settle = kernel.clock + MGMTActuator.retryMilliseconds + 1
    for _ in 0..<32 {
        guard let at = session.machine.nextDeadline, at <= settle else { break }
        kernel.clock = max(kernel.clock, at)
        session.timerExpired()
        deliver()
    }
    kernel.clock = max(kernel.clock, settle)
    let plan = session.plan
    // Ours is what carries our UUID; another program's instances carry 02 01 06 only.
    let stale = kernel.instances.filter { !plan.instances.contains($0.key) && ($0.value?.count ?? 0) > 3 }.keys.sorted()
    require(stale.isEmpty, "instances \(stale) still carry beacons no longer ours")
    if session.machine.clock.isOff {
        let left = plan.instances.filter { kernel.instances[$0] != nil }
        require(left.isEmpty, "off phase, yet our instances \(left) are in the kernel")
        return
    }
    require(session.phase == .onAir, "not on air after the inputs stopped: \(session.phase)")
    for (i, instance) in plan.instances.enumerated() {
        let data = plan.beacons[i].frame.advertisingData
        require(kernel.instances[instance] == .some(.some(data)),
                "beacon \(i) (instance \(instance)) is not in the kernel with our data: \(String(describing: kernel.instances[instance]))")
    }
    do { try session.stop() } catch { require(false, "stop with every command succeeding failed: \(error)") }
    let left = plan.instances.filter { kernel.instances[$0] != nil }
    require(left.isEmpty, "our instances \(left) left after stop")
}

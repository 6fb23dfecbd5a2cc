// SPDX-License-Identifier: Apache-2.0
/// The sharing mode's session (`Session` over `MGMTActuator`): our beacons are kernel advertising
/// instances, added through MGMT on the control channel; the kernel rotates them with everyone
/// else's on the controller's instance.
public typealias SharedAdvertisingSession = Session<MGMTActuator>

/// The sharing mode's actuator and observer, under the same `SessionMachine` as raw HCI: MGMT events
/// become the machine's inputs, its effects are carried out with MGMT commands (`SharePlan`) through
/// an `MGMTCommandRunner`. So the schedule (`--duration`, `--cycle`), the retry and the health the
/// watchdog reads are the raw-HCI session's own. An off phase removes our instances (Remove
/// Advertising), the on phase adds them again; the stop removes ours only.
public final class MGMTActuator: SessionActuator {
    public private(set) var plan: SharePlan
    public let device: String
    public let runner: MGMTCommandRunner
    public static let retryMilliseconds: Int64 = 1000
    /// An Eddystone-TLM instance is re-added with fresh counts every 10 s: each re-add may restart the
    /// kernel's dwell on it, so a faster refresh could keep the kernel's rotation on the TLM.
    public static let telemetryMilliseconds: Int64 = 10_000
    /// Reads a TLM beacon's temperature source in 1/256 °C; nil: not measured (as raw HCI).
    public var readTemperature: (String) -> Int16? = { _ in nil }

    /// Add Advertising from the start (`--share-commands add-advertising`); nil: the extended pair where
    /// the kernel offers interval parameters, Add Advertising once it refuses them.
    private let pinnedMethod: SharePlan.Method?
    /// Instances that hold beacons no longer ours (a reload dropped them, or put the previous beacons
    /// back) whose Remove Advertising failed or is still to come: removed before the next re-add.
    private var orphans: [UInt8] = []
    /// The beacons a reload prepared, until the machine's `Effect.reload` (which chooses their instances).
    private var pendingReload: (beacons: [BeaconAdvertisement], dwellMilliseconds: Int)?
    /// The kernel's last answer to Read Advertising Features (its instances and their limit).
    private var lastFeatures: MGMTAdvertisingFeatures?

    public init(beacons: [BeaconAdvertisement], index: UInt16, device: String, dwellMilliseconds: Int, method pinnedMethod: SharePlan.Method? = nil,
                runner: MGMTCommandRunner) {
        self.pinnedMethod = pinnedMethod
        plan = SharePlan(index: index, beacons: beacons, instances: [], dwellMilliseconds: dwellMilliseconds, method: pinnedMethod ?? .extended)
        self.device = device
        self.runner = runner
    }

    /// Read Advertising Features and choose our instances; the machine chooses the commands: Add
    /// Advertising (`legacy`) when pinned or when the kernel offers no interval parameters.
    public func prepareStart(_ session: SharedAdvertisingSession) throws(SessionError) -> PlanRules {
        do throws(ShareError) {
            let features: MGMTAdvertisingFeatures
            do { features = try runner.readAdvertisingFeatures(index: plan.index) } catch { throw .mgmt(error) }
            lastFeatures = features
            guard let free = features.freeInstances(plan.beacons.count) else {
                throw .noFreeInstances(device: device, beacons: plan.beacons.count, maxInstances: features.maxInstances, inUse: features.instances)
            }
            // A TLM's first frame carries the temperature too (its counts are zero).
            var kiosk = KioskConfiguration(beacons: plan.beacons)
            _ = kiosk.refreshTelemetry(onAirMilliseconds: 0, uptimeMilliseconds: 0, sideBySide: false, temperature: readTemperature)
            plan = SharePlan(index: plan.index, beacons: kiosk.beacons, instances: free, durationSeconds: plan.durationSeconds, method: plan.method)
            return PlanRules(device: device, forced: pinnedMethod?.family,
                             families: features.supportedFlags.contains(.intervalParameters) ? [.extended, .legacy] : [.legacy],
                             beacons: plan.beacons.count)
        } catch { throw .shared(error) }
    }

    /// Adds every beacon with the commands of `choice` (saying first why: `refusal`, the extended
    /// pair's); the kernel refusing Add Extended Advertising Data with Invalid Parameters or Add
    /// Extended Advertising Parameters with Unknown Command is a family refusal.
    private func put(_ choice: PlanChoice, after refusal: PlanRefusal?, _ session: SharedAdvertisingSession) -> PlanRefusal? {
        if case let .familyDisallowed(.shared(.mgmt(.commandFailed(opcode, _, status))))? = refusal {
            session.log(.addAdvertisingFallback(opcode, status))
        }
        plan = plan.with(method: SharePlan.Method(choice.family))
        do throws(ShareError) {
            try removeOrphans()
            for i in plan.beacons.indices { try add(i) }
            return nil
        } catch {
            if plan.method == .extended, case let .mgmt(.commandFailed(opcode, _, status)) = error,
               (opcode == .addExtendedAdvertisingData && status == .invalidParameters)
                || (opcode == .addExtendedAdvertisingParameters && status == .unknownCommand) {
                return .familyDisallowed(.shared(error))
            }
            return .failed(.shared(error))
        }
    }

    /// Adds (or replaces) beacon `i` on its instance.
    func add(_ i: Int) throws(ShareError) {
        for command in plan.add(i) { do { try runner.run(command) } catch { throw .mgmt(error) } }
    }

    /// Remove Advertising of the orphans, in order; one already gone (Invalid Parameters) counts as removed.
    private func removeOrphans() throws(ShareError) {
        while let instance = orphans.first {
            try remove(.removeAdvertising(index: plan.index, instance: instance))
            orphans.removeFirst()
        }
    }

    /// Remove Advertising of our instances; one already gone (Invalid Parameters) counts as removed.
    func removeOurs() throws(ShareError) {
        for command in plan.stop { try remove(command) }
    }

    private func remove(_ command: MGMTCommand) throws(ShareError) {
        do { try runner.run(command) } catch .commandFailed(_, _, .invalidParameters) {} catch { throw .mgmt(error) }
    }

    public func perform(_ effect: SessionMachine.Effect, _ session: SharedAdvertisingSession) -> [SessionMachine.Input] {
        switch effect {
        case let .place(choice, refusal):
            return put(choice, after: refusal, session).map { [.planRefused(choice, $0)] } ?? [.placed]
        case let .rearm(cause, started, _, choice, refusal):
            return put(choice, after: refusal, session).map { [.planRefused(choice, $0)] } ?? [.rearmed(cause, started: started, rotationIndex: 0)]
        case .disableForCycle:
            do { try removeOurs() } catch {
                session.log(.offPhaseFailed(.shared(error), retryMilliseconds: session.policy.retryMilliseconds))
                return [.disableFailed]
            }
            return []
        case let .reload(method):
            guard let pending = pendingReload else { return [] }
            pendingReload = nil
            // Unregistered, the kernel cannot be asked: the instances are chosen from what it said last.
            let chosen: [UInt8]
            do { chosen = try instances(for: pending.beacons.count, keeping: plan.instances, ask: method != .offAir(removeOld: false)) } catch {
                return [.reloadRefused(.shared(error))]
            }
            let new = SharePlan(index: plan.index, beacons: pending.beacons, instances: chosen, dwellMilliseconds: pending.dwellMilliseconds,
                                method: plan.method)
            do throws(ShareError) {
                try reload(method, new, session)
                return [.reloaded]
            } catch {
                return [.reloadFailed(.shared(error))]
            }
        case .takeOffAir:
            do throws(ShareError) {
                try removeOurs()
                try removeOrphans()
                return [.takenOffAir]
            } catch { return [.stopFailed(.shared(error))] }
        case let .refreshTelemetry(onAir, uptime):
            // The kernel rotates our instances: one on air at a time.
            var kiosk = KioskConfiguration(beacons: plan.beacons)
            guard kiosk.refreshTelemetry(onAirMilliseconds: onAir, uptimeMilliseconds: uptime, sideBySide: false,
                                         temperature: readTemperature) else { return [] }
            let old = plan
            plan = plan.with(beacons: kiosk.beacons)
            do throws(ShareError) {
                for i in plan.beacons.indices where plan.beacons[i].frame.kind == .eddystoneTLM { try add(i) }
                return []
            } catch {
                plan = old
                return [.failed(.telemetryRefreshFailed, .shared(error))]
            }
        case .withdraw:
            try? removeOurs()   // the beacons added before the refusal
            return []
        case .handBackInstance, .rotate, .reenable:
            return []  // the kernel writes its own instances and rotates ours; no connection is ours to follow
        case let .note(.rearmed(cause, ms)):
            session.log(.readded(cause, milliseconds: ms))
            return []
        case let .note(note):
            session.log(.machine(note))
            return []
        }
    }

    /// One MGMT event as the machine's input; nil for anything else.
    public func input(for event: MGMTEvent, _ session: SharedAdvertisingSession) -> SessionMachine.Input? {
        guard event.index == plan.index, let kind = try? event.decoded() else { return nil }
        switch kind {
        case let .advertisingRemoved(instance) where plan.instances.contains(instance):
            return .instanceRemoved(instance)
        case .indexRemoved:
            session.log(.indexRemoved)
            return .deviceGone
        case .indexAdded:
            session.log(.indexAdded)
            return nil
        case let .newSettings(settings):
            // Index Added, then Powered: the device is back (the kernel forgot our instances with it).
            return settings.contains(.powered) ? .poweredOn : .poweredOff
        default:
            return nil
        }
    }

    public func takeKept() -> [MGMTEvent] { runner.takeUnrelated() }

    /// The new beacons (the TLM's counts kept); their instances are chosen when the machine says how
    /// the reload is carried out. Returns what changed.
    func prepareReload(_ beacons: [BeaconAdvertisement], dwellMilliseconds: Int, _ session: SharedAdvertisingSession) -> ReloadSummary {
        var kiosk = KioskConfiguration(beacons: beacons)
        kiosk.keepTelemetry(of: plan.beacons)
        session.policy.telemetryMilliseconds = kiosk.hasTelemetry ? Self.telemetryMilliseconds : nil
        pendingReload = (kiosk.beacons, dwellMilliseconds)
        return ReloadSummary(old: plan.beacons, new: kiosk.beacons, allUpdated: SharePlan.durationSeconds(dwellMilliseconds) != plan.durationSeconds)
    }

    /// Instances for `count` beacons: ours first, then the highest free ones (Read Advertising
    /// Features, or without `ask` its last answer: bluetoothd and btmgmt take the lowest).
    private func instances(for count: Int, keeping ours: [UInt8], ask: Bool) throws(ShareError) -> [UInt8] {
        let kept = Array(ours.prefix(count))
        guard count > kept.count else { return kept }
        var features = lastFeatures ?? MGMTAdvertisingFeatures(supportedFlags: [], maxInstances: 0, instances: [])
        if ask {
            do { features = try runner.readAdvertisingFeatures(index: plan.index) } catch { throw .mgmt(error) }
            lastFeatures = features
        }
        let taken = Set(features.instances).union(ours)
        let free = features.maxInstances == 0 ? [] : (1...features.maxInstances).reversed().filter { !taken.contains($0) }
        guard free.count >= count - kept.count else {
            throw .noFreeInstances(device: device, beacons: count, maxInstances: features.maxInstances, inUse: taken.sorted())
        }
        return kept + free.prefix(count - kept.count)
    }

    /// The plan becomes `new`: changed and added beacons (re)added (`.restart`: all of them) unless off
    /// air; the dropped beacons' instances removed also while the device is down or off by the schedule
    /// (the kernel keeps instances without a timeout through a power-off), not once it was unregistered
    /// (the kernel forgot them). On failure the previous plan is back, the instances only the new one
    /// took are removed, and the machine re-adds the previous beacons.
    private func reload(_ method: SessionMachine.ReloadMethod, _ new: SharePlan, _ session: SharedAdvertisingSession) throws(ShareError) {
        let old = plan
        plan = new
        let durationChanged = new.durationSeconds != old.durationSeconds
        // Unregistered, the kernel forgot every instance: nothing of the old plan to remove.
        let removesOld = method != .offAir(removeOld: false)
        if removesOld { orphans += old.instances.dropFirst(new.beacons.count) }
        do throws(ShareError) {
            if case .offAir = method {} else {
                for i in new.beacons.indices where method == .restart || i >= old.beacons.count || old.beacons[i] != new.beacons[i] || durationChanged {
                    try add(i)
                }
            }
            if removesOld { try removeOrphans() }
        } catch {
            orphans = orphans.filter { !old.instances.contains($0) } + new.instances.filter { !old.instances.contains($0) }
            plan = old
            throw error
        }
    }
}

extension Session where Mode == MGMTActuator {
    public convenience init(beacons: [BeaconAdvertisement], index: UInt16, device: String, dwellMilliseconds: Int, method: SharePlan.Method? = nil,
                            runner: MGMTCommandRunner, now: @escaping () -> Int64, log: @escaping (SessionNote) -> Void) {
        self.init(MGMTActuator(beacons: beacons, index: index, device: device, dwellMilliseconds: dwellMilliseconds, method: method, runner: runner),
                  now: now, log: log)
        policy.retryMilliseconds = MGMTActuator.retryMilliseconds
        policy.placementsSurvivePowerOff = true   // the kernel keeps instances without a timeout
        policy.telemetryMilliseconds = beacons.contains { $0.frame.kind == .eddystoneTLM } ? MGMTActuator.telemetryMilliseconds : nil
    }

    /// New beacons (`prepareReload`, `reload`); the machine decides when they go on air.
    public func reload(_ beacons: [BeaconAdvertisement], dwellMilliseconds: Int) throws(SessionError) -> ReloadSummary {
        let summary = mode.prepareReload(beacons, dwellMilliseconds: dwellMilliseconds, self)
        _ = try reload(inPlace: true)
        return summary
    }
}

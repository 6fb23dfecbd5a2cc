// SPDX-License-Identifier: Apache-2.0
/// The raw-HCI advertising session of a kiosk (`Session` over `RawHCIActuator`): desired state = the
/// beacons of a `KioskConfiguration`; the session puts them on air, keeps them there and takes them off.
public typealias AdvertisingSession = Session<RawHCIActuator>

/// Raw HCI's actuator and observer: carries the machine's effects out through an `HCICommandRunner`
/// with `KioskPlan`, and turns each packet into one input (what another program's command does to our
/// placements is read from the controller state model, `disruption`). So it runs the same against the
/// raw socket, a scripted controller and the behavioural one. The re-arm rules are the machine's
/// (`SessionPhase`, Docs/service.md); beacon-tx never powers a down device up itself.
public final class RawHCIActuator: SessionActuator {
    public internal(set) var configuration: KioskConfiguration {
        didSet { planCache = [:] }
    }
    public private(set) var caps: ControllerCapabilities
    public let device: String
    public private(set) var runner: HCICommandRunner
    /// The plan on air (or to re-arm); nil before the first start.
    public private(set) var plan: KioskPlan? {
        didSet { desiredCache = nil }
    }

    /// The other owner of a single legacy instance (the kernel's MGMT instances), as it last wrote
    /// it: written back by `stop` (`ForeignLegacyAdvertising`).
    public private(set) var foreignLegacy = ForeignLegacyAdvertising()
    /// The kernel's advertising instances (MGMT Read Advertising Features) when the pump could ask
    /// before `start`; nil = not known.
    public var kernelInstances: [UInt8]?
    /// The stop left blank data in the instance of the kernel's instances (`kernelInstances`): the
    /// pump asks the kernel to write them again (MGMT), which the session cannot do on HCI.
    public private(set) var needsKernelHandBack = false
    /// Reads a TLM beacon's temperature source (`Telemetry.temperatureSource`) in 1/256 °C; nil: not
    /// measured. The pump gives the reader; the core opens no file.
    public var readTemperature: (String) -> Int16? = { _ in nil }

    private var deviceID: UInt16?
    /// The desired state of the plan at one rotation index (the disruption rule reads it for every
    /// foreign command).
    private var desiredCache: (index: Int, state: ControllerAdvertisingState)?
    /// The random static address the beacons advertise from when the controller has no public
    /// address; fixed for the session, so a reload keeps it (`KioskConfiguration.ownRandomAddress`).
    public var ownRandomAddress: [UInt8]? { configuration.ownRandomAddress }
    private var cycleHandBackNoted = false
    /// The reload being carried out: its configuration, plan and update in place (worked out once),
    /// from `reload` until the machine's `Effect.reload`.
    private var pendingReload: (configuration: KioskConfiguration, plan: KioskPlan, inPlaceSteps: [PlannedCommand]?)?

    public init(configuration: KioskConfiguration, caps: ControllerCapabilities, device: String, deviceID: UInt16? = nil,
                ownRandomAddress: [UInt8]? = nil, runner: HCICommandRunner) {
        self.configuration = configuration
        self.configuration.ownRandomAddress = ownRandomAddress
        self.caps = caps
        self.device = device
        self.deviceID = deviceID ?? HCIDeviceInfo.id(fromName: device)
        self.runner = runner
    }

    /// An Eddystone-TLM's counts are written once a second (the most the specification's 0.1 s time
    /// counter and a scanner's ~1 Hz ranging need; one data write per TLM set).
    public static let telemetryMilliseconds: Int64 = 1000

    /// Command Complete/Status (other programs' commands finishing: disruptions), Hardware Error;
    /// with a connectable beacon also LE Meta (Advertising Set Terminated, Connection Complete) and
    /// Disconnection Complete. Without one, LE Meta stays out so another program's scanning does not
    /// wake the kiosk. Other programs' commands always (every disruption starts as one).
    public static func inputFilter(for configuration: KioskConfiguration) -> [EventCode] {
        [.commandComplete, .commandStatus, .hardwareError] + (configuration.beacons.contains { $0.options.connectable } ? [.leMeta, .disconnectionComplete] : [])
    }

    // MARK: the effects

    public func perform(_ effect: SessionMachine.Effect, _ session: AdvertisingSession) -> [SessionMachine.Input] {
        switch effect {
        case let .place(choice, refusal):
            // The start's configuration, or a restarting reload's new one (kept once on air).
            let previous = configuration
            if let pending = pendingReload { configuration = pending.configuration }
            if let refused = put(choice, after: refusal, session) {
                configuration = previous
                return [.planRefused(choice, refused)]
            }
            pendingReload = nil
            return adopted + [.placed]
        case let .rearm(cause, started, resume, choice, refusal):
            pendingReload = nil   // a re-arm puts the configuration kept back on air
            let resumable = plan?.rotationSteps.count ?? 0
            if let refused = put(choice, after: refusal, session) { return [.planRefused(choice, refused)] }
            var index = 0
            if resume > 0, let plan, plan.rotationSteps.count == resumable, resume < resumable {
                do { try runner.run(plan.rotationSteps[resume]) } catch { return [.failed(cause, .command(error))] }
                index = resume
            }
            return adopted + [.rearmed(cause, started: started, rotationIndex: index)]
        case let .withdraw(choice):
            if let refused = try? makePlan(choice) { Advertiser.stopBestEffort(refused, runner) }
            return []
        case let .rotate(to):
            guard let plan, plan.rotationSteps.indices.contains(to) else { return [] }
            do { try writeWhileAdvertising(plan.rotationSteps[to], plan, session) } catch { return [.failed(.rotationStepFailed, .command(error))] }
            return [.rotated(to: to)]
        case let .refreshTelemetry(onAir, uptime):
            guard let old = plan else { return [] }
            var new = configuration
            guard new.refreshTelemetry(onAirMilliseconds: onAir, uptimeMilliseconds: uptime, sideBySide: !old.layout.isRotation,
                                       temperature: readTemperature) else { return [] }
            do throws(SessionError) {
                let fresh: KioskPlan
                do { fresh = try KioskPlan(new, family: old.family, rotate: old.layout.isRotation) } catch { throw .plan(error) }
                do { for step in fresh.telemetrySteps(rotationIndex: session.machine.rotationIndex) { try writeWhileAdvertising(step, fresh, session) } } catch { throw .command(error) }
                // The plan is the same but for the TLM's data: no adoption, the rotation goes on.
                configuration = new
                plan = fresh
                return []
            } catch {
                return [.failed(.telemetryRefreshFailed, error)]
            }
        case let .reenable(handles, started):
            guard let plan else { return [] }
            do { try Advertiser.runAll(plan.reenable(plan.handles.filter(handles.contains)), runner) } catch { return [.failed(.connectionEnded, .command(error))] }
            return [.rearmed(.connectionEnded, started: started, rotationIndex: session.machine.rotationIndex)]
        case .disableForCycle:
            guard let plan else { return [] }
            do { try Advertiser.runAll(plan.disable(), runner) } catch {
                session.log(.offPhaseFailed(.command(error), retryMilliseconds: session.policy.retryMilliseconds))
                return [.disableFailed]
            }
            return []
        case let .reload(method):
            guard let pending = pendingReload else { return [] }
            pendingReload = nil
            guard let old = plan else { return [.reloaded] }
            do throws(SessionError) {
                switch method {
                case .inPlace:
                    guard let steps = pending.inPlaceSteps else { return [.reloaded] }
                    do { try Advertiser.runAll(steps, runner) } catch { throw .command(error) }
                    configuration = pending.configuration
                    plan = pending.plan
                    return adopted + [.reloaded]
                case .restart:
                    do { try Advertiser.runAll(old.stop, runner) } catch { throw .command(error) }
                    pendingReload = pending   // placed next (`Effect.place`)
                    return [.oldPlanStopped]
                case let .offAir(removeOld):
                    if removeOld { do { try Advertiser.runAll(old.stop, runner) } catch { throw .command(error) } }
                    configuration = pending.configuration
                    plan = pending.plan
                    return [.reloaded]
                }
            } catch {
                return [.reloadFailed(error)]
            }
        case .takeOffAir:
            guard let plan else { return [.takenOffAir] }
            do { try Advertiser.runAll(plan.stop, runner) } catch { return [.stopFailed(.command(error))] }
            return [.takenOffAir]
        case let .handBackInstance(stopping):
            guard plan?.family == .legacy else { return [] }
            defer { if !stopping { cycleHandBackNoted = true } }
            do { try handBack(noting: stopping || !cycleHandBackNoted, session) } catch {
                if stopping { return [.stopFailed(.command(error))] }
                session.log(.handBackFailed(error))
            }
            return []
        case let .note(note):
            session.log(.machine(note))
            return []
        }
    }

    // MARK: start

    /// A TLM's first frame carries the temperature too (its counts are zero); the machine chooses
    /// from the configuration's forced family, the families the controller offers and its sets.
    public func prepareStart(_ session: AdvertisingSession) throws(SessionError) -> PlanRules {
        _ = configuration.refreshTelemetry(onAirMilliseconds: 0, uptimeMilliseconds: 0, sideBySide: true, temperature: readTemperature)
        return rules(for: configuration)
    }

    func rules(for configuration: KioskConfiguration) -> PlanRules {
        PlanRules(device: device, forced: configuration.family, families: [.extended, .legacy].filter(caps.supports),
                  beacons: configuration.beacons.count, sets: caps.numberOfSupportedAdvertisingSets.map(Int.init))
    }

    /// Puts `choice` on air for `configuration`, saying first why (`refusal`: the previous choice's);
    /// returns the refusal, having undone what was sent (not after Command Disallowed: the controller
    /// took nothing). On air: the plan is `plan`.
    private func put(_ choice: PlanChoice, after refusal: PlanRefusal?, _ session: AdvertisingSession) -> PlanRefusal? {
        switch refusal {
        case let .familyDisallowed(e)?: if let e = e.hciError { session.log(.switchedFamily(e, to: choice.family)) }
        case let .familyNotImplemented(e)?:
            // Remembered for the controller's capabilities too (what reloads and `status` read).
            caps.drop(choice.family.other)
            if let e = e.hciError { session.log(.familyNotImplemented(e, using: choice.family)) }
        case .capacity?: session.log(.rotatingForCapacity(beacons: configuration.beacons.count, rotationMilliseconds: configuration.rotationMilliseconds))
        case .failed?, nil: break
        }
        let plan: KioskPlan
        do { plan = try makePlan(choice) } catch { return .failed(error) }
        // The controller's version rules, before anything is sent.
        if let floor = plan.instanceOptions.flatMap({ Advertiser.intervalFloorViolation(plan.family, $0, caps, device: device) }) {
            return .failed(.start(floor))
        }
        do { try Advertiser.runAll(plan.start, runner) } catch {
            guard case let .commandFailed(_, status) = error else { return .failed(.start(.command(error))) }
            if status != .commandDisallowed { Advertiser.undo(plan, after: error, runner) }
            switch status {
            case .commandDisallowed: return .familyDisallowed(.start(.command(error)))
            case .unknownHCICommand: return .familyNotImplemented(.start(.command(error)))
            case .memoryCapacityExceeded: return .capacity(.capacityExceeded(device: device, beacons: configuration.beacons.count, error))
            default: return .failed(.start(.command(error)))
            }
        }
        self.plan = plan
        return nil
    }

    /// Writes to an instance that is on air (the rotation's next data). Some controllers refuse such
    /// a write at times with Command Disallowed (noble/bleno #136, #157): then the instance is
    /// disabled, written and enabled again, at most `pausedWriteAttempts` times, and a refusal after
    /// that stands (the machine re-arms). Told once per run.
    private func writeWhileAdvertising(_ step: PlannedCommand, _ plan: KioskPlan, _ session: AdvertisingSession) throws(HCIError) {
        do { try runner.run(step) } catch {
            guard case .commandFailed(_, .commandDisallowed) = error else { throw error }
            if !pausedWriteNoted {
                pausedWriteNoted = true
                session.log(.writeDisallowedWhileAdvertising(error, attempts: Self.pausedWriteAttempts))
            }
            var refusal = error
            for _ in 0..<Self.pausedWriteAttempts {
                do { return try Advertiser.runAll(plan.disable() + [step] + plan.reenable(plan.handles), runner) } catch {
                    guard case .commandFailed(_, .commandDisallowed) = error else { throw error }
                    refusal = error
                }
            }
            throw refusal
        }
    }
    static let pausedWriteAttempts = 2
    private var pausedWriteNoted = false

    /// The plans of this configuration by family and layout: a re-arm builds none again.
    private func makePlan(_ choice: PlanChoice) throws(SessionError) -> KioskPlan {
        if let cached = planCache[choice] { return cached }
        let plan: KioskPlan
        do { plan = try KioskPlan(configuration, family: choice.family, rotate: choice.rotate) } catch { throw .plan(error) }
        planCache[choice] = plan
        return plan
    }
    private var planCache: [PlanChoice: KioskPlan] = [:]

    /// The plan on air now, as inputs; on a single legacy instance the kernel's instances (read
    /// before the start) are another owner that ours displaces.
    private var adopted: [SessionMachine.Input] {
        guard let plan else { return [] }
        let adoption = SessionMachine.Input.planAdopted(rotationLength: plan.rotationSteps.count, dwellMilliseconds: Int64(configuration.rotationMilliseconds))
        guard plan.family == .legacy, let ids = kernelInstances, !ids.isEmpty else { return [adoption] }
        return [adoption, .otherOwnerOfInstance(displacing: .kernelInstances(ids))]
    }

    /// `Effect.handBackInstance`. A write-back that fails before its data went in leaves blank data too
    /// (ours must not stay in the instance for the kernel to re-enable), then reports the failure.
    private func handBack(noting: Bool, _ session: AdvertisingSession) throws(HCIError) {
        if foreignLegacy.hasData {
            var dataWritten = false
            do {
                for step in foreignLegacy.restoreSteps {
                    try runner.run(step)
                    if step.command.opcode == .leSetAdvertisingData { dataWritten = true }
                }
            } catch {
                if !dataWritten { try? runner.run(ForeignLegacyAdvertising.blankData) }
                throw error
            }
            if noting { session.log(.handedBack(enabled: foreignLegacy.enabled == true)) }
        } else if !(kernelInstances ?? []).isEmpty || !foreignLegacy.isEmpty {
            try runner.run(ForeignLegacyAdvertising.blankData)
            needsKernelHandBack = !(kernelInstances ?? []).isEmpty
            if noting { session.log(.blankedInstance) }
        }
    }

    // MARK: the observer

    /// The packet as the machine's input; nil for anything else.
    public func input(for packet: ObservedPacket, _ session: AdvertisingSession) -> SessionMachine.Input? {
        switch packet {
        case let .observedCommand(command): return input(for: command, session.machine)
        case let .event(event): return input(for: event)
        }
    }

    public func takeKept() -> [ObservedPacket] { runner.takeUnrelatedInputs() }

    func attach(_ runner: HCICommandRunner, caps: ControllerCapabilities, deviceID: UInt16) {
        self.runner = runner
        self.caps = caps
        self.deviceID = deviceID
    }

    private func input(for event: HCIEvent) -> SessionMachine.Input? {
        if let si = StackInternalDeviceEvent(event) {
            guard si.deviceID == deviceID else { return nil }
            switch si.kind {
            case .down: return .poweredOff
            case .up: return .poweredOn
            case .unregistered: return .deviceGone
            default: return nil
            }
        }
        switch event.code {
        case .hardwareError:
            return .hardwareError(code: HardwareError(event)?.hardwareCode ?? 0)
        case .commandComplete, .commandStatus:
            guard let opcode = (try? CommandComplete(event))?.opcode ?? (try? CommandStatus(event))?.opcode else { return nil }
            return .commandCompleted(opcode)
        case .leMeta:
            guard let plan else { return nil }
            if let terminated = LEAdvertisingSetTerminated(event) {
                guard plan.handles.contains(terminated.advertisingHandle) else { return nil }
                return .connected(.set(terminated.advertisingHandle))
            } else if let connection = LEConnectionComplete(event) {
                // A central connected to what the controller advertised: a legacy connectable beacon stops.
                guard plan.family == .legacy, connection.status == .success, connection.isPeripheral,
                      plan.advertised.contains(where: { $0.options.connectable }) else { return nil }
                return .connected(.legacy)
            }
            return nil
        case .disconnectionComplete:
            return plan != nil ? .disconnected : nil
        default:
            return nil
        }
    }

    /// Another program's command: what it does to our placements (the controller state model), and
    /// whether it writes our single legacy instance (`ForeignLegacyAdvertising` records it for the
    /// hand-back): one input; the machine decides what matters in its phase.
    private func input(for command: HCICommand, _ machine: SessionMachine) -> SessionMachine.Input {
        var write: SessionMachine.InstanceWrite?
        if plan?.family == .legacy, foreignLegacy.record(command) {
            // Writing it is sharing it; enabling it (or not saying) is advertising on it too.
            write = LESetAdvertisingEnable(command)?.advertisingEnable != false ? .enables : .writes
        }
        return .commandSeen(command.opcode, disruption: plan.flatMap { disruption(command, $0, rotationIndex: machine.rotationIndex) },
                            advertising: CommandTable.advertisingEffect(command.opcode).map { $0 != .reset } ?? false, instanceWrite: write)
    }

    /// How `command` (sent by someone else) takes our advertising off air; nil when it leaves what
    /// our placements put on air as the plan wants it. One rule for every kind of command: applied
    /// to the desired state (`ControllerAdvertisingState`), does it change our placements? Whether
    /// the controller accepts it is not predicted: a re-arm after a refused command costs a few
    /// commands, a missed one costs the beacons.
    func disruption(_ command: HCICommand, _ plan: KioskPlan, rotationIndex: Int) -> Disruption? {
        let desired: ControllerAdvertisingState
        if let cached = desiredCache, cached.index == rotationIndex {
            desired = cached.state
        } else {
            desired = plan.desiredState(rotationIndex: rotationIndex)
            desiredCache = (rotationIndex, desired)
        }
        var after = desired
        after.apply(command)
        guard after.onAir(plan.placements) != desired.onAir(plan.placements) else { return nil }
        return Disruption(command, plan)
    }

    // MARK: reload

    /// The reload worked out before the machine is asked: the candidate plan and the update in place
    /// (nil: not possible); nil when nothing was ever on air (the caller starts afresh).
    func prepareReload(_ new: KioskConfiguration, _ session: AdvertisingSession) throws(SessionError)
        -> (old: [BeaconAdvertisement], new: [BeaconAdvertisement], inPlace: Bool, rules: PlanRules)? {
        var new = new
        new.ownRandomAddress = ownRandomAddress
        new.keepTelemetry(of: configuration.beacons)
        session.policy.telemetryMilliseconds = new.hasTelemetry ? Self.telemetryMilliseconds : nil
        guard let old = plan else {
            configuration = new
            return nil
        }
        let family = new.family ?? old.family
        let rotate = old.layout.isRotation && new.beacons.count > 1
        let candidate: KioskPlan
        do { candidate = try KioskPlan(new, family: family, rotate: rotate) } catch { throw .plan(error) }
        // The update in place, worked out once: the machine decides whether it is used.
        let steps = new.family == configuration.family ? old.update(to: candidate) : nil
        pendingReload = (new, candidate, steps)
        return (old.configuration.beacons, new.beacons, steps != nil, rules(for: new))
    }
}

extension Session where Mode == RawHCIActuator {
    public convenience init(configuration: KioskConfiguration, caps: ControllerCapabilities, device: String, deviceID: UInt16? = nil,
                            ownRandomAddress: [UInt8]? = nil,
                            runner: HCICommandRunner, now: @escaping () -> Int64, log: @escaping (SessionNote) -> Void) {
        self.init(RawHCIActuator(configuration: configuration, caps: caps, device: device, deviceID: deviceID,
                                 ownRandomAddress: ownRandomAddress, runner: runner), now: now, log: log)
        policy.telemetryMilliseconds = configuration.hasTelemetry ? RawHCIActuator.telemetryMilliseconds : nil
    }

    /// A new runner after the device came back (unregistered, then registered again).
    public func attach(_ runner: HCICommandRunner, caps: ControllerCapabilities, deviceID: UInt16) {
        mode.attach(runner, caps: caps, deviceID: deviceID)
        dropKept()
        send(.deviceBack)
    }

    /// Applies a new desired state the way the machine decides (`ReloadMethod`); on failure the old
    /// beacons are put back.
    public func reload(_ new: KioskConfiguration) throws(SessionError) -> ReloadSummary {
        guard let prepared = try mode.prepareReload(new, self) else {
            try start()
            return ReloadSummary(added: new.beacons.count, restarted: true)
        }
        let method = try reload(inPlace: prepared.inPlace, rules: prepared.rules)
        return ReloadSummary(old: prepared.old.map(\.onAirShape), new: prepared.new.map(\.onAirShape), restarted: method == .restart)
    }
}

/// Memory Capacity Exceeded: no free advertising set (Core spec Vol 1, Part F, §2.7).
extension Status {
    public static let memoryCapacityExceeded = Status(rawValue: 0x07)
}

extension LEMetaSubevent {
    /// LE Enhanced Connection Complete (§7.7.65.10).
    public static let enhancedConnectionComplete = LEMetaSubevent(rawValue: 0x0A)
    /// LE Advertising Set Terminated (§7.7.65.18): Status, Advertising_Handle, Connection_Handle,
    /// Num_Completed_Extended_Advertising_Events.
    public static let advertisingSetTerminated = LEMetaSubevent(rawValue: 0x12)
}

/// What the pump hands the session: a packet from the controller or the kernel.
public enum SessionInput: Hashable, Sendable {
    /// An event: Command Complete/Status of another program's command, Hardware Error, LE Meta,
    /// Disconnection Complete, or the kernel's stack-internal device event (up, down, unregistered).
    case event(HCIEvent)
    /// A command that another program or the kernel sent to the controller (the kernel copies it to
    /// raw sockets whose filter admits command packets).
    case observedCommand(HCICommand)
}

/// Where the session stands.
public enum KioskState: Hashable, Sendable {
    /// Before `start`.
    case idle
    /// Every beacon is on air.
    case onAir
    /// Off air for a reason beacon-tx waits out (device down, reset in progress, a retry pending).
    case waiting(String)
    /// The controller was unregistered (unplugged): the pump must find it again and `attach` a runner.
    case deviceGone
    /// Off by the schedule (`--cycle`): disabled on the controller until the next on phase.
    case off(String)
    /// After `stop`.
    case stopped
}

/// When the beacons are on air: a total duration and an on/off cycle (iOS enter/exit tests).
public struct AdvertisingSchedule: Hashable, Sendable {
    /// Stop after this long (ms); nil = until a signal.
    public var durationMilliseconds: Int64?
    public var cycle: Cycle?

    public struct Cycle: Hashable, Sendable {
        public var onMilliseconds: Int64
        public var offMilliseconds: Int64
        /// On/off pairs before the session ends; nil = forever.
        public var count: Int?

        public init(onMilliseconds: Int64, offMilliseconds: Int64, count: Int? = nil) {
            self.onMilliseconds = onMilliseconds
            self.offMilliseconds = offMilliseconds
            self.count = count
        }
    }

    public init(durationMilliseconds: Int64? = nil, cycle: Cycle? = nil) {
        self.durationMilliseconds = durationMilliseconds
        self.cycle = cycle
    }

    public var isEmpty: Bool { durationMilliseconds == nil && cycle == nil }

    /// The phase changes from the start, in ms: `(at, on)`; the last entry with `on == false` and no
    /// following entry ends the session (also at `durationMilliseconds`). At most `limit` entries.
    public func phases(limit: Int = 64) -> [(at: Int64, on: Bool)] {
        guard let cycle else { return [] }
        var out: [(at: Int64, on: Bool)] = []
        var t: Int64 = 0
        var pairs = 0
        while out.count < limit {
            t += cycle.onMilliseconds
            out.append((t, false))
            pairs += 1
            if let count = cycle.count, pairs >= count { break }
            t += cycle.offMilliseconds
            out.append((t, true))
        }
        return out
    }
}

/// The advertising session of a kiosk: desired state = the beacons of a `KioskConfiguration`; the
/// session puts them on air, keeps them there and takes them off.
///
/// It is fed packets (`handle`) and time (`timerExpired` when `nextDeadline` has passed) and sends
/// commands through an `HCICommandRunner`, so it runs the same against the raw socket and against a
/// scripted controller. It owns start, re-arm, rotation, reload and stop; the CLI only pumps.
///
/// Re-arm rules (what beacon-tx fights, what it respects):
/// - another program's HCI Reset, "Disable all sets", a disable or removal of one of our sets, LE
///   Clear Advertising Sets, or a legacy disable while we are legacy: re-armed once the command has
///   completed and `settleMilliseconds` passed without the device going down;
/// - device down (power off by an administrator, rfkill, bluetoothd stopping): respected; nothing is
///   sent until the kernel reports the device up again (beacon-tx never brings it up itself);
/// - device up: re-armed at once;
/// - Hardware Error: waits for the kernel's down/up; re-arms after `hardwareErrorGraceMilliseconds`
///   if that does not come;
/// - a connection that ended a connectable beacon: re-enabled after the Disconnection Complete.
/// A failed re-arm is retried every `retryMilliseconds`.
public final class AdvertisingSession {
    public private(set) var configuration: KioskConfiguration
    public private(set) var caps: ControllerCapabilities
    public let device: String
    public private(set) var runner: HCICommandRunner
    /// The plan on air (or to re-arm); nil before the first start.
    public private(set) var plan: KioskPlan?
    public private(set) var state: KioskState = .idle {
        didSet { if state != oldValue { onStateChange?(state) } }
    }
    /// The last re-arm: why and when (monotonic ms).
    public private(set) var lastRearm: (reason: String, at: Int64)?
    /// How many re-arms succeeded.
    public private(set) var rearmCount = 0
    /// How many re-arm attempts failed (each is retried after `retryMilliseconds`); a device found
    /// down meanwhile is waited for, not counted.
    public private(set) var failedRearmCount = 0
    /// How many rotation swaps were sent.
    public private(set) var rotationSwaps = 0
    /// Index of the beacon whose data is on air in a rotation.
    public private(set) var rotationIndex = 0

    /// Duration and on/off cycle; empty = on air until stopped.
    public var schedule = AdvertisingSchedule()
    /// The schedule has run out (duration passed, or the last cycle ended): the pump stops and exits 0.
    public private(set) var finished = false
    /// How many scheduled on/off switches were sent.
    public private(set) var phaseSwitches = 0
    private var endAt: Int64?
    private var phaseAt: Int64?
    private var cycleOff = false
    private var pairsDone = 0

    /// The other owner of a single legacy instance (the kernel's MGMT instances), as it last wrote
    /// it: written back by `stop` (`ForeignLegacyAdvertising`).
    public private(set) var foreignLegacy = ForeignLegacyAdvertising()
    /// The kernel's advertising instances (MGMT Read Advertising Features) when the pump could ask
    /// before `start`; nil = not known.
    public var kernelInstances: [UInt8]?
    /// When to stop fighting another owner of the instance (`FightBudget`).
    public var fightBudget = FightBudget()
    /// Yielded to another owner: not re-arming until it is quiet (`FightBudget`).
    public private(set) var isYielding = false
    /// How many times the session yielded.
    public private(set) var yieldCount = 0
    /// Said once when beacon-tx displaces another owner's advertising on a single instance (start
    /// log, systemd STATUS); nil while nobody is displaced.
    public private(set) var displacementNote: String?
    /// Whose advertising that is ("the kernel's advertising instance 1", "another owner's
    /// advertising"), for the systemd STATUS.
    public private(set) var displacedOwner: String?
    private var takeoverPending = false
    /// The stop left blank data in the instance of the kernel's instances (`kernelInstances`): the
    /// pump asks the kernel to write them again (MGMT), which the session cannot do on HCI.
    public private(set) var needsKernelHandBack = false

    public var settleMilliseconds: Int64 = 250
    public var hardwareErrorGraceMilliseconds: Int64 = 3000
    public var retryMilliseconds: Int64 = 1000

    /// Notes for the operator (stderr).
    public var log: (String) -> Void
    /// Called on every state change (sd_notify STATUS, state file).
    public var onStateChange: ((KioskState) -> Void)?

    private let now: () -> Int64
    private var nextRotationAt: Int64?
    private var rearmAt: Int64?
    private var rearmReason = ""
    /// The kernel reported the device down and nothing has re-armed since: nothing can be on air, and
    /// nothing is sent until it is up again.
    private var deviceDown = false
    /// When the event that started the current re-arm arrived (for "back on air N ms after it").
    private var triggeredAt: Int64?
    /// Another program's command that will take our beacons off air once it completes.
    private var pendingDisruption: (opcode: Opcode, reason: String)?
    /// Sets a connection ended; re-enabled after the disconnection.
    private var terminatedHandles: Set<UInt8> = []
    private var legacyConnected = false
    private var deviceID: UInt16?

    public init(configuration: KioskConfiguration, caps: ControllerCapabilities, device: String, deviceID: UInt16? = nil,
                runner: HCICommandRunner, now: @escaping () -> Int64, log: @escaping (String) -> Void) {
        self.configuration = configuration
        self.caps = caps
        self.device = device
        self.deviceID = deviceID ?? HCIDeviceInfo.id(fromName: device)
        self.runner = runner
        self.now = now
        self.log = log
    }

    /// What a session needs to hear: the HCI events it reacts to, and whether other programs'
    /// commands are copied to it. The session declares it; the pump installs it on the channel.
    public struct InputFilter: Hashable, Sendable {
        public var events: [EventCode]
        public var observesCommands: Bool
    }

    /// Command Complete/Status (other programs' commands finishing: disruptions), Hardware Error;
    /// with a connectable beacon also LE Meta (Advertising Set Terminated, Connection Complete) and
    /// Disconnection Complete. Without one, LE Meta stays out so another program's scanning does not
    /// wake the kiosk. Other programs' commands always (every disruption starts as one).
    public static func inputFilter(for configuration: KioskConfiguration) -> InputFilter {
        let connectable = configuration.beacons.contains { $0.options.connectable }
        return InputFilter(events: [.commandComplete, .commandStatus, .hardwareError] + (connectable ? [.leMeta, .disconnectionComplete] : []),
                           observesCommands: true)
    }

    /// When the pump must call `timerExpired` (monotonic ms); nil = no timer (an idle kiosk sleeps).
    public var nextDeadline: Int64? {
        [nextRotationAt, rearmAt, phaseAt, endAt].compactMap { $0 }.min()
    }

    /// Whether the beacons are on air or expected back within the re-arm budget (for a watchdog).
    public var isHealthy: Bool {
        switch state {
        case .onAir, .off: return true
        case .waiting: return rearmAt != nil
        default: return false
        }
    }

    // MARK: start and stop

    /// Puts every beacon on air: chooses the family (auto = extended when supported), gives each beacon
    /// its own set, falls back to rotation when the controller has too few free sets (Memory Capacity
    /// Exceeded), and switches family once on Command Disallowed. Leaves nothing half-done on failure.
    public func start() throws(SessionError) {
        let family: AdvertisingFamily
        do { family = try Advertiser.chooseFamily(configuration.family, caps, device: device) } catch { throw .start(error) }
        try putOnAir(family: family)
        if plan?.family == .legacy, let ids = kernelInstances, !ids.isEmpty {
            noteDisplacement("the kernel's advertising instance\(ids.count == 1 ? "" : "s") \(ids.map(String.init).joined(separator: ", "))",
                             plural: ids.count > 1)
        }
        state = .onAir
        let t = now()
        endAt = schedule.durationMilliseconds.map { t + $0 }
        phaseAt = schedule.cycle.map { t + $0.onMilliseconds }
    }

    private func putOnAir(family: AdvertisingFamily) throws(SessionError) {
        let fewSets = caps.numberOfSupportedAdvertisingSets.map { Int($0) < configuration.beacons.count } ?? false
        var rotate = fewSets
        while true {
            let first = try makePlan(family, rotate: rotate)
            // The controller's version rules, before anything is sent.
            if let floor = floorViolation(first) { throw .start(floor) }
            // Only `auto` switches family; a forced family that meets Command Disallowed is an error.
            var fallback: KioskPlan? = configuration.family == nil && caps.supports(family.other)
                ? try makePlan(family.other, rotate: rotate) : nil
            var fallbackFloor: StartError?
            if let f = fallback, let floor = floorViolation(f) {
                fallbackFloor = floor
                fallback = nil
            }
            do {
                let used = try Advertiser.startSwitchingOnce(runner, first, fallback: fallback) { error in
                    self.log("\(self.device): \(error); the controller is in \(family.other) advertising mode, switching to \(family.other) commands")
                }
                adopt(used)
                return
            } catch {
                if case let .refused(e) = error, case .commandFailed(_, .commandDisallowed) = e {
                    if let fallbackFloor { throw .start(fallbackFloor) }
                    if let forced = configuration.family { throw .start(.forcedFamilyDisallowed(forced, device: device, e)) }
                }
                if case .refused(.commandFailed(_, .memoryCapacityExceeded)) = error, !rotate, configuration.beacons.count > 1 {
                    log("\(device): no free advertising set for each of \(configuration.beacons.count) beacons (Memory Capacity Exceeded); rotating them on one set every \(configuration.rotationMilliseconds) ms")
                    rotate = true
                    continue
                }
                switch error {
                case let .refused(e):
                    if case .commandFailed(_, .memoryCapacityExceeded) = e { throw .capacityExceeded(device: device, beacons: configuration.beacons.count, e) }
                    throw .start(.command(e))
                case let .bothDisallowed(first, second):
                    throw .start(.bothFamiliesDisallowed(device: device, first: first, second: second))
                }
            }
        }
    }

    private func floorViolation(_ plan: KioskPlan) -> StartError? {
        plan.instanceOptions.flatMap { Advertiser.intervalFloorViolation(plan.family, $0, caps, device: device) }
    }

    private func makePlan(_ family: AdvertisingFamily, rotate: Bool) throws(SessionError) -> KioskPlan {
        do { return try KioskPlan(configuration, family: family, rotate: rotate) } catch { throw .plan(error) }
    }

    private func adopt(_ used: KioskPlan) {
        plan = used
        terminatedHandles = []
        legacyConnected = false
        if used.rotationSteps.isEmpty {
            nextRotationAt = nil
        } else {
            rotationIndex = 0
            nextRotationAt = now() + Int64(configuration.rotationMilliseconds)
        }
    }

    /// Takes every beacon off air (disable, remove our sets) and ends the session.
    public func stop() throws(HCIError) {
        defer {
            state = .stopped
            nextRotationAt = nil
            rearmAt = nil
        }
        guard let plan, state != .deviceGone else { return }
        if isDown { return }  // nothing can be on air
        // Yielded on a single instance: it is the other owner's now, as it wrote it itself (on air,
        // the kernel's cache right), nothing of ours is on air: nothing to stop or give back.
        if isYielding && plan.family == .legacy { return }
        for step in plan.stop { try runner.run(step) }
        if plan.family == .legacy { try handBack() }
    }

    /// After the stop plan on a shared single instance: the other owner's advertising as it had it
    /// (no ghost of ours when the kernel re-enables it, and its own advertisement back on air), or,
    /// when its data is unknown, blank data so that no beacon of ours comes back.
    private func handBack() throws(HCIError) {
        if foreignLegacy.hasData {
            for step in foreignLegacy.restoreSteps { try runner.run(step) }
            log("\(device): the advertising instance is handed back as its other owner last wrote it (data, parameters\(foreignLegacy.enabled == true ? ", enabled" : ""))")
        } else if !(kernelInstances ?? []).isEmpty || !foreignLegacy.isEmpty {
            try runner.run(ForeignLegacyAdvertising.blankData)
            needsKernelHandBack = !(kernelInstances ?? []).isEmpty
            log("\(device): the other owner's advertising data was written before beacon-tx started; blank data is left in the instance so that no beacon stays on air when the kernel re-enables it")
        }
    }

    private func noteDisplacement(_ whose: String, plural: Bool = false) {
        guard displacementNote == nil else { return }
        let note = "\(device) has one advertising instance and \(whose) use\(plural ? "" : "s") it too: beacon-tx takes it over, so that advertising is off air while beacon-tx runs (to share the instance, use --share)"
        displacementNote = note
        displacedOwner = whose.hasPrefix("another owner") ? "another owner's advertising" : whose
        log(note)
    }

    // MARK: events

    /// One packet from the pump. Never throws: what goes wrong is logged and retried.
    public func handle(_ input: SessionInput) {
        guard state != .stopped, state != .idle else { return }
        switch input {
        case let .observedCommand(command):
            observe(command)
        case let .event(event):
            handle(event)
        }
        drainRunner()
    }

    /// The deadline passed: rotate, re-arm, switch the cycle's phase, or finish.
    public func timerExpired() {
        let t = now()
        if let at = endAt, at <= t {
            endAt = nil
            phaseAt = nil
            finished = true
            log(schedule.cycle?.count != nil && (pairsDone >= (schedule.cycle?.count ?? 0))
                ? "the last cycle is over" : "the scheduled \(Milliseconds.seconds(schedule.durationMilliseconds ?? 0)) s are over")
            return
        }
        if let at = phaseAt, at <= t {
            switchPhase(at: at)
        }
        if let at = rearmAt, at <= t {
            rearmAt = nil
            rearm(rearmReason)
        }
        if let at = nextRotationAt, at <= t, state == .onAir {
            rotate(at: t)
        }
        drainRunner()
    }

    /// A new runner after the device came back (unregistered, then registered again).
    public func attach(_ runner: HCICommandRunner, caps: ControllerCapabilities, deviceID: UInt16) {
        self.runner = runner
        self.caps = caps
        self.deviceID = deviceID
        rearm("\(device) returned")
        drainRunner()
    }

    private func handle(_ event: HCIEvent) {
        if let si = StackInternalDeviceEvent(event) {
            guard si.deviceID == deviceID else { return }
            switch si.kind {
            case .down where cycleOff:
                // Off by the schedule anyway: the next on phase runs the whole start plan (and waits
                // for the device if it is still down then). The session stays off, and healthy.
                deviceDown = true
            case .up where cycleOff:
                deviceDown = false
            case .down:
                triggeredAt = nil
                pendingDisruption = nil
                rearmAt = nil
                nextRotationAt = nil
                rearmReason = "\(device) down"
                deviceDown = true
                takeoverPending = false
                state = .waiting("\(device) down; waiting to re-arm")
            case .up:
                rearm("\(device) up again")
            case .unregistered:
                pendingDisruption = nil
                rearmAt = nil
                nextRotationAt = nil
                state = .deviceGone
            default:
                break
            }
            return
        }
        switch event.code {
        case .hardwareError:
            let code = HardwareError(event)?.hardwareCode ?? 0
            schedule("Hardware Error (code \(Hex.byte(code)))", after: hardwareErrorGraceMilliseconds,
                     waiting: "\(device) reported a Hardware Error; waiting for the kernel to reset it")
        case .commandComplete, .commandStatus:
            guard let pending = pendingDisruption else { return }
            let opcode = (try? CommandComplete(event))?.opcode ?? (try? CommandStatus(event))?.opcode
            if opcode == pending.opcode {
                pendingDisruption = nil
                schedule(pending.reason, after: settleMilliseconds, waiting: "\(pending.reason); re-arming")
            }
        case .leMeta:
            leMeta(event)
        case .disconnectionComplete:
            reenableAfterDisconnection()
        default:
            break
        }
    }

    private func leMeta(_ event: HCIEvent) {
        guard let plan else { return }
        if let terminated = LEAdvertisingSetTerminated(event) {
            let handle = terminated.advertisingHandle
            guard plan.handles.contains(handle) else { return }
            terminatedHandles.insert(handle)
            state = .waiting("a connection ended advertising set \(handle); re-enabling after the disconnection")
        } else if let connection = LEConnectionComplete(event) {
            // A central connected to what the controller advertised: a legacy connectable beacon stops.
            guard plan.family == .legacy, connection.status == .success, connection.isPeripheral,
                  plan.advertised.contains(where: { $0.options.connectable }) else { return }
            legacyConnected = true
            state = .waiting("a central connected; re-enabling after the disconnection")
        }
    }

    private func reenableAfterDisconnection() {
        guard let plan, !terminatedHandles.isEmpty || legacyConnected else { return }
        let handles = plan.handles.filter(terminatedHandles.contains)
        terminatedHandles = []
        legacyConnected = false
        let started = now()
        do {
            for step in plan.reenable(handles) { try runner.run(step) }
            noteRearmed("a connection ended", started: started)
        } catch {
            rearmFailed("a connection ended", .command(error))
        }
    }

    /// Another program's command: does it take our beacons off air?
    private func observe(_ command: HCICommand) {
        if plan?.family == .legacy, foreignLegacy.record(command), LESetAdvertisingEnable(command)?.advertisingEnable != false {
            noteDisplacement("another owner (the kernel's advertising instances: bluetoothd, bluetoothctl advertise, btmgmt add-adv)")
        }
        if isYielding {
            // Yielded: every advertising command of the other owner pushes the quiet period back.
            if Self.isAdvertisingCommand(command) { rearmAt = now() + fightBudget.quietMilliseconds }
            return
        }
        guard !cycleOff, let plan, let cause = disruption(command, plan) else { return }
        guard !isDown else { return }
        let reason = cause.text(device: device)
        takeoverPending = command.opcode != .reset
        pendingDisruption = (command.opcode, reason)
        // If the completion never reaches us, re-arm anyway.
        schedule(reason, after: settleMilliseconds * 4, waiting: "\(reason); re-arming")
    }

    private var isDown: Bool {
        if case .waiting = state, deviceDown { return true }
        return state == .deviceGone
    }

    /// How `command` (sent by someone else) takes our advertising off air; nil when it leaves what
    /// our placements put on air as the plan wants it. One rule for every kind of command: applied
    /// to the desired state (`ControllerAdvertisingState`), does it change our placements? Whether
    /// the controller accepts it is not predicted: a re-arm after a refused command costs a few
    /// commands, a missed one costs the beacons.
    func disruption(_ command: HCICommand, _ plan: KioskPlan) -> Disruption? {
        let desired = plan.desiredState(rotationIndex: rotationIndex)
        var after = desired
        after.apply(command)
        guard after.onAir(plan.placements) != desired.onAir(plan.placements) else { return nil }
        return Disruption(command, plan)
    }

    /// A re-arm already pending keeps its first state (one log line for, say, a power-off's disable
    /// and clear): the later command only moves the re-arm and its reason.
    private func schedule(_ reason: String, after delay: Int64, waiting: String) {
        if triggeredAt == nil { triggeredAt = now() }
        let pending = rearmAt != nil && !deviceDown
        rearmReason = reason
        deviceDown = false
        rearmAt = now() + delay
        nextRotationAt = nil
        if !pending { state = .waiting(waiting) }
    }

    // MARK: schedule

    /// On → off: every beacon disabled on the controller (a phone sees the region empty); off → on:
    /// the whole start plan again (whatever happened meanwhile, the beacons come back as configured).
    private func switchPhase(at scheduled: Int64) {
        guard let cycle = schedule.cycle, let plan else { return }
        if !cycleOff {
            pairsDone += 1
            cycleOff = true
            nextRotationAt = nil
            rearmAt = nil
            pendingDisruption = nil
            do {
                for step in plan.disable() { try runner.run(step) }
            } catch {
                log("cycle: disabling failed: \(error)")
            }
            phaseSwitches += 1
            if let count = cycle.count, pairsDone >= count {
                // The last on phase is over: the session ends after the final off phase.
                phaseAt = nil
                endAt = min(endAt ?? .max, scheduled + cycle.offMilliseconds)
            } else {
                phaseAt = scheduled + cycle.offMilliseconds
            }
            state = .off("cycle: off for \(Milliseconds.seconds(cycle.offMilliseconds)) s (\(pairsDone)\(cycle.count.map { " of \($0)" } ?? ""))")
        } else {
            cycleOff = false
            phaseAt = scheduled + cycle.onMilliseconds
            phaseSwitches += 1
            rearm("cycle: on for \(Milliseconds.seconds(cycle.onMilliseconds)) s")
        }
    }

    // MARK: re-arm and rotation

    /// Runs the whole start plan again (the family may switch once; capacity may force rotation).
    private func rearm(_ reason: String) {
        guard state != .stopped else { return }
        if cycleOff {
            // Off by the schedule: the next on phase runs the whole start plan anyway.
            rearmAt = nil
            pendingDisruption = nil
            return
        }
        let takeover = takeoverPending
        takeoverPending = false
        if takeover, fightBudget.noteTakeover(at: now()) {
            yieldInstance(after: reason)
            return
        }
        if isYielding {
            isYielding = false
            fightBudget.reset()
        }
        rearmReason = reason
        deviceDown = false
        rearmAt = nil
        pendingDisruption = nil
        let family = plan?.family ?? configuration.family ?? caps.preferredAdvertisingFamily ?? .legacy
        let started = triggeredAt ?? now()
        // A rotation resumes with the beacon that was on air, not with the first one: repeated
        // disruptions (another owner of a single instance) must not starve the later beacons.
        let resume = plan == nil ? nil : rotationIndex
        let rotationLength = plan?.rotationSteps.count ?? 0
        do throws(SessionError) {
            try putOnAir(family: family)
            if let resume, resume > 0, let plan, plan.rotationSteps.count == rotationLength, resume < rotationLength {
                do { try runner.run(plan.rotationSteps[resume]) } catch { throw .command(error) }
                rotationIndex = resume
            }
            noteRearmed(reason, started: started)
        } catch {
            rearmFailed(reason, error)
        }
    }

    /// The fight budget is spent: no re-arm until the other owner is quiet (or SIGHUP, or device up).
    private func yieldInstance(after reason: String) {
        isYielding = true
        yieldCount += 1
        triggeredAt = nil
        pendingDisruption = nil
        nextRotationAt = nil
        deviceDown = false
        let quiet = Milliseconds.seconds(fightBudget.quietMilliseconds)
        rearmReason = "the other owner of the advertising instance was quiet for \(quiet) s"
        rearmAt = now() + fightBudget.quietMilliseconds
        state = .waiting("another program took over \(device)'s advertising \(fightBudget.recent.count) times in \(Milliseconds.seconds(fightBudget.windowMilliseconds)) s (last: \(reason)); yielding: not re-arming until it is quiet for \(quiet) s (SIGHUP re-arms now; --share shares the instance)")
    }

    static func isAdvertisingCommand(_ command: HCICommand) -> Bool {
        switch command.opcode {
        case .leSetRandomAddress, .leSetAdvertisingParameters, .leSetAdvertisingData, .leSetScanResponseData, .leSetAdvertisingEnable,
             .leSetExtendedAdvertisingParameters, .leSetExtendedAdvertisingData, .leSetExtendedScanResponseData,
             .leSetExtendedAdvertisingEnable, .leSetAdvertisingSetRandomAddress, .leRemoveAdvertisingSet, .leClearAdvertisingSets:
            return true
        default:
            return false
        }
    }

    private func noteRearmed(_ reason: String, started: Int64) {
        triggeredAt = nil
        let t = now()
        lastRearm = (reason, t)
        rearmCount += 1
        state = .onAir
        log("re-armed \(configuration.beacons.count) beacon(s) on \(device) after: \(reason) (on air \(t - started) ms after the event)")
    }

    private func rearmFailed(_ reason: String, _ error: SessionError) {
        if case let .transport(t)? = error.hciError {
            if case .deviceDown = t {
                rearmReason = "\(device) down"
                deviceDown = true
                state = .waiting("\(device) down; waiting to re-arm")
                return
            }
        }
        failedRearmCount += 1
        log("re-arm after \(reason) failed: \(error); retrying in \(retryMilliseconds) ms")
        rearmReason = reason
        deviceDown = false
        rearmAt = now() + retryMilliseconds
        state = .waiting("re-arm failed (\(error)); retrying")
    }

    private func rotate(at t: Int64) {
        guard let plan, !plan.rotationSteps.isEmpty else { return }
        let next = (rotationIndex + 1) % plan.rotationSteps.count
        do {
            try runner.run(plan.rotationSteps[next])
            rotationIndex = next
            rotationSwaps += 1
            // Keep the cadence: the next swap is one dwell after the scheduled one, not after now.
            let scheduled = (nextRotationAt ?? t) + Int64(configuration.rotationMilliseconds)
            nextRotationAt = scheduled > t ? scheduled : t + Int64(configuration.rotationMilliseconds)
        } catch {
            rearmFailed("rotation step failed", SessionError.command(error))
        }
    }

    /// Events the runner kept while waiting for our own answers (another program's commands and
    /// their completions, device events) are handled in arrival order.
    private func drainRunner() {
        var rounds = 0
        while rounds < 64 {
            let inputs = runner.takeUnrelatedInputs()
            guard !inputs.isEmpty else { return }
            rounds += 1
            for input in inputs {
                switch input {
                case let .observedCommand(c): observe(c)
                case let .event(e): handle(e)
                }
            }
        }
    }

    // MARK: reload

    /// What a reload changed.
    public struct ReloadSummary: Hashable, Sendable {
        public var unchanged: Int
        public var updated: Int
        public var added: Int
        public var removed: Int
        /// The whole plan was stopped and started again (the family or layout changed).
        public var restarted: Bool
    }

    /// Applies a new desired state. With sets of the same family, unchanged beacons get no command;
    /// changed, added and removed ones are updated. Otherwise the old plan stops and the new one starts.
    /// On failure the old beacons are put back.
    public func reload(_ new: KioskConfiguration) throws(SessionError) -> ReloadSummary {
        guard let old = plan else {
            configuration = new
            try start()
            return ReloadSummary(unchanged: 0, updated: 0, added: new.beacons.count, removed: 0, restarted: true)
        }
        let family = new.family ?? old.family
        let rotate = old.layout.isRotation && new.beacons.count > 1
        let candidate: KioskPlan
        do { candidate = try KioskPlan(new, family: family, rotate: rotate) } catch { throw .plan(error) }
        let oldBeacons = old.configuration.beacons.map(\.onAirShape), newBeacons = new.beacons.map(\.onAirShape)
        let common = min(oldBeacons.count, newBeacons.count)
        let same = (0..<common).filter { oldBeacons[$0] == newBeacons[$0] }.count
        var summary = ReloadSummary(unchanged: same, updated: common - same, added: max(0, newBeacons.count - oldBeacons.count),
                                    removed: max(0, oldBeacons.count - newBeacons.count), restarted: false)
        if isYielding {
            // A reload re-arms now: the whole plan again, with a fresh budget.
            isYielding = false
            fightBudget.reset()
            rearmAt = nil
        } else if new.family == configuration.family, let steps = old.update(to: candidate) {
            do {
                for step in steps { try runner.run(step) }
            } catch {
                throw .command(error)
            }
            configuration = new
            adopt(candidate)
            state = .onAir
            return summary
        }
        summary.restarted = true
        do {
            for step in old.stop { try runner.run(step) }
        } catch { throw .command(error) }
        let previous = configuration
        configuration = new
        do {
            try start()
        } catch {
            configuration = previous
            rearm("reload failed; the previous beacons are put back")
            throw error
        }
        return summary
    }
}

/// How another program's command took our beacons off air: typed here, rendered by `text(device:)`.
public enum Disruption: Hashable, Sendable {
    case reset
    case clearedSets
    case removedSet(UInt8)
    case disabledAllSets
    case disabledSet(UInt8)
    case disabledLegacy
    /// Data, scan response, parameters or a random address that differ from ours (set nil: legacy).
    case wrote(Opcode, set: UInt8?)

    /// Classifies a command already known to change our placements.
    init(_ command: HCICommand, _ plan: KioskPlan) {
        switch command.opcode {
        case .reset: self = .reset
        case .leClearAdvertisingSets: self = .clearedSets
        case .leRemoveAdvertisingSet: self = .removedSet(DescribedCommand(command)?.advertisingHandle ?? 0)
        case .leSetExtendedAdvertisingEnable:
            let e = LESetExtendedAdvertisingEnable(command)
            if e?.disablesAll ?? true { self = .disabledAllSets; return }
            self = .disabledSet(e?.handles.first(where: plan.handles.contains) ?? 0)
        case .leSetAdvertisingEnable: self = .disabledLegacy
        default: self = .wrote(command.opcode, set: plan.family == .extended ? DescribedCommand(command)?.advertisingHandle : nil)
        }
    }

    public func text(device: String) -> String {
        switch self {
        case .reset: return "another program reset \(device) (HCI Reset)"
        case .clearedSets: return "another program cleared all advertising sets (LE Clear Advertising Sets)"
        case let .removedSet(h): return "another program removed advertising set \(h)"
        case .disabledAllSets: return "another program disabled all advertising sets"
        case let .disabledSet(h): return "another program disabled advertising set \(h)"
        case .disabledLegacy: return "another program disabled legacy advertising"
        case let .wrote(opcode, set):
            let name = CommandTable.description(opcode)?.name ?? opcode.description
            return "another program sent \(name) " + (set.map { "for advertising set \($0)" } ?? "(legacy advertising)")
        }
    }
}

extension KioskLayout {
    public var isRotation: Bool {
        if case .rotation = self { return true }
        return false
    }
}

/// Why the session could not put its beacons on air.
public enum SessionError: Error, Equatable, Sendable, CustomStringConvertible {
    case start(StartError)
    case plan(KioskPlan.PlanError)
    case command(HCIError)
    /// Memory Capacity Exceeded even for one set: the kernel's instances use every set.
    case capacityExceeded(device: String, beacons: Int, HCIError)

    var hciError: HCIError? {
        switch self {
        case let .command(e), let .capacityExceeded(_, _, e): return e
        case let .start(.command(e)): return e
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case let .start(e): return e.description
        case let .plan(e): return e.description
        case let .command(e): return e.description
        case let .capacityExceeded(device, beacons, e):
            return "\(e): \(device) has no free advertising set for \(beacons == 1 ? "the beacon" : "\(beacons) beacons")"
        }
    }
}

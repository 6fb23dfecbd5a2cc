// SPDX-License-Identifier: Apache-2.0
/// The session's decisions, without the controller: a transition function from (phase, input, now)
/// to (phase, effects). `AdvertisingSession` turns packets into `Input`s (the controller state model
/// decides what a foreign command disrupts), carries out the `Effect`s on the controller and feeds
/// their outcome back as inputs. Everything here is a value: tests drive it without a runner.
public struct SessionMachine: Sendable {
    public private(set) var phase: SessionPhase = .idle

    public var policy = Policy()

    /// What the session is told to do and how long it waits (the session's public knobs).
    public struct Policy: Sendable {
        public var settleMilliseconds: Int64 = 250
        public var hardwareErrorGraceMilliseconds: Int64 = 3000
        public var retryMilliseconds: Int64 = 1000
        /// Duration and on/off cycle; empty = on air until stopped.
        public var schedule = AdvertisingSchedule()
        /// When to stop fighting another owner of the instance.
        public var fightBudget = FightBudget()
        /// The device keeps our placements through a power-off (the kernel's advertising instances do;
        /// a controller's own advertising does not): a reload or the stop while down removes them.
        public var placementsSurvivePowerOff = false
        /// How often an Eddystone-TLM beacon's counts are written while on air (ms); nil: no such beacon.
        public var telemetryMilliseconds: Int64?
        /// How long an unregistered device is awaited (`--device-timeout`, ms); nil: for ever.
        public var unplugWaitMilliseconds: Int64?
        public init() {}
    }
    /// What plans are chosen from (`startRequested`, a reload's new configuration); a bare machine
    /// assumes one legacy beacon.
    public private(set) var rules = PlanRules()
    /// The family of the plan last put on air; nil before the first.
    public private(set) var placedFamily: AdvertisingFamily?
    /// The plan being tried, what for, and the first family refusal of this try (a family switches once).
    private var attempt: (purpose: Attempt, rules: PlanRules, choice: PlanChoice, switchedAfter: SessionError?)?
    /// A reload's rules, until its outcome.
    private var reloadRules: PlanRules?
    private enum Attempt {
        case start, reload
        case rearm(RearmCause, started: Int64, resume: Int)
    }
    /// The rotation's dwell (ms) and length (0 or 1 = no rotation), set by `planAdopted`.
    public private(set) var dwellMilliseconds: Int64 = 0
    public private(set) var rotationLength = 0

    // Counters and the last re-arm.
    public private(set) var lastRearm: (cause: RearmCause, at: Int64)?
    public private(set) var rearmCount = 0
    public private(set) var failedRearmCount = 0
    private(set) var rotationSwaps = 0
    public private(set) var rotationIndex = 0
    public private(set) var yieldCount = 0
    /// When the takeovers inside the fight budget's window happened (monotonic ms): the budget is a
    /// knob, these times are state.
    public private(set) var recentTakeovers: [Int64] = []
    /// The schedule has run out (duration passed, or the last cycle ended).
    public private(set) var finished = false
    /// The unregistered device did not return within `unplugWaitMilliseconds`: the session ends.
    public private(set) var deviceLost = false
    /// When the unplug wait runs out: a timer of the unplugged phase.
    public private(set) var unplugDeadline: Int64?

    // Timers (monotonic ms) and what each one does.
    /// The schedule's clock (`--duration`, `--cycle`): whatever else happens meanwhile, a device
    /// down in an off phase stays off.
    public private(set) var clock = ScheduleClock()
    public private(set) var pendingRearm: PendingRearm?
    /// The on-air phase's timers: the next rotation swap and the next Eddystone-TLM refresh. Entering
    /// the phase starts them, leaving it ends them (a state timeout, as gen_statem has): no deadline
    /// is left behind in a phase that cannot act on it.
    private var nextRotationAt: Int64?
    private var nextTelemetryAt: Int64?
    /// When the session started (`started`), and the time it spent on air before the current stretch
    /// and since when it is on air now: the TLM's time since start and its PDU count come from them.
    public private(set) var startedAt: Int64?
    private var onAirBefore: Int64 = 0
    private var onAirSince: Int64?
    /// The last re-arm brought the rotation back and no swap has happened since: the beacon it
    /// brought back spent its turn in the disruption.
    private var resumedWithoutSwap = false
    /// When the event that started the current re-arm arrived (for "back on air N ms after it").
    private var triggeredAt: Int64?
    /// Another program's command that takes our beacons off air once it completes.
    private var pendingDisruption: (opcode: Opcode, cause: Disruption)?
    /// The beacons a central's connection took off air (sets it ended, the legacy instance), in
    /// arrival order: re-enabled after the disconnection.
    public private(set) var connectedBeacons: [SessionPhase.ConnectedBeacon] = []
    /// How the last reload was carried out, and why it failed (its outcome, `.reloadFailed`).
    public private(set) var lastReloadMethod: ReloadMethod?
    public private(set) var reloadFailure: SessionError?
    /// Why the start failed (no plan went on air; nothing is left half-done).
    public private(set) var startFailure: SessionError?
    /// Why the stop failed (its outcome, `.stopFailed`); nil: everything of ours is off air.
    public private(set) var stopFailure: SessionError?
    /// Someone else writes our single legacy advertising instance too (the kernel's MGMT instances):
    /// an off phase gives it back, or the kernel's rotation re-enables it with our data still in it.
    public private(set) var instanceHasOtherOwner = false
    /// Whose advertising beacon-tx displaces on the single instance (said once, and in the systemd
    /// STATUS); nil while nobody is displaced.
    public private(set) var displacedOwner: DisplacedOwner?

    public init() {}

    /// A re-arm due `at` (monotonic ms) for `cause`; `takeover`: it answers another owner's
    /// command (the fight budget counts it).
    public struct PendingRearm: Hashable, Sendable {
        public var at: Int64
        public var cause: RearmCause
        public var takeover: Bool
    }

    /// The schedule's clock (`clock`).
    public struct ScheduleClock: Hashable, Sendable {
        public var endAt: Int64?
        public var switchAt: Int64?
        public var isOff = false
        public var pairsDone = 0
        /// An off phase whose disable failed: when it is tried again.
        public var disableRetryAt: Int64?
    }

    /// What a mode's observer saw, what the operator asked for, or the outcome of an effect the
    /// session carried out. Mode-neutral: raw HCI and the sharing mode feed the same inputs.
    public enum Input: Equatable, Sendable {
        /// `Session.start`: put the beacons on air, choosing plans by `rules`.
        case startRequested(PlanRules)
        /// Outcome of `Effect.place`: the plan is on air.
        case placed
        /// Outcome of `Effect.place` or `.rearm`: the plan was refused, and what it sent undone.
        case planRefused(PlanChoice, PlanRefusal)
        /// A plan was put on air: the rotation starts at beacon 1.
        case planAdopted(rotationLength: Int, dwellMilliseconds: Int64)
        /// Raw HCI: another program's command was seen. `disruption` is what it does to our placements
        /// once it completes (nil: nothing), `advertising` whether it is an advertising command at all,
        /// `instanceWrite` whether it writes our single legacy instance too (its writer is then
        /// another owner of the instance). One packet, one input.
        case commandSeen(Opcode, disruption: Disruption?, advertising: Bool, instanceWrite: InstanceWrite? = nil)
        /// Raw HCI: that command's Command Complete or Status.
        case commandCompleted(Opcode)
        /// The sharing mode: one of our kernel instances was removed (MGMT Advertising Removed).
        case instanceRemoved(UInt8)
        /// The device was powered off (power off, rfkill, bluetoothd stopping; MGMT New Settings
        /// without Powered), and on again.
        case poweredOff
        case poweredOn
        /// The device was unregistered (unplugged; MGMT Index Removed), and came back (a new runner,
        /// or MGMT Index Added then Powered).
        case deviceGone
        case deviceBack
        case hardwareError(code: UInt8)
        /// A connection ended one of our extended sets, or a central connected to the legacy instance.
        case connected(SessionPhase.ConnectedBeacon)
        case disconnected
        /// The deadline (`nextDeadline`) passed.
        case timer
        /// Outcome of `Effect.rearm`: on air again, with the rotation at `rotationIndex`.
        case rearmed(RearmCause, started: Int64, rotationIndex: Int)
        /// Outcome of `Effect.rearm`, `.rotate` or `.reenable`: it failed (`SessionError.isDeviceDown`: found down).
        case failed(RearmCause, SessionError)
        /// Outcome of `Effect.rotate`.
        case rotated(to: Int)
        /// A reload (SIGHUP) with a new plan; `inPlace`: the old plan can be updated to it command by
        /// command (the same family and layout; the sharing mode always can).
        /// `rules`: the new configuration's (nil: unchanged).
        case reloadRequested(inPlace: Bool, rules: PlanRules? = nil)
        /// Outcome of `Effect.reload(.restart)`: the old plan is off air; the new one is placed next.
        case oldPlanStopped
        /// Outcome of `Effect.reload`: the new plan is adopted (on air, or for the next re-arm).
        case reloaded
        /// Outcome of `Effect.reload`: it failed and the previous plan is kept; on air, the previous
        /// beacons are re-armed at once (a restart or an update may have left them half-done). The
        /// error is the reload's answer (`reloadFailure`).
        case reloadFailed(SessionError)
        /// Outcome of `Effect.reload`: refused before anything was sent (too few free instances); the
        /// previous plan is untouched and stays as it is.
        case reloadRefused(SessionError)
        /// Another owner writes our single legacy instance (its commands were seen, or the kernel has
        /// advertising instances on it): each off phase and the stop hand the instance back.
        /// `displacing`: whose advertising ours takes off air (noted once).
        case otherOwnerOfInstance(displacing: DisplacedOwner?)
        /// Outcome of `Effect.disableForCycle`: it failed; tried again after `retryMilliseconds` while
        /// the off phase lasts.
        case disableFailed
        /// SIGTERM, SIGINT or the schedule's end: the machine decides what the stop sends.
        case stopRequested
        /// Outcome of `Effect.takeOffAir`: our placements are off air; a single instance shared with
        /// another owner is handed back next.
        case takenOffAir
        /// Outcome of `Effect.takeOffAir` or of the stop's hand-back: it failed (`stopFailure`).
        case stopFailed(SessionError)
    }

    /// Another program's write of our single legacy instance: data or parameters (`writes`), or
    /// advertising on it (`enables`: it displaces ours, said once).
    public enum InstanceWrite: Equatable, Sendable {
        case writes
        case enables
    }

    /// How a reload is carried out.
    public enum ReloadMethod: Equatable, Sendable {
        /// On air: the changed placements updated, command by command.
        case inPlace
        /// On air (or expected back): the old plan's stop, then the new plan's start.
        case restart
        /// Off air (an off phase, the device down or gone): the new plan is adopted without putting it
        /// on air (the next re-arm or on phase does). `removeOld`: the device still holds the old
        /// placements (an off phase; the kernel's instances through a power-off), taken away now.
        case offAir(removeOld: Bool)
    }

    /// What the session must do on the controller (or tell the operator).
    public enum Effect: Equatable, Sendable {
        /// Put the start's (or a restarting reload's) plan `choice` on air; report `.placed` or
        /// `.planRefused`. `after`: the refusal of the previous choice (the note that says why).
        case place(PlanChoice, after: PlanRefusal?)
        /// A refused plan that stands after Command Disallowed (which is not undone while a switch may
        /// follow): its stop plan, best effort, so that nothing is left half-done.
        case withdraw(PlanChoice)
        /// Run the whole start plan `choice` again, then resume the rotation at `resume`; report
        /// `.rearmed`, `.planRefused` or `.failed`.
        case rearm(RearmCause, started: Int64, resume: Int, choice: PlanChoice, after: PlanRefusal?)
        /// Swap to rotation beacon `to`; report `.rotated` or `.failed(.rotationStepFailed, ...)`.
        case rotate(to: Int)
        /// Write the Eddystone-TLM beacons' fresh counts: `onAirMilliseconds` on air of
        /// `uptimeMilliseconds` since the start; report `.failed(.telemetryRefreshFailed, ...)` on failure.
        case refreshTelemetry(onAirMilliseconds: Int64, uptimeMilliseconds: Int64)
        /// Re-enable the sets a connection ended (legacy: the instance); report `.rearmed` or `.failed`.
        case reenable([UInt8], started: Int64)
        /// The cycle's off phase begins: disable every beacon.
        case disableForCycle
        /// After `disableForCycle` or `takeOffAir` on a single instance with another owner: write back
        /// what it last wrote (or blank data when that is not known), so that when it re-enables the
        /// instance (the kernel's rotation does, ~2 s later) none of our beacons is on air. An on
        /// phase's re-arm writes ours again. `stopping`: it follows the stop's `takeOffAir` (said
        /// every time, and skipped when the stop plan failed), not an off phase's disable (said once).
        case handBackInstance(stopping: Bool)
        /// Carry out a reload (`reloadRequested`); report `.reloaded`, `.reloadFailed` or `.reloadRefused`.
        case reload(ReloadMethod)
        /// The stop: every beacon of ours off air (the stop plan; Remove Advertising of our instances);
        /// report `.takenOffAir` (then `handBackInstance` when another owner shares the instance) or
        /// `.stopFailed`.
        case takeOffAir
        case note(Note)
    }

    /// Notes for the operator, rendered at the edge.
    public enum Note: Equatable, Sendable {
        case rearmed(RearmCause, milliseconds: Int64)
        case rearmFailed(RearmCause, SessionError, retryMilliseconds: Int64)
        case scheduleOver(lastCycle: Bool, durationMilliseconds: Int64)
        /// Our beacons take `DisplacedOwner`'s advertising off air on the single instance (once).
        case displacing(DisplacedOwner)
    }

    /// When the pump must deliver `.timer`; nil = no timer (an idle kiosk sleeps).
    public var nextDeadline: Int64? {
        [nextRotationAt, nextTelemetryAt, unplugDeadline, pendingRearm?.at, clock.switchAt, clock.endAt, clock.disableRetryAt].compactMap { $0 }.min()
    }

    /// Milliseconds spent on air (in the on-air phase) since the start, at `now`.
    public func onAirMilliseconds(at now: Int64) -> Int64 {
        onAirBefore + (onAirSince.map { max(0, now - $0) } ?? 0)
    }

    /// Doing what it was asked to do, for the watchdog, from the phase alone: on air, off by the
    /// schedule, waiting for a re-arm it has scheduled itself (every such phase has one), or waiting
    /// for someone else: down (an administrator's power off), unplugged, or connected. Waiting is
    /// not hanging: only a process that stops passing its wait is restarted.
    public var isHealthy: Bool {
        switch phase {
        case .onAir, .offPhase, .disrupted, .awaitingReset, .retrying, .yielding, .deviceDown, .connected, .unplugged: return true
        case .idle, .stopped: return false
        }
    }

    public var isYielding: Bool {
        if case .yielding = phase { return true }
        return false
    }

    /// Nothing of ours can be on air: the device is down or gone.
    public var isDown: Bool { phase == .deviceDown || phase == .unplugged }

    /// The transition function. Inputs after the stop (and before `start`, except the start's) change
    /// nothing. Entering the on-air phase starts its timers and its stretch of time on air; leaving
    /// it ends them.
    public mutating func step(_ input: Input, now: Int64) -> [Effect] {
        let wasOnAir = phase == .onAir
        let effects = transition(input, now: now)
        let isOnAir = phase == .onAir
        if wasOnAir, !isOnAir {
            onAirBefore += max(0, now - (onAirSince ?? now))
            onAirSince = nil
            nextRotationAt = nil
            nextTelemetryAt = nil
        } else if !wasOnAir, isOnAir {
            onAirSince = now
            nextRotationAt = rotationLength > 1 ? now + dwellMilliseconds : nil
            nextTelemetryAt = policy.telemetryMilliseconds.map { now + $0 }
        } else if case .reloaded = input, isOnAir {
            // A reload may add the first TLM or drop the last (the actuator set the knob before it).
            nextTelemetryAt = policy.telemetryMilliseconds.map { nextTelemetryAt ?? now + $0 }
        }
        if phase != .unplugged { unplugDeadline = nil }
        return effects
    }

    private mutating func transition(_ input: Input, now: Int64) -> [Effect] {
        switch (phase, input) {
        case (.stopped, .takenOffAir): return instanceHasOtherOwner ? [.handBackInstance(stopping: true)] : []
        case let (.stopped, .stopFailed(error)):
            stopFailure = error
            return []
        case (.stopped, _): return []
        case (.idle, .startRequested), (.idle, .placed), (.idle, .planRefused), (.idle, .planAdopted), (.idle, .otherOwnerOfInstance),
             (.idle, .stopRequested): break
        case (.idle, _): return []
        default: break
        }
        switch input {
        case let .startRequested(rules):
            startFailure = nil
            return place(.start, rules, now: now)
        case .placed:
            guard let done = attempt else { return [] }
            attempt = nil
            rules = done.rules
            placedFamily = done.choice.family
            switch done.purpose {
            case .start:
                phase = .onAir
                startedAt = now
                clock.endAt = policy.schedule.durationMilliseconds.map { now + $0 }
                clock.switchAt = policy.schedule.cycle.map { now + $0.onMilliseconds }
                return []
            case .reload:
                reloadRules = nil   // the rules it was placed by (a family it dropped stays dropped)
                return transition(.reloaded, now: now)
            case .rearm: return []   // a re-arm reports `.rearmed`
            }
        case let .planRefused(choice, refusal):
            return refused(choice, refusal, now: now)
        case .oldPlanStopped:
            return place(.reload, reloadRules ?? rules, now: now)
        case let .planAdopted(length, dwell):
            rotationLength = length
            dwellMilliseconds = dwell
            rotationIndex = 0
            // On air already (a reload in place): the new rotation starts now; else with the phase.
            nextRotationAt = length > 1 && phase == .onAir ? now + dwell : nil
            return []
        case let .commandSeen(opcode, disruption, advertising, instanceWrite):
            let owner = instanceWrite.map { otherOwner(displacing: $0 == .enables ? .anotherOwner : nil) } ?? []
            if isYielding {
                // Yielded: every advertising command of the other owner pushes the quiet period back.
                if advertising { pendingRearm = .init(at: now + policy.fightBudget.quietMilliseconds, cause: quietCause, takeover: false) }
                return owner
            }
            guard !clock.isOff, let disruption, !isDown else { return owner }
            pendingDisruption = (opcode, disruption)
            // If the completion never reaches us, re-arm anyway (settled once the command completes).
            schedule(.disruption(disruption), after: policy.settleMilliseconds * 4, phase: .disrupted(disruption), takeover: opcode != .reset, now: now)
            return owner
        case let .commandCompleted(opcode):
            guard let pending = pendingDisruption, pending.opcode == opcode else { return [] }
            pendingDisruption = nil
            schedule(.disruption(pending.cause), after: policy.settleMilliseconds, phase: .disrupted(pending.cause), now: now)
            return []
        case let .instanceRemoved(instance):
            guard !clock.isOff, !isDown else { return [] }
            return rearm(.instanceRemoved(instance), now: now)
        case .poweredOff:
            // Off by the schedule anyway: the next on phase runs the whole start plan (and meets the
            // device down then, if it still is). The session stays off, and healthy. Gone is gone.
            guard !clock.isOff, phase != .unplugged else { return [] }
            triggeredAt = nil
            pendingDisruption = nil
            pendingRearm = nil
            phase = .deviceDown
            return []
        case .poweredOn:
            // Powered while unplugged: the device is back (the sharing mode hears its return as MGMT
            // Index Added, then New Settings with Powered).
            if phase == .unplugged { return transition(.deviceBack, now: now) }
            // Powered again (also MGMT New Settings of another setting while powered: nothing to do on air).
            if clock.isOff, phase == .deviceDown, let c = policy.schedule.cycle {
                phase = offPhase(c)
            }
            guard !clock.isOff, phase != .onAir else { return [] }
            return rearm(.deviceUp, now: now)
        case .deviceGone:
            pendingDisruption = nil
            pendingRearm = nil
            if phase != .unplugged { unplugDeadline = policy.unplugWaitMilliseconds.map { now + $0 } }
            phase = .unplugged
            return []
        case .deviceBack:
            guard phase == .unplugged else { return [] }
            return rearm(.deviceReturned, now: now)
        case let .hardwareError(code):
            // Down or gone already (a second Hardware Error while the kernel's reset is under way):
            // the kernel's up decides, as for any device down; nothing is sent meanwhile.
            guard !clock.isOff, !isDown else { return [] }
            schedule(.hardwareError(code: code), after: policy.hardwareErrorGraceMilliseconds, phase: .awaitingReset(hardwareCode: code), now: now)
            return []
        case let .connected(beacon):
            // Off by the schedule or down, nothing of ours advertises to connect to (a legacy
            // connection is to the other owner's advertising handed back).
            guard !clock.isOff, !isDown else { return [] }
            if !connectedBeacons.contains(beacon) { connectedBeacons.append(beacon) }
            phase = .connected(beacon)
            return []
        case .disconnected:
            guard !connectedBeacons.isEmpty else { return [] }
            defer { connectedBeacons = [] }
            // Off by the schedule (or down): the on phase's (or the return's) start plan enables every beacon.
            if clock.isOff || isDown { return [] }
            return [.reenable(connectedBeacons.compactMap { if case let .set(h) = $0 { return h } else { return nil } }, started: now)]
        case .timer:
            return timerExpired(now: now)
        case let .rearmed(cause, started, index):
            if let done = attempt { placedFamily = done.choice.family }
            attempt = nil
            // The start plan enabled every beacon again, also those a central is still connected to.
            if cause != .connectionEnded { connectedBeacons = [] }
            triggeredAt = nil
            lastRearm = (cause, now)
            rearmCount += 1
            rotationIndex = index
            resumedWithoutSwap = rotationLength > 1
            phase = .onAir
            return [.note(.rearmed(cause, milliseconds: now - started))]
        case let .failed(cause, error):
            attempt = nil
            if error.isDeviceDown {
                phase = .deviceDown
                return []
            }
            failedRearmCount += 1
            pendingRearm = .init(at: now + policy.retryMilliseconds, cause: cause, takeover: false)
            phase = .retrying(cause, error)
            return [.note(.rearmFailed(cause, error, retryMilliseconds: policy.retryMilliseconds))]
        case let .rotated(index):
            rotationIndex = index
            rotationSwaps += 1
            // Keep the cadence: the next swap is one dwell after the scheduled one, not after now.
            let scheduled = (nextRotationAt ?? now) + dwellMilliseconds
            nextRotationAt = scheduled > now ? scheduled : now + dwellMilliseconds
            resumedWithoutSwap = false
            return []
        case let .reloadRequested(inPlace, rules):
            reloadRules = rules
            let method = reloadMethod(inPlace: inPlace)
            lastReloadMethod = method
            reloadFailure = nil
            return [.reload(method)]
        case .reloaded:
            // On air with the new plan, unless off air anyway, or a central still holds a connection
            // to a beacon the update left alone (a restart enabled every one).
            if let new = reloadRules { rules = new }
            reloadRules = nil
            guard !clock.isOff, !isDown else { return [] }
            if lastReloadMethod == .restart {
                // Everything was started again: no re-arm or re-enable is left to do.
                connectedBeacons = []
                pendingRearm = nil
                pendingDisruption = nil
                triggeredAt = nil
            }
            if case .connected = phase, !connectedBeacons.isEmpty { return [] }
            phase = .onAir
            return []
        case let .reloadRefused(error), let .reloadFailed(error):
            reloadRules = nil
            reloadFailure = error
            // Refused: nothing was sent. Off air, the previous plan goes on air with the next re-arm or on phase anyway.
            guard case .reloadFailed = input, !clock.isOff, !isDown else { return [] }
            return rearm(.reloadFailed, now: now)
        case let .otherOwnerOfInstance(displacing):
            return otherOwner(displacing: displacing)
        case .disableFailed:
            if clock.isOff { clock.disableRetryAt = now + policy.retryMilliseconds }
            return []
        case .stopRequested:
            // Our placements off air, unless none can be there: before the start, once the device is gone,
            // down (unless the kernel keeps them through a power-off), yielding a shared single instance
            // (its other owner wrote it itself). Once that is done, `takenOffAir` hands the instance back.
            let effects: [Effect] = switch phase {
            case .idle, .stopped, .unplugged: []
            case .deviceDown where !policy.placementsSurvivePowerOff: []
            case .yielding where instanceHasOtherOwner: []
            default: [.takeOffAir]
            }
            phase = .stopped
            stopFailure = nil
            pendingRearm = nil
            clock.disableRetryAt = nil
            return effects
        case .takenOffAir, .stopFailed:
            return []   // outcomes of the stop, which only the stopped phase hears
        }
    }

    /// Another owner writes our single legacy instance. Learnt in an off phase (another program
    /// enables the instance that still holds ours): hand it back now, as the off phase's start would
    /// have done had it known. `displacing`: whose advertising ours takes off air (noted once).
    private mutating func otherOwner(displacing: DisplacedOwner?) -> [Effect] {
        let effects: [Effect] = !instanceHasOtherOwner && clock.isOff ? [.handBackInstance(stopping: false)] : []
        instanceHasOtherOwner = true
        guard let displacing, displacedOwner == nil else { return effects }
        displacedOwner = displacing
        return effects + [.note(.displacing(displacing))]
    }

    /// What a reload sends, from the phase (`ReloadMethod`); the whole new plan while yielding also ends
    /// the yield with a fresh budget.
    private mutating func reloadMethod(inPlace: Bool) -> ReloadMethod {
        if clock.isOff { return .offAir(removeOld: true) }
        switch phase {
        case .unplugged: return .offAir(removeOld: false)
        case .deviceDown: return .offAir(removeOld: policy.placementsSurvivePowerOff)
        case .onAir, .connected: if inPlace, pendingRearm == nil { return .inPlace }
        case .yielding:
            recentTakeovers = []
            pendingRearm = nil
        default: break
        }
        return .restart
    }

    /// A re-arm already pending keeps its phase (one log line for, say, a power-off's disable and
    /// clear): the later command only moves the re-arm and its cause (`takeover` nil: as it was).
    private mutating func schedule(_ cause: RearmCause, after delay: Int64, phase next: SessionPhase, takeover: Bool? = nil, now: Int64) {
        if triggeredAt == nil { triggeredAt = now }
        let pending = pendingRearm != nil && phase != .deviceDown
        pendingRearm = .init(at: now + delay, cause: cause, takeover: takeover ?? pendingRearm?.takeover ?? false)
        nextRotationAt = nil
        if !pending { phase = next }
    }

    /// The off phase the schedule is in now: the current pair of `cycle`.
    private func offPhase(_ cycle: AdvertisingSchedule.Cycle) -> SessionPhase {
        .offPhase(.init(offMilliseconds: cycle.offMilliseconds, pair: clock.pairsDone, count: cycle.count))
    }

    private var quietCause: RearmCause { .otherOwnerQuiet(milliseconds: policy.fightBudget.quietMilliseconds) }

    private mutating func timerExpired(now t: Int64) -> [Effect] {
        if let at = unplugDeadline, phase == .unplugged, at <= t {
            unplugDeadline = nil
            deviceLost = true
            return []
        }
        if let at = clock.endAt, at <= t {
            clock.endAt = nil
            clock.switchAt = nil
            finished = true
            return [.note(.scheduleOver(lastCycle: policy.schedule.cycle?.count.map { clock.pairsDone >= $0 } ?? false,
                                        durationMilliseconds: policy.schedule.durationMilliseconds ?? 0))]
        }
        var effects: [Effect] = []
        if let at = clock.switchAt, at <= t { effects += switchPhase(at: at, now: t) }
        if let at = clock.disableRetryAt, at <= t {
            clock.disableRetryAt = nil
            if clock.isOff { effects.append(.disableForCycle) }
        }
        if let due = pendingRearm, due.at <= t {
            pendingRearm = nil
            effects += rearm(due.cause, takeover: due.takeover, now: t)
        }
        if let at = nextRotationAt, at <= t, phase == .onAir, rotationLength > 1, !effects.contains(where: \.isRearm) {
            effects.append(.rotate(to: (rotationIndex + 1) % rotationLength))
        }
        if let at = nextTelemetryAt, at <= t, phase == .onAir, let period = policy.telemetryMilliseconds, !effects.contains(where: \.isRearm) {
            nextTelemetryAt = t + period
            effects.append(.refreshTelemetry(onAirMilliseconds: onAirMilliseconds(at: t), uptimeMilliseconds: t - (startedAt ?? t)))
        }
        return effects
    }

    /// On → off: every beacon disabled (a phone sees the region empty); off → on: the whole start plan
    /// again (whatever happened meanwhile, the beacons come back as configured).
    private mutating func switchPhase(at scheduled: Int64, now: Int64) -> [Effect] {
        guard let cycle = policy.schedule.cycle else { return [] }
        if !clock.isOff {
            clock.pairsDone += 1
            clock.isOff = true
            pendingRearm = nil
            pendingDisruption = nil
            if let count = cycle.count, clock.pairsDone >= count {
                // The last on phase is over: the session ends after the final off phase.
                clock.switchAt = nil
                clock.endAt = min(clock.endAt ?? .max, scheduled + cycle.offMilliseconds)
            } else {
                clock.switchAt = scheduled + cycle.offMilliseconds
            }
            // Down or gone, the phase stays (the device's return re-arms, or finds the off phase): a
            // powered-off controller forgot our advertising, the kernel's instances are removed.
            switch phase {
            case .unplugged: return []
            case .deviceDown: return policy.placementsSurvivePowerOff ? [.disableForCycle] : []
            default: break
            }
            phase = offPhase(cycle)
            return instanceHasOtherOwner ? [.disableForCycle, .handBackInstance(stopping: false)] : [.disableForCycle]
        }
        clock.isOff = false
        clock.disableRetryAt = nil
        clock.switchAt = scheduled + cycle.onMilliseconds
        if isDown { return [] }   // the device's return (power on, replug) re-arms
        return rearm(.cycleOn(milliseconds: cycle.onMilliseconds), now: now)
    }

    private mutating func rearm(_ cause: RearmCause, takeover: Bool = false, now: Int64) -> [Effect] {
        pendingRearm = nil
        pendingDisruption = nil
        if clock.isOff {
            // Off by the schedule: the next on phase runs the whole start plan anyway.
            if phase == .unplugged, let c = policy.schedule.cycle {
                // Back from an unplug in an off phase: still off by the schedule.
                phase = offPhase(c)
            }
            return []
        }
        if takeover {
            let budget = policy.fightBudget.takeover(at: now, after: recentTakeovers)
            recentTakeovers = budget.recent
            if budget.spent {
                yield(after: cause, now: now)
                return []
            }
        }
        if isYielding { recentTakeovers = [] }
        // Where the rotation resumes: with the beacon that was on air, not with beacon 1; but when that
        // beacon was itself brought back by the previous re-arm and not swapped out since (the
        // disruptions come faster than a dwell), with the next one. Repeated disruptions (another owner
        // of a single instance, resets) then go round the beacons instead of keeping one on air, however
        // slow the host is. A new on phase of `--cycle` starts at beacon 1.
        let resume = if case .cycleOn = cause { 0 } else if rotationLength > 1, resumedWithoutSwap { (rotationIndex + 1) % rotationLength } else { rotationIndex }
        let started = triggeredAt ?? now
        // The family on air before (a forced one), side by side again when the sets allow.
        let choice = PlanChoice(family: rules.forced ?? placedFamily ?? rules.families.first ?? .legacy, rotate: rules.rotates)
        attempt = (.rearm(cause, started: started, resume: resume), rules, choice, nil)
        return [.rearm(cause, started: started, resume: resume, choice: choice, after: nil)]
    }

    /// The first plan of a start or a restarting reload: the forced family (if the controller offers
    /// it) or the preferred one, side by side unless the controller has too few sets.
    private mutating func place(_ purpose: Attempt, _ rules: PlanRules, now: Int64) -> [Effect] {
        let family = rules.forced ?? rules.families.first
        guard let family, rules.families.contains(family) else {
            let error = SessionError.start(rules.forced.map { .familyUnsupported($0, device: rules.device) } ?? .noLEAdvertising(device: rules.device))
            if case .start = purpose { startFailure = error; return [] }
            return transition(.reloadFailed(error), now: now)
        }
        let choice = PlanChoice(family: family, rotate: rules.rotates)
        attempt = (purpose, rules, choice, nil)
        return [.place(choice, after: nil)]
    }

    /// The family and capacity rules: Command Disallowed or Unknown HCI Command switches to the other
    /// family once, unless the family is forced or the other is not offered (Unknown HCI Command also
    /// drops the family for the run); Memory Capacity Exceeded rotates the beacons on one set.
    /// Otherwise the refusal stands: the start fails, a re-arm is retried, a reload puts the old
    /// beacons back.
    private mutating func refused(_ choice: PlanChoice, _ refusal: PlanRefusal, now: Int64) -> [Effect] {
        guard var tried = attempt, tried.choice == choice else { return [] }
        var next: PlanChoice?
        var error: SessionError
        switch refusal {
        case let .familyDisallowed(e), let .familyNotImplemented(e):
            error = e
            let disallowed = refusal == .familyDisallowed(e)
            if !disallowed {
                tried.rules.families.removeAll { $0 == choice.family }
                rules.families.removeAll { $0 == choice.family }
            }
            if let forced = tried.rules.forced {
                if disallowed, let hci = e.hciError { error = .start(.forcedFamilyDisallowed(forced, device: tried.rules.device, hci)) }
            } else if let first = tried.switchedAfter {
                if disallowed, let a = first.hciError, let b = e.hciError {
                    error = .start(.bothFamiliesDisallowed(device: tried.rules.device, first: a, second: b))
                }
            } else if tried.rules.families.contains(choice.family.other) {
                tried.switchedAfter = e
                next = PlanChoice(family: choice.family.other, rotate: choice.rotate)
            }
        case let .capacity(e):
            error = e
            if !choice.rotate, tried.rules.beacons > 1 { next = PlanChoice(family: choice.family, rotate: true) }
        case let .failed(e):
            error = e
        }
        if let next {
            tried.choice = next
            attempt = tried
            if case let .rearm(cause, started, resume) = tried.purpose {
                return [.rearm(cause, started: started, resume: resume, choice: next, after: refusal)]
            }
            return [.place(next, after: refusal)]
        }
        attempt = nil
        var withdraw: [Effect] = []
        if case .familyDisallowed = refusal { withdraw = [.withdraw(choice)] }
        switch tried.purpose {
        case .start: startFailure = error; return withdraw
        case .reload: return withdraw + transition(.reloadFailed(error), now: now)
        case let .rearm(cause, _, _): return withdraw + transition(.failed(cause, error), now: now)
        }
    }

    /// The fight budget is spent: no re-arm until the other owner is quiet (or SIGHUP, or device up).
    private mutating func yield(after cause: RearmCause, now: Int64) {
        yieldCount += 1
        triggeredAt = nil
        pendingDisruption = nil
        pendingRearm = .init(at: now + policy.fightBudget.quietMilliseconds, cause: quietCause, takeover: false)
        phase = .yielding(.init(takeovers: recentTakeovers.count, windowMilliseconds: policy.fightBudget.windowMilliseconds,
                                quietMilliseconds: policy.fightBudget.quietMilliseconds, last: cause))
    }
}

extension SessionMachine.Effect {
    var isRearm: Bool {
        if case .rearm = self { return true }
        return false
    }
}

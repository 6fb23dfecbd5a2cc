// SPDX-License-Identifier: Apache-2.0
/// A mode's hands on its controller or kernel: it carries out the machine's effects and returns what
/// came of each as the machine's next inputs; it decides nothing. Raw HCI: `RawHCIActuator`
/// (KioskPlan on the raw socket); the sharing mode: `MGMTActuator` (SharePlan through MGMT).
public protocol SessionActuator: AnyObject {
    /// What the mode's observer hears (raw HCI: a packet; the sharing mode: an MGMT event).
    associatedtype Packet
    /// Gets ready to start (what the start must read first) and says what plans can be chosen from.
    func prepareStart(_ session: Session<Self>) throws(SessionError) -> PlanRules
    /// Carries out one effect; its outcome as inputs (none when the machine needs no answer).
    func perform(_ effect: SessionMachine.Effect, _ session: Session<Self>) -> [SessionMachine.Input]
    /// The packet as the machine's one input; nil when it is none.
    func input(for packet: Packet, _ session: Session<Self>) -> SessionMachine.Input?
    /// What the mode's runner kept while it waited for its own answers (other programs' commands,
    /// device events), in arrival order.
    func takeKept() -> [Packet]
}

/// The advertising session of either mode: the one owner of the machine, its input queue, the
/// notes, the timer, reload and stop. The mode (`Mode`, an actuator) carries out the effects; an
/// observer at the edge turns each packet into one input (`send`). Members of the machine and of
/// the mode read as the session's own (`session.phase`, `session.plan`).
///
/// Inputs are queued: an effect's outcome is the next input, never handled inside the effect. The
/// outermost `send` steps the machine until the queue is empty, then takes what the mode's runner
/// kept meanwhile, one input at a time; `onPhaseChange` hears of a change of phase (or a re-arm)
/// once each of them is done.
@dynamicMemberLookup
public final class Session<Mode: SessionActuator> {
    public let mode: Mode
    /// The decisions: phase, timers, counters; its knobs are `policy`.
    public private(set) var machine = SessionMachine()
    public var policy: SessionMachine.Policy {
        get { machine.policy }
        set { machine.policy = newValue }
    }
    /// Notes for the operator, rendered at the edge (stderr).
    public var log: (SessionNote) -> Void
    /// Called on every phase change and re-arm (sd_notify STATUS, state file), once the effects are done.
    public var onPhaseChange: ((SessionPhase) -> Void)?
    public let now: () -> Int64

    private var pending: [SessionMachine.Input] = []
    private var draining = false
    private var kept: [Mode.Packet] = []

    public init(_ mode: Mode, now: @escaping () -> Int64, log: @escaping (SessionNote) -> Void) {
        self.mode = mode
        self.now = now
        self.log = log
    }

    public subscript<T>(dynamicMember member: KeyPath<SessionMachine, T>) -> T { machine[keyPath: member] }
    public subscript<T>(dynamicMember member: KeyPath<Mode, T>) -> T { mode[keyPath: member] }
    public subscript<T>(dynamicMember member: ReferenceWritableKeyPath<Mode, T>) -> T {
        get { mode[keyPath: member] }
        set { mode[keyPath: member] = newValue }
    }

    /// One input (from an observer, or the session's own start, reload, stop and timer); nil: only
    /// what the mode's runner kept (a packet that is no input may have come after kept ones).
    public func send(_ input: SessionMachine.Input?) {
        if let input { pending.append(input) }
        guard !draining else { return }
        draining = true
        defer { draining = false }
        for round in 0...64 {
            let before = (machine.phase, machine.rearmCount)
            while !pending.isEmpty {
                let next = pending.removeFirst()
                for effect in machine.step(next, now: now()) { pending += mode.perform(effect, self) }
            }
            if machine.phase != before.0 || machine.rearmCount != before.1 { onPhaseChange?(machine.phase) }
            // What the runner kept while the effects waited, bounded (a flood must not hold the loop).
            guard round < 64, machine.phase != .stopped else { break }
            kept += mode.takeKept()   // (after anything the callback sent)
            // One at a time: each is read against the state the previous one left.
            while pending.isEmpty, !kept.isEmpty { if let input = mode.input(for: kept.removeFirst(), self) { pending.append(input) } }
            guard !pending.isEmpty else { break }
        }
        pending = []
    }

    /// One packet from the mode's observer, as one input (none before the start or after the stop).
    public func handle(_ packet: Mode.Packet) {
        guard machine.phase != .stopped, machine.phase != .idle else { return }
        send(mode.input(for: packet, self))
    }

    /// A new runner: what the old one kept is gone with it.
    func dropKept() { kept = [] }

    /// Puts every beacon on air (the machine chooses the plans); throws, with nothing left on air,
    /// when it cannot.
    public func start() throws(SessionError) {
        send(.startRequested(try mode.prepareStart(self)))
        if let failure = machine.startFailure { throw failure }
    }

    /// The machine's deadline passed: rotate, re-arm, switch the cycle's phase, or finish.
    public func timerExpired() { send(.timer) }

    /// Carries out a reload the mode prepared (`inPlace`: the update in place is possible) as the
    /// machine decides; returns the method, or throws why it failed (the previous beacons are put back).
    public func reload(inPlace: Bool, rules: PlanRules? = nil) throws(SessionError) -> SessionMachine.ReloadMethod? {
        send(.reloadRequested(inPlace: inPlace, rules: rules))
        if let failure = machine.reloadFailure { throw failure }
        return machine.lastReloadMethod
    }

    /// Takes every beacon off air and ends the session; what is sent the machine decides.
    public func stop() throws(SessionError) {
        send(.stopRequested)
        if let failure = machine.stopFailure { throw failure }
    }
}

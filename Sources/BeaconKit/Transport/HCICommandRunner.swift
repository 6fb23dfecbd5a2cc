// SPDX-License-Identifier: Apache-2.0
/// A command that did not complete, with where and why.
public enum HCIError: Error, Equatable, Sendable, CustomStringConvertible {
    case transport(TransportError)
    /// No Command Complete / Command Status for the opcode within the timeout.
    case timeout(opcode: Opcode, milliseconds: Int)
    /// The controller answered with a status other than Success.
    case commandFailed(opcode: Opcode, status: Status)
    /// The answer for our opcode could not be decoded.
    case malformedEvent(opcode: Opcode, HCIDecodingError)
    /// The controller granted no command credit (Num_HCI_Command_Packets 0) within the timeout, so
    /// the command was never sent.
    case noCommandCredits(opcode: Opcode, milliseconds: Int)

    public var description: String {
        switch self {
        case let .transport(e): return e.description
        case let .timeout(opcode, ms):
            return "\(opcode): no answer from the controller within \(ms) ms"
        case let .commandFailed(opcode, status): return "\(opcode) failed: \(status)"
        case let .malformedEvent(opcode, e): return "\(opcode): malformed answer from the controller: \(e)"
        case let .noCommandCredits(opcode, ms):
            return "\(opcode) not sent: the controller granted no command credit (Num_HCI_Command_Packets 0) within \(ms) ms"
        }
    }
}

/// Sends commands one at a time and waits for the matching Command Complete or Command Status
/// (by opcode), respecting the controller's command credits (Num_HCI_Command_Packets) and
/// skipping unrelated events. Signals that arrive meanwhile are remembered, not lost.
public final class HCICommandRunner {
    public let channel: HCIChannel
    public var timeoutMilliseconds: Int
    /// Receives btmon-style lines for every command and event when set (`--verbose`).
    public var trace: ((String) -> Void)?
    /// Milliseconds on a monotonic clock, for deadlines: each command's wait ends `timeoutMilliseconds`
    /// after it was sent, however many unrelated events arrive meanwhile.
    let now: () -> Int64
    /// Commands the controller accepts now (Num_HCI_Command_Packets of the last answer).
    public private(set) var credits = 1
    /// A SIGINT/SIGTERM that arrived while a command was in flight.
    public private(set) var pendingSignal: Int32?
    /// Unrelated packets that arrived while waiting (LE Meta reports during scanning, other programs'
    /// commands and their answers, device events), oldest first.
    public private(set) var unrelated: [ObservedPacket] = []
    /// The events among `unrelated`.
    public var unrelatedEvents: [HCIEvent] {
        unrelated.compactMap { if case let .event(e) = $0 { return e } else { return nil } }
    }
    /// At most this many unrelated events are kept for the caller.
    public var unrelatedEventLimit = 256
    /// Told once per distinct answer the Core spec does not allow (a Selected_TX_Power of 127): the
    /// value is read as not known and nothing of it is trusted.
    public var onImplausibleAnswer: ((ImplausibleAnswer) -> Void)?
    public private(set) var implausibleAnswers: [ImplausibleAnswer] = []

    public init(channel: HCIChannel, timeoutMilliseconds: Int = 2000, now: @escaping () -> Int64) {
        self.channel = channel
        self.timeoutMilliseconds = timeoutMilliseconds
        self.now = now
    }

    /// Sends `command`, returns its Command Complete (or a synthesized one from a Command Status),
    /// throws `.commandFailed` unless the status is Success or in `tolerated`.
    @discardableResult
    public func run(_ command: HCICommand, tolerating tolerated: Set<Status> = []) throws(HCIError) -> CommandComplete {
        let answer = try send(command)
        if let status = answer.status, status != .success {
            guard tolerated.contains(status) else { throw .commandFailed(opcode: command.opcode, status: status) }
            trace?("  (expected: \(Self.toleratedReason(command, status)))")
        } else if answer.opcode == .leSetExtendedAdvertisingParameters {
            checkSelectedTXPower(answer)
        }
        return answer
    }

    /// LE Set Extended Advertising Parameters returns Selected_TX_Power (§7.8.53: -127 to +20 dBm).
    private func checkSelectedTXPower(_ answer: CommandComplete) {
        guard answer.returnParameters.count >= 2 else { return }
        var found: [ImplausibleAnswer] = []
        _ = ImplausibleAnswer.checked(Int(Int8(bitPattern: answer.returnParameters[1])), ImplausibleAnswer.selectedTXPowerField, of: answer.opcode,
                                      allowed: ImplausibleAnswer.selectedTXPowerRange, into: &found)
        for bad in found where !implausibleAnswers.contains(bad) {
            implausibleAnswers.append(bad)
            onImplausibleAnswer?(bad)
        }
    }

    /// Why a plan tolerates this answer, for `--verbose`: no command reads which advertising sets
    /// exist, so a start disables its sets first (one a detached start left on must be off before
    /// its parameters change) and a set that does not exist yet answers Unknown Advertising Identifier.
    static func toleratedReason(_ command: HCICommand, _ status: Status) -> String {
        switch (command.opcode, status) {
        case (.leSetExtendedAdvertisingEnable, .unknownAdvertisingIdentifier), (.leRemoveAdvertisingSet, .unknownAdvertisingIdentifier):
            return "the advertising set does not exist (yet): nothing to disable or remove"
        case (_, .commandDisallowed):
            return "nothing of this advertising family is on: already stopped"
        default:
            return "the plan counts \(status) as done here"
        }
    }

    public func run(_ planned: PlannedCommand) throws(HCIError) {
        try run(planned.command, tolerating: planned.tolerated)
    }

    /// Takes the signal remembered while a command was in flight.
    public func takePendingSignal() -> Int32? {
        defer { pendingSignal = nil }
        return pendingSignal
    }

    /// Takes the events kept while waiting for answers (other kept packets are dropped).
    public func takeUnrelatedEvents() -> [HCIEvent] {
        defer { unrelated.removeAll() }
        return unrelatedEvents
    }

    /// Takes every packet kept while waiting for answers, in arrival order.
    public func takeUnrelatedInputs() -> [ObservedPacket] {
        defer { unrelated.removeAll() }
        return unrelated
    }

    /// Sends and waits, returning the answer whatever its status.
    public func send(_ command: HCICommand) throws(HCIError) -> CommandComplete {
        let deadline = now() + Int64(timeoutMilliseconds)
        while credits == 0 {
            // No credit: wait for any Command Complete/Status that hands credits back (e.g. a NOP).
            let event: HCIEvent?
            do { event = try nextEvent(deadline: deadline, opcode: command.opcode) } catch .timeout {
                credits = 1   // as the kernel's hci_cmd_timeout: the next command may try again
                throw .noCommandCredits(opcode: command.opcode, milliseconds: timeoutMilliseconds)
            }
            if let event { updateCredits(from: event) }
        }
        if let trace { trace(CommandText.traceLine(command)) }
        do { try channel.send(command.packet) } catch { throw .transport(error) }
        credits -= 1
        while true {
            let next: HCIEvent?
            do { next = try nextEvent(deadline: deadline, opcode: command.opcode) } catch {
                // No answer in time: the credit it held is given back (the kernel's hci_cmd_timeout
                // does the same), or a lost or late answer (another reader took it) would leave no
                // credit for any later command.
                if case .timeout = error { credits = 1 }
                throw error
            }
            guard let event = next else { continue }
            guard event.code == .commandComplete || event.code == .commandStatus else {
                keep(event)
                continue
            }
            // A Command Status answers with a status only: a Command Complete is synthesized from it.
            // The trace line is rendered only when someone reads it (--verbose).
            let answer: CommandComplete, line: String?
            do throws(HCIDecodingError) {
                if event.code == .commandComplete {
                    answer = try CommandComplete(event)
                    line = trace == nil ? nil : CommandText.traceLine(answer)
                } else {
                    let cs = try CommandStatus(event)
                    answer = CommandComplete(numHCICommandPackets: cs.numHCICommandPackets, opcode: cs.opcode,
                                             returnParameters: [cs.status.rawValue])
                    line = trace == nil ? nil : CommandText.traceLine(cs)
                }
            } catch { throw .malformedEvent(opcode: command.opcode, error) }
            credits = Int(answer.numHCICommandPackets)
            if let line { trace?(line) }
            // Another program's answer: kept, a session needs it (did its disable or reset complete?).
            guard answer.opcode == command.opcode else { keep(event); continue }
            if event.code == .commandStatus { return answer }
            do { return try answer.validated() } catch { throw .malformedEvent(opcode: command.opcode, error) }
        }
    }

    /// One packet for a caller that waits between commands (a session, a scan). A Command Complete or
    /// Status read here still sets the credits: a NOP that hands the credit back while nothing is in
    /// flight would otherwise be lost, and the next command would wait for it in vain.
    public func receive(timeoutMilliseconds: Int) throws(TransportError) -> HCIReceive {
        let received = try channel.receive(timeoutMilliseconds: timeoutMilliseconds)
        if case let .event(bytes) = received, let event = try? HCIEvent(packet: bytes) { takeCredits(from: event) }
        return received
    }

    /// One event before the deadline; nil for a packet that is not a decodable event (skipped).
    private func nextEvent(deadline: Int64, opcode: Opcode) throws(HCIError) -> HCIEvent? {
        let left = deadline - now()
        guard left > 0 else { throw .timeout(opcode: opcode, milliseconds: timeoutMilliseconds) }
        let wait = Int(clamping: left)
        let received: HCIReceive
        do { received = try channel.receive(timeoutMilliseconds: wait) } catch { throw .transport(error) }
        switch received {
        case .timedOut:
            throw .timeout(opcode: opcode, milliseconds: timeoutMilliseconds)
        case let .signal(n):
            pendingSignal = pendingSignal ?? n
            return nil
        case let .command(bytes):
            if let c = try? HCICommand(packet: bytes) { keepInput(.observedCommand(c)) }
            return nil
        case let .event(bytes):
            guard let event = try? HCIEvent(packet: bytes) else {
                trace?("> malformed packet skipped: \(Hex.encode(bytes))")
                return nil
            }
            return event
        }
    }

    private func updateCredits(from event: HCIEvent) {
        takeCredits(from: event)
        if event.code != .commandComplete && event.code != .commandStatus { keep(event) }
    }

    private func takeCredits(from event: HCIEvent) {
        if let cc = try? CommandComplete(event) { credits = Int(cc.numHCICommandPackets) }
        if let cs = try? CommandStatus(event) { credits = Int(cs.numHCICommandPackets) }
    }

    private func keep(_ event: HCIEvent) { keepInput(.event(event)) }

    private func keepInput(_ input: ObservedPacket) {
        if unrelated.count < unrelatedEventLimit { unrelated.append(input) }
    }
}

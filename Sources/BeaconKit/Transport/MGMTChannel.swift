// SPDX-License-Identifier: Apache-2.0
/// What one wait on the control channel produced.
public enum MGMTReceive: Equatable, Sendable {
    /// One MGMT event packet (`code LE | index LE | plen LE | params`).
    case event([UInt8])
    case timedOut
    /// A watched signal (SIGINT, SIGTERM, SIGHUP).
    case signal(Int32)
}

/// The kernel's Bluetooth Management interface: a raw BlueZ socket bound to HCI_DEV_NONE on
/// HCI_CHANNEL_CONTROL in `HCISocket`, or a scripted kernel in tests. It moves packets only.
public protocol MGMTChannel: AnyObject {
    /// Writes one MGMT command packet.
    func send(_ packet: [UInt8]) throws(TransportError)
    /// Blocks until an event, a watched signal, or the timeout (milliseconds; negative = forever).
    func receive(timeoutMilliseconds: Int) throws(TransportError) -> MGMTReceive
    func close()
}

/// An MGMT command that did not complete.
public enum MGMTError: Error, Equatable, Sendable, CustomStringConvertible {
    case transport(TransportError)
    /// No Command Complete / Command Status within the timeout.
    case timeout(opcode: MGMTOpcode, milliseconds: Int)
    /// The kernel answered with a status other than Success.
    case commandFailed(opcode: MGMTOpcode, index: UInt16, status: MGMTStatus)
    /// The answer could not be decoded.
    case malformedAnswer(opcode: MGMTOpcode, MGMTDecodingError)

    public var description: String {
        switch self {
        case let .transport(e): return e.description
        case let .timeout(opcode, ms): return "MGMT \(opcode): no answer from the kernel within \(ms) ms"
        case let .commandFailed(opcode, index, status):
            return "MGMT \(opcode) on \(HCIDeviceInfo.name(of: index)) failed: \(status)"
        case let .malformedAnswer(opcode, e): return "MGMT \(opcode): malformed answer from the kernel: \(e)"
        }
    }
}

/// Sends MGMT commands one at a time and waits for the Command Complete or Command Status with the
/// same opcode and index. The kernel answers every command on the socket that sent it; other events
/// (Advertising Added/Removed, New Settings, Index Added/Removed) that arrive meanwhile are kept, in order.
public final class MGMTCommandRunner {
    public let channel: MGMTChannel
    public var timeoutMilliseconds: Int
    /// btmon-style lines for every command and event when set (`--verbose`).
    public var trace: ((String) -> Void)?
    let now: () -> Int64
    /// A signal that arrived while a command was in flight.
    public private(set) var pendingSignal: Int32?
    /// Events that are not the answer, oldest first (at most `unrelatedLimit`).
    public private(set) var unrelated: [MGMTEvent] = []
    public var unrelatedLimit = 256

    public init(channel: MGMTChannel, timeoutMilliseconds: Int = 2000, now: @escaping () -> Int64) {
        self.channel = channel
        self.timeoutMilliseconds = timeoutMilliseconds
        self.now = now
    }

    public func takePendingSignal() -> Int32? {
        defer { pendingSignal = nil }
        return pendingSignal
    }

    public func takeUnrelated() -> [MGMTEvent] {
        defer { unrelated.removeAll() }
        return unrelated
    }

    /// Sends `command`, returns the Return_Parameters of a successful Command Complete; any other
    /// status throws `.commandFailed`.
    @discardableResult
    public func run(_ command: MGMTCommand) throws(MGMTError) -> [UInt8] {
        let (status, returned) = try send(command)
        guard status == .success else { throw .commandFailed(opcode: command.opcode, index: command.index, status: status) }
        return returned
    }

    /// Sends and waits, returning the status and Return_Parameters whatever the status.
    public func send(_ command: MGMTCommand) throws(MGMTError) -> (MGMTStatus, [UInt8]) {
        let deadline = now() + Int64(timeoutMilliseconds)
        trace?(MGMTText.traceLine(command))
        do { try channel.send(command.packet) } catch { throw .transport(error) }
        while true {
            let left = deadline - now()
            guard left > 0 else { throw .timeout(opcode: command.opcode, milliseconds: timeoutMilliseconds) }
            let received: MGMTReceive
            do { received = try channel.receive(timeoutMilliseconds: Int(clamping: left)) } catch { throw .transport(error) }
            switch received {
            case .timedOut: throw .timeout(opcode: command.opcode, milliseconds: timeoutMilliseconds)
            case let .signal(n): pendingSignal = pendingSignal ?? n
            case let .event(bytes):
                guard let event = try? MGMTEvent(packet: bytes) else {
                    trace?("@ malformed MGMT packet skipped: \(Hex.encode(bytes))")
                    continue
                }
                trace?(MGMTText.traceLine(event))
                let kind: MGMTEvent.Kind
                do { kind = try event.decoded() } catch {
                    if event.answeredOpcode == command.opcode { throw .malformedAnswer(opcode: command.opcode, error) }
                    keep(event)
                    continue
                }
                switch kind {
                case let .commandComplete(op, status, returned) where op == command.opcode && event.index == command.index:
                    return (status, returned)
                case let .commandStatus(op, status) where op == command.opcode && event.index == command.index:
                    return (status, [])
                default:
                    keep(event)
                }
            }
        }
    }

    private func keep(_ event: MGMTEvent) {
        if unrelated.count < unrelatedLimit { unrelated.append(event) }
    }

    /// Read Advertising Features on `index`: the instances in use and how many there may be.
    public func readAdvertisingFeatures(index: UInt16) throws(MGMTError) -> MGMTAdvertisingFeatures {
        let command = MGMTCommand.readAdvertisingFeatures(index: index)
        let returned = try run(command)
        do { return try MGMTAdvertisingFeatures(returnParameters: returned) } catch {
            throw .malformedAnswer(opcode: command.opcode, error)
        }
    }

    /// Read Controller Information on `index`.
    public func readControllerInformation(index: UInt16) throws(MGMTError) -> MGMTControllerInformation {
        let command = MGMTCommand.readControllerInformation(index: index)
        let returned = try run(command)
        do { return try MGMTControllerInformation(returnParameters: returned) } catch {
            throw .malformedAnswer(opcode: command.opcode, error)
        }
    }
}

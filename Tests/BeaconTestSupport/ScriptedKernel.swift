// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// A fake management interface (the control channel) that plays a script: every MGMT command the
/// code sends must be the next expected one (whole packet), answered by the scripted events. Tests
/// assert `isFullyConsumed` and `mismatches`, as with `ScriptedController`.
public final class ScriptedKernel: MGMTChannel {
    public enum Step: Sendable {
        /// Expect this command; queue these events (the answer, and any others).
        case command(MGMTCommand, replies: [MGMTEvent])
        /// The next wait with nothing queued returns this (an event of another socket, a signal, a timeout).
        case receive(MGMTReceive)
        /// The next wait with nothing queued fails with the error.
        case receiveFails(TransportError)
    }

    public private(set) var steps: [Step]
    private var position = 0
    private var inbound: [[UInt8]] = []
    public private(set) var sent: [[UInt8]] = []
    public private(set) var mismatches: [String] = []
    public private(set) var closeCount = 0
    /// The kernel's clock (milliseconds): it moves only by the waits that time out.
    public private(set) var elapsedMilliseconds: Int64 = 0
    public func now() -> Int64 { elapsedMilliseconds }
    /// Called with the wait's timeout each time a receive times out (a test clock moves by it).
    public var onTimeout: ((Int) -> Void)?
    /// As `ScriptedController.clampWait`: where a virtual-time harness ends an empty wait.
    public var clampWait: ((Int) -> Int)?
    private var emptyWaits = 0

    public init(_ steps: [Step]) { self.steps = steps }

    public func append(_ more: [Step]) { steps += more }

    public var isFullyConsumed: Bool { position == steps.count && inbound.isEmpty }

    public var remaining: [String] {
        steps[position...].map { step in
            switch step {
            case let .command(c, _): return "MGMT command \(c) \(Hex.encode(c.packet))"
            case let .receive(r): return "receive \(r)"
            case let .receiveFails(e): return "receive error \(e)"
            }
        } + inbound.map { "queued event \(Hex.encode($0))" }
    }

    public func close() { closeCount += 1 }

    public func send(_ packet: [UInt8]) throws(TransportError) {
        sent.append(packet)
        if position < steps.count, case let .command(expected, replies) = steps[position], expected.packet == packet {
            position += 1
            inbound += replies.map(\.packet)
            return
        }
        mismatches.append("step \(position): expected \(remaining.first ?? "nothing"), got \(Hex.encode(packet))")
        throw .system(call: "scripted send", device: "fake control", errno: 0, message: "unexpected command")
    }

    public func receive(timeoutMilliseconds: Int) throws(TransportError) -> MGMTReceive {
        if !inbound.isEmpty { return .event(inbound.removeFirst()) }
        if position < steps.count {
            switch steps[position] {
            case let .receive(r):
                position += 1
                if r == .timedOut {
                    elapsedMilliseconds += Int64(max(0, timeoutMilliseconds))
                    onTimeout?(timeoutMilliseconds)
                }
                return r
            case let .receiveFails(e):
                position += 1
                throw e
            case .command:
                break
            }
        }
        emptyWaits += 1
        // A loop waiting for what the script does not have gets a SIGTERM instead of hanging.
        if emptyWaits % ScriptedController.waitsBeforeGivingUp == 0 { return .signal(15) }
        let waited = clampWait?(timeoutMilliseconds) ?? timeoutMilliseconds
        elapsedMilliseconds += Int64(max(0, waited))
        onTimeout?(waited)
        return .timedOut
    }
}

/// Answers of a kernel, for scripts.
public enum Kernel {
    public static func ok(_ c: MGMTCommand, _ returned: [UInt8]) -> MGMTEvent { .complete(c, .success, returned) }
    /// The Instance answer of Add/Remove Advertising and Add Extended Advertising Data.
    public static func okInstance(_ c: MGMTCommand) -> MGMTEvent { .complete(c, .success, [c.instance ?? 0]) }
    public static func fail(_ c: MGMTCommand, _ status: MGMTStatus) -> MGMTEvent { .status(c, status) }
    public static func step(_ c: MGMTCommand, _ returned: [UInt8]) -> ScriptedKernel.Step { .command(c, replies: [ok(c, returned)]) }
    public static func instanceStep(_ c: MGMTCommand) -> ScriptedKernel.Step { .command(c, replies: [okInstance(c)]) }
    public static func event(_ e: MGMTEvent) -> ScriptedKernel.Step { .receive(.event(e.packet)) }
}

extension MGMTCommandRunner {
    /// A runner on a scripted kernel, on the kernel's clock.
    public convenience init(channel: ScriptedKernel, timeoutMilliseconds: Int = 2000) {
        self.init(channel: channel, timeoutMilliseconds: timeoutMilliseconds, now: channel.now)
    }
}

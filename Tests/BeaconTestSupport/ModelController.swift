// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// A behavioural fake controller: it answers every command from a `ControllerAdvertisingState`, by
/// the Core spec rules the state knows (the mixing rule, Unknown Advertising Identifier, parameters
/// while enabled, Memory Capacity Exceeded), as BlueZ's emulator answers from its own model. Tests
/// about behaviour (does the session converge, does it switch family, does it rotate) use it; tests
/// about bytes keep the scripted conversations (`ScriptedController`).
public final class ModelController: HCIChannel {
    public var state: ControllerAdvertisingState
    /// Every command the code sent, in order, with the status it got.
    public private(set) var sent: [(command: HCICommand, status: Status)] = []
    private var inbound: [HCIReceive] = []
    public private(set) var closeCount = 0

    public init(state: ControllerAdvertisingState = ControllerAdvertisingState()) { self.state = state }

    /// The controller's own clock (ms): it moves only by waits that time out.
    public private(set) var elapsedMilliseconds: Int64 = 0
    public func now() -> Int64 { elapsedMilliseconds }
    /// Time passing outside a wait (a test's timer).
    public func advance(_ milliseconds: Int64) { elapsedMilliseconds += milliseconds }

    public func send(_ packet: [UInt8]) throws(TransportError) {
        let command: HCICommand
        do { command = try HCICommand(packet: packet) } catch {
            throw .system(call: "model send", device: "fake", errno: 0, message: "\(error)")
        }
        let status = state.execute(command)
        sent.append((command, status))
        inbound.append(.event(answer(command, status).packet))
    }

    func answer(_ c: HCICommand, _ status: Status) -> HCIEvent {
        status == .success ? CommandComplete.success(for: c).event : Controllers.fail(c, status)
    }

    /// Another program's command: applied to the state, and what a raw socket observing commands
    /// sees of it (the command, then its Command Complete).
    public func foreign(_ c: HCICommand) -> [ObservedPacket] {
        let status = state.execute(c)
        return [.observedCommand(c), .event(answer(c, status))]
    }

    public func setEventFilter(_ events: [EventCode]) throws(TransportError) {}
    public func observeCommands(_ on: Bool) throws(TransportError) {}
    public func close() { closeCount += 1 }

    public func receive(timeoutMilliseconds: Int) throws(TransportError) -> HCIReceive {
        if !inbound.isEmpty { return inbound.removeFirst() }
        elapsedMilliseconds += Int64(max(0, timeoutMilliseconds))
        return .timedOut
    }
}

extension HCICommandRunner {
    /// A runner on a model controller, on the controller's clock.
    public convenience init(model: ModelController, timeoutMilliseconds: Int = 2000) {
        self.init(channel: model, timeoutMilliseconds: timeoutMilliseconds, now: model.now)
    }
}

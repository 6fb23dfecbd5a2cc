// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// A fake controller that plays a script: every command the code sends must be the next expected
/// one (whole packet), answered by the scripted events. Tests assert `isFullyConsumed` and
/// `mismatches` so a conversation is checked whole.
public final class ScriptedController: HCIChannel {
    /// How often `close()` was called.
    public private(set) var closeCount = 0
    public func close() { closeCount += 1 }
    public enum Step: Sendable {
        /// Expect this command; queue these events as the answer.
        case command(HCICommand, replies: [HCIEvent])
        /// Expect this command; the write fails with the error.
        case commandFails(HCICommand, TransportError)
        /// The next wait with nothing queued returns this (a signal, a timeout, a stray event).
        case receive(HCIReceive)
        /// The next wait with nothing queued fails with the error.
        case receiveFails(TransportError)
    }

    public private(set) var steps: [Step]
    private var position = 0
    private var inbound: [[UInt8]] = []
    /// Everything written, in order (H4 packets).
    public private(set) var sent: [[UInt8]] = []
    /// Sends that did not match the script.
    public private(set) var mismatches: [String] = []
    /// How many waits found nothing to return (each one a timeout for the caller).
    public private(set) var timeouts = 0
    /// Timeouts the code asked for, in order.
    public private(set) var requestedTimeouts: [Int] = []

    /// Called with the requested timeout whenever a wait times out, so a test clock can advance
    /// as a real wait would.
    public var onTimeout: ((Int) -> Void)?
    /// How long an empty wait of the given timeout (-1 = none) lasts before it times out: a
    /// virtual-time harness ends it where its `advanceTime` ends. Nil: the whole timeout.
    public var clampWait: ((Int) -> Int)?

    public init(_ steps: [Step]) { self.steps = steps }

    /// The controller's own clock (milliseconds): it moves only by the waits that time out, as a real
    /// wait would. The command runner's `now` in BeaconKit's tests.
    public private(set) var elapsedMilliseconds: Int64 = 0
    public func now() -> Int64 { elapsedMilliseconds }

    private var exhaustedWaits = 0
    public static let waitsBeforeGivingUp = 1000

    private func timedOut(_ milliseconds: Int) {
        elapsedMilliseconds += Int64(max(0, milliseconds))
        onTimeout?(milliseconds)
    }

    public var isFullyConsumed: Bool { position == steps.count && inbound.isEmpty }

    /// What is left, for failure messages.
    public var remaining: [String] {
        steps[position...].map { step in
            switch step {
            case let .command(c, _), let .commandFails(c, _): return "command \(c)"
            case let .receive(r): return "receive \(r)"
            case let .receiveFails(e): return "receive error \(e)"
            }
        } + inbound.map { "queued event \(Hex.encode($0))" }
    }

    public func append(_ more: [Step]) { steps += more }

    public func send(_ packet: [UInt8]) throws(TransportError) {
        sent.append(packet)
        guard position < steps.count else {
            mismatches.append("unexpected command after the script ended: \(Hex.encode(packet))")
            throw .system(call: "scripted send", device: "fake", errno: 0, message: "script ended")
        }
        switch steps[position] {
        case let .command(expected, replies) where expected.packet == packet:
            position += 1
            inbound += replies.map(\.packet)
        case let .commandFails(expected, error) where expected.packet == packet:
            position += 1
            throw error
        default:
            mismatches.append("step \(position): expected \(remaining.first ?? "nothing"), got \(Hex.encode(packet))")
            throw .system(call: "scripted send", device: "fake", errno: 0, message: "unexpected command")
        }
    }

    /// Event filters the code set, in order.
    public private(set) var eventFilters: [[EventCode]] = []

    public func setEventFilter(_ events: [EventCode]) throws(TransportError) {
        eventFilters.append(events)
    }

    /// Whether the code asked for copies of other programs' commands.
    public private(set) var observesCommands = false

    public func observeCommands(_ on: Bool) throws(TransportError) {
        observesCommands = on
    }

    public func receive(timeoutMilliseconds: Int) throws(TransportError) -> HCIReceive {
        requestedTimeouts.append(timeoutMilliseconds)
        if !inbound.isEmpty { return .event(inbound.removeFirst()) }
        if position < steps.count {
            switch steps[position] {
            case let .receive(r):
                position += 1
                if r == .timedOut { timedOut(timeoutMilliseconds) }
                return r
            case let .receiveFails(e):
                position += 1
                throw e
            default:
                break
            }
        }
        timeouts += 1
        exhaustedWaits += 1
        // A loop that never ends (a session waiting for an event the script does not have) gets a
        // SIGTERM after many empty waits, so a broken test fails on its expectations instead of hanging.
        if exhaustedWaits % Self.waitsBeforeGivingUp == 0 { return .signal(15) }
        timedOut(clampWait?(timeoutMilliseconds) ?? timeoutMilliseconds)
        return .timedOut
    }
}

/// A fake host: a device list, an up/reset log, and scripted channels per device.
public final class FakeHost: HCIHost {
    public var deviceList: [HCIDeviceInfo]
    public var channels: [UInt16: ScriptedController]
    public var devicesError: TransportError?
    public var upError: TransportError?
    public var openError: TransportError?
    public private(set) var log: [String] = []

    public init(devices: [HCIDeviceInfo], channels: [UInt16: ScriptedController]) {
        deviceList = devices
        self.channels = channels
    }

    public func devices() throws(TransportError) -> [HCIDeviceInfo] {
        if let devicesError { throw devicesError }
        return deviceList
    }

    public func open(deviceID: UInt16, watchSignals: Bool) throws(TransportError) -> HCIChannel {
        log.append("open hci\(deviceID)\(watchSignals ? " +signals" : "")")
        if let openError { throw openError }
        guard let c = channels[deviceID] else { throw .noSuchDevice("hci\(deviceID)", available: deviceList.map(\.name)) }
        return c
    }

    /// The management interface `openControl` hands out; nil: opening it fails as on a kernel
    /// without Bluetooth management.
    public var control: ScriptedKernel?

    public func openControl(watchSignals: Bool) throws(TransportError) -> MGMTChannel {
        log.append("open control\(watchSignals ? " +signals" : "")")
        guard let control else { throw .bluetoothUnsupported }
        return control
    }

    public func up(deviceID: UInt16) throws(TransportError) {
        log.append("up hci\(deviceID)")
        if let upError { throw upError }
        if let i = deviceList.firstIndex(where: { $0.id == deviceID }) { deviceList[i].isUp = true }
    }

    public func reset(deviceID: UInt16) throws(TransportError) {
        log.append("reset hci\(deviceID)")
    }

    /// What `waitForDevice` answers, in order (then `.timedOut`).
    public var deviceWaits: [DeviceWait] = []

    /// Called with the timeout of each `waitForDevice` that times out (a test clock can move on).
    public var onWaitTimeout: ((Int) -> Void)?

    public func waitForDevice(_ wanted: WantedDevice, timeoutMilliseconds: Int) throws(TransportError) -> DeviceWait {
        log.append("wait for \(wanted) \(timeoutMilliseconds) ms")
        guard !deviceWaits.isEmpty else {
            onWaitTimeout?(timeoutMilliseconds)
            return .timedOut
        }
        let next = deviceWaits.removeFirst()
        if case let .returned(info) = next, let i = deviceList.firstIndex(where: { $0.id == info.id }) { deviceList[i] = info }
        else if case let .returned(info) = next { deviceList.append(info) }
        return next
    }
}

extension HCICommandRunner {
    /// A runner on a scripted controller, on the controller's clock.
    public convenience init(channel: ScriptedController, timeoutMilliseconds: Int = 2000) {
        self.init(channel: channel, timeoutMilliseconds: timeoutMilliseconds, now: channel.now)
    }
}

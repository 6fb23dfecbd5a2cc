// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import CBlueZ
import Glibc
import SystemCalls

/// A raw HCI socket bound to one controller (HCI_CHANNEL_RAW): writes H4 command packets, reads H4 events.
///
/// The socket's HCI filter passes event packets only, and of those `filteredEvents`. The kernel also
/// delivers events answering other programs' commands (bluetoothd, the kernel's own), so callers match
/// Command Complete / Status by opcode. Without CAP_NET_RAW the kernel narrows the filter to its
/// security filter (no LE Meta events) and refuses most commands on write with EPERM.
public final class RawHCIChannel: HCIChannel {
    /// Command Complete (0x0e), Command Status (0x0f), Hardware Error (0x10), LE Meta (0x3e).
    public static let filteredEvents: [UInt8] = [0x0e, 0x0f, 0x10, 0x3e]

    public let deviceID: UInt16
    /// Whether `receive` reports SIGINT and SIGTERM (blocked in the opening thread; see `SignalWatch`).
    public var watchesSignals: Bool { signals != nil }

    private var socketDescriptor: Int32
    private var signals: SignalWatch?
    /// The events the filter passes now, and whether it passes command packets too.
    private var events: [UInt8] = filteredEvents
    private var commandsObserved = false
    /// With `watchSignals` (the long waits of `start` and `scan`): an unbound raw socket that hears
    /// the stack's internal device events (0xFD: device up, down, unregistered), which the kernel
    /// sends only to sockets bound to no device. -1 when not watching or when it could not be opened.
    private var deviceWatch: Int32 = -1
    /// One datagram; events are at most 258 bytes, the rest is headroom.
    private var buffer = [UInt8](repeating: 0, count: 2048)
    private var name: String { deviceName(deviceID) }
    /// The kernel, or a fake in the unit tests.
    private let system: SystemCalls

    /// socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI), bind to `hciN` on HCI_CHANNEL_RAW,
    /// set the event filter; with `watchSignals`, block SIGINT and SIGTERM and watch them with a signalfd.
    public init(deviceID: UInt16, watchSignals: Bool) throws(TransportError) {
        self.deviceID = deviceID
        system = .live
        let name = deviceName(deviceID)
        let fd = try openHCISocket(device: name)
        socketDescriptor = fd
        do {
            try Self.bind(fd, deviceID: deviceID)
            try Self.setFilter(fd, device: name)
            if watchSignals {
                signals = try SignalWatch(device: name)
                deviceWatch = Self.openDeviceWatch()
            }
        } catch {
            closeDescriptor(fd)
            socketDescriptor = -1
            throw error
        }
    }

    /// A channel over descriptors that are already open, making its calls through `system`: for the
    /// unit tests of `send` and `receive` with a fake kernel. `signalDescriptor` stands for a signalfd.
    init(deviceID: UInt16, socket: Int32, signalDescriptor: Int32?, deviceWatch: Int32, system: SystemCalls) {
        self.deviceID = deviceID
        self.system = system
        socketDescriptor = socket
        signals = signalDescriptor.map { SignalWatch(descriptor: $0, system: system) }
        self.deviceWatch = deviceWatch
    }

    deinit { close() }

    /// Closes the socket and the signalfd and, for the last watching channel, restores the signal mask
    /// (a signal that arrived after the last `receive` is then delivered normally). Idempotent; `deinit` calls it.
    public func close() {
        signals?.close()
        signals = nil
        system.closeOwned(&deviceWatch)
        system.closeOwned(&socketDescriptor)
    }

    /// Writes one H4 packet in one write (the socket is message oriented: a packet is never split).
    public func send(_ packet: [UInt8]) throws(TransportError) {
        try system.writePacket(packet, to: socketDescriptor, device: name)
    }

    /// One blocking poll on the socket (and the signalfd): `.signal` before `.event` when both are ready,
    /// so a flood of advertising reports never hides a Ctrl-C; the event stays queued for the next call.
    public func receive(timeoutMilliseconds: Int) throws(TransportError) -> HCIReceive {
        guard socketDescriptor >= 0 else { throw .closed(name) }
        let deadline = MonotonicInstant.deadline(timeoutMilliseconds: timeoutMilliseconds, system)
        // [socket, signalfd or -1, device watch or -1]: poll ignores negative descriptors.
        var fds = [pollfd(fd: socketDescriptor, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: signals?.descriptor ?? -1, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: deviceWatch, events: Int16(POLLIN), revents: 0)]
        while true {
            guard try system.pollReady(&fds, until: deadline, device: name) else { return .timedOut }
            if fds[1].revents != 0, let signal = signals?.take() {
                return .signal(signal)
            }
            // The socket before the device events: the kernel queues them in causal order on two
            // sockets (its init HCI Reset is copied to us before HCI_DEV_UP, a power-off's disables
            // before HCI_DEV_DOWN), so the socket's older packets go first. Read the other way round,
            // the HCI Reset of `hciconfig hci0 up` looked like another program's reset after the re-arm.
            let socketEvents = fds[0].revents
            if socketEvents & Int16(POLLNVAL) != 0 { throw .invalidDescriptor(name) }
            if socketEvents != 0 {
                do {
                    if let packet = try readPacket(hangup: socketEvents & Int16(POLLHUP) != 0) { return packet }
                } catch {
                    // Detached by an unplug: the device event says so, if it is there.
                    if fds[2].revents != 0, let packet = readDeviceEvent() { return .event(packet) }
                    throw error
                }
            }
            if fds[2].revents != 0, let packet = readDeviceEvent() {
                return .event(packet)
            }
        }
    }

    /// One datagram without blocking; nil when there was nothing to read or it was neither an event
    /// nor (while observing) a command packet.
    private func readPacket(hangup: Bool) throws(TransportError) -> HCIReceive? {
        let capacity = buffer.count
        let count: Int
        do {
            count = try systemCall {
                buffer.withUnsafeMutableBytes { system.receive(socketDescriptor, $0, Int32(MSG_DONTWAIT)) }
            }
        } catch where error.code == EAGAIN || error.code == EWOULDBLOCK {
            // Nothing queued. With POLLHUP the kernel detached the socket (the device was unregistered).
            if hangup { throw transportError(errno: EPIPE, call: "read", device: name) }
            return nil
        } catch {
            throw transportError(error, call: "read", device: name)
        }
        if count == 0 { throw .closedByKernel(name) }
        let packet = Array(buffer.prefix(min(count, capacity)))
        switch packet.first {
        case PacketType.event.rawValue: return .event(packet)
        case PacketType.command.rawValue where commandsObserved: return .command(packet)
        default: return nil
        }
    }

    /// Best effort: a failure only means device-down goes unnoticed, as with other raw-HCI tools.
    static func openDeviceWatch() -> Int32 {
        guard let fd = try? openHCISocket(device: "hci-monitor") else { return -1 }
        var filter = hci_filter()
        hci_filter_clear(&filter)
        hci_filter_set_ptype(beacon_tx_HCI_EVENT_PKT, &filter)
        hci_filter_set_event(beacon_tx_EVT_STACK_INTERNAL, &filter)
        let filtered = try? systemCall {
            setsockopt(fd, beacon_tx_SOL_HCI, beacon_tx_HCI_FILTER, &filter, socklen_t(MemoryLayout<hci_filter>.size))
        }
        guard (try? bind(fd, deviceID: beacon_tx_HCI_DEV_NONE)) != nil, filtered != nil else {
            closeDescriptor(fd)
            return -1
        }
        return fd
    }

    /// A stack-internal device event about this device, or nil:
    /// `04 fd 06 | type 0x0001 (EVT_SI_DEVICE) | event (LE16) | dev_id (LE16)`.
    private func readDeviceEvent() -> [UInt8]? {
        var packet = [UInt8](repeating: 0, count: 64)
        guard let count = try? systemCall(_: {
            packet.withUnsafeMutableBytes { system.receive(deviceWatch, $0, Int32(MSG_DONTWAIT)) }
        }), count >= 9, count <= packet.count else { return nil }
        packet = Array(packet.prefix(count))
        guard let event = try? HCIEvent(packet: packet), let si = StackInternalDeviceEvent(event),
              si.deviceID == deviceID else { return nil }
        return packet
    }

    private static func bind(_ fd: Int32, deviceID: UInt16) throws(TransportError) {
        do { try bindHCISocket(fd, device: deviceID, channel: beacon_tx_HCI_CHANNEL_RAW) } catch {
            throw transportError(error, call: "bind", device: deviceName(deviceID))
        }
    }

    public func setEventFilter(_ events: [EventCode]) throws(TransportError) {
        try Self.setFilter(socketDescriptor, device: name, events: events.map(\.rawValue), commands: commandsObserved)
        self.events = events.map(\.rawValue)
    }

    /// The kernel copies every command that other sockets and the kernel itself send to raw sockets
    /// whose filter admits command packets (never the sender's own).
    public func observeCommands(_ on: Bool) throws(TransportError) {
        try Self.setFilter(socketDescriptor, device: name, events: events, commands: on)
        commandsObserved = on
    }

    private static func setFilter(_ fd: Int32, device: String, events: [UInt8] = filteredEvents, commands: Bool = false) throws(TransportError) {
        var filter = hci_filter()
        hci_filter_clear(&filter)
        hci_filter_set_ptype(beacon_tx_HCI_EVENT_PKT, &filter)
        if commands { hci_filter_set_ptype(beacon_tx_HCI_COMMAND_PKT, &filter) }
        for event in events { hci_filter_set_event(Int32(event), &filter) }
        do {
            _ = try systemCall {
                setsockopt(fd, beacon_tx_SOL_HCI, beacon_tx_HCI_FILTER, &filter, socklen_t(MemoryLayout<hci_filter>.size))
            }
        } catch {
            throw transportError(error, call: "setsockopt(HCI_FILTER)", device: device)
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import CBlueZ
import Glibc
import SystemCalls

/// The kernel's Bluetooth Management interface: a raw BlueZ socket bound to HCI_DEV_NONE on
/// HCI_CHANNEL_CONTROL. Writes MGMT command packets, reads MGMT events (answers to our commands and
/// the events the kernel sends every control socket: Index Added/Removed, New Settings, Advertising
/// Added/Removed of other sockets' instances).
///
/// The bind needs no privilege; without CAP_NET_ADMIN the socket is untrusted and the kernel answers
/// the commands that change state with Permission Denied (0x14), not an errno.
public final class ControlChannel: MGMTChannel {
    private var socketDescriptor: Int32
    private var signals: SignalWatch?
    /// One datagram: an event's parameters are at most 64 KiB (Parameter Length is 16 bits).
    private var buffer = [UInt8](repeating: 0, count: 6 + 65_535)
    private let system: SystemCalls
    static let name = "the control channel"

    /// socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI), bind to HCI_DEV_NONE on
    /// HCI_CHANNEL_CONTROL; with `watchSignals`, SIGINT and SIGTERM (and SIGHUP) come through `receive`.
    public init(watchSignals: Bool) throws(TransportError) {
        system = .live
        let fd = try openHCISocket(device: Self.name)
        socketDescriptor = fd
        do {
            try Self.bind(fd)
            if watchSignals { signals = try SignalWatch(device: Self.name) }
        } catch {
            closeDescriptor(fd)
            socketDescriptor = -1
            throw error
        }
    }

    /// A channel over a descriptor that is already open, for the unit tests with a fake kernel.
    init(socket: Int32, signalDescriptor: Int32?, system: SystemCalls) {
        self.system = system
        socketDescriptor = socket
        signals = signalDescriptor.map { SignalWatch(descriptor: $0, system: system) }
    }

    deinit { close() }

    public func close() {
        signals?.close()
        signals = nil
        system.closeOwned(&socketDescriptor)
    }

    /// One packet in one write; a short write is an error, never a second write.
    ///
    /// A write of 0 bytes is not short: the kernel did not run the command but answered it. A socket
    /// without CAP_NET_ADMIN (untrusted) that sends a command only trusted sockets may send gets a
    /// Command Status (Permission Denied) queued, and write returns 0 (hci_sock's MGMT path). The
    /// answer is read like any other.
    public func send(_ packet: [UInt8]) throws(TransportError) {
        try system.writePacket(packet, to: socketDescriptor, device: Self.name, acceptsNothingWritten: true, available: { [] })
    }

    /// One blocking poll on the socket and the signalfd: a signal first, then one event.
    public func receive(timeoutMilliseconds: Int) throws(TransportError) -> MGMTReceive {
        guard socketDescriptor >= 0 else { throw .closed(Self.name) }
        let deadline = MonotonicInstant.deadline(timeoutMilliseconds: timeoutMilliseconds, system)
        var fds = [pollfd(fd: socketDescriptor, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: signals?.descriptor ?? -1, events: Int16(POLLIN), revents: 0)]
        while true {
            guard try system.pollReady(&fds, until: deadline, device: Self.name, available: { [] }) else { return .timedOut }
            if fds[1].revents != 0, let signal = signals?.take() { return .signal(signal) }
            if fds[0].revents & Int16(POLLNVAL) != 0 { throw .invalidDescriptor(Self.name) }
            if fds[0].revents != 0 {
                let count: Int
                do {
                    count = try systemCall { buffer.withUnsafeMutableBytes { system.receive(socketDescriptor, $0, Int32(MSG_DONTWAIT)) } }
                } catch where error.code == EAGAIN || error.code == EWOULDBLOCK {
                    continue
                } catch {
                    throw transportError(error, call: "read", device: Self.name, available: { [] })
                }
                if count == 0 { throw .closedByKernel(Self.name) }
                return .event(Array(buffer.prefix(min(count, buffer.count))))
            }
        }
    }

    private static func bind(_ fd: Int32) throws(TransportError) {
        do { try bindHCISocket(fd, device: beacon_tx_HCI_DEV_NONE, channel: beacon_tx_HCI_CHANNEL_CONTROL) } catch {
            throw transportError(error, call: "bind(HCI_CHANNEL_CONTROL)", device: name, available: { [] })
        }
    }
}

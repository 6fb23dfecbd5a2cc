// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import Glibc
import SystemCalls

/// What `RawHCIChannel` and `ControlChannel` do alike with the socket they own: close it once,
/// write one packet per write, poll it (with the signalfd beside it) until a deadline.
extension SystemCalls {
    /// close(2) of a descriptor the channel owns, once: `fd` is -1 afterwards and a second call does nothing.
    func closeOwned(_ fd: inout Int32) {
        guard fd >= 0 else { return }
        closeDescriptor(fd)
        fd = -1
    }

    /// One packet in one write(2). The sockets are message oriented: a second write would be read as
    /// a new packet, so a short write is an error (EIO), never continued; the kernel never makes one.
    /// Returns the bytes written (0 is the control channel's queued answer, see `ControlChannel.send`).
    @discardableResult
    func writePacket(_ packet: [UInt8], to fd: Int32, device: String, acceptsNothingWritten: Bool = false,
                     available: () -> [String] = { RawHCIHost.deviceNames() }) throws(TransportError) -> Int {
        let written: Int
        do {
            written = try systemCall { packet.withUnsafeBytes { write(fd, $0) } }
        } catch {
            throw transportError(error, call: "write", device: device, available: available)
        }
        if written == 0, acceptsNothingWritten, !packet.isEmpty { return 0 }
        if written != packet.count {
            throw .system(call: "write", device: device, errno: EIO, message: "short write: \(written) of \(packet.count) bytes")
        }
        return written
    }

    /// Polls `fds` (their `revents` cleared first) until one is ready: true then, false once
    /// `deadline` has passed; nil waits forever. poll's Int32 range running out polls again.
    func pollReady(_ fds: inout [pollfd], until deadline: MonotonicInstant?, device: String,
                   available: () -> [String] = { RawHCIHost.deviceNames() }) throws(TransportError) -> Bool {
        while true {
            let wait: Int32 = deadline?.millisecondsFromNow(self) ?? -1
            for i in fds.indices { fds[i].revents = 0 }
            let ready: Int32
            do {
                ready = try systemCall { fds.withUnsafeMutableBufferPointer { poll($0, wait) } }
            } catch {
                throw transportError(error, call: "poll", device: device, available: available)
            }
            if ready != 0 { return true }
            guard let deadline, MonotonicInstant.now(self) >= deadline else { continue }
            return false
        }
    }
}

extension MonotonicInstant {
    /// A receive's deadline: nil (forever) for a negative timeout, or one that does not fit.
    static func deadline(timeoutMilliseconds: Int, _ system: SystemCalls) -> MonotonicInstant? {
        timeoutMilliseconds < 0 ? nil : after(milliseconds: timeoutMilliseconds, system)
    }
}

extension TransportError {
    /// `receive` on a channel that was closed.
    static func closed(_ device: String) -> TransportError {
        .system(call: "poll", device: device, errno: EBADF, message: "the channel is closed")
    }

    /// poll's POLLNVAL on the socket: the descriptor is not open.
    static func invalidDescriptor(_ device: String) -> TransportError {
        .system(call: "poll", device: device, errno: EBADF, message: Errno(EBADF).description)
    }

    /// A read of 0 bytes: the kernel closed the socket.
    static func closedByKernel(_ device: String) -> TransportError {
        .system(call: "read", device: device, errno: 0, message: "the socket was closed by the kernel")
    }
}

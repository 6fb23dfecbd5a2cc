// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import Glibc
@testable import HCISocket
import SystemCalls
import Testing

/// A kernel that plays a script, for `RawHCIChannel`'s branches the real kernel rarely takes. Every
/// call takes the next step of its queue; a test asserts that every queue was used up.
final class FakeKernel: @unchecked Sendable {
    enum Outcome {
        /// The call returns these bytes (read, recv) or this count (write).
        case bytes([UInt8])
        case count(Int)
        /// The call returns -1 with this errno.
        case fails(Int32)
    }

    enum PollStep {
        /// poll returns with these revents per descriptor.
        case ready([Int32: Int16])
        /// poll returns 0 after the clock moved by `milliseconds`.
        case nothing(afterMilliseconds: Int64)
        case fails(Int32)
    }

    var polls: [PollStep] = []
    var reads: [Int32: [Outcome]] = [:]
    var writes: [Outcome] = []
    /// What `write` was handed, whole.
    var written: [[UInt8]] = []
    /// The timeouts `poll` was asked for.
    var pollTimeouts: [Int32] = []
    var closed: [Int32] = []
    var clockNanoseconds: Int64 = 1_000_000_000
    var unexpected: [String] = []

    var isFullyConsumed: Bool { polls.isEmpty && writes.isEmpty && reads.values.allSatisfy(\.isEmpty) && unexpected.isEmpty }

    var calls: SystemCalls {
        SystemCalls(
            read: { [self] fd, buffer in take(fd, into: buffer) },
            write: { [self] _, bytes in
                written.append(Array(bytes))
                guard !writes.isEmpty else { unexpected.append("write"); return fail(EIO) }
                switch writes.removeFirst() {
                case let .count(n): return n
                case .bytes: return bytes.count
                case let .fails(code): return fail(code)
                }
            },
            receive: { [self] fd, buffer, _ in take(fd, into: buffer) },
            poll: { [self] fds, timeout in
                pollTimeouts.append(timeout)
                guard !polls.isEmpty else { unexpected.append("poll"); return Int32(fail(EIO)) }
                switch polls.removeFirst() {
                case let .ready(revents):
                    var count: Int32 = 0
                    for i in fds.indices where fds[i].fd >= 0 {
                        fds[i].revents = revents[fds[i].fd] ?? 0
                        if fds[i].revents != 0 { count += 1 }
                    }
                    return count
                case let .nothing(ms):
                    clockNanoseconds += ms * 1_000_000
                    return 0
                case let .fails(code):
                    return Int32(fail(code))
                }
            },
            close: { [self] fd in closed.append(fd); return 0 },
            clockNanoseconds: { [self] _ in clockNanoseconds }
        )
    }

    private func take(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard var queue = reads[fd], !queue.isEmpty else { unexpected.append("read \(fd)"); return fail(EIO) }
        let outcome = queue.removeFirst()
        reads[fd] = queue
        switch outcome {
        case let .bytes(bytes):
            let n = min(bytes.count, buffer.count)
            for i in 0..<n { buffer[i] = bytes[i] }
            return n
        case let .count(n): return n
        case let .fails(code): return fail(code)
        }
    }

    private func fail(_ code: Int32) -> Int {
        errno = code
        return -1
    }
}

@Suite struct RawHCIChannelTests {
    static let socket: Int32 = 10
    static let signalfd: Int32 = 11
    static let watch: Int32 = 12
    static let pollIn = Int16(POLLIN)

    /// Command Complete for HCI_Reset, as the socket delivers it.
    static let resetComplete: [UInt8] = [0x04, 0x0e, 0x04, 0x01, 0x03, 0x0c, 0x00]
    /// A signalfd_siginfo (128 bytes) carrying SIGTERM.
    static let sigterm: [UInt8] = [UInt8(SIGTERM), 0, 0, 0] + [UInt8](repeating: 0, count: 124)
    /// Stack-internal "device down" (EVT_SI_DEVICE, HCI_DEV_DOWN 4) for hci0.
    static let hci0Down: [UInt8] = [0x04, 0xfd, 0x06, 0x01, 0x00, 0x04, 0x00, 0x00, 0x00]

    func channel(_ kernel: FakeKernel, signals: Bool = true, watch: Bool = true) -> RawHCIChannel {
        RawHCIChannel(deviceID: 0, socket: Self.socket, signalDescriptor: signals ? Self.signalfd : nil,
                      deviceWatch: watch ? Self.watch : -1, system: kernel.calls)
    }

    @Test func sendWritesThePacketWholeAndRetriesOnEINTR() throws {
        let kernel = FakeKernel()
        kernel.writes = [.fails(EINTR), .count(4)]
        let ch = channel(kernel)
        try ch.send([0x01, 0x03, 0x0c, 0x00])
        #expect(kernel.written == [[0x01, 0x03, 0x0c, 0x00], [0x01, 0x03, 0x0c, 0x00]])
        #expect(kernel.isFullyConsumed, "\(kernel.unexpected)")
    }

    @Test func aShortWriteIsAnErrorNotASecondWrite() {
        let kernel = FakeKernel()
        kernel.writes = [.count(2)]
        let ch = channel(kernel)
        #expect(throws: TransportError.system(call: "write", device: "hci0", errno: EIO, message: "short write: 2 of 4 bytes")) {
            try ch.send([0x01, 0x03, 0x0c, 0x00])
        }
        #expect(kernel.written.count == 1)
        #expect(kernel.isFullyConsumed, "\(kernel.unexpected)")
    }

    @Test func writeErrnoIsMapped() {
        let kernel = FakeKernel()
        kernel.writes = [.fails(ENETDOWN), .fails(EPERM)]
        let ch = channel(kernel)
        #expect(throws: TransportError.deviceDown(call: "write", device: "hci0")) { try ch.send([0x01, 0x03, 0x0c, 0x00]) }
        #expect(throws: TransportError.permissionDenied(call: "write", device: "hci0")) { try ch.send([0x01, 0x03, 0x0c, 0x00]) }
        #expect(kernel.isFullyConsumed, "\(kernel.unexpected)")
    }

    /// Everything ready at once: the signal first, then the socket's event (queued before the device
    /// event: the kernel's init HCI Reset precedes HCI_DEV_UP), then the device event; nothing is lost
    /// between the calls.
    @Test func aSignalComesFirstThenTheSocketThenTheDeviceEvent() throws {
        let kernel = FakeKernel()
        let all: [Int32: Int16] = [Self.socket: Self.pollIn, Self.signalfd: Self.pollIn, Self.watch: Self.pollIn]
        kernel.polls = [.ready(all), .ready(all), .ready([Self.watch: Self.pollIn])]
        kernel.reads = [
            Self.signalfd: [.bytes(Self.sigterm), .fails(EAGAIN)],
            Self.watch: [.bytes(Self.hci0Down)],
            Self.socket: [.bytes(Self.resetComplete)],
        ]
        let ch = channel(kernel)
        #expect(try ch.receive(timeoutMilliseconds: -1) == .signal(SIGTERM))
        #expect(try ch.receive(timeoutMilliseconds: -1) == .event(Self.resetComplete))
        #expect(try ch.receive(timeoutMilliseconds: -1) == .event(Self.hci0Down))
        #expect(kernel.pollTimeouts == [-1, -1, -1])
        #expect(kernel.isFullyConsumed, "\(kernel.unexpected)")
    }

    /// A device event about another controller, and a packet that is not an event, are skipped.
    @Test func otherDevicesAndNonEventPacketsAreSkipped() throws {
        let kernel = FakeKernel()
        var hci1Down = Self.hci0Down
        hci1Down[7] = 0x01
        kernel.polls = [.ready([Self.watch: Self.pollIn]), .ready([Self.socket: Self.pollIn]), .ready([Self.socket: Self.pollIn])]
        kernel.reads = [
            Self.watch: [.bytes(hci1Down)],
            Self.socket: [.bytes([0x02, 0x01, 0x20, 0x00, 0x00]), .bytes(Self.resetComplete)],
        ]
        let ch = channel(kernel)
        #expect(try ch.receive(timeoutMilliseconds: 1000) == .event(Self.resetComplete))
        #expect(kernel.isFullyConsumed, "\(kernel.unexpected)")
    }

    /// POLLHUP with nothing to read: the kernel detached the socket because the controller was
    /// unregistered (EPIPE), reported as "no such device".
    @Test func aHangUpWithNothingQueuedIsNoSuchDevice() {
        let kernel = FakeKernel()
        kernel.polls = [.ready([Self.socket: Int16(POLLHUP)])]
        kernel.reads = [Self.socket: [.fails(EAGAIN)]]
        let ch = channel(kernel)
        #expect(throws: TransportError.noSuchDevice("hci0", available: RawHCIHost.deviceNames())) {
            try ch.receive(timeoutMilliseconds: 1000)
        }
        #expect(kernel.isFullyConsumed, "\(kernel.unexpected)")
    }

    /// POLLHUP with a packet still queued: the packet is delivered first.
    @Test func aHangUpDeliversWhatIsQueuedFirst() throws {
        let kernel = FakeKernel()
        kernel.polls = [.ready([Self.socket: Self.pollIn | Int16(POLLHUP)])]
        kernel.reads = [Self.socket: [.bytes(Self.resetComplete)]]
        let ch = channel(kernel)
        #expect(try ch.receive(timeoutMilliseconds: 1000) == .event(Self.resetComplete))
        #expect(kernel.isFullyConsumed, "\(kernel.unexpected)")
    }

    @Test func anInvalidOrClosedSocketIsAnError() {
        let kernel = FakeKernel()
        kernel.polls = [.ready([Self.socket: Int16(POLLNVAL)]), .ready([Self.socket: Self.pollIn])]
        kernel.reads = [Self.socket: [.count(0)]]
        let ch = channel(kernel)
        #expect(throws: TransportError.system(call: "poll", device: "hci0", errno: EBADF, message: "Bad file descriptor")) {
            try ch.receive(timeoutMilliseconds: 1000)
        }
        #expect(throws: TransportError.system(call: "read", device: "hci0", errno: 0, message: "the socket was closed by the kernel")) {
            try ch.receive(timeoutMilliseconds: 1000)
        }
        #expect(kernel.isFullyConsumed, "\(kernel.unexpected)")
    }

    /// EINTR on poll and on recv is retried; a nothing-ready poll before the deadline polls again
    /// with what is left; one at the deadline is a timeout.
    @Test func interruptedCallsRetryAndTheDeadlineHolds() throws {
        let kernel = FakeKernel()
        kernel.polls = [.fails(EINTR), .nothing(afterMilliseconds: 400), .ready([Self.socket: Self.pollIn]),
                        .nothing(afterMilliseconds: 1000)]
        kernel.reads = [Self.socket: [.fails(EINTR), .bytes(Self.resetComplete)]]
        let ch = channel(kernel, signals: false, watch: false)
        #expect(try ch.receive(timeoutMilliseconds: 1000) == .event(Self.resetComplete))
        #expect(try ch.receive(timeoutMilliseconds: 1000) == .timedOut)
        #expect(kernel.pollTimeouts == [1000, 1000, 600, 1000])
        #expect(kernel.isFullyConsumed, "\(kernel.unexpected)")
    }

    @Test func closeClosesEveryDescriptorOnce() {
        let kernel = FakeKernel()
        let ch = channel(kernel)
        ch.close()
        ch.close()
        #expect(kernel.closed.sorted() == [Self.socket, Self.signalfd, Self.watch])
        #expect(throws: TransportError.system(call: "poll", device: "hci0", errno: EBADF, message: "the channel is closed")) {
            try ch.receive(timeoutMilliseconds: 0)
        }
    }
}

/// `ControlChannel` (HCI_CHANNEL_CONTROL) over the fake kernel.
@Suite struct ControlChannelTests {
    static let socket: Int32 = 20
    static let signalfd: Int32 = 21

    @Test func sendsWholeAndMapsErrno() throws {
        let kernel = FakeKernel()
        kernel.writes = [.count(6), .count(3), .fails(EPERM)]
        let ch = ControlChannel(socket: Self.socket, signalDescriptor: nil, system: kernel.calls)
        try ch.send([0x3d, 0, 0, 0, 0, 0])
        #expect(throws: TransportError.system(call: "write", device: "the control channel", errno: EIO, message: "short write: 3 of 6 bytes")) {
            try ch.send([0x3d, 0, 0, 0, 0, 0])
        }
        #expect(throws: TransportError.permissionDenied(call: "write", device: "the control channel")) { try ch.send([0x3d, 0, 0, 0, 0, 0]) }
        #expect(kernel.isFullyConsumed, "\(kernel.unexpected)")
    }

    /// An untrusted socket (no CAP_NET_ADMIN) sending a command only trusted sockets may send: the
    /// kernel queues a Command Status (Permission Denied) and write returns 0. The send succeeds,
    /// so that the caller reads the answer (seen in the btvirt guest as user nobody: doctor-nonroot).
    @Test func aCommandTheKernelAnsweredWithoutRunningIsSent() throws {
        let kernel = FakeKernel()
        kernel.writes = [.count(0)]
        let ch = ControlChannel(socket: Self.socket, signalDescriptor: nil, system: kernel.calls)
        try ch.send([0x3d, 0, 0, 0, 0, 0])
        #expect(kernel.isFullyConsumed, "\(kernel.unexpected)")
    }

    @Test func receivesAnEventASignalFirstAndTimesOut() throws {
        let kernel = FakeKernel()
        let removed: [UInt8] = [0x24, 0x00, 0x00, 0x00, 0x01, 0x00, 0x05]
        kernel.polls = [.ready([Self.socket: Int16(POLLIN), Self.signalfd: Int16(POLLIN)]), .ready([Self.socket: Int16(POLLIN)]),
                        .nothing(afterMilliseconds: 100)]
        kernel.reads = [Self.signalfd: [.bytes(RawHCIChannelTests.sigterm)], Self.socket: [.bytes(removed)]]
        let ch = ControlChannel(socket: Self.socket, signalDescriptor: Self.signalfd, system: kernel.calls)
        #expect(try ch.receive(timeoutMilliseconds: 100) == .signal(SIGTERM))
        #expect(try ch.receive(timeoutMilliseconds: 100) == .event(removed))
        #expect(try ch.receive(timeoutMilliseconds: 100) == .timedOut)
        #expect(kernel.isFullyConsumed, "\(kernel.unexpected)")
    }
}

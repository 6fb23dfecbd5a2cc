// SPDX-License-Identifier: Apache-2.0
import Glibc

/// An errno value, captured right after the call that set it.
public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: Int32

    public init(_ code: Int32) { self.code = code }

    /// The C library's text for the code (strerror), never empty: the one place it is read.
    public var description: String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}

/// The one way beacon-tx makes a system call: runs `call` again while it fails with EINTR, and turns
/// a failure (a negative result) into the errno the call left. With `retryOnInterrupt: false` an EINTR
/// is returned like any other errno (close(2) must never be retried on Linux: the descriptor is gone).
@inline(__always)
public func systemCall<Result: BinaryInteger>(
    retryOnInterrupt: Bool = true,
    _ call: () -> Result
) throws(Errno) -> Result {
    while true {
        let result = call()
        if result >= 0 { return result }
        let code = Glibc.errno
        if code == EINTR && retryOnInterrupt { continue }
        throw Errno(code)
    }
}

/// The calls on open descriptors and the clocks, as swappable functions.
///
/// `.live` is the kernel. A test builds its own value whose functions return scripted results
/// (setting `errno` before returning -1, as the kernel does), which reaches branches the kernel
/// rarely takes: short writes, hang-ups, EINTR, several descriptors ready at once.
public struct SystemCalls: Sendable {
    public var read: @Sendable (Int32, UnsafeMutableRawBufferPointer) -> Int
    public var write: @Sendable (Int32, UnsafeRawBufferPointer) -> Int
    /// recv(2) with flags (MSG_DONTWAIT).
    public var receive: @Sendable (Int32, UnsafeMutableRawBufferPointer, Int32) -> Int
    public var poll: @Sendable (UnsafeMutableBufferPointer<pollfd>, Int32) -> Int32
    public var close: @Sendable (Int32) -> Int32
    /// clock_gettime in nanoseconds.
    public var clockNanoseconds: @Sendable (clockid_t) -> Int64

    public init(
        read: @escaping @Sendable (Int32, UnsafeMutableRawBufferPointer) -> Int,
        write: @escaping @Sendable (Int32, UnsafeRawBufferPointer) -> Int,
        receive: @escaping @Sendable (Int32, UnsafeMutableRawBufferPointer, Int32) -> Int,
        poll: @escaping @Sendable (UnsafeMutableBufferPointer<pollfd>, Int32) -> Int32,
        close: @escaping @Sendable (Int32) -> Int32,
        clockNanoseconds: @escaping @Sendable (clockid_t) -> Int64
    ) {
        self.read = read
        self.write = write
        self.receive = receive
        self.poll = poll
        self.close = close
        self.clockNanoseconds = clockNanoseconds
    }

    /// The kernel.
    public static let live = SystemCalls(
        read: { fd, buffer in Glibc.read(fd, buffer.baseAddress, buffer.count) },
        write: { fd, bytes in Glibc.write(fd, bytes.baseAddress, bytes.count) },
        receive: { fd, buffer, flags in recv(fd, buffer.baseAddress, buffer.count, flags) },
        poll: { fds, timeout in Glibc.poll(fds.baseAddress, nfds_t(fds.count), timeout) },
        close: { fd in Glibc.close(fd) },
        clockNanoseconds: { clock in
            var ts = timespec()
            // clock_gettime cannot fail for CLOCK_MONOTONIC / CLOCK_REALTIME with a valid pointer;
            // a zero reading would only make a wait end early, never hang.
            _ = clock_gettime(clock, &ts)
            return Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec)
        }
    )

    /// close(2), never retried (on Linux the descriptor is released even when close reports EINTR),
    /// keeping the caller's errno.
    public func closeDescriptor(_ fd: Int32) {
        let saved = Glibc.errno
        _ = close(fd)
        Glibc.errno = saved
    }

    /// Milliseconds on CLOCK_MONOTONIC, for deadlines and scan timing.
    public func monotonicMilliseconds() -> Int64 { clockNanoseconds(CLOCK_MONOTONIC) / 1_000_000 }

    /// Seconds since the epoch on CLOCK_REALTIME, for timestamps people read.
    public func wallClockSeconds() -> Double {
        let ns = clockNanoseconds(CLOCK_REALTIME)
        return Double(ns / 1_000_000_000) + Double(ns % 1_000_000_000) / 1e9
    }
}

// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import SystemCalls

/// The sd_notify protocol, written by hand (no libsystemd): one datagram per message on an
/// AF_UNIX SOCK_DGRAM socket to `$NOTIFY_SOCKET`, a file system path or an abstract name
/// written `@name` (sent with a leading NUL).
///
/// API for the foreground session (all calls are no-ops when `$NOTIFY_SOCKET` is unset):
/// - `ready(status:)`: `READY=1` (with `STATUS=`), once every beacon is on air, and again after a reload;
/// - `status(_:)`: `STATUS=` text, sent only when it differs from the last one sent;
/// - `reloading(status:)`: `RELOADING=1` + `MONOTONIC_USEC=` (on SIGHUP), followed later by `ready`;
/// - `stopping(status:)`: `STOPPING=1` (on SIGTERM/SIGINT, before the stop plan);
/// - `watchdog()`: `WATCHDOG=1`; call it every `watchdogIntervalMilliseconds` while healthy.
///
/// `watchdogIntervalMilliseconds` is a quarter of `$WATCHDOG_USEC` when that is set and
/// `$WATCHDOG_PID` is unset or this process; otherwise nil, and the caller arms no timer.
/// Other address kinds (`vsock:`) are not supported: they count as send failures.
/// Send errors are ignored (a supervisor that stopped listening must not stop the beacon);
/// `sendFailures` counts them.
public final class ServiceNotifier {
    /// `$NOTIFY_SOCKET` as given, or nil when it is unset or empty.
    public let socketName: String?
    public let watchdogIntervalMilliseconds: Int?
    public private(set) var sendFailures = 0
    private let monotonicMicroseconds: () -> UInt64
    private var descriptor: Int32 = -1
    private var lastStatus: String?

    public var isEnabled: Bool { socketName != nil }

    /// - Parameters:
    ///   - environment: reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID`.
    ///   - pid: this process (compared with `WATCHDOG_PID`).
    public init(environment: (String) -> String?, pid: Int32,
                monotonicMicroseconds: @escaping () -> UInt64 = ServiceNotifier.monotonicNow) {
        let name = environment("NOTIFY_SOCKET") ?? ""
        socketName = name.isEmpty ? nil : name
        self.monotonicMicroseconds = monotonicMicroseconds
        watchdogIntervalMilliseconds = Self.watchdogInterval(usec: environment("WATCHDOG_USEC"), pid: environment("WATCHDOG_PID"), ourPID: pid)
    }

    /// A notifier that sends nothing.
    public static var disabled: ServiceNotifier { ServiceNotifier(environment: { _ in nil }, pid: 0) }

    deinit {
        if descriptor >= 0 { SystemCalls.live.closeDescriptor(descriptor) }
    }

    // MARK: messages

    public func ready(status text: String? = nil) {
        var lines = ["READY=1"]
        if let text { lines.append("STATUS=" + text); lastStatus = text }
        send(lines)
    }

    /// Sends `STATUS=text` unless it was the last text sent.
    public func status(_ text: String) {
        guard text != lastStatus else { return }
        lastStatus = text
        send(["STATUS=" + text])
    }

    public func reloading(status text: String? = nil) {
        var lines = ["RELOADING=1", "MONOTONIC_USEC=\(monotonicMicroseconds())"]
        if let text { lines.append("STATUS=" + text); lastStatus = text }
        send(lines)
    }

    public func stopping(status text: String? = nil) {
        var lines = ["STOPPING=1"]
        if let text { lines.append("STATUS=" + text); lastStatus = text }
        send(lines)
    }

    public func watchdog() { send(["WATCHDOG=1"]) }

    // MARK: environment

    /// A quarter of `WATCHDOG_USEC` in milliseconds (at least 1), when it applies to `ourPID`.
    /// systemd asks for a beat at least every half; a quarter keeps the longest gap between two
    /// beats under half of `WatchdogSec=` even when one wait of the loop runs late (a controller
    /// that stops answering holds a command up to its 2 s timeout).
    static func watchdogInterval(usec: String?, pid: String?, ourPID: Int32) -> Int? {
        guard let usec, let value = UInt64(usec), value > 0 else { return nil }
        if let pid, !pid.isEmpty {
            guard let owner = Int32(pid), owner == ourPID else { return nil }
        }
        return Int(min(value / 4 / 1000, UInt64(Int32.max))).clamped(toAtLeast: 1)
    }

    /// CLOCK_MONOTONIC in microseconds, the clock `MONOTONIC_USEC=` is read against.
    public static func monotonicNow() -> UInt64 {
        UInt64(clamping: SystemCalls.live.clockNanoseconds(CLOCK_MONOTONIC) / 1000)
    }

    // MARK: the socket

    /// One datagram with `lines` joined by newlines.
    private func send(_ lines: [String]) {
        guard let socketName else { return }
        if descriptor < 0 {
            do {
                descriptor = try systemCall { socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
            } catch {
                sendFailures += 1
                return
            }
        }
        let payload = Array(lines.joined(separator: "\n").utf8)
        let fd = descriptor
        guard let sent = Self.withAddress(socketName, { address, length in
            payload.withUnsafeBytes { bytes in
                try? systemCall { sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), address, length) }
            }
        }), sent == payload.count else {
            sendFailures += 1
            return
        }
    }

    /// Calls `body` with a `sockaddr_un` for `name` (`@name`: abstract, leading NUL, no trailing
    /// NUL counted), or returns nil when the name does not fit `sun_path`.
    static func withAddress<R>(_ name: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R? {
        var path = Array(name.utf8)
        let abstract = path.first == UInt8(ascii: "@")
        if abstract { path[0] = 0 }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        // A path needs room for its NUL; an abstract name uses every byte it has.
        guard !path.isEmpty, path.count <= (abstract ? capacity : capacity - 1) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.enumerated() { raw[i] = b }
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2
        let length = socklen_t(pathOffset + path.count + (abstract ? 0 : 1))
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}

private extension Int {
    func clamped(toAtLeast low: Int) -> Int { Swift.max(self, low) }
}

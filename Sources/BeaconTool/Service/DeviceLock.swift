// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// One owner per device: a foreground `start` holds the lock of its device for its whole life, so
/// that a second `start` (foreground or `--detach`) on that device is refused instead of fighting it
/// for the controller, and `stop` knows there is a session to stop rather than a detached beacon.
///
/// The lock is an abstract AF_UNIX datagram socket bound to the name `beacon-tx/hciN` (no file:
/// the name lives in the kernel's table of the network namespace). Binding it is the claim; a second
/// bind fails with EADDRINUSE. The kernel releases it when the socket's last descriptor closes, so
/// when the process ends however it ends (SIGKILL and crashes included): a lock cannot go stale.
/// It needs no writable directory, which suits both units (each `DynamicUser` has its own runtime
/// directory) and a root session alike; `RestrictAddressFamilies=AF_UNIX` already allows it.
///
/// Who holds it is read from the state files (`StateStore`), which every session writes from its
/// first step on (while waiting for its device too).
final class DeviceLock {
    private var descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }
    deinit { release() }

    func release() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
    }

    /// The abstract socket name of `device`'s lock (without the leading NUL).
    static func name(device: String) -> String { "beacon-tx/" + device }

    enum Claim {
        /// Ours until released (or the process ends); nil where no lock is kept (the unit tests).
        case claimed(DeviceLock?)
        /// Another process holds it.
        case held
        /// The lock could not be tried (for example a seccomp filter refusing AF_UNIX): the errno text.
        case unavailable(String)
    }

    static func claim(device: String) -> Claim {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .unavailable("socket(AF_UNIX): " + String(cString: strerror(errno))) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(name(device: device).utf8)
        // sun_path[0] = 0 marks the abstract namespace; the name follows, not NUL-terminated.
        let capacity = MemoryLayout.size(ofValue: address.sun_path) - 1
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            for (i, b) in bytes.prefix(capacity).enumerated() { path[i + 1] = b }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + 1 + min(bytes.count, capacity))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        if bound == 0 { return .claimed(DeviceLock(descriptor: fd)) }
        let error = errno
        close(fd)
        if error == EADDRINUSE { return .held }
        return .unavailable("bind(@\(name(device: device))): " + String(cString: strerror(error)))
    }
}

extension ToolContext {
    /// `start`, before its first command on `device`: takes the device's lock for this session, or
    /// refuses (exit 75) naming the session that owns it. A state file left by a session that is gone
    /// (killed with SIGKILL, say) is taken over with a note: its beacons may still be on air, and this
    /// session replaces them.
    func claimDevice(_ device: String) throws(CLIError) -> DeviceLock? {
        switch service.claimDevice(device) {
        case let .claimed(lock):
            if let stale = service.stateStore.readAll().first(where: { $0.device == device }),
               case let .success(state) = stale.state, state.pid != service.pid, !service.isProcessAlive(state.pid) {
                note("\(device): taking over from pid \(state.pid), which is gone (its state file \(stale.path) says \(state.onAir ? "on air" : "off air"))")
            }
            return lock
        case .held:
            let owner = sessionOwner(device).map { "pid \($0)" } ?? "pid unknown"
            throw CLIError(.tempFail, "\(device) is in use by another beacon-tx session (\(owner)); stop it first ('beacon-tx stop --device \(device)' as root, or 'systemctl stop' for a service) or use another --device")
        case let .unavailable(why):
            warn("\(device): the device lock is not available (\(why)); a second beacon-tx on \(device) would not be noticed")
            return nil
        }
    }

    /// The pid of the running session on `device`, from the state files.
    func sessionOwner(_ device: String) -> Int32? {
        for entry in service.stateStore.readAll() where entry.device == device {
            if case let .success(state) = entry.state, service.isProcessAlive(state.pid) { return state.pid }
        }
        return nil
    }

    /// How long `stop` waits for a session it signalled to run its stop plan and exit.
    static let ownerStopMilliseconds = 15_000

    /// `stop`: when a foreground session owns `device`, sends it SIGTERM and waits until it has run its
    /// stop plan and released the device, rather than disabling its beacons under it (it would put them
    /// back). Returns the session's pid, or nil when no session owned the device. The lock stays ours
    /// (returned) until the caller has finished, so that a restarting service cannot slip in between.
    func stopOwner(of device: String) throws(CLIError) -> (pid: Int32, lock: DeviceLock?)? {
        guard case .held = service.claimDevice(device) else { return nil }
        guard let pid = sessionOwner(device) else {
            throw CLIError(.tempFail, "\(device) is owned by a beacon-tx session whose state file was not found (looked in \(service.stateDirectories.joined(separator: ", "))); stop it where it runs")
        }
        switch service.signalProcess(pid, SIGTERM) {
        case 0, ESRCH: break
        case EPERM: throw CLIError(.noPermission, "\(device) is owned by the beacon-tx session of pid \(pid), which this user may not signal: run 'beacon-tx stop' as root")
        case let e: throw CLIError(.software, "kill(\(pid), SIGTERM): " + String(cString: strerror(e)))
        }
        note("\(device) is owned by the foreground session of pid \(pid): sent it SIGTERM; waiting for its stop plan")
        var waited = 0
        while true {
            if case let .claimed(lock) = service.claimDevice(device) { return (pid, lock) }
            guard waited < Self.ownerStopMilliseconds else {
                throw CLIError(.unavailable, "the beacon-tx session of pid \(pid) did not stop within \(Self.ownerStopMilliseconds / 1000) s of SIGTERM; \(device) is still its")
            }
            service.pause(100)
            waited += 100
        }
    }
}

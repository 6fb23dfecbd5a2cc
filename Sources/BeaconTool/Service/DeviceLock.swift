// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import CBlueZ
import SystemCalls

/// One owner per device: a foreground `start` holds the lock of its device for its whole life, so
/// that a second `start` (foreground or `--detach`) on that device is refused instead of fighting it
/// for the controller, and `stop` knows there is a session to stop rather than a detached beacon.
///
/// The lock is a POSIX record lock (`fcntl(F_SETLK)`, a write lock on the whole file) on
/// `/run/beacon-tx/lock/hciN`. The directory belongs to root and the `beacon-tx` group, mode 3771
/// (systemd-tmpfiles makes it; the units join the group with `SupplementaryGroups=`): only root and
/// the units can create or open a lock file (others may only look a name up, for `/proc/locks`),
/// so no other local user can hold a device's lock. The sticky bit keeps a unit from removing
/// another's file. The kernel releases the lock when the
/// process ends however it ends (SIGKILL and crashes included), and it names the holder
/// (`F_GETLK`): who owns a device is never read from a file another user can write.
///
/// Record locks belong to the process, and closing any descriptor of the file drops them, so the
/// process keeps one descriptor per device it holds and answers questions about those devices
/// from that table, without opening the file again.
final class DeviceLock {
    private var descriptor: Int32
    let device: String

    private init(descriptor: Int32, device: String) {
        self.descriptor = descriptor
        self.device = device
    }
    deinit { release() }

    func release() {
        if descriptor >= 0 {
            Self.held.remove(device)
            SystemCalls.live.closeDescriptor(descriptor)
            descriptor = -1
        }
    }

    /// The devices this process holds (a record lock never conflicts with its own process).
    nonisolated(unsafe) private static var held: Set<String> = []

    /// Where the lock files live.
    static let directory = "/run/beacon-tx/lock"

    /// The group that may take locks (the units' `SupplementaryGroups=`).
    static let group = "beacon-tx"

    static func path(device: String, in directory: String = directory) -> String { directory + "/" + device }

    enum Claim {
        /// Ours until released (or the process ends); nil where no lock is kept (the unit tests).
        case claimed(DeviceLock?)
        /// Another process holds it.
        case held
        /// The lock could not be tried (no access to the lock directory, say): why.
        case unavailable(String)
    }

    /// Who holds a device's lock, as the kernel says.
    enum Holder: Equatable {
        case free
        case process(Int32)
        /// The lock could not be asked (no access to the lock directory): why.
        case unknown(String)
    }

    static func claim(device: String, in directory: String = directory) -> Claim {
        if held.contains(device) { return .held }
        let fd: Int32
        switch openLockFile(device: device, in: directory, create: true) {
        case let .success(opened): fd = opened
        case let .failure(why): return .unavailable(why.description)
        }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        if fcntl(fd, F_SETLK, &lock) == 0 {
            held.insert(device)
            return .claimed(DeviceLock(descriptor: fd, device: device))
        }
        let error = errno
        SystemCalls.live.closeDescriptor(fd)
        if error == EAGAIN || error == EACCES { return .held }
        return .unavailable("fcntl(F_SETLK) on \(path(device: device, in: directory)): \(Errno(error))")
    }

    /// The holder of `device`'s lock; nothing is taken or created.
    static func holder(device: String, in directory: String = directory) -> Holder {
        if held.contains(device) { return .process(getpid()) }
        let fd: Int32
        switch openLockFile(device: device, in: directory, create: false) {
        case let .success(opened): fd = opened
        case let .failure(why) where why.code == ENOENT: return .free   // never locked since boot
        case let .failure(why) where why.code == EACCES:
            return holderFromProcLocks(path(device: device, in: directory)) ?? .unknown(why.description)
        case let .failure(why): return .unknown(why.description)
        }
        defer { SystemCalls.live.closeDescriptor(fd) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        guard fcntl(fd, F_GETLK, &lock) == 0 else {
            return .unknown("fcntl(F_GETLK) on \(path(device: device, in: directory)): \(Errno(errno))")
        }
        return lock.l_type == Int16(F_UNLCK) ? .free : .process(lock.l_pid)
    }

    /// For a user who may not open the lock file (not root, not in the group): the directory may
    /// be searched, so the file's inode is found by name, and the kernel's table of locks
    /// (`/proc/locks`, readable by anyone) names the process that holds a POSIX write lock on it.
    /// nil when the file cannot be found or the table not read.
    static func holderFromProcLocks(_ file: String, table: String? = nil) -> Holder? {
        var st = stat()
        guard lstat(file, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        guard let text = table ?? (try? FileIO.read("/proc/locks", what: "lock table", maximumSize: 1 << 20)).map({ String(decoding: $0, as: UTF8.self) }) else { return nil }
        return holder(inLocks: text, major: UInt32(truncatingIfNeeded: (UInt64(st.st_dev) >> 8) & 0xfff) | UInt32(truncatingIfNeeded: (UInt64(st.st_dev) >> 32) & ~0xfff),
                      minor: UInt32(truncatingIfNeeded: UInt64(st.st_dev) & 0xff) | UInt32(truncatingIfNeeded: (UInt64(st.st_dev) >> 12) & ~0xff),
                      inode: UInt64(st.st_ino))
    }

    /// The holder of a POSIX write lock on device `major:minor`, inode `inode`, in `/proc/locks`
    /// text (`1: POSIX  ADVISORY  WRITE 1234 00:1a:5678 0 EOF`; major and minor in hex).
    static func holder(inLocks text: String, major: UInt32, minor: UInt32, inode: UInt64) -> Holder {
        for line in text.split(separator: "\n") {
            let f = line.split(separator: " ", omittingEmptySubsequences: true)
            guard f.count >= 6, f[1] == "POSIX", f[3] == "WRITE", let pid = Int32(f[4]), pid > 0 else { continue }
            let id = f[5].split(separator: ":")
            guard id.count == 3, UInt32(id[0], radix: 16) == major, UInt32(id[1], radix: 16) == minor, UInt64(id[2]) == inode else { continue }
            return .process(pid)
        }
        return .free
    }

    struct OpenFailure: Error, CustomStringConvertible {
        var code: Int32
        var description: String
    }

    /// Opens (or creates) the lock file without following links, in a directory that only root can
    /// have made: root-owned and not writable by others. 
    private static func openLockFile(device: String, in directory: String, create: Bool) -> Result<Int32, OpenFailure> {
        let file = path(device: device, in: directory)
        var dirFD = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if dirFD < 0 && errno == ENOENT && create {
            makeDirectory(directory)
            dirFD = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        }
        guard dirFD >= 0 else {
            let e = errno
            return .failure(OpenFailure(code: e, description: "\(directory): \(Errno(e))"))
        }
        defer { SystemCalls.live.closeDescriptor(dirFD) }
        var st = stat()
        guard fstat(dirFD, &st) == 0, st.st_uid == 0 || st.st_uid == geteuid(), st.st_mode & S_IWOTH == 0 else {
            return .failure(OpenFailure(code: EPERM, description: "\(directory) is not a lock directory (it must be root's and not writable by others)"))
        }
        // An existing file is opened without O_CREAT: in a sticky directory that others can
        // write, fs.protected_regular refuses O_CREAT on someone else's file even to root.
        let flags = O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        var fd = openat(dirFD, device, flags)
        if fd < 0 && errno == ENOENT && create {
            fd = openat(dirFD, device, flags | O_CREAT | O_EXCL, 0o660)
            if fd < 0 && errno == EEXIST { fd = openat(dirFD, device, flags) }
        }
        guard fd >= 0 else {
            let e = errno
            return .failure(OpenFailure(code: e, description: "\(file): \(e == ELOOP ? "a symbolic link" : Errno(e).description)"))
        }
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            SystemCalls.live.closeDescriptor(fd)
            return .failure(OpenFailure(code: EINVAL, description: "\(file) is not a regular file"))
        }
        // Created under the units' UMask=0077: the other units (the same group) must open it too.
        if st.st_uid == geteuid() && st.st_mode & 0o660 != 0o660 { _ = fchmod(fd, 0o660) }
        return .success(fd)
    }

    /// Where systemd-tmpfiles has not made the directory (no package installed, a bare binary as
    /// root): the same shape, with the `beacon-tx` group when it exists.
    private static func makeDirectory(_ directory: String) {
        let parent = directory.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        if !parent.isEmpty, mkdir(parent, 0o755) == 0 { _ = chmod(parent, 0o755) }
        guard mkdir(directory, 0o700) == 0 else { return }
        if geteuid() == 0, let gid = GroupFile.gid(of: group) {   // not getgrnam: GroupFile says why
            _ = chown(directory, 0, gid)
            _ = chmod(directory, 0o3771)
        } else {
            _ = chmod(directory, 0o1771)
        }
    }

    /// What became of a signal to a lock holder.
    enum SignalOutcome: Equatable {
        case sent
        /// The process is gone (or no longer holds the lock).
        case gone
        case notPermitted
        /// The holder is not a beacon-tx binary: its executable.
        case notBeaconTx(String)
        case failed(Errno)
    }

    /// Signals `pid` only while it holds `device`'s lock and runs a beacon-tx binary, through a
    /// pidfd: the process checked is the process signalled, even if `pid` is reused in between.
    static func signalHolder(_ pid: Int32, of device: String, _ signal: Int32, in directory: String = directory) -> SignalOutcome {
        let pidfd = beacon_tx_pidfd_open(pid)
        guard pidfd >= 0 else {
            switch errno {
            case ESRCH: return .gone
            case EPERM: return .notPermitted
            case let e: return .failed(Errno(e))
            }
        }
        defer { SystemCalls.live.closeDescriptor(pidfd) }
        // The pidfd is open: if `pid` still holds the lock now, the pidfd is that holder.
        guard holder(device: device, in: directory) == .process(pid) else { return .gone }
        let exe = executable(of: pid)
        guard let exe, isBeaconTx(exe) else { return .notBeaconTx(exe ?? "unknown (/proc/\(pid)/exe unreadable)") }
        guard beacon_tx_pidfd_send_signal(pidfd, signal) == 0 else {
            switch errno {
            case ESRCH: return .gone
            case EPERM: return .notPermitted
            case let e: return .failed(Errno(e))
            }
        }
        return .sent
    }

    /// The target of `/proc/PID/exe`, or nil.
    static func executable(of pid: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `exe` (a `/proc/PID/exe` target) is a beacon-tx binary: its file name is `beacon-tx`
    /// (an upgraded package leaves the running one as "… (deleted)").
    static func isBeaconTx(_ exe: String) -> Bool {
        var path = Substring(exe)
        if path.hasSuffix(" (deleted)") { path = path.dropLast(" (deleted)".count) }
        return path.split(separator: "/").last == "beacon-tx"
    }
}

extension ToolContext {
    /// `start`, before its first command on `device`: takes the device's lock for this session, or
    /// refuses (exit 75) naming the process that holds it. A state file left by a session that is
    /// gone (killed with SIGKILL, say) is taken over with a note: its beacons may still be on air,
    /// and this session replaces them. Where no lock can be tried (a user who may not open the lock
    /// directory), the warning is returned, for the caller to give once the device has proved
    /// usable: a user without the capabilities gets the one error that matters.
    func claimDevice(_ device: String) throws(CLIError) -> (lock: DeviceLock?, warning: String?) {
        switch service.claimDevice(device) {
        case let .claimed(lock):
            if let stale = service.stateStore.readAll().first(where: { $0.device == device }),
               case let .success(state) = stale.state, state.pid != service.pid, !service.isProcessAlive(state.pid) {
                note("\(device): taking over from pid \(state.pid), which is gone (its state file \(stale.path) says \(state.onAir ? "on air" : "off air"))")
            }
            return (lock, nil)
        case .held:
            let owner = if case let .process(pid) = service.lockHolder(device) { "pid \(pid)" } else { "pid unknown" }
            throw CLIError(.tempFail, "\(device) is in use by another beacon-tx session (\(owner)); stop it first ('beacon-tx stop --device \(device)' as root, or 'systemctl stop' for a service) or use another --device")
        case let .unavailable(why):
            return (nil, "\(device): the device lock is not available (\(why)); a second beacon-tx on \(device) would not be noticed")
        }
    }

    /// How long `stop` waits for a session it signalled to run its stop plan and exit.
    static let ownerStopMilliseconds = 15_000

    /// `stop`: when a foreground session owns `device`, sends it SIGTERM and waits until it has run its
    /// stop plan and released the device, rather than disabling its beacons under it (it would put them
    /// back). The process signalled is the lock's holder as the kernel names it, and only when it runs
    /// a beacon-tx binary. Returns the session's pid, or nil when no session owned the device. The lock
    /// stays ours (returned) until the caller has finished, so that a restarting service cannot slip in
    /// between.
    func stopOwner(of device: String) throws(CLIError) -> (pid: Int32, lock: DeviceLock?)? {
        guard case .held = service.claimDevice(device) else { return nil }
        let pid: Int32
        switch service.lockHolder(device) {
        case .free: return nil
        case let .process(holder): pid = holder
        case let .unknown(why): throw CLIError(.noPermission, "\(device) is owned by a beacon-tx session that this user cannot name (\(why)): run 'beacon-tx stop' as root")
        }
        switch service.signalHolder(pid, device, SIGTERM) {
        case .sent, .gone: break
        case .notPermitted: throw CLIError(.noPermission, "\(device) is owned by the beacon-tx session of pid \(pid), which this user may not signal: run 'beacon-tx stop' as root")
        case let .notBeaconTx(exe): throw CLIError(.unavailable, "\(device)'s lock is held by pid \(pid), which runs \(Quote.user(exe)), not beacon-tx: nothing was signalled")
        case let .failed(e): throw CLIError(.software, "pidfd_send_signal(\(pid), SIGTERM): \(e)")
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

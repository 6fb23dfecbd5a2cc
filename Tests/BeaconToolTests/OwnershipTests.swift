// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Glibc
import Testing

/// One owner per device: `start` claims the device before its first command; a second `start` is
/// refused naming the owner; `stop` stops a foreground owner instead of fighting it.
@Suite struct OwnershipTests {
    typealias C = Controllers

    /// A state directory holding `hci0.json` of `pid`.
    func stateDirectory(pid: Int32, onAir: Bool = true) throws -> String {
        let dir = temporaryDirectory()
        let state = SessionState(device: "hci0", pid: pid, onAir: onAir, status: "1 beacon on air on hci0 (extended set 239)", family: .extended, since: 0)
        try StateStore(candidates: [dir]).write(state, into: dir)
        return dir
    }

    /// The service context with a fake lock: `claims` answers in order (the last one repeats);
    /// `holder` is who the kernel says holds it.
    final class FakeLocks: @unchecked Sendable {
        var claims: [DeviceLock.Claim]
        var holder: DeviceLock.Holder = .free
        var tried: [String] = []
        var signalled: [(Int32, Int32)] = []
        var signalResult: DeviceLock.SignalOutcome = .sent
        init(_ claims: [DeviceLock.Claim], holder: DeviceLock.Holder = .free) {
            self.claims = claims
            self.holder = holder
        }
        func next(_ device: String) -> DeviceLock.Claim {
            tried.append(device)
            return claims.count > 1 ? claims.removeFirst() : claims[0]
        }
    }

    func service(_ dir: String, _ locks: FakeLocks, alive: Set<Int32>) -> ServiceContext {
        var svc = BeaconToolTests.service([:], stateDirectory: dir, alive: alive)
        svc.claimDevice = { locks.next($0) }
        svc.lockHolder = { _ in locks.holder }
        svc.signalHolder = { pid, _, signal in
            locks.signalled.append((pid, signal))
            return locks.signalResult
        }
        return svc
    }

    @Test func aSecondStartIsRefusedNamingTheOwnerBeforeAnyCommand() throws {
        let dir = try stateDirectory(pid: 777)
        let locks = FakeLocks([.held], holder: .process(777))
        let h = FakeHost(devices: [C.device(0)], channels: [0: ScriptedController([])])
        for detach in [false, true] {
            let r = tool(["start"] + goldenFlags + ["--device", "hci0"] + (detach ? ["--detach"] : []), host: h,
                         service: service(dir, locks, alive: [4242, 777]))
            #expect(r.code == 75)
            #expect(r.err == "beacon-tx start: hci0 is in use by another beacon-tx session (pid 777); stop it first ('beacon-tx stop --device hci0' as root, or 'systemctl stop' for a service) or use another --device\n")
        }
        #expect(h.log.isEmpty, "nothing opened, brought up or sent: \(h.log)")
        #expect(locks.tried == ["hci0", "hci0"])
    }

    @Test func theDefaultDeviceIsNotSwappedForAnotherWhenItIsOwned() {
        let locks = FakeLocks([.held])
        let h = FakeHost(devices: [C.device(0), C.device(1)], channels: [:])
        let r = tool(["start"] + goldenFlags, host: h, service: service(temporaryDirectory(), locks, alive: [4242]))
        #expect(r.code == 75)
        #expect(r.err.contains("hci0 is in use by another beacon-tx session (pid unknown)"))
        #expect(locks.tried == ["hci0"])
    }

    @Test func aStateFileOfAGoneProcessIsTakenOverWithANote() throws {
        let dir = try stateDirectory(pid: 999)
        let p = AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: AdvertisingOptions(interval: .standard, advertisingHandle: 0xEF), family: .extended)
        let fake = ScriptedController(C.probe(extended: true) + C.okSteps(p.start) + [.receive(.signal(15))] + C.okSteps(p.stop))
        let h = FakeHost(devices: [C.device(0)], channels: [0: fake])
        let r = tool(["start"] + goldenFlags, host: h, service: service(dir, FakeLocks([.claimed(nil)]), alive: [4242]))
        #expect(r.code == 0, "\(r.err)")
        #expect(r.err.hasPrefix("beacon-tx: hci0: taking over from pid 999, which is gone (its state file \(dir)/hci0.json says on air)\n"))
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func stopSignalsTheForegroundOwnerAndWaitsForItsStopPlan() throws {
        let dir = try stateDirectory(pid: 777)
        // Held twice (the first look, then once while it runs its stop plan), then free. The state
        // file names another pid: the kernel's holder is the one signalled.
        let locks = FakeLocks([.held, .held, .claimed(nil)], holder: .process(778))
        let handles: [UInt8] = [0xEF, 0xEE, 0xED, 0xEC]
        let unknown: (UInt8) -> ScriptedController.Step = { handle in
            let off = HCICommand.leSetExtendedAdvertisingEnable(false, sets: [AdvertisingSetEnable(handle: handle)])
            return .command(off, replies: [C.fail(off, .unknownAdvertisingIdentifier)])
        }
        let legacyOff = HCICommand.leSetAdvertisingEnable(false)
        let fake = ScriptedController(C.probe(extended: true) + handles.map(unknown) + [.command(legacyOff, replies: [C.fail(legacyOff, .commandDisallowed)])])
        let h = FakeHost(devices: [C.device(0)], channels: [0: fake])
        let r = tool(["stop", "--device", "hci0"], host: h, service: service(dir, locks, alive: [4242, 777, 778]))
        #expect(r.code == 0, "\(r.err)")
        #expect(locks.signalled.map { [$0.0, $0.1] } == [[778, SIGTERM]])
        #expect(r.err == """
            beacon-tx: hci0 is owned by the foreground session of pid 778: sent it SIGTERM; waiting for its stop plan
            beacon-tx: stopped the beacon-tx session of pid 778 on hci0 (it ran its stop plan); advertising is off on hci0

            """)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func stopThatMayNotSignalTheOwnerExits77() throws {
        let dir = try stateDirectory(pid: 777)
        let locks = FakeLocks([.held], holder: .process(777))
        locks.signalResult = .notPermitted
        let h = FakeHost(devices: [C.device(0)], channels: [0: ScriptedController(C.probe(extended: true))])
        let r = tool(["stop", "--device", "hci0"], host: h, service: service(dir, locks, alive: [4242, 777]))
        #expect(r.code == 77)
        #expect(r.err == "beacon-tx stop: hci0 is owned by the beacon-tx session of pid 777, which this user may not signal: run 'beacon-tx stop' as root\n")
    }

    @Test func stopRefusesAHolderThatIsNotBeaconTx() throws {
        let locks = FakeLocks([.held], holder: .process(777))
        locks.signalResult = .notBeaconTx("/usr/bin/sleep")
        let h = FakeHost(devices: [C.device(0)], channels: [0: ScriptedController(C.probe(extended: true))])
        let r = tool(["stop", "--device", "hci0"], host: h, service: service(temporaryDirectory(), locks, alive: [4242, 777]))
        #expect(r.code == 69)
        #expect(r.err == "beacon-tx stop: hci0's lock is held by pid 777, which runs '/usr/bin/sleep', not beacon-tx: nothing was signalled\n")
    }

    @Test func aRealLockIsExclusiveAndReleasedWithItsDescriptor() throws {
        let dir = temporaryDirectory()
        let device = "hci-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard case let .claimed(first) = DeviceLock.claim(device: device, in: dir) else { Issue.record("not claimed"); return }
        #expect(DeviceLock.holder(device: device, in: dir) == .process(getpid()))
        guard case .held = DeviceLock.claim(device: device, in: dir) else { Issue.record("a second claim was not refused"); return }
        first?.release()
        #expect(DeviceLock.holder(device: device, in: dir) == .free)
        guard case .claimed = DeviceLock.claim(device: device, in: dir) else { Issue.record("not released"); return }
        #expect(DeviceLock.holder(device: "hci-never-\(getpid())", in: dir) == .free)
    }

    /// A process that takes `device`'s lock in `dir` and then runs `exe` (record locks survive
    /// execve), as a squatter or a session would. Returns once `exe` runs: the pipe's write end is
    /// close-on-exec, so the read sees its end only then; a failure writes a byte first. Only
    /// async-signal-safe calls after fork.
    func spawnHolder(device: String, in dir: String, exe: String) throws -> pid_t {
        let file = Array((dir + "/" + device).utf8CString)
        let program = Array(exe.utf8CString)
        let seconds = Array("30".utf8CString)
        let ends = UnsafeMutablePointer<Int32>.allocate(capacity: 2)
        defer { ends.deallocate() }
        try #require(pipe(ends) == 0)
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        let pid: pid_t = file.withUnsafeBufferPointer { f in program.withUnsafeBufferPointer { p in seconds.withUnsafeBufferPointer { s in
            var argv: [UnsafeMutablePointer<CChar>?] = [UnsafeMutablePointer(mutating: p.baseAddress), UnsafeMutablePointer(mutating: s.baseAddress), nil]
            return argv.withUnsafeMutableBufferPointer { av in
                let child = fork()
                if child == 0 {
                    var none = sigset_t()   // the runner may block signals; a session would not
                    sigemptyset(&none)
                    sigprocmask(SIG_SETMASK, &none, nil)
                    let fd = open(f.baseAddress!, O_RDWR | O_CREAT, 0o660)
                    var lock = flock()
                    lock.l_type = Int16(F_WRLCK)
                    lock.l_whence = Int16(SEEK_SET)
                    if fd >= 0 && fcntl(fd, F_SETLK, &lock) == 0 { execv(p.baseAddress!, av.baseAddress!) }
                    var failed: UInt8 = 1
                    _ = write(ends[1], &failed, 1)
                    _exit(127)
                }
                return child
            }
        }}}
        close(ends[1])
        var byte: UInt8 = 0
        var n: Int
        repeat { n = read(ends[0], &byte, 1) } while n < 0 && errno == EINTR
        close(ends[0])
        try #require(pid > 0 && n == 0, "the child did not take the lock and run \(exe)")
        return pid
    }

    /// Waits for `pid` and returns its raw wait status.
    func reap(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    @Test func theKernelNamesTheHolderAndOnlyABeaconTxHolderIsSignalled() throws {
        let dir = temporaryDirectory()
        let device = "hci0"
        // A squatter: another program holding the lock. It is named, never signalled.
        let sleeper = try spawnHolder(device: device, in: dir, exe: "/bin/sleep")
        #expect(DeviceLock.holder(device: device, in: dir) == .process(sleeper))
        guard case .held = DeviceLock.claim(device: device, in: dir) else { Issue.record("the lock was not held"); return }
        guard case let .notBeaconTx(exe) = DeviceLock.signalHolder(sleeper, of: device, SIGTERM, in: dir) else {
            Issue.record("a sleep process was signalled"); return
        }
        #expect(exe.hasSuffix("/sleep"))
        #expect(kill(sleeper, 0) == 0, "the squatter still runs")
        // A pid that does not hold the lock (this test process) is never signalled.
        #expect(DeviceLock.signalHolder(getpid(), of: device, SIGTERM, in: dir) == .gone)
        kill(sleeper, SIGKILL)
        _ = reap(sleeper)
        #expect(DeviceLock.holder(device: device, in: dir) == .free)

        // A beacon-tx binary holding the lock gets the signal through its pidfd.
        let copy = dir + "/beacon-tx"
        let bytes = try FileIO.read("/bin/sleep", what: "sleep", maximumSize: 1 << 30)
        try FileIO.write(bytes, to: copy, what: "copy")
        chmod(copy, 0o755)
        let session = try spawnHolder(device: device, in: dir, exe: copy)
        #expect(DeviceLock.signalHolder(session, of: device, SIGTERM, in: dir) == .sent)
        let status = reap(session)
        #expect(status & 0x7f == SIGTERM, "wait status \(status)")
    }

    @Test func aLockDirectoryOthersCanWriteIsRefused() throws {
        let dir = temporaryDirectory()
        chmod(dir, 0o777)
        guard case let .unavailable(why) = DeviceLock.claim(device: "hci0", in: dir) else { Issue.record("claimed"); return }
        #expect(why == "\(dir) is not a lock directory (it must be root's and not writable by others)")
        let linked = temporaryDirectory()
        symlink("/etc/passwd", linked + "/hci0")
        guard case let .unavailable(link) = DeviceLock.claim(device: "hci0", in: linked) else { Issue.record("claimed"); return }
        #expect(link == "\(linked)/hci0: a symbolic link")
    }

    @Test func procLocksNamesTheWriteLockOfTheInode() {
        let table = """
            1: POSIX  ADVISORY  READ  900 00:1a:77 0 EOF
            2: FLOCK  ADVISORY  WRITE 901 00:1a:77 0 EOF
            3: POSIX  ADVISORY  WRITE 902 00:1b:77 0 EOF
            4: POSIX  ADVISORY  WRITE 903 00:1a:78 0 EOF
            5: POSIX  ADVISORY  WRITE 904 00:1a:77 0 EOF
            """
        #expect(DeviceLock.holder(inLocks: table, major: 0, minor: 0x1a, inode: 77) == .process(904))
        #expect(DeviceLock.holder(inLocks: table, major: 0, minor: 0x1a, inode: 79) == .free)
        // A real lock of this process, found through the real /proc/locks by the file's inode.
        let dir = temporaryDirectory()
        guard case let .claimed(lock) = DeviceLock.claim(device: "hci7", in: dir) else { Issue.record("not claimed"); return }
        #expect(DeviceLock.holderFromProcLocks(dir + "/hci7") == .process(getpid()))
        lock?.release()
        #expect(DeviceLock.holderFromProcLocks(dir + "/hci7") == .free)
    }
}

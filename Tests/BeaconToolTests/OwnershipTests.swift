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

    /// The service context with a fake lock: `claims` answers in order (the last one repeats).
    final class FakeLocks: @unchecked Sendable {
        var claims: [DeviceLock.Claim]
        var tried: [String] = []
        var signalled: [(Int32, Int32)] = []
        var signalResult: Int32 = 0
        init(_ claims: [DeviceLock.Claim]) { self.claims = claims }
        func next(_ device: String) -> DeviceLock.Claim {
            tried.append(device)
            return claims.count > 1 ? claims.removeFirst() : claims[0]
        }
    }

    func service(_ dir: String, _ locks: FakeLocks, alive: Set<Int32>) -> ServiceContext {
        var svc = BeaconToolTests.service([:], stateDirectory: dir, alive: alive)
        svc.claimDevice = { locks.next($0) }
        svc.signalProcess = { pid, signal in
            locks.signalled.append((pid, signal))
            return locks.signalResult
        }
        return svc
    }

    @Test func aSecondStartIsRefusedNamingTheOwnerBeforeAnyCommand() throws {
        let dir = try stateDirectory(pid: 777)
        let locks = FakeLocks([.held])
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
        let p = AdvertisingPlan(beacon: try #require(Golden.beacon), options: AdvertisingOptions(interval: .standard, advertisingHandle: 0xEF), family: .extended)
        let fake = ScriptedController(C.probe(extended: true) + C.okSteps(p.start) + [.receive(.signal(15))] + C.okSteps(p.stop))
        let h = FakeHost(devices: [C.device(0)], channels: [0: fake])
        let r = tool(["start"] + goldenFlags, host: h, service: service(dir, FakeLocks([.claimed(nil)]), alive: [4242]))
        #expect(r.code == 0, "\(r.err)")
        #expect(r.err.hasPrefix("beacon-tx: hci0: taking over from pid 999, which is gone (its state file \(dir)/hci0.json says on air)\n"))
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func stopSignalsTheForegroundOwnerAndWaitsForItsStopPlan() throws {
        let dir = try stateDirectory(pid: 777)
        // Held twice (the first look, then once while it runs its stop plan), then free.
        let locks = FakeLocks([.held, .held, .claimed(nil)])
        let handles: [UInt8] = [0xEF, 0xEE, 0xED, 0xEC]
        let unknown: (UInt8) -> ScriptedController.Step = { handle in
            let off = HCICommand.leSetExtendedAdvertisingEnable(false, sets: [AdvertisingSetEnable(handle: handle)])
            return .command(off, replies: [C.fail(off, .unknownAdvertisingIdentifier)])
        }
        let legacyOff = HCICommand.leSetAdvertisingEnable(false)
        let fake = ScriptedController(C.probe(extended: true) + handles.map(unknown) + [.command(legacyOff, replies: [C.fail(legacyOff, .commandDisallowed)])])
        let h = FakeHost(devices: [C.device(0)], channels: [0: fake])
        let r = tool(["stop", "--device", "hci0"], host: h, service: service(dir, locks, alive: [4242, 777]))
        #expect(r.code == 0, "\(r.err)")
        #expect(locks.signalled.map { [$0.0, $0.1] } == [[777, SIGTERM]])
        #expect(r.err == """
            beacon-tx: hci0 is owned by the foreground session of pid 777: sent it SIGTERM; waiting for its stop plan
            beacon-tx: stopped the beacon-tx session of pid 777 on hci0 (it ran its stop plan); advertising is off on hci0

            """)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func stopThatMayNotSignalTheOwnerExits77() throws {
        let dir = try stateDirectory(pid: 777)
        let locks = FakeLocks([.held])
        locks.signalResult = EPERM
        let h = FakeHost(devices: [C.device(0)], channels: [0: ScriptedController(C.probe(extended: true))])
        let r = tool(["stop", "--device", "hci0"], host: h, service: service(dir, locks, alive: [4242, 777]))
        #expect(r.code == 77)
        #expect(r.err == "beacon-tx stop: hci0 is owned by the beacon-tx session of pid 777, which this user may not signal: run 'beacon-tx stop' as root\n")
    }

    @Test func aRealLockIsExclusiveAndReleasedWithItsDescriptor() throws {
        let device = "hci-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard case let .claimed(first) = DeviceLock.claim(device: device) else { Issue.record("not claimed"); return }
        guard case .held = DeviceLock.claim(device: device) else { Issue.record("a second claim was not refused"); return }
        first?.release()
        guard case .claimed = DeviceLock.claim(device: device) else { Issue.record("not released"); return }
    }
}

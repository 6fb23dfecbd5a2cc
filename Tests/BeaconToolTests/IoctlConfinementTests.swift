// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Glibc
import HCISocket
import Testing

/// `start` (live) and `scan` confine ioctl(2) through the service context's hook, before their first
/// HCI socket; a dry run does not. The hook here records instead of installing: a real filter would
/// hold the whole test runner (HCISocketTests installs it in a forked child).
@Suite struct IoctlConfinementTests {
    typealias C = Controllers

    /// Records each call of the hook and whether the fake host had opened a channel by then.
    final class Hook: @unchecked Sendable {
        var answer: IoctlConfinement
        var calls = 0
        var openedBefore: [[String]] = []
        var host: FakeHost?
        init(_ answer: IoctlConfinement) { self.answer = answer }

        var service: ServiceContext {
            var svc = ServiceContext.none
            svc.confineIoctls = { [self] in
                calls += 1
                openedBefore.append(host?.log ?? [])
                return answer
            }
            return svc
        }
    }

    func startHost() throws -> (FakeHost, ScriptedController) {
        let p = AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: AdvertisingOptions(interval: .standard, advertisingHandle: 0xEF),
                                family: .extended)
        let stop: [ScriptedController.Step] = [.receive(.signal(15))]
        let fake = ScriptedController(C.probe(extended: true) + C.okSteps(p.start) + stop + C.okSteps(p.stop))
        return (FakeHost(devices: [C.device(0)], channels: [0: fake]), fake)
    }

    @Test func startConfinesOnceBeforeTheFirstSocketAndSaysNothing() throws {
        let (h, fake) = try startHost()
        let hook = Hook(.installed(.allThreads))
        hook.host = h
        let r = tool(["start"] + goldenFlags, host: h, service: hook.service)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(hook.calls == 1)
        #expect(hook.openedBefore == [[]], "confined before any channel was opened")
        #expect(!r.err.contains("seccomp"), "quiet without --verbose: \(r.err)")
    }

    @Test func verboseSaysWhatIsAllowed() throws {
        let (h, _) = try startHost()
        let hook = Hook(.installed(.onlyThread))
        let r = tool(["start"] + goldenFlags + ["--verbose"], host: h, service: hook.service)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.err.hasPrefix("beacon-tx: seccomp: ioctl(2) confined to HCIGETDEVINFO, HCIGETDEVLIST, HCIDEVUP, HCIDEVRESET, TCGETS, "
                                + "TIOCGWINSZ (any other request fails with EPERM; the process's only thread)\n"), "\(r.err)")
    }

    /// A filter that cannot be installed is one warning naming the errno; the beacons still go on air.
    @Test func aFailureIsOneWarningAndTheStartGoesOn() throws {
        let (h, fake) = try startHost()
        let hook = Hook(.failed(.otherThreads(count: 3, seccompErrno: EPERM)))
        let r = tool(["start"] + goldenFlags, host: h, service: hook.service)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(r.err.hasPrefix("beacon-tx: cannot confine ioctl(2) with seccomp (seccomp(2): Operation not permitted (EPERM), and "
                                + "prctl(PR_SET_SECCOMP) would miss the other threads (3 threads)); CAP_NET_ADMIN still reaches the "
                                + "network interfaces\n"), "\(r.err)")
        #expect(r.err.contains("advertising E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2"))
        let other = Hook(.failed(.failed(call: "prctl(PR_SET_NO_NEW_PRIVS)", errno: EINVAL)))
        let (h2, _) = try startHost()
        let r2 = tool(["start"] + goldenFlags, host: h2, service: other.service)
        #expect(r2.err.hasPrefix("beacon-tx: cannot confine ioctl(2) with seccomp (prctl(PR_SET_NO_NEW_PRIVS): Invalid argument (EINVAL)); "),
                "\(r2.err)")
    }

    /// The default context (every other unit test) installs nothing: its hook answers nil.
    @Test func theDefaultContextInstallsNothing() {
        #expect(ServiceContext.none.confineIoctls() == nil)
    }

    @Test func aDryRunConfinesNothing() {
        let hook = Hook(.installed(.allThreads))
        let r = tool(["start"] + goldenFlags + ["--dry-run"], service: hook.service)
        #expect(r.code == 0, "\(r.err)")
        #expect(hook.calls == 0)
    }

    @Test func scanConfinesOnceBeforeTheFirstSocket() throws {
        let p = try ScanPlan(family: .extended, options: ScanOptions())
        let stop: [ScriptedController.Step] = [.receive(.signal(2))]
        let fake = ScriptedController(C.probe(extended: true) + C.okSteps(p.start) + stop + C.okSteps(p.stop))
        let h = FakeHost(devices: [C.device(0)], channels: [0: fake])
        let hook = Hook(.installed(.allThreads))
        hook.host = h
        let r = tool(["scan"], host: h, service: hook.service)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(hook.calls == 1)
        #expect(hook.openedBefore == [[]])
    }
}

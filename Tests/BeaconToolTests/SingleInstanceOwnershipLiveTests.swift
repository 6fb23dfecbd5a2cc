// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
import Testing

/// Issue 23 through the CLI: a legacy-only controller whose one instance the kernel's MGMT instance 1
/// already uses. `start` asks the kernel (Read Advertising Features) and says whose advertising it
/// displaces; SIGTERM stops, blanks the instance's data (the kernel's own data was never seen) and
/// hands the instance back through the kernel: Set Advertising on, then off.
@Suite struct SingleInstanceOwnershipLiveTests {
    typealias C = Controllers

    /// Read Controller Information's answer: address, version, manufacturer, supported and current
    /// settings (powered, LE), class, names (mgmt-api.txt).
    static func controllerInformation(current: UInt32) -> [UInt8] {
        let address: [UInt8] = [0, 0, 0, 0x01, 0xAA, 0x00]
        func settings(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) } }
        // In parts: Swift 6.0.3 (the aarch64 toolchain) cannot type-check one long + chain in time.
        var out: [UInt8] = address
        out += [0x09, 0x02, 0x00]
        out += settings(0x0000_FFFF)
        out += settings(current)
        out += [0, 0, 0]
        out += [UInt8](repeating: 0, count: 249 + 11)
        return out
    }

    @Test func aKernelInstanceIsNamedAtStartAndGivenBackAfterTheStop() throws {
        let p = AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: AdvertisingOptions(interval: .standard, advertisingHandle: 0xEF),
                                family: .legacy)
        let hci: [ScriptedController.Step] = C.probe(extended: false) + C.okSteps(p.start) + [.receive(.signal(15))]
            + C.okSteps(p.stop) + [C.okStep(.leSetAdvertisingData([]))]
        let fake = ScriptedController(hci)
        // Supported flags, max data 31, max scan response 31, max instances 5, 1 instance: number 1.
        let features: [UInt8] = [0x7F, 0x00, 0x00, 0x00, 31, 31, 5, 1, 1]
        let on = MGMTCommand(.setAdvertising, index: 0, [0x01]), off = MGMTCommand(.setAdvertising, index: 0, [0x00])
        let kernel = ScriptedKernel([
            Kernel.step(.readAdvertisingFeatures(index: 0), features),
            Kernel.step(.readControllerInformation(index: 0), Self.controllerInformation(current: 0x0201)),
            Kernel.step(on, [0x01, 0x06, 0x00, 0x00]),
            Kernel.step(off, [0x01, 0x02, 0x00, 0x00]),
        ])
        let h = FakeHost(devices: [C.device(0), C.device(1)], channels: [0: fake])
        h.control = kernel
        let r = tool(["start"] + goldenFlags + ["--share", "never"], host: h)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "HCI left: \(fake.remaining)")
        #expect(kernel.isFullyConsumed, "MGMT left: \(kernel.remaining)")
        #expect(kernel.mismatches.isEmpty, "\(kernel.mismatches)")
        #expect(r.err.contains("hci0 has one advertising instance and the kernel's advertising instance 1 uses it too: beacon-tx takes it over"))
        #expect(r.err.contains("hci0: the advertising instance is handed back to the kernel (MGMT Set Advertising on and off: it writes its instances again)"))
    }

    @Test func noKernelInstanceNoHandBack() throws {
        let p = AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: AdvertisingOptions(interval: .standard, advertisingHandle: 0xEF),
                                family: .legacy)
        let fake = ScriptedController(C.probe(extended: false) + C.okSteps(p.start) + [.receive(.signal(15))] + C.okSteps(p.stop))
        let kernel = ScriptedKernel([Kernel.step(.readAdvertisingFeatures(index: 0), [0x7F, 0x00, 0x00, 0x00, 31, 31, 5, 0])])
        let h = FakeHost(devices: [C.device(0), C.device(1)], channels: [0: fake])
        h.control = kernel
        let r = tool(["start"] + goldenFlags + ["--share", "never"], host: h)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "the stop plan alone; left: \(fake.remaining)")
        #expect(kernel.isFullyConsumed)
        #expect(!r.err.contains("advertising instance"), "\(r.err)")
    }

    @Test func theSystemdStatusNamesTheDisplacedInstance() throws {
        let listener = try NotifyListener()
        let p = AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: AdvertisingOptions(interval: .standard, advertisingHandle: 0xEF),
                                family: .legacy)
        let fake = ScriptedController(C.probe(extended: false) + C.okSteps(p.start) + [.receive(.timedOut), .receive(.signal(15))]
            + C.okSteps(p.stop) + [C.okStep(.leSetAdvertisingData([]))])
        var notifiedWhileOnAir: [String] = []
        fake.onTimeout = { _ in notifiedWhileOnAir = listener.drain() }
        // The Advertising setting is on: no hand-back through Set Advertising (the kernel advertises instance 0 then).
        let kernel = ScriptedKernel([
            Kernel.step(.readAdvertisingFeatures(index: 0), [0x7F, 0x00, 0x00, 0x00, 31, 31, 5, 2, 1, 2]),
            Kernel.step(.readControllerInformation(index: 0), Self.controllerInformation(current: 0x0601)),
        ])
        let h = FakeHost(devices: [C.device(0)], channels: [0: fake])
        h.control = kernel
        let r = tool(["start"] + goldenFlags + ["--share", "never"], host: h, service: service(["NOTIFY_SOCKET": listener.name], stateDirectory: temporaryDirectory()))
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(kernel.isFullyConsumed, "MGMT left: \(kernel.remaining)")
        #expect(notifiedWhileOnAir == ["READY=1\nSTATUS=1 beacon on air on hci0 (legacy); displacing the kernel's advertising instances 1, 2 (--share shares the instance)"])
        #expect(!r.err.contains("handed back to the kernel"))
        #expect(r.err.contains("hci0 has one advertising instance and the kernel's advertising instances 1, 2 use it too"))
    }
    /// `--share auto` (the default) cannot share with `--detach`: the detached start takes the
    /// instance as `never` would, and says why it did not share.
    @Test func aDetachedStartSaysWhyItDoesNotShare() throws {
        let p = AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: AdvertisingOptions(interval: .standard, advertisingHandle: 0xEF),
                                family: .legacy)
        let (h, fake, kernel) = detachedHost(withInstance: true, p)
        let r = tool(["start"] + goldenFlags + ["--detach"], host: h)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(kernel.isFullyConsumed, "MGMT left: \(kernel.remaining)")
        #expect(r.err.contains("--share auto does not share with --detach (sharing needs the foreground session"), "\(r.err)")
        let never = tool(["start"] + goldenFlags + ["--detach", "--share", "never"], host: detachedHost(withInstance: true, p).0)
        #expect(never.code == 0, "\(never.err)")
        #expect(!never.err.contains("does not share with --detach"), "never asked for no sharing: \(never.err)")
        let none = tool(["start"] + goldenFlags + ["--detach"], host: detachedHost(withInstance: false, p).0)
        #expect(!none.err.contains("does not share with --detach"), "no kernel instance, nothing to share: \(none.err)")
    }

    /// A legacy-only controller that takes the start plan, and a kernel with one instance or none.
    func detachedHost(withInstance: Bool, _ p: AdvertisingPlan) -> (FakeHost, ScriptedController, ScriptedKernel) {
        let fake = ScriptedController(C.probe(extended: false) + C.okSteps(p.start))
        let kernel = ScriptedKernel([Kernel.step(.readAdvertisingFeatures(index: 0), withInstance ? [0x7F, 0, 0, 0, 31, 31, 5, 1, 1] : [0x7F, 0, 0, 0, 31, 31, 5, 0])])
        let h = FakeHost(devices: [C.device(0)], channels: [0: fake])
        h.control = kernel
        return (h, fake, kernel)
    }
}

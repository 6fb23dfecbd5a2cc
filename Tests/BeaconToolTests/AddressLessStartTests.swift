// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Testing

/// `start`, `devices` and `doctor` on a controller without a public address (Zephyr's hci_uart on an
/// nRF52: BD_ADDR 00:00:00:00:00:00), and on one whose answers the Core spec does not allow.
@Suite struct AddressLessStartTests {
    typealias C = Controllers

    static func zeroAddress(up: Bool = true) -> HCIDeviceInfo {
        HCIDeviceInfo(id: 0, address: "00:00:00:00:00:00", isUp: up, bus: "UART")
    }

    static func plan(_ address: [UInt8]) throws -> AdvertisingPlan {
        var o = AdvertisingOptions(interval: .standard, advertisingHandle: 0xEF)
        o.randomAddress = address
        return AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: o, family: .legacy)
    }

    /// The golden beacon's own derived address (the first beacon of the config).
    static func derived() throws -> [UInt8] { StaticRandomAddress.derived(for: .iBeacon(try #require(Golden.beacon))) }

    func start(_ address: [UInt8], system: SystemProbe = .none) throws -> (ToolRun, ScriptedController) {
        let p = try Self.plan(address)
        let fake = ScriptedController(C.script(C.probe(extended: false), C.okSteps(p.start), [.receive(.signal(15))], C.okSteps(p.stop)))
        let r = tool(["start"] + goldenFlags, host: FakeHost(devices: [Self.zeroAddress()], channels: [0: fake]), system: system)
        return (r, fake)
    }

    @Test func startAdvertisesFromAnAddressDerivedFromTheConfig() throws {
        let address = try Self.derived()
        let (r, fake) = try start(address)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(r.err.contains("hci0 has no public address (00:00:00:00:00:00): advertising from random static address \(StaticRandomAddress.text(address)) "
                               + "(derived from the first beacon, the same at every start of this config)"), "\(r.err)")
    }

    @Test func startAdvertisesFromTheKernelsStaticAddressWhenItHasOne() throws {
        let kernel: [UInt8] = [0xC0, 0xDE, 0x00, 0x00, 0x00, 0x01]
        var sys = SystemProbe()
        sys.readFile = { $0 == "/sys/kernel/debug/bluetooth/hci0/static_address" ? Array("c0:de:00:00:00:01\n".utf8) : nil }
        let (r, fake) = try start(kernel, system: sys)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(r.err.contains("advertising from random static address C0:DE:00:00:00:01 (the kernel's static address)"), "\(r.err)")
    }

    /// A kernel that has no static address either shows 00:00:00:00:00:00 there: not an address.
    @Test func aZeroKernelStaticAddressIsNone() throws {
        var sys = SystemProbe()
        sys.readFile = { _ in Array("00:00:00:00:00:00\n".utf8) }
        let (r, fake) = try start(try Self.derived(), system: sys)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    /// The kernel does not bring up an LE-only controller without an address: the error names the remedy.
    @Test func hcidevupWithoutAnAddressNamesTheStaticAddressRemedy() throws {
        let h = FakeHost(devices: [Self.zeroAddress(up: false)], channels: [:])
        h.upError = .system(call: "ioctl(HCIDEVUP)", device: "hci0", errno: 99, message: "Cannot assign requested address")
        let r = tool(["start"] + goldenFlags, host: h)
        #expect(r.code == 69, "\(r.err)")
        let address = StaticRandomAddress.text(try Self.derived())
        #expect(r.err.contains("ioctl(HCIDEVUP) on hci0: Cannot assign requested address (errno 99): hci0 has no public address (00:00:00:00:00:00) "
                               + "and no static address; give it a static address: btmgmt --index 0 static-addr \(address), then btmgmt --index 0 power on"), "\(r.err)")
    }

    @Test func devicesSaysTheControllerHasNoPublicAddressAndWhichLimitsAreNotKnown() throws {
        let fake = ScriptedController(C.probe(extended: true) + C.setLimits(length: [0xBF, 0x00], sets: 0))
        let r = tool(["devices"], host: FakeHost(devices: [Self.zeroAddress()], channels: [0: fake]))
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out.contains("hci0  00:00:00:00:00:00 (no public address: start advertises from a random static address)  up  UART"), "\(r.out)")
        #expect(r.out.contains("extended adv yes (max data 191 bytes, not known (the controller answered 0) sets)"), "\(r.out)")
        let j = tool(["devices", "--json"], host: FakeHost(devices: [Self.zeroAddress()], channels: [0: ScriptedController(
            C.probe(extended: true) + C.setLimits(length: [0xBF, 0x00], sets: 0))]))
        guard case let .array(items) = try JSON.parse(j.out), let first = items.first else { Issue.record("not a list: \(j.out)"); return }
        #expect(first["publicAddress"] == .bool(false))
        #expect(first["advertisingSets"] == .null)
        let expected: JSON = .array([.object([("command", .string("LE Read Number of Supported Advertising Sets")),
                                              ("field", .string("Num_Supported_Advertising_Sets")), ("value", .number(0))])])
        #expect(first["implausibleAnswers"] == expected)
    }

    @Test func doctorNamesTheStaticAddressRemedyForADownAddressLessController() throws {
        let (h, _, _) = DoctorTests.host(up: false)
        h.deviceList = [Self.zeroAddress(up: false)]
        let sys = DoctorTests.machine(files: ["/proc/self/status": DoctorTests.rootStatus, "/proc/1/comm": "init\n"])
        let r = tool(["doctor", "--json"], host: h, system: sys)
        let power = try DoctorTests().finding(r, "power")
        #expect(power["verdict"] == .string("fail"), "\(r.out)")
        #expect(power["summary"] == .string("down, with no public address (00:00:00:00:00:00) and no static address: the kernel cannot bring it up, and start exits 69"))
        guard case let .string(remedy)? = power["remedy"] else { Issue.record("no remedy: \(r.out)"); return }
        #expect(remedy.hasPrefix("give it a static address: btmgmt --index 0 static-addr C0:00:00:00:00:01, then btmgmt --index 0 power on"), "\(remedy)")
    }

    @Test func doctorWarnsOfAnUpAddressLessControllerAndOfImplausibleAnswers() throws {
        let fake = ScriptedController(C.probe(extended: true) + C.setLimits(length: [0x14, 0x00], sets: 4))
        let (h, _, _) = DoctorTests.host()
        h.deviceList = [Self.zeroAddress()]
        h.channels[0] = fake
        let sys = DoctorTests.machine(files: ["/proc/self/status": DoctorTests.rootStatus, "/proc/1/comm": "init\n"])
        let r = tool(["doctor", "--json"], host: h, system: sys)
        let adapter = try DoctorTests().finding(r, "adapter")
        #expect(adapter["verdict"] == .string("warn"), "\(r.out)")
        guard case let .string(detail)? = adapter["detail"] else { Issue.record("no detail: \(r.out)"); return }
        #expect(detail.contains("LE Read Maximum Advertising Data Length answered Max_Advertising_Data_Length 20, outside 31 to 1650: read as not known"), "\(detail)")
        #expect(detail.contains("no public address: start advertises from a random static address, one derived from the config's first beacon"), "\(detail)")
    }

    /// Every address-less controller has the same zero address: an unplugged one is awaited by its
    /// index, never by that address (the Zephyr bed's hangup-legacy re-armed on the receiver's
    /// controller before). One that comes back down is given time to be powered first.
    @Test func anAddressLessControllerIsAwaitedByItsIndex() throws {
        let p = try Self.plan(try Self.derived())
        let gone = StackInternalDeviceEvent(kind: .unregistered, deviceID: 0).event
        let fake = ScriptedController(C.script(C.probe(extended: false), C.okSteps(p.start), [.receive(.event(gone.packet))],
                                               C.probe(extended: false), C.okSteps(p.start), [.receive(.signal(15))], C.okSteps(p.stop)))
        let other = HCIDeviceInfo(id: 1, address: "00:00:00:00:00:00", isUp: true, bus: "UART")
        let h = FakeHost(devices: [Self.zeroAddress(), other], channels: [0: fake])
        h.deviceWaits = [.returned(Self.zeroAddress(up: false)), .returned(Self.zeroAddress())]
        let r = tool(["start"] + goldenFlags + ["--device", "hci0", "--device-timeout", "30"], host: h)
        #expect(r.code == 0, "\(r.err)")
        // 29 999 ms: the wait counts from the unregistration the machine was told of, one read of
        // this test's clock (1 ms each) before the loop waits.
        #expect(h.log.filter { $0 != "open control" } == ["open hci0 +signals", "wait for hci0 29999 ms", "wait for hci0 up 5000 ms", "open hci0 +signals"], "\(h.log)")
        #expect(r.err.contains("hci0 (no public address) is back as hci0; re-arming"), "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }
}

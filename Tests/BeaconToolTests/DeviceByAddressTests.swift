// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

/// `--device` and the config's `device` name a controller by its BD_ADDR as well as by hciN: a kiosk
/// whose dongle comes back as another hciN after a reboot or a replug still finds it.
@Suite struct DeviceByAddressTests {
    typealias C = Controllers

    func plan() throws -> AdvertisingPlan {
        AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: AdvertisingOptions(interval: .standard, advertisingHandle: 0xEF), family: .extended)
    }

    func onAirThenStop() throws -> ScriptedController {
        let p = try plan()
        return ScriptedController(C.script(C.probe(extended: true), C.okSteps(p.start), [.receive(.signal(15))], C.okSteps(p.stop)))
    }

    @Test func selectorsParse() {
        #expect(DeviceSelector("hci3") == .index(3))
        #expect(DeviceSelector("3") == .index(3))
        #expect(DeviceSelector("00:1a:7d:da:71:13") == .address("00:1A:7D:DA:71:13"))
        #expect(DeviceSelector("00:1A:7D:DA:71") == nil)
        #expect(DeviceSelector("usb0") == nil)
        #expect(DeviceSelector("00:1A:7D:DA:71:13")?.matches(HCIDeviceInfo(id: 4, address: "00:1a:7d:da:71:13", isUp: true, bus: "USB")) == true)
        #expect(DeviceSelector("00:1A:7D:DA:71:13")?.matches(C.device(4)) == false)
        #expect(WantedDevice.addressRegistered("00:AA:01:00:00:01").matches(C.device(1, up: false)))
        #expect(!WantedDevice.address("00:AA:01:00:00:01").matches(C.device(1, up: false)))
    }

    /// hci1 is the controller with that address: start opens it, not hci0.
    @Test func startOpensTheControllerWithThatAddress() throws {
        let fake = try onAirThenStop()
        let h = FakeHost(devices: [C.device(0), C.device(1)], channels: [1: fake])
        let r = tool(["start"] + goldenFlags + ["--device", "00:aa:01:00:00:01"], host: h)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(h.log == ["open hci1 +signals"], "\(h.log)")
    }

    @Test func anAddressNobodyHasNamesTheControllersAndTheirAddresses() {
        let h = FakeHost(devices: [C.device(0), C.device(1)], channels: [:])
        let r = tool(["start"] + goldenFlags + ["--device", "00:AA:01:00:00:07", "--device-timeout", "0"], host: h)
        #expect(r.code == 69, "\(r.err)")
        #expect(r.err.contains("00:AA:01:00:00:07"), "\(r.err)")
        #expect(r.err.contains("hci0 (00:AA:01:00:00:00), hci1 (00:AA:01:00:00:01)"), "\(r.err)")
    }

    /// The dongle is not there yet: start waits for a controller with that address, whatever its index.
    @Test func startWaitsForTheAddressToAppearUnderAnyIndex() throws {
        let fake = try onAirThenStop()
        let h = FakeHost(devices: [C.device(0)], channels: [5: fake])
        let back = HCIDeviceInfo(id: 5, address: "00:AA:01:00:00:01", isUp: true, bus: "USB")
        h.deviceWaits = [.returned(back)]
        let r = tool(["start"] + goldenFlags + ["--device", "00:AA:01:00:00:01", "--device-timeout", "30"], host: h)
        #expect(r.code == 0, "\(r.err)")
        #expect(h.log == ["wait for 00:AA:01:00:00:01 30000 ms", "open hci5 +signals"], "\(h.log)")
        #expect(r.err.hasPrefix("beacon-tx: waiting for 00:AA:01:00:00:01 to appear (controllers: hci0; up to 30 s, --device-timeout)\n"
                                + "beacon-tx: hci5 (00:AA:01:00:00:01) appeared after 0 s\n"), "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func theConfigNamesTheControllerByAddress() throws {
        let dir = NSTemporaryDirectory() + "beacon-tx-addr-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let good = dir + "/good.json", bad = dir + "/bad.json"
        try #"{"device": "00:aa:01:00:00:01", "beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2}]}"#.write(toFile: good, atomically: true, encoding: .utf8)
        try #"{"device": "00:aa:01:00:00", "beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2}]}"#.write(toFile: bad, atomically: true, encoding: .utf8)
        let fake = try onAirThenStop()
        let r = tool(["start", "--config", good], host: FakeHost(devices: [C.device(0), C.device(1)], channels: [1: fake]))
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(tool(["dump-config", "--config", good]).out.contains(#""device": "00:AA:01:00:00:01""#))
        let refused = tool(["start", "--config", bad, "--dry-run"])
        #expect(refused.code == 65, "\(refused.err)")
        #expect(refused.err.contains("device: '00:aa:01:00:00' is not a device name (accepted hci0–hci65534, or a controller's address AA:BB:CC:DD:EE:FF)"), "\(refused.err)")
    }

    /// The dry run shows the address where it names the device; the commands that need an index say so.
    @Test func dryRunsAndVerifyWithAnAddress() {
        let dry = tool(["start"] + goldenFlags + ["--device", "00:AA:01:00:00:01", "--dry-run"])
        #expect(dry.code == 0, "\(dry.err)")
        #expect(dry.out.contains("device:   00:AA:01:00:00:01, legacy advertising commands"), "\(dry.out)")
        let share = tool(["start"] + goldenFlags + ["--device", "00:AA:01:00:00:01", "--share", "always", "--dry-run"])
        #expect(share.code == 64)
        #expect(share.err.contains("--device 00:AA:01:00:00:01: the --share always plan carries the controller's index; give --device hciN"), "\(share.err)")
        let verify = tool(["verify", "/nonexistent.btsnoop"] + goldenFlags + ["--device", "00:AA:01:00:00:01"])
        #expect(verify.code == 64 || verify.code == 66, "\(verify.err)")
    }

    @Test func statusFindsTheSessionByTheControllersAddress() {
        let h = FakeHost(devices: [C.device(0), C.device(1)], channels: [:])
        let r = tool(["status", "--device", "00:AA:01:00:00:01"], host: h)
        #expect(r.out == "hci1: nothing on air (no beacon-tx session)\n", "\(r.out)\(r.err)")
        let none = tool(["status", "--device", "00:AA:01:00:00:09"], host: h)
        #expect(none.code == 69, "\(none.err)")
    }

    /// The state file carries the address; one that is not a BD_ADDR makes the file not believed.
    @Test func theStateFileCarriesTheAddress() throws {
        var state = SessionState(device: "hci1", pid: 42, onAir: true, status: "1 beacon on air on hci1 (legacy)", family: .legacy, since: 1)
        state.address = "00:AA:01:00:00:01"
        #expect(try SessionState(json: state.json) == state)
        guard case var .object(pairs) = state.json else { Issue.record("not an object"); return }
        pairs = pairs.map { $0.0 == "address" ? ("address", .string("\u{1b}]0;owned\u{7}")) : $0 }
        #expect(throws: StateFileError.self) { try SessionState(json: .object(pairs)) }
    }
}

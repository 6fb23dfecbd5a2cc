// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

/// `beacon-tx verify CAPTURE`: whole outputs on committed capture fixtures (Tests/BeaconToolTests/Fixtures).
@Suite struct VerifyTests {
    static let two = ["--beacon", "\(Golden.uuidText):1:1", "--beacon", "\(Golden.uuidText):1:2"]

    static func fixture(_ name: String) -> String { repoPath("Tests/BeaconToolTests/Fixtures/" + name) }

    /// The two synthetic btmon-format fixtures: a kiosk of two beacons started next to bluetoothd and
    /// stopped by its stop plan; the same kiosk with `btmgmt clr-adv` after the start.
    static func syntheticFixtures() throws -> [(String, [UInt8])] {
        let uuid = try #require(ProximityUUID(Golden.uuidText))
        let config = KioskConfiguration(beacons: [1, 2].map {
            BeaconAdvertisement(frame: .iBeacon(IBeacon(uuid: uuid, major: 1, minor: $0)), options: AdvertisingOptions(interval: .standard))
        })
        let plan = try KioskPlan(config, family: .extended)
        func started() -> MonitorCapture {
            var m = MonitorCapture()
            m.otherPrograms(uuid: uuid)
            m.at(1)
            m.controlOpen(cookie: 2, format: 0, comm: "beacon-tx", index: 0)
            m.run(0, plan.start) { $0.opcode == .leSetExtendedAdvertisingEnable && $0.parameters.first == 0 ? .unknownAdvertisingIdentifier : .success }
            return m
        }
        var stopped = started()
        stopped.at(5)
        stopped.run(0, plan.stop)
        stopped.controlClose(cookie: 2, index: 0)
        var cleared = started()
        cleared.at(3.2)
        cleared.controlOpen(cookie: 3, format: 2, comm: "btmgmt")
        cleared.mgmt(0, cookie: 3, opcode: 0x003f, [0])
        cleared.run(0, .leSetExtendedAdvertisingEnable(false, sets: []))
        cleared.run(0, .leClearAdvertisingSets)
        cleared.controlClose(cookie: 3)
        return [("kiosk-stopped.snoop", stopped.bytes), ("kiosk-clr-adv.snoop", cleared.bytes)]
    }

    @Test func captureFixturesAreCurrent() throws {
        for (name, bytes) in try Self.syntheticFixtures() {
            if ProcessInfo.processInfo.environment["UPDATE_SNAPSHOTS"] == "1" {
                try Data(bytes).write(to: URL(fileURLWithPath: Self.fixture(name)))
            }
            let committed = try Data(contentsOf: URL(fileURLWithPath: Self.fixture(name)))
            #expect(Array(committed) == bytes, "fixture \(name) is stale; UPDATE_SNAPSHOTS=1 swift test")
        }
    }

    @Test func passText() {
        let r = tool(["verify", Self.fixture("kiosk-stopped.snoop")] + Self.two)
        #expect(r.code == 0)
        #expect(r.err == "")
        expectSnapshot(r.out.replacingOccurrences(of: repoRoot.path + "/", with: ""), "verify-pass.txt")
    }

    @Test func passJSON() throws {
        let r = tool(["verify", Self.fixture("kiosk-stopped.snoop"), "--json"] + Self.two)
        #expect(r.code == 0)
        expectSnapshot(r.out.replacingOccurrences(of: repoRoot.path + "/", with: ""), "verify-pass.json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        #expect(object["passed"] as? Bool == true)
    }

    @Test func clrAdvFailsNamingCommandAndProgram() {
        let r = tool(["verify", Self.fixture("kiosk-clr-adv.snoop")] + Self.two)
        #expect(r.code == 1)
        #expect(r.err == "beacon-tx verify: FAIL: beacon 1: off air at the end of the capture: went off at 3.202 s: LE Set Extended Advertising Enable (0x2039) disabling all sets (Number_of_Sets 0), sent by the kernel for MGMT Remove Advertising (0x003f) from btmgmt\n")
        expectSnapshot(r.out.replacingOccurrences(of: repoRoot.path + "/", with: ""), "verify-clr-adv.txt")
        let j = tool(["verify", Self.fixture("kiosk-clr-adv.snoop"), "--json"] + Self.two)
        #expect(j.code == 1)
        expectSnapshot(j.out.replacingOccurrences(of: repoRoot.path + "/", with: ""), "verify-clr-adv.json")
    }

    @Test func minorMismatchFromAConfigFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("verify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("kiosk.json").path
        try """
            {"device": "hci0", "beacons": [{"uuid": "\(Golden.uuidText)", "major": 1, "minor": 1},
                                           {"uuid": "\(Golden.uuidText)", "major": 1, "minor": 3}]}
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let r = tool(["verify", Self.fixture("kiosk-stopped.snoop"), "--config", config])
        #expect(r.code == 1)
        #expect(r.err == "beacon-tx verify: FAIL: beacon 2: LE Set Extended Advertising Data: iBeacon minor 3 ≠ 2 (config ≠ capture)\n")
        #expect(r.out.hasSuffix("\nFAIL: beacon 2: LE Set Extended Advertising Data: iBeacon minor 3 ≠ 2 (config ≠ capture)\n"))
        // --device picks the controller: hci1 holds none of these beacons
        let other = tool(["verify", Self.fixture("kiosk-stopped.snoop"), "--config", config, "--device", "hci1"])
        #expect(other.code == 1)
        #expect(other.err == "beacon-tx verify: FAIL: beacon 1: LE Set Extended Advertising Data: iBeacon minor 1 ≠ 9 (config ≠ capture)\n")
    }

    /// A capture begun after the start holds no configuration: the verdict fails and a note says how
    /// to record a capture that does.
    @Test func aCaptureWithoutConfigurationSaysHowToRecordOne() throws {
        let path = NSTemporaryDirectory() + "beacon-tx-empty-\(UUID().uuidString).snoop"
        try Data(BTSnoop.encode([])).write(to: URL(fileURLWithPath: path))
        let r = tool(["verify", path] + Self.two)
        #expect(r.code == 1)
        #expect(r.err.split(separator: "\n").map(String.init) == [
            "beacon-tx: the capture holds no advertising data command for hci0: start btmon -w before beacon-tx start (a capture begun later sees no configuration), and check --device",
            "beacon-tx verify: FAIL: beacon 1: no LE Set Advertising Data (0x2008) or LE Set Extended Advertising Data (0x2037) with iBeacon data on hci0 in the capture",
        ])
    }

    @Test func badInput() throws {
        let missing = tool(["verify", "/nonexistent/kiosk.snoop"] + Self.two)
        #expect(missing.code == 66)
        #expect(missing.err == "beacon-tx verify: CAPTURE /nonexistent/kiosk.snoop: no such file\n")
        let notSnoop = tool(["verify", repoPath("Config/kiosk.json")] + Self.two)
        #expect(notSnoop.code == 65)
        #expect(notSnoop.err.hasSuffix("Config/kiosk.json: not a btsnoop file (no btsnoop header)\n"))
        #expect(tool(["verify"] + Self.two).code == 64)
        #expect(tool(["verify", "a", "b"] + Self.two).err == "beacon-tx verify: one CAPTURE only, got 2 arguments\n")
        let none = tool(["verify", Self.fixture("kiosk-stopped.snoop")])
        #expect(none.code == 64)
        #expect(none.err == "beacon-tx verify: no beacon to look for: give --config FILE, --beacon UUID:MAJOR:MINOR, or --uuid, --major and --minor\n")
        #expect(tool(["verify", Self.fixture("kiosk-stopped.snoop"), "--dry-run"] + Self.two).code == 64)
        // A broken record in the middle: 65 naming the record.
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Self.fixture("kiosk-stopped.snoop"))))
        bytes.replaceSubrange(20..<24, with: [0x7f, 0xff, 0xff, 0xff])   // record 1's included length
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("verify-\(UUID().uuidString).snoop")
        try Data(bytes).write(to: dir)
        defer { try? FileManager.default.removeItem(at: dir) }
        let broken = tool(["verify", dir.path] + Self.two)
        #expect(broken.code == 65)
        #expect(broken.err.hasSuffix(": malformed btsnoop record 1: included length 2147483647 (original 16) is not a packet length\n"))
        // Cut mid-record at the end (btmon killed): a warning, and still verified.
        let cutPath = dir.path + ".cut"
        let whole = Array(try Data(contentsOf: URL(fileURLWithPath: Self.fixture("kiosk-stopped.snoop"))))
        try Data(whole.dropLast(3)).write(to: URL(fileURLWithPath: cutPath))
        defer { try? FileManager.default.removeItem(atPath: cutPath) }
        let cut = tool(["verify", cutPath] + Self.two)
        #expect(cut.out.contains("\nwarning: record 45 is cut short at the end of the file (truncated packet: needs 4 byte(s), 1 left); read 44 records\n"))
        #expect(cut.code == 0)
    }

    /// Real `btmon -w` captures from the e2e guest (scenarios verify-live and verify-clr-adv, Debian's
    /// 6.1 kernel, btvirt, bluetoothd in the clr-adv ones): the reader and the verifier on the real thing.
    @Test func realBtmonCaptures() {
        let live = tool(["verify", Self.fixture("btmon-live.snoop"), "--device", "hci0"] + Self.two)
        #expect(live.code == 0)
        expectSnapshot(live.out.replacingOccurrences(of: repoRoot.path + "/", with: ""), "verify-btmon-live.txt")
        let one = ["--uuid", Golden.uuidText, "--major", "1", "--minor", "1"]
        let detached = tool(["verify", Self.fixture("btmon-clr-adv-detached.snoop")] + one)
        #expect(detached.code == 1)
        expectSnapshot(detached.out.replacingOccurrences(of: repoRoot.path + "/", with: ""), "verify-btmon-clr-adv-detached.txt")
        let kiosk = tool(["verify", Self.fixture("btmon-clr-adv-kiosk.snoop"), "--json"] + one)
        #expect(kiosk.code == 0)
        expectSnapshot(kiosk.out.replacingOccurrences(of: repoRoot.path + "/", with: ""), "verify-btmon-clr-adv-kiosk.json")
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

@Suite struct DryRunTests {
    @Test func hexLegacyEqualsTheGoldenPlan() {
        let r = tool(["start"] + goldenFlags + ["--dry-run", "--format", "hex", "--controller", "legacy"])
        #expect(r.code == 0)
        #expect(r.err == "")
        #expect(r.out == """
            # start:
            010a200100
            0106200fa000a0000300000000000000000700
            010820201e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c500
            010a200101
            # stop:
            010a200100

            """)
    }

    @Test func hexExtendedEqualsTheGoldenPlan() {
        let r = tool(["start"] + goldenFlags + ["--dry-run", "--format", "hex", "--controller", "extended"])
        #expect(r.code == 0)
        #expect(r.out == """
            # start:
            013920060001ef000000
            01362019ef1000a00000a00000070000000000000000007f0100010000
            01372022ef03011e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5
            013920060101ef000000
            # stop:
            013920060001ef000000
            013c2001ef

            """)
    }

    @Test func textSnapshot() {
        let r = tool(["start"] + goldenFlags + ["--dry-run"])
        #expect(r.code == 0)
        expectSnapshot(r.out, "start-text-legacy.txt")
        let e = tool(["start"] + goldenFlags + ["--dry-run", "--controller", "extended", "--tx-power", "-8", "--connectable"])
        expectSnapshot(e.out, "start-text-extended.txt")
    }

    @Test func hcitoolSnapshotAndRunnableLines() {
        let r = tool(["start"] + goldenFlags + ["--dry-run", "--format", "hcitool", "--device", "hci1"])
        #expect(r.code == 0)
        expectSnapshot(r.out, "start-hcitool.txt")
        let commands = r.out.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(commands.count == 4)
        #expect(commands.allSatisfy { $0.hasPrefix("hcitool -i hci1 cmd 0x08 0x") })
    }

    @Test func kioskConfigSnapshot() {
        let r = tool(["start", "--config", repoPath("Config/kiosk.json"), "--dry-run"])
        #expect(r.code == 0, "\(r.err)")
        expectSnapshot(r.out, "start-kiosk-text.txt")
    }

    @Test func btsnoopCapture() throws {
        let r = tool(["start"] + goldenFlags + ["--dry-run", "--format", "btsnoop", "--controller", "extended"])
        #expect(r.code == 0)
        let records = try BTSnoop.read(r.bytes, .fail).frames.map(BTSnoop.Record.init)
        // Start, then stop: every dry-run format shows both.
        #expect(records.count == 12)
        let plan = AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: AdvertisingOptions(interval: .standard, advertisingHandle: 0xEF), family: .extended)
        #expect(records.filter { !$0.received }.map { Hex.encode($0.packet) } == (plan.start + plan.stop).map { Hex.encode($0.command.packet) })
        for answer in records.filter(\.received) {
            let cc = try CommandComplete(try HCIEvent(packet: answer.packet)).validated()
            #expect(cc.status == .success)
        }
        // Binary never goes to a terminal.
        let t = tool(["start"] + goldenFlags + ["--dry-run", "--format", "btsnoop"], terminal: true)
        #expect(t.code == 64)
        #expect(t.out == "")
    }

    @Test func outputFile() throws {
        let path = NSTemporaryDirectory() + "beacon-tx-test-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = tool(["start"] + goldenFlags + ["--dry-run", "--format", "hex", "--output", path])
        #expect(r.code == 0)
        #expect(r.out == "")
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("# start:\n010a200100\n"))
        let bad = tool(["start"] + goldenFlags + ["--dry-run", "--output", "/nonexistent-dir/x"])
        #expect(bad.code == 73)
    }

    @Test func intervalRoundingIsReported() {
        let r = tool(["start"] + goldenFlags + ["--dry-run", "--format", "hex", "--interval", "152.3"])
        #expect(r.code == 0)
        #expect(r.err == "beacon-tx: interval 152.3 ms rounded to 152.500 msec (0x00f4) (units of 0.625 ms)\n")
        #expect(r.out.split(separator: "\n")[2] == "0106200ff400f4000300000000000000000700")
        let exact = tool(["start"] + goldenFlags + ["--dry-run", "--format", "hex", "--interval", "152.5"])
        #expect(exact.err == "")
    }

    @Test func uuidWithoutDashesAnyCase() {
        let a = tool(["start", "--uuid", "e2c56db5dffb48d2b060d0f5a71096e0", "--major", "1", "--minor", "2", "--dry-run", "--format", "hex"])
        let b = tool(["start"] + goldenFlags + ["--dry-run", "--format", "hex"])
        #expect(a.code == 0 && a.out == b.out)
    }

    @Test func decodeFormats() {
        let ad = tool(["decode", Golden.advertisingDataHex])
        #expect(ad.code == 0)
        expectSnapshot(ad.out, "decode-ad.txt")
        let adJSON = tool(["decode", Golden.advertisingDataHex, "--json"])
        expectSnapshot(adJSON.out, "decode-ad.json")
        let cmd = tool(["decode", "01030c00", "--json"])
        #expect(cmd.out.contains("\"name\": \"Reset\""))
        let evt = tool(["decode", "04 0e 04 01 06 20 0c"])
        #expect(evt.code == 0)
        expectSnapshot(evt.out, "decode-event.txt")
        // An LE Advertising Report event as btvirt sends it (RSSI 127: not available).
        let report = "043e2a" + "02010300" + "00000001aa00" + "1e" + Golden.advertisingDataHex + "7f"
        let reportText = tool(["decode", report])
        #expect(reportText.code == 0, "\(reportText.err)")
        expectSnapshot(reportText.out, "decode-report.txt")
        let reportJSON = tool(["decode", report, "--json"])
        expectSnapshot(reportJSON.out, "decode-report.json")
        let dataCmd = tool(["decode", "010820201e" + Golden.advertisingDataHex + "00", "--json"])
        expectSnapshot(dataCmd.out, "decode-command.json")
    }

    /// AltBeacon and Eddystone frames (UID, URL, TLM), each named with its fields in text and JSON
    /// (`altBeacon`/`eddystone` appear only when the data is one; an iBeacon's output is unchanged).
    @Test func decodeNamesAltBeaconAndEddystoneFrames() throws {
        let uuid = try #require(ProximityUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
        let uid = try #require(Eddystone.UID(namespace: Hex.decode("edd1ebeac04e5defa017") ?? [], instance: Hex.decode("0123456789ab") ?? [], txPower: -20))
        let frames: [[UInt8]] = [
            AltBeacon(id1: uuid, id2: 1, id3: 2).advertisingData,
            Eddystone.Frame.uid(uid).advertisingData,
            Eddystone.Frame.url(try Eddystone.URL("https://www.example.com/", txPower: -20)).advertisingData,
            Eddystone.Frame.tlm(Eddystone.TLM(batteryMillivolts: 3000, temperature: 0x1A80, advertisingPDUCount: 258, uptimeTenths: 1234)).advertisingData,
            Eddystone.Frame.tlm(Eddystone.TLM(advertisingPDUCount: 1, uptimeTenths: 5)).advertisingData,
        ]
        var text = "", json = ""
        for data in frames {
            let t = tool(["decode", Hex.encode(data)])
            #expect(t.code == 0, "\(t.err)")
            text += "# " + Hex.encode(data) + "\n" + t.out
            let j = tool(["decode", Hex.encode(data), "--json"])
            #expect(j.code == 0, "\(j.err)")
            json += j.out
        }
        expectSnapshot(text, "decode-frames.txt")
        expectSnapshot(json, "decode-frames.json")
        #expect(!tool(["decode", Golden.advertisingDataHex, "--json"]).out.contains("eddystone"))
        // A UUID list of an odd length is shown as bytes (fuzz-decode's finding: it trapped).
        let odd = tool(["decode", "020306"])
        #expect(odd.code == 0 && odd.out == "Complete List of 16-bit Service UUIDs (0x03): 06\n", "\(odd.out)\(odd.err)")
        #expect(tool(["decode", "05020d18aafe"]).out == "Incomplete List of 16-bit Service UUIDs: 0x180d, 0xfeaa (Eddystone)\n")
    }

    /// `decode --json` gives every command and event beacon-tx sends or receives field by field, under
    /// the spec's field names (one compact object per line of stdin).
    @Test func decodeJSONFieldByField() {
        let packets = [
            "01362019ef1000a00000a00000070000000000000000007f0100010000",   // LE Set Extended Advertising Parameters
            "013920060101ef000000",                                           // LE Set Extended Advertising Enable
            "010620" + "0f" + "a000a000" + "03" + "00" + "00" + "000000000000" + "07" + "00",  // LE Set Advertising Parameters
            "010a200101",                                                     // LE Set Advertising Enable
            "040e0501362000f8",                                               // Command Complete with Selected_TX_Power
            "040e0401362007",                                                 // Command Complete: Memory Capacity Exceeded, Status alone
            "040f0401013920",                                                 // Command Status
            "04050400400013",                                                 // Disconnection Complete
            "04100101",                                                       // Hardware Error
            "043e0612001234ab00",                                             // LE Advertising Set Terminated
            "040e0c01011000090100020f000100",                                 // Read Local Version Information
            "04fd06010004000000",                                             // BlueZ's stack-internal device event: hci0 down
        ]
        let r = tool(["decode", "-", "--json"], stdin: packets.joined(separator: "\n") + "\n")
        #expect(r.code == 0, "\(r.err)")
        expectSnapshot(r.out, "decode-fields.jsonl")
    }

    @Test func helpAndVersion() {
        let h = tool(["--help"])
        #expect(h.code == 0)
        expectSnapshot(h.out, "help.txt")
        for c in ["start", "stop", "devices", "scan", "decode", "dump-config"] {
            let r = tool([c, "--help"])
            #expect(r.code == 0, "\(c)")
            #expect(r.out.contains("usage: beacon-tx \(c)"), "\(c)")
            // Every example is an example of this subcommand.
            let examples = r.out.components(separatedBy: "\nexamples:\n").last?.split(separator: "\n") ?? []
            #expect(!examples.isEmpty && examples.allSatisfy {
                $0.hasPrefix("  beacon-tx \(c)") || $0.hasPrefix("  sudo beacon-tx \(c)")
            }, "\(c): \(examples)")
            #expect(tool(["help", c]).out == r.out)
        }
        expectSnapshot(tool(["scan", "--help"]).out, "help-scan.txt")
        expectSnapshot(tool(["start", "--help"]).out, "help-start.txt")
        #expect(tool(["--version"]).out == BuildIdentity.current.text + "\n")
    }
}

/// Many beacons: the museum config (three beacons, one with its own interval) as sets and as a rotation.
@Suite struct KioskDryRunTests {
    @Test func museumExtendedSetsSnapshot() {
        let r = tool(["start", "--config", repoPath("Config/museum.json"), "--dry-run", "--controller", "extended"])
        #expect(r.code == 0, "\(r.err)")
        expectSnapshot(r.out, "start-museum-extended.txt")
    }

    @Test func museumLegacyRotationHex() {
        let r = tool(["start", "--config", repoPath("Config/museum.json"), "--dry-run", "--format", "hex"])
        #expect(r.code == 0, "\(r.err)")
        // The rotation dwell (200 ms) covers the slowest beacon's interval (200 ms): the parameters
        // come from the first beacon (100 ms), the data swaps follow the start commands.
        #expect(r.out == """
            # start:
            010a200100
            0106200fa000a0000300000000000000000700
            010820201e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010001c500
            010a200101
            # rotation:
            010820201e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010001c500
            010820201e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c500
            010820201e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010003c200
            # stop:
            010a200100

            """)
    }

    @Test func beaconFlagsReplaceTheListAndDumpConfigRoundTrips() throws {
        let u = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
        let flags = ["--beacon", "\(u):1:1", "--beacon", "\(u):1:2:-60", "--controller", "extended"]
        let plan = tool(["start", "--config", repoPath("Config/museum.json")] + flags + ["--dry-run", "--format", "hex"])
        #expect(plan.code == 0, "\(plan.err)")
        #expect(plan.out.contains("0139200a0102ef000000ee000000"), "two sets enabled at once")
        #expect(!plan.out.contains("0003c2"), "the third beacon of the file is gone")
        // dump-config -> start --config gives the same plan.
        let dumped = tool(["dump-config", "--config", repoPath("Config/museum.json")] + flags)
        let path = NSTemporaryDirectory() + "beacon-tx-dump-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try dumped.out.write(toFile: path, atomically: true, encoding: .utf8)
        let again = tool(["start", "--config", path, "--dry-run", "--format", "hex"])
        #expect(again.code == 0, "\(again.err)")
        #expect(again.out == plan.out)
        let single = tool(["start", "--config", repoPath("Config/museum.json"), "--minor", "9", "--dry-run"])
        #expect(single.code == 64)
        #expect(single.err.contains("the config lists 3; use --beacon to replace the list"))
    }
}

/// `null` in a config and `default` as a flag value both mean the built-in default, for every setting.
@Suite struct SettingDefaultsTests {
    @Test func txPowerFlagResetsToNoPreferenceAndNullMeansDefault() throws {
        let path = NSTemporaryDirectory() + "beacon-tx-defaults-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try #"{"txPower": -8, "interval": null, "rotation": null, "advertisingSet": 7, "beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2, "measuredPower": null}]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let fromFile = tool(["dump-config", "--config", path])
        #expect(fromFile.code == 0, "\(fromFile.err)")
        let json = try JSON.parse(fromFile.out)
        #expect(json["txPower"] == .number(-8))
        #expect(json["interval"] == .number(100))
        #expect(json["rotation"] == .number(200))
        #expect(json["advertisingSet"] == .number(7))
        let reset = tool(["dump-config", "--config", path, "--tx-power", "default", "--advertising-set", "default"])
        #expect(reset.code == 0, "\(reset.err)")
        let after = try JSON.parse(reset.out)
        #expect(after["txPower"] == .null, "no preference")
        #expect(after["advertisingSet"] == .null, "beacon-tx's own choice")
        let plan = tool(["start", "--config", path, "--tx-power", "default", "--dry-run", "--format", "hex", "--controller", "extended"])
        #expect(plan.out.contains("01362019071000a00000a00000070000000000000000007f0100010000"), "0x7f = no preference, set 7")
    }
}

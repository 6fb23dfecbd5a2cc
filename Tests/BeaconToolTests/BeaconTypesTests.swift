// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

/// Beacon types beside iBeacon (`type` in a config, the list flags): each goes into the plan with
/// its own advertising data, byte for byte; each type's keys are checked with the field named; the
/// commands that read only iBeacons say so.
@Suite struct BeaconTypesTests {
    static let altID1 = "2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6"

    /// One beacon of each type, in this order.
    static let config = """
    { "rotation": 200, "beacons": [
      { "identifier": "lobby", "uuid": "\(Golden.uuidText)", "major": 1, "minor": 2 },
      { "identifier": "android", "type": "altbeacon", "id1": "\(altID1)", "id2": 1, "id3": 2 },
      { "type": "eddystone-uid", "namespace": "8b0ca750e7a74e14bd99", "instance": "000000000001", "rangingData": -20 },
      { "type": "eddystone-url", "url": "https://example.com/" },
      { "type": "data", "data": "02 01 06 03 03 aa fe" } ] }
    """

    /// The advertising data of each, written out field by field.
    static let data = [
        // Flags; 1A FF, Apple 4C 00, 02 15, UUID, major 1, minor 2, measured power -59 (C5)
        "020106" + "1aff4c000215" + "e2c56db5dffb48d2b060d0f5a71096e0" + "0001" + "0002" + "c5",
        // Flags; 1B FF, MFG ID 0x0118 LE (18 01), beacon code BE AC, id1, id2 1, id3 2, reference RSSI -59, reserved 0
        "020106" + "1bff" + "1801" + "beac" + "2f234454cf6d4a0fadf2f4911ba9ffa6" + "0001" + "0002" + "c5" + "00",
        // Flags; 03 03 AA FE; 17 16 AA FE, frame UID 00, ranging -20 (EC), namespace, instance, RFU 00 00
        "020106" + "0303aafe" + "1716aafe" + "00" + "ec" + "8b0ca750e7a74e14bd99" + "000000000001" + "0000",
        // Flags; 03 03 AA FE; 0E 16 AA FE, frame URL 10, ranging -18 (EE), https:// (03), "example", .com/ (00)
        "020106" + "0303aafe" + "0e16aafe" + "10" + "ee" + "03" + "6578616d706c65" + "00",
        // as given
        "0201060303aafe",
    ]

    /// LE Set Advertising Data as an H4 packet: the data's length, the data, zeros to 31 bytes.
    static func setAdvertisingData(_ hex: String) -> String {
        let n = hex.count / 2
        return "01082020" + Hex.encode([UInt8(n)]) + hex + String(repeating: "00", count: 31 - n)
    }

    /// The `# rotation:` packets of a hex dry run.
    static func rotation(_ out: String) -> [String] {
        let lines = out.split(separator: "\n").map(String.init)
        guard let from = lines.firstIndex(of: "# rotation:"), let to = lines.firstIndex(of: "# stop:") else { return [] }
        return Array(lines[(from + 1)..<to])
    }

    @Test func eachTypeIsAdvertisedWithItsOwnBytes() throws {
        let r = tool(["start", "--config", kioskFile(Self.config), "--dry-run", "--format", "hex"])
        #expect(r.code == 0, "\(r.err)")
        #expect(Self.rotation(r.out) == Self.data.map(Self.setAdvertisingData))
        // The AltBeacon and Eddystone bytes parse back to the configured values.
        let alt = AltBeacon(advertisingData: Hex.decode(Self.data[1]) ?? [])
        #expect(alt?.id1.description == Self.altID1 && alt?.id2 == 1 && alt?.id3 == 2 && alt?.referenceRSSI == -59 && alt?.manufacturer == 0x0118)
        let url = try Eddystone.URL("https://example.com/", txPower: -18)
        #expect(Eddystone.Frame(advertisingData: Hex.decode(Self.data[3]) ?? []) == .url(url))
    }

    @Test func theListFlagsGiveTheSameBeaconsInTheirOrder() {
        let flags = ["--beacon", "\(Golden.uuidText):1:2", "--altbeacon", "\(Self.altID1):1:2",
                     "--eddystone-uid", "8b0ca750e7a74e14bd99:000000000001:-20", "--eddystone-url", "https://example.com/", "--data", "0201060303aafe"]
        let r = tool(["start", "--dry-run", "--format", "hex", "--rotation", "200"] + flags)
        #expect(r.code == 0, "\(r.err)")
        #expect(Self.rotation(r.out) == Self.data.map(Self.setAdvertisingData))
        // Mixed: the command line's order, not the flags' table order.
        let mixed = tool(["start", "--dry-run", "--format", "hex", "--data", "0201060303aafe", "--beacon", "\(Golden.uuidText):1:2"])
        #expect(Self.rotation(mixed.out) == [Self.data[4], Self.data[0]].map(Self.setAdvertisingData))
        // A last :N of the URL is the ranging data; a port followed by a path is the URL's.
        let url = tool(["start", "--dry-run", "--format", "json", "--eddystone-url", "https://example.com:-7"])
        #expect(url.out.contains("\"url\": \"https://example.com\"") && url.out.contains("\"rangingData\": -7"))
        let port = tool(["start", "--dry-run", "--format", "json", "--eddystone-url", "http://a.co:80/x"])
        #expect(port.out.contains("\"url\": \"http://a.co:80/x\"") && port.out.contains("\"rangingData\": -18"))
        let bare = tool(["start", "--dry-run", "--eddystone-url", "https://e.co:8080"])
        #expect(bare.code == 64 && bare.err == "beacon-tx start: --eddystone-url RANGING: 8080 is out of range (accepted -100–20; a port needs a path after it: http://host:8080/)\n")
    }

    @Test func eachTypesKeysAreCheckedNamingTheField() {
        let cases: [(String, Int32, String)] = [
            (#"{"type": "altbeacon", "uuid": "\#(Golden.uuidText)", "id1": "\#(Self.altID1)", "id2": 1, "id3": 2}"#, 65,
             "beacons[0].uuid: a key of ibeacon beacons, not of this altbeacon beacon (type altbeacon takes id1, id2, id3, referenceRSSI, manufacturer, reserved)"),
            (#"{"type": "altbeacon", "id1": "\#(Self.altID1)", "id2": 1}"#, 65, "beacons[0].id3: missing (required)"),
            (#"{"type": "altbeacon", "id1": "\#(Self.altID1)", "id2": 1, "id3": 2, "reserved": 256}"#, 65, "beacons[0].reserved: 256 is out of range (accepted 0–255)"),
            (#"{"type": "eddystone-uid", "namespace": "8b0c", "instance": "000000000001"}"#, 65,
             "beacons[0].namespace: 2 bytes (accepted: 10 bytes as 20 hex digits)"),
            (#"{"type": "eddystone-uid", "namespace": "8b0ca750e7a74e14bd99", "instance": "00000000000g"}"#, 65,
             "beacons[0].instance: '00000000000g' is not hex (accepted: 6 bytes as 12 hex digits)"),
            (#"{"type": "eddystone-url", "url": "https://www.example-is-a-long-name.com/"}"#, 65,
             "beacons[0].url: 'https://www.example-is-a-long-name.com/' encodes to 23 bytes after the scheme; Eddystone-URL carries at most 17 (a shorter URL or a URL shortener helps)"),
            (#"{"type": "eddystone-url", "url": "ftp://example.com"}"#, 65, "beacons[0].url: 'ftp://example.com' must start with http:// or https://"),
            (#"{"type": "eddystone-url", "url": "https://e.co", "rangingData": 21}"#, 65, "beacons[0].rangingData: 21 is out of range (accepted -100–20)"),
            (#"{"type": "data", "data": "0201"}"#, 65, "beacons[0].data: the AD structure at byte 0 says 2 bytes but 1 follow"),
            (#"{"type": "data", "data": "00"}"#, 65, "beacons[0].data: a zero length at byte 0: each AD structure is a length (1–30), a type and its data"),
            (#"{"type": "eddystone-tlm"}"#, 65, "beacons[0].of: missing (required): the identifier of the eddystone-uid or eddystone-url beacon this is the telemetry of"),
            (#"{"type": "eddystone-tlm", "of": "fleet"}"#, 65, "beacons[0].of: no beacon has the identifier 'fleet' (identifiers: none)"),
            (#"{"type": "eddystone-tlm", "of": 0}"#, 65, "beacons[0].of: beacons[0] is eddystone-tlm; Eddystone-TLM accompanies an eddystone-uid or eddystone-url beacon"),
            (#"{"type": "eddystone-tlm", "of": 1}"#, 65, "beacons[0].of: 1 is no place in beacons (accepted 0–0)"),
            (#"{"type": "eddystone-tlm", "of": true}"#, 65, "beacons[0].of: expected an identifier (a string) or a place in beacons (an integer), found a boolean"),
            (#"{"type": "eddystone-tlm", "of": 0, "thermalZone": "../zone"}"#, 65, "beacons[0].thermalZone: '../zone' is neither a thermal zone's name (thermal_zone0) nor an absolute path"),
            (#"{"type": "altbeacon", "id1": "\#(Self.altID1)", "id2": 1, "id3": 2, "of": 0}"#, 65,
             "beacons[0].of: a key of eddystone-tlm beacons, not of this altbeacon beacon (type altbeacon takes id1, id2, id3, referenceRSSI, manufacturer, reserved)"),
            (#"{"type": "altbeacon", "id1": "\#(Self.altID1)", "id2": 1, "id3": 2, "idd3": 2}"#, 65,
             "beacons[0]: unknown key \"idd3\" (accepted: identifier, type, id1, id2, id3, referenceRSSI, manufacturer, reserved, interval, connectable, txPower; did you mean id3?)"),
        ]
        for (beacon, code, message) in cases {
            let r = startWithConfig(#"{"beacons": [\#(beacon)]}"#)
            #expect(r.code == code && r.err == "beacon-tx start: config kiosk.json: \(message)\n", "\(beacon)")
        }
        let data = tool(["start", "--dry-run", "--data", String(repeating: "1e", count: 1) + String(repeating: "00", count: 31)])
        #expect(data.code == 64 && data.err == "beacon-tx start: --data: 32 bytes (accepted: 1–31 bytes as hex)\n")
        let alt = tool(["start", "--dry-run", "--altbeacon", "\(Self.altID1):1"])
        #expect(alt.code == 64 && alt.err == "beacon-tx start: --altbeacon: '\(Self.altID1):1' is not ID1:ID2:ID3 or ID1:ID2:ID3:RSSI\n")
    }

    @Test func twoBeaconsWithOneIdentityAreRefusedInEachType() {
        let twice = #"{"beacons": [{"type": "eddystone-uid", "namespace": "8b0ca750e7a74e14bd99", "instance": "000000000001"},"#
            + #" {"type": "eddystone-uid", "namespace": "8b0ca750e7a74e14bd99", "instance": "000000000001", "rangingData": -30}]}"#
        let r = startWithConfig(twice)
        #expect(r.code == 65 && r.err == "beacon-tx start: config kiosk.json: beacons[1]: the same beacon as beacons[0] "
                + "(eddystone-uid namespace 8b0ca750e7a74e14bd99 instance 000000000001): each beacon needs its own namespace and instance\n")
        // The same numbers in two types are two beacons.
        let two = tool(["start", "--dry-run", "--beacon", "\(Self.altID1):1:2", "--altbeacon", "\(Self.altID1):1:2"])
        #expect(two.code == 0, "\(two.err)")
        let flags = tool(["start", "--dry-run", "--data", "020106", "--data", "02 01 06"])
        #expect(flags.code == 64 && flags.err == "beacon-tx start: --data 02 01 06 (the 2nd) repeats the 1st (data 020106): each beacon needs its own data\n")
    }

    @Test func dumpConfigWritesEachTypeBackAsItReadsIt() throws {
        let first = tool(["dump-config", "--config", kioskFile(Self.config)])
        #expect(first.code == 0, "\(first.err)")
        #expect(first.out.contains(#""type": "altbeacon""#) && first.out.contains(#""rangingData": -18"#) && first.out.contains(#""data": "0201060303aafe""#))
        let again = tool(["dump-config", "--config", kioskFile(first.out)])
        #expect(again.out == first.out)
    }

    @Test func theStateFileAndTheMetricsNameEachTypeByItsIdentity() throws {
        var s = Settings()
        _ = try ConfigFile.apply(try JSON.parse(Self.config), into: &s, prefix: "config")
        let state = SessionState(device: "hci0", pid: 42, onAir: true, status: "5 beacons", family: .legacy, rotation: true, beacons: s.beacons, since: 1_800_000_000)
        let back = try SessionState(json: try JSON.parse(state.json.compact))
        #expect(back.beacons == s.beacons)
        #expect(KioskMetrics.beaconLabels(s.beacons[1]).map { "\($0.0)=\($0.1)" }
                == ["identifier=android", "type=altbeacon", "id=id1 \(Self.altID1) id2 1 id3 2"])
        #expect(KioskMetrics.beaconLabels(s.beacons[0]).map(\.0) == ["identifier", "uuid", "major", "minor"])
        #expect(KioskMetrics.beaconLabels(s.beacons[4]).map { "\($0.0)=\($0.1)" } == ["identifier=", "type=data", "id=0201060303aafe"])
    }

    /// verify finds each type's data command in a capture (here the dry run's own btsnoop) and
    /// names the field that differs from the config.
    @Test func verifyChecksEachTypeFieldByField() throws {
        let config = kioskFile(Self.config)
        let capture = temporaryDirectory() + "/types.snoop"
        #expect(tool(["start", "--dry-run", "--config", config, "--controller", "legacy", "--format", "btsnoop", "--output", capture]).code == 0)
        let ok = tool(["verify", capture, "--config", config])
        #expect(ok.code == 0 && ok.out.contains("PASS: 5 beacon(s) configured as expected"), "\(ok.out)")
        #expect(ok.out.contains("  found: eddystone-uid namespace 8b0ca750e7a74e14bd99 instance 000000000001 ranging data -20 dBm, legacy commands"))
        let json = tool(["verify", capture, "--config", config, "--json"])
        #expect(json.out.contains(#""type": "eddystone-url""#) && json.out.contains(#""url": "https://example.com/""#))
        let wrong = Self.config.replacingOccurrences(of: #""id2": 1"#, with: #""id2": 3"#).replacingOccurrences(of: "https://example.com/", with: "https://example.org/")
        let bad = tool(["verify", capture, "--config", kioskFile(wrong)])
        #expect(bad.code == 1)
        #expect(bad.out.contains("  FAIL: LE Set Advertising Data: altbeacon id2 3 ≠ 1 (config ≠ capture)"), "\(bad.out)")
        #expect(bad.out.contains("  FAIL: LE Set Advertising Data: eddystone-url url https://example.org/ ≠ https://example.com/ (config ≠ capture)"), "\(bad.out)")
    }

    @Test func thePlanFollowsItsSchemaForEachType() throws {
        let schema = try JSON.parse(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: repoPath("Docs/plan.schema.json")))))
        let plan = try JSON.parse(tool(["start", "--dry-run", "--config", kioskFile(Self.config), "--format", "json"]).out)
        #expect(SchemaValidator(root: schema).errors(plan) == [])
        guard case let .object(pairs) = plan, case let .array(beacons)? = plan["beacons"], case var .object(alt) = beacons[1] else {
            Issue.record("no beacons"); return
        }
        alt.append(("uuid", .string(Golden.uuidText)))   // an iBeacon's key on an AltBeacon
        let broken = JSON.object(pairs.map { $0.0 == "beacons" ? ($0.0, .array([beacons[0], .object(alt)] + beacons.dropFirst(2))) : $0 })
        #expect(SchemaValidator(root: schema).errors(broken) == ["$.beacons[1]: matches none of anyOf"])
    }

    @Test func doctorNamesTheTypesItWillSend() {
        let r = tool(["doctor", "--config", kioskFile(Self.config)])
        #expect(r.out.contains("kiosk.json is valid: 5 beacons (1 ibeacon, 1 altbeacon, 1 eddystone-uid, 1 eddystone-url, 1 data), legacy commands"), "\(r.out)")
    }

    @Test func whatReadsOnlyIBeaconsSaysSo() {
        let path = kioskFile(Self.config)
        let swift = tool(["dump-config", "--config", path, "--format", "swift"])
        #expect(swift.code == 0 && swift.out.contains("    // skipped: android is altbeacon (altbeacon id1 \(Self.altID1) id2 1 id3 2), not an iBeacon"))
        #expect(swift.out.components(separatedBy: "CLBeaconIdentityConstraint(uuid:").count == 2)
        let one = tool(["start", "--dry-run", "--config", kioskFile(#"{"beacons": [{"type": "data", "data": "020106"}]}"#), "--major", "3"])
        #expect(one.code == 64 && one.err == "beacon-tx start: --uuid/--major/--minor/--power change an iBeacon, but the config's beacon is data; use --beacon to replace it\n")
    }
}

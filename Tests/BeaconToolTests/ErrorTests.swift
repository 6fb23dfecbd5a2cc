import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

/// Every bad flag or config value: one line on stderr naming the field, the value and the range,
/// a sysexits code, nothing on stdout.
@Suite struct ErrorTests {
    struct Case: CustomStringConvertible, Sendable {
        let args: [String]
        let code: Int32
        let mentions: [String]
        var description: String { args.joined(separator: " ") }
    }

    static let dry = ["--dry-run"]
    static let g = ["--uuid", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "--major", "1", "--minor", "2"]

    static let flagCases: [Case] = [
        Case(args: ["start", "--uuid", "nope", "--major", "1", "--minor", "2"] + dry, code: 64, mentions: ["--uuid", "'nope'", "32 hex digits"]),
        Case(args: ["start", "--uuid", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E", "--major", "1", "--minor", "2"] + dry, code: 64, mentions: ["--uuid"]),
        Case(args: ["start", "--uuid", "E2C56DB5DFFB-48D2B060-D0F5A71096E0", "--major", "1", "--minor", "2"] + dry, code: 64, mentions: ["--uuid"]),
        Case(args: ["start", "--uuid", "G2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "--major", "1", "--minor", "2"] + dry, code: 64, mentions: ["--uuid"]),
        Case(args: ["start", "--uuid", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "--major", "65536", "--minor", "2"] + dry, code: 64, mentions: ["--major", "65536", "0–65535"]),
        Case(args: ["start", "--uuid", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "--major", "-1", "--minor", "2"] + dry, code: 64, mentions: ["--major", "-1", "0–65535"]),
        Case(args: ["start", "--uuid", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "--major", "one", "--minor", "2"] + dry, code: 64, mentions: ["--major", "'one'", "0–65535"]),
        Case(args: ["start", "--uuid", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "--major", "1.5", "--minor", "2"] + dry, code: 64, mentions: ["--major", "0–65535"]),
        Case(args: ["start", "--uuid", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "--major", "1", "--minor", "70000"] + dry, code: 64, mentions: ["--minor", "70000", "0–65535"]),
        Case(args: ["start", "--uuid", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "--major", "1", "--minor", ""] + dry, code: 64, mentions: ["--minor"]),
        Case(args: ["start"] + g + ["--power", "-128"] + dry, code: 64, mentions: ["--power", "-128", "-127–20"]),
        Case(args: ["start"] + g + ["--power", "21"] + dry, code: 64, mentions: ["--power", "21", "-127–20"]),
        Case(args: ["start"] + g + ["--interval", "19"] + dry, code: 64, mentions: ["--interval", "19", "20–10240 ms"]),
        Case(args: ["start"] + g + ["--interval", "10241"] + dry, code: 64, mentions: ["--interval", "10241", "20–10240"]),
        Case(args: ["start"] + g + ["--interval", "fast"] + dry, code: 64, mentions: ["--interval", "'fast'"]),
        Case(args: ["start"] + g + ["--interval", "nan"] + dry, code: 64, mentions: ["--interval"]),
        Case(args: ["start"] + g + ["--tx-power", "21"] + dry, code: 64, mentions: ["--tx-power", "21", "-127–20"]),
        Case(args: ["start"] + g + ["--tx-power", "-200"] + dry, code: 64, mentions: ["--tx-power", "-127–20"]),
        Case(args: ["start"] + g + ["--device", "wlan0"] + dry, code: 64, mentions: ["--device", "'wlan0'", "hci0"]),
        Case(args: ["start"] + g + ["--device", "hci99999999999"] + dry, code: 64, mentions: ["--device"]),
        Case(args: ["start"] + g + ["--controller", "bluetooth4"] + dry, code: 64, mentions: ["--controller", "'bluetooth4'", "auto, legacy, extended"]),
        Case(args: ["start"] + g + ["--format", "pcap"] + dry, code: 64, mentions: ["--format", "'pcap'", "text, hex, hcitool, btsnoop"]),
        Case(args: ["start"] + g + ["--timeout", "5"] + dry, code: 64, mentions: ["--timeout", "5", "100–60000"]),
        Case(args: ["start"] + g + ["--bogus"] + dry, code: 64, mentions: ["unknown option --bogus"]),
        Case(args: ["start"] + g + ["--major", "3"], code: 64, mentions: ["--major", "given more than once"]),
        Case(args: ["start", "--uuid", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "--minor", "2", "--major"], code: 64, mentions: ["--major needs a value"]),
        Case(args: ["start", "--major", "1", "--minor", "2"] + dry, code: 64, mentions: ["--uuid is required"]),
        Case(args: ["start", "--uuid", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "--minor", "2"] + dry, code: 64, mentions: ["--major is required"]),
        Case(args: ["start"] + dry, code: 64, mentions: ["no beacon"]),
        Case(args: ["start"] + g + ["--connectable", "--non-connectable"] + dry, code: 64, mentions: ["exclude each other"]),
        Case(args: ["start"] + g + ["--format", "hex"], code: 64, mentions: ["--format only applies with --dry-run"]),
        Case(args: ["start"] + g + ["--detach"] + dry, code: 64, mentions: ["--detach"]),
        Case(args: ["start"] + g + ["extra"] + dry, code: 64, mentions: ["unexpected argument 'extra'"]),
        Case(args: ["start"] + g + ["--dry-run=yes"], code: 64, mentions: ["--dry-run takes no value"]),
        Case(args: ["launch"], code: 64, mentions: ["unknown command 'launch'"]),
        Case(args: [], code: 64, mentions: ["missing command", "see beacon-tx --help"]),
        Case(args: ["start", "--config", "/nonexistent/kiosk.json"] + dry, code: 66, mentions: ["config /nonexistent/kiosk.json", "no such file"]),
        Case(args: ["decode", "xyz"], code: 65, mentions: ["HEX", "'xyz'"]),
        Case(args: ["decode", "0"], code: 65, mentions: ["HEX"]),
        Case(args: ["decode", "0209"], code: 65, mentions: ["claims 2 byte(s)"]),
        Case(args: ["decode", "01030c01", "--as", "command"], code: 65, mentions: ["not an H4 command packet", "length mismatch"]),
        Case(args: ["decode", "040e0401", "--as", "event"], code: 65, mentions: ["not an H4 event packet"]),
        Case(args: ["decode"], code: 64, mentions: ["missing HEX"]),
        Case(args: ["start"] + g + ["--timeout", "99999999999999999999"] + dry, code: 64, mentions: ["--timeout", "99999999999999999999 is out of range", "100–60000"]),
        Case(args: ["start"] + g + ["--interval", "0x20"] + dry, code: 64, mentions: ["--interval", "'0x20' is not a number"]),
        Case(args: ["start"] + g + ["--interval", "1e308"] + dry, code: 64, mentions: ["--interval", "out of range"]),
        Case(args: ["start", "--uuid", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "--major", "+5", "--minor", "2"] + dry, code: 64, mentions: ["--major", "'+5' is not an integer"]),
        Case(args: ["scan", "--path-loss", "0"], code: 64, mentions: ["--path-loss: 0 is out of range (accepted 1–6)"]),
    ]

    @Test(arguments: flagCases)
    func badFlag(_ c: Case) {
        let r = tool(c.args)
        #expect(r.code == c.code, "\(c): exit \(r.code), stderr \(r.err)")
        #expect(r.out.isEmpty, "\(c): stdout \(r.out)")
        #expect(r.err.split(separator: "\n").count == 1, "\(c): not one line: \(r.err)")
        for m in c.mentions { #expect(r.err.contains(m), "\(c): '\(m)' missing in \(r.err)") }
    }

    static let configCases: [(String, [String])] = [
        (#"{"beacons": [{"uuid": "x", "major": 1, "minor": 2}]}"#, ["beacons[0].uuid", "'x'"]),
        (#"{"beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 70000, "minor": 2}]}"#, ["beacons[0].major", "70000", "0–65535"]),
        (#"{"beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": -2}]}"#, ["beacons[0].minor", "-2", "0–65535"]),
        (#"{"beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": "1", "minor": 2}]}"#, ["major", "expected a number, found a string"]),
        (#"{"beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "minor": 2}]}"#, ["beacons[0].major: missing"]),
        (#"{"beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2, "measuredPower": 30}]}"#, ["measuredPower", "30", "-127–20"]),
        (#"{"beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2, "power": -59}]}"#, ["unknown key \"power\"", "measuredPower"]),
        (#"{"beacons": []}"#, ["beacons", "0 beacons listed", "exactly one"]),
        (#"{"beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2}, {"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 3}]}"#, ["2 beacons listed", "exactly one"]),
        (#"{"beacons": {"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"}}"#, ["beacons", "expected a list"]),
        (#"{"interval": 5}"#, ["interval", "5 ms is out of range", "20–10240 ms"]),
        (#"{"interval": "100"}"#, ["interval", "expected a number"]),
        (#"{"connectable": "yes"}"#, ["connectable", "expected true or false"]),
        (#"{"txPower": 100}"#, ["txPower", "100", "-127–20"]),
        (#"{"controller": "modern"}"#, ["controller", "'modern'", "auto, legacy, extended"]),
        (#"{"device": "usb0"}"#, ["device", "'usb0'"]),
        (#"{"timeout": 0}"#, ["timeout", "100–60000"]),
        (#"{"devic": "hci0"}"#, ["unknown key \"devic\"", "accepted: device"]),
        (#"{"beacons": [ }"#, ["line 1, column"]),
        (#"[1, 2]"#, ["top level must be an object"]),
        (#"{"a": 1} trailing"#, ["unexpected text"]),
        ("{\n  \"device\": \"hci0\",\n  \"interval\": ,\n}", ["line 3, column 15"]),
        (#"{"device": "hci0", "device": "hci1"}"#, ["duplicate key \"device\""]),
        ("", ["unexpected end of file"]),
        (#"{"beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1e300, "minor": 2}]}"#, ["major", "out of range", "0–65535"]),
        (#"{"beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1.5, "minor": 2}]}"#, ["major", "1.5 is not an integer"]),
        ("{} /* open", ["unterminated /* comment"]),
    ]

    @Test(arguments: configCases.indices)
    func badConfig(_ i: Int) {
        let (text, mentions) = Self.configCases[i]
        let path = NSTemporaryDirectory() + "beacon-tx-bad-\(i)-\(UUID().uuidString).json"
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = tool(["start", "--config", path] + Self.g + Self.dry)
        #expect(r.code == 65, "\(text): exit \(r.code) \(r.err)")
        #expect(r.out.isEmpty)
        #expect(r.err.split(separator: "\n").count == 1, "not one line: \(r.err)")
        #expect(r.err.contains("config \(path)"), "\(r.err)")
        for m in mentions { #expect(r.err.contains(m), "\(text): '\(m)' missing in \(r.err)") }
    }
}

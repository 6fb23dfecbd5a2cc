// SPDX-License-Identifier: Apache-2.0
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
        Case(args: ["start"] + g + ["--format", "pcap"] + dry, code: 64, mentions: ["--format", "'pcap'", "text, hex, hcitool, json, btsnoop"]),
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
        // Issue 10: one meaning per input, bounded and escaped quotes.
        Case(args: ["start", "--uuid", "E2C56DB5-DFFB48D2B060D0F5A71096E0", "--major", "1", "--minor", "2"] + dry, code: 64, mentions: ["--uuid", "is not a UUID", "all four dashes (8-4-4-4-12) or none"]),
        Case(args: ["start", "--uuid", "E2C56DB5-DFFB-48D2-B060D0F5A71096E0", "--major", "1", "--minor", "2"] + dry, code: 64, mentions: ["--uuid", "all four dashes"]),
        Case(args: ["start", "--uuid", "E2C5-6DB5DFFB-48D2-B060-D0F5A71096E0", "--major", "1", "--minor", "2"] + dry, code: 64, mentions: ["--uuid"]),
        Case(args: ["start", "--uuid", "{E2C56DB5-DFFB-48D2-B060-D0F5A71096E0}", "--major", "1", "--minor", "2"] + dry, code: 64, mentions: ["--uuid"]),
        Case(args: ["start", "--uuid", "E2C56DB5\nDFFB-48D2-B060-D0F5A71096E0", "--major", "1", "--minor", "2"] + dry, code: 64, mentions: ["--uuid: 'E2C56DB5\\nDFFB"]),
        Case(args: ["start"] + g + ["--identifier", "kiosk\nstart:"] + dry, code: 64, mentions: ["--identifier", "'kiosk\\nstart:'", "unprintable character U+000A"]),
        Case(args: ["start"] + g + ["--identifier", "\u{1B}[2J"] + dry, code: 64, mentions: ["--identifier", "\\u{1b}[2J", "U+001B"]),
        Case(args: ["start"] + g + ["--identifier", "evil\u{202E}txt"] + dry, code: 64, mentions: ["--identifier", "U+202E"]),
        Case(args: ["start"] + g + ["--identifier", String(repeating: "n", count: 300)] + dry, code: 64, mentions: ["--identifier", "longer than 256 characters", "…'"]),
        Case(args: ["start"] + g + ["--verbose"] + dry, code: 64, mentions: ["--verbose does nothing with --dry-run"]),
        Case(args: ["start"] + g + ["--reset"] + dry, code: 64, mentions: ["--reset does nothing with --dry-run"]),
        Case(args: ["start"] + g + ["--output", "/dev/null"] + dry, code: 73, mentions: ["--output /dev/null: is a character device, not a regular file"]),
        Case(args: ["start"] + g + ["--output", "/tmp"] + dry, code: 73, mentions: ["--output /tmp: is a directory, not a regular file"]),
        Case(args: ["start", "--config", "/dev/null"] + dry, code: 66, mentions: ["config /dev/null: is a character device, not a regular file"]),
        Case(args: ["start", "--config", "/tmp"] + dry, code: 66, mentions: ["config /tmp: is a directory"]),
        Case(args: ["start", "--config", "/nonexistent/\u{1B}]0;x\u{7}.json"] + dry, code: 66, mentions: ["config /nonexistent/\\u{1b}]0;x\\u{7}.json: no such file"]),
        Case(args: ["start"] + g + ["--output", ""] + dry, code: 64, mentions: ["--output: empty file name"]),
        Case(args: ["start"] + g + ["--interval", "1,5"] + dry, code: 64, mentions: ["--interval", "'1,5' is not a number"]),
        Case(args: ["start"] + g + ["--interval", "10\n0"] + dry, code: 64, mentions: ["--interval", "'10\\n0' is not a number"]),
        Case(args: ["start"] + g + ["--tx-power", "1.5"] + dry, code: 64, mentions: ["--tx-power", "'1.5' is not an integer"]),
        Case(args: ["start"] + g + ["--power", "abc"] + dry, code: 64, mentions: ["--power", "'abc' is not an integer", "-127–20"]),
        Case(args: ["start"] + g + ["--device", "hci-1"] + dry, code: 64, mentions: ["--device", "'hci-1'"]),
        Case(args: ["start"] + g + ["--timeout", "60001"] + dry, code: 64, mentions: ["--timeout", "60001 is out of range", "100–60000"]),
        Case(args: ["start"] + g + ["--advertising-set", "240"] + dry, code: 64, mentions: ["--advertising-set", "240 is out of range", "0–239"]),
        Case(args: ["start"] + g + ["--advertising-set", "-1"] + dry, code: 64, mentions: ["--advertising-set", "-1 is out of range"]),
        Case(args: ["start"] + g + ["--controller", ""] + dry, code: 64, mentions: ["--controller", "'' is not one of"]),
        Case(args: ["start", "--uuid", String(repeating: "f", count: 5000), "--major", "1", "--minor", "2"] + dry, code: 64, mentions: ["--uuid: '" + String(repeating: "f", count: 80) + "…'"]),
        Case(args: ["start"] + g + ["--major", "1" + String(repeating: "0", count: 500)], code: 64, mentions: ["--major given more than once"]),
        Case(args: ["start", "--uuid", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "--minor", "2", "--major", String(repeating: "9", count: 500)] + dry, code: 64, mentions: ["--major: " + String(repeating: "9", count: 80) + "… is out of range"]),
        Case(args: ["start", "--bogus\u{1B}"], code: 64, mentions: ["unknown option --bogus\\u{1b}"]),
        Case(args: ["launch\n"], code: 64, mentions: ["unknown command 'launch\\n'"]),
        Case(args: ["start"] + g + ["ex\u{7}tra"] + dry, code: 64, mentions: ["unexpected argument 'ex\\u{7}tra'"]),
        Case(args: ["scan", "--region", "E2C56DB5DFFB-48D2-B060-D0F5A71096E0"], code: 64, mentions: ["--region: 'E2C56DB5DFFB-48D2-B060-D0F5A71096E0' is not a UUID (accepted: 32 hex digits, with all four dashes"]),
        Case(args: ["scan", "--region", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2:3"], code: 64, mentions: ["--region", "4 fields; expected UUID[:MAJOR[:MINOR]]"]),
        Case(args: ["scan", "--region", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:-1"], code: 64, mentions: ["--region", "major '-1' is not an integer (accepted 0–65535)"]),
        Case(args: ["scan", "--region", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:" + String(repeating: "2", count: 5000)], code: 64, mentions: ["minor '" + String(repeating: "2", count: 80) + "…' is not an integer"]),
        Case(args: ["scan", "--region", String(repeating: ":", count: 5000)], code: 64, mentions: ["5001 fields; expected UUID[:MAJOR[:MINOR]]"]),
        Case(args: ["scan", "--duration", "0"], code: 64, mentions: ["--duration", "out of range"]),
        Case(args: ["scan", "--exit-timeout", "4000"], code: 64, mentions: ["--exit-timeout", "4000 s is out of range"]),
        Case(args: ["stop", "--advertising-set", "999"], code: 64, mentions: ["--advertising-set", "999 is out of range"]),
        Case(args: ["stop", "--config", "/dev/null"], code: 66, mentions: ["config /dev/null: is a character device"]),
        Case(args: ["devices", "extra"], code: 64, mentions: ["unexpected argument 'extra'"]),
        Case(args: ["dump-config", "--uuid", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E", "--major", "1", "--minor", "2"], code: 64, mentions: ["--uuid", "is not a UUID"]),
        Case(args: ["decode", "01030c01"], code: 65, mentions: ["starts like an H4 command packet (01) but is not one", "length mismatch", "--as ad"]),
        Case(args: ["decode", "040e0501"], code: 65, mentions: ["starts like an H4 event packet (04) but is not one", "header says 5"]),
        Case(args: ["decode", "01"], code: 65, mentions: ["starts like an H4 command packet"]),
        Case(args: ["decode", "0201060005ff"], code: 65, mentions: ["a zero length at offset 3 ends the significant data, but offset 4 holds 0x05"]),
        Case(args: ["decode", "02\r01"], code: 65, mentions: ["HEX: '02\\r01' is not hex"]),
        Case(args: ["decode", "0 201"], code: 65, mentions: ["HEX: '0 201' is not hex"]),
        Case(args: ["decode", "02\u{1B}01"], code: 65, mentions: ["HEX: '02\\u{1b}01' is not hex"]),
        Case(args: ["decode", String(repeating: "z", count: 10_000)], code: 65, mentions: ["HEX: '" + String(repeating: "z", count: 80) + "…' is not hex"]),
        Case(args: ["decode", "-", "01"], code: 64, mentions: ["- (read stdin) takes no other HEX argument"]),
        Case(args: ["decode", "01030c00", "--as", "packet"], code: 64, mentions: ["--as", "'packet' is not one of auto, ad, command, event"]),
        Case(args: ["decode", "0201", "--as", "command"], code: 65, mentions: ["not an H4 command packet", "unexpected H4 packet type 0x02"]),
    ]

    @Test(arguments: flagCases)
    func badFlag(_ c: Case) {
        let r = tool(c.args)
        #expect(r.code == c.code, "\(c): exit \(r.code), stderr \(r.err)")
        #expect(r.out.isEmpty, "\(c): stdout \(r.out)")
        #expect(r.err.split(separator: "\n").count == 1, "\(c): not one line: \(r.err)")
        #expect(r.err.utf8.count < 600, "\(c): unbounded error line (\(r.err.utf8.count) bytes)")
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
        (#"{"beacons": []}"#, ["beacons", "the list is empty", "1 or more"]),
        (#"{"beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2}, {"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 3, "interval": 5}]}"#, ["beacons[1].interval", "5", "20–10240 ms"]),
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
        // Issue 10: RFC 8259 exactly (plus comments, trailing commas, one BOM), escaped and bounded quotes.
        (#"{"beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 01, "minor": 2}]}"#, ["invalid number '01': no leading zeros"]),
        (#"{"beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1., "minor": 2}]}"#, ["invalid number '1.': digits must follow '.'"]),
        (#"{"txPower": -.5}"#, ["invalid number '-.5': digits must come before any '.'"]),
        (#"{"txPower": +1}"#, ["unexpected character '+'"]),
        (#"{"interval": 1e999}"#, ["number '1e999' is out of range"]),
        (#"{"interval": -1e400}"#, ["number '-1e400' is out of range"]),
        (#"{"interval": NaN}"#, ["unexpected character 'N'"]),
        (#"{"device": "\u006"}"#, [#"invalid \u escape (accepted: \u and exactly four hex digits)"#]),
        (#"{"device": "\u+061"}"#, [#"invalid \u escape"#]),
        (#"{"beacons": [{"identifier": "\uD83D\u0041", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2}]}"#, [#"unpaired high surrogate \uD83D"#]),
        (#"{"beacons": [{"identifier": "\uDE00", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2}]}"#, [#"unpaired low surrogate \uDE00"#]),
        (#"{"beacons": [{"identifier": "a\nb", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2}]}"#, [#"beacons[0].identifier: 'a\nb' contains the unprintable character U+000A"#]),
        (#"{"beacons": [{"identifier": "\u001b[31m", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2}]}"#, ["beacons[0].identifier", "U+001B"]),
        ("{\"device\": \"hci\u{1}0\"}", ["control character 0x01 in string"]),
        (#"{"dev\nice": "hci0"}"#, [#"unknown key "dev\nice""#]),
        (#"{"beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2, "major": 3}]}"#, [#"duplicate key "major""#]),
        ("\u{FEFF}\u{FEFF}{}", ["unexpected character '\\u{feff}'"]),
        (#"{"beacons": [{"uuid": "E2C56DB5DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2}]}"#, ["beacons[0].uuid: 'E2C56DB5DFFB-48D2-B060-D0F5A71096E0' is not a UUID (accepted: 32 hex digits, with all four dashes"]),
        (#"{"txPower": 1.5}"#, ["txPower", "1.5 is not an integer"]),
        (#"{"advertisingSet": 240}"#, ["advertisingSet", "240 is out of range", "0–239"]),
        (#"{"controller": 1}"#, ["controller", "expected a string, found a number"]),
        (#"{"beacons": [1]}"#, ["beacons[0]", "expected an object, found a number"]),
        (#"{"device": "\#(String(repeating: "x", count: 5000))"}"#, ["device: '" + String(repeating: "x", count: 80) + "…'"]),
        (#"{"\#(String(repeating: "k", count: 5000))": 1}"#, [#"unknown key ""# + String(repeating: "k", count: 80) + "…\""]),
        ("{\"a\": 1 /* never closed", ["unterminated /* comment"]),
        (#"{"a": tru}"#, ["invalid literal"]),
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
        #expect(r.err.utf8.count < 700, "unbounded error line (\(r.err.utf8.count) bytes)")
        #expect(r.err.contains("config \(path)"), "\(r.err)")
        for m in mentions { #expect(r.err.contains(m), "\(text): '\(m)' missing in \(r.err)") }
    }
}

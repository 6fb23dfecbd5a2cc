// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

@Suite struct ConfigTests {
    func temp(_ text: String) -> String {
        let path = NSTemporaryDirectory() + "beacon-tx-\(UUID().uuidString).json"
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    @Test func dumpConfigRefusesStartOptionsThatDoNotShapeTheConfig() {
        // It took start's options by exclusion, so `--check /nonexistent` was accepted (exit 0).
        for extra in [["--check", "/nonexistent"], ["--detach"], ["--dry-run"], ["--output", "x"]] {
            let r = tool(["dump-config"] + goldenFlags + extra)
            #expect(r.code == 64, "\(extra): \(r.err)")
            #expect(r.out.isEmpty)
        }
    }

    @Test func kioskDumpConfig() {
        let r = tool(["dump-config", "--config", repoPath("Config/kiosk.json")])
        #expect(r.code == 0, "\(r.err)")
        expectSnapshot(r.out, "dump-config-kiosk.json")
    }

    @Test func precedenceDefaultsFileFlags() throws {
        let defaults = tool(["dump-config"] + goldenFlags)
        let d = try JSON.parse(defaults.out)
        #expect(d["interval"] == .number(100))
        #expect(d["connectable"] == .bool(false))
        #expect(d["device"] == .null)
        #expect(d["beacons"] == .array([.object([("uuid", .string(Golden.uuidText)), ("major", .number(1)), ("minor", .number(2)), ("measuredPower", .number(-59))])]))

        let file = temp(#"{"device": "hci1", "interval": 200, "connectable": true, "txPower": -4, "beacons": [{"uuid": "E2C56DB5DFFB48D2B060D0F5A71096E0", "major": 5, "minor": 6, "measuredPower": -70, "identifier": "a"}]}"#)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let f = try JSON.parse(tool(["dump-config", "--config", file]).out)
        #expect(f["device"] == .string("hci1"))
        #expect(f["interval"] == .number(200))
        #expect(f["connectable"] == .bool(true))
        #expect(f["txPower"] == .number(-4))

        let o = try JSON.parse(tool(["dump-config", "--config", file, "--device", "hci2", "--interval", "300", "--non-connectable", "--minor", "9", "--power", "-60"]).out)
        #expect(o["device"] == .string("hci2"))
        #expect(o["interval"] == .number(300))
        #expect(o["connectable"] == .bool(false))
        #expect(o["beacons"] == .array([.object([("identifier", .string("a")), ("uuid", .string(Golden.uuidText)), ("major", .number(5)), ("minor", .number(9)), ("measuredPower", .number(-60))])]))
    }

    @Test func minimalConfigGetsDefaults() throws {
        let r = tool(["start", "--config", repoPath("Config/minimal.json"), "--dry-run", "--format", "hex"])
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out.contains("0201061aff4c000215f7826da64fa24e988024bc5b71e0893e00640007c5"))
    }

    @Test func commentsAndTrailingCommasAreAccepted() throws {
        let file = temp("""
            // comment
            { /* block */ "beacons": [ { "uuid": "\(Golden.uuidText)", "major": 1, "minor": 2, }, ], }
            """)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let r = tool(["start", "--config", file, "--dry-run", "--format", "hex"])
        #expect(r.code == 0, "\(r.err)")
    }

    @Test func surrogatePairsAreOneCharacter() throws {
        #expect(try JSON.parse(#""\uD83D\uDE00 \u00e9""#) == .string("😀 é"))
        // An unpaired surrogate is an error, and a high half never swallows the escape after it.
        #expect(throws: JSONParseError(message: "unpaired high surrogate \\uD83D (a surrogate pair is \\uD800–\\uDBFF then \\uDC00–\\uDFFF)", line: 1, column: 2)) {
            try JSON.parse(#""\uD83D x""#)
        }
        #expect(throws: JSONParseError.self) { try JSON.parse(#""\uD83D\u0041""#) }
    }

    @Test func byteOrderMarkIsSkipped() throws {
        #expect(try JSON.parse("\u{FEFF}{\"a\": 1}") == .object([("a", .number(1))]))
    }

    @Test func jsonWriterAndReaderAgree() throws {
        let v = JSON.object([("a", .array([.number(1), .number(-2.5), .null, .bool(true)])), ("b", .string("q\"\\\n\u{1}é"))])
        #expect(try JSON.parse(v.pretty) == v)
        #expect(try JSON.parse(v.compact) == v)
        #expect(v.compact == #"{"a":[1,-2.5,null,true],"b":"q\"\\\n\u0001é"}"#)
        #expect(throws: JSONParseError.self) { try JSON.parse(String(repeating: "[", count: 100)) }
    }

    /// A config with several beacons keeps them all when no single-beacon flag is given.
    @Test func severalBeaconsSurviveWithoutBeaconFlags() {
        let file = temp(#"{"beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 3}, {"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2}]}"#)
        let r = tool(["dump-config", "--config", file])
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out.contains("\"minor\": 3") && r.out.contains("\"minor\": 2"), "\(r.out)")
        let renamed = tool(["dump-config", "--config", file, "--minor", "9"])
        #expect(renamed.code == 64)
    }
}

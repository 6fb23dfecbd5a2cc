// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

/// Issue 21, item 4: every command takes its settings from the one `Setting` table.
@Suite struct SettingTableTests {
    func temp(_ text: String) -> String {
        let path = temporaryDirectory() + "/config.json"
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    /// beacon-tx.json(5) lists the table's keys in `dump-config` order, then `beacons`, then every
    /// key a beacon takes, each with its type, range, default and meaning (it was README's key table,
    /// which lacked deviceTimeout, duration and cycle).
    @Test func configReferenceListsEveryKeyOfTheSettingTable() throws {
        let page = ConfigReference.render()
        let lines = page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var keys: [String] = []
        for (i, line) in lines.enumerated() where line == ".TP" && i + 1 < lines.count && lines[i + 1].hasPrefix("\\fB") {
            keys.append(String(lines[i + 1].dropFirst(3).prefix { $0 != "\\" }).replacingOccurrences(of: "\\-", with: "-"))
        }
        let start = try #require(keys.firstIndex(of: "device"))
        #expect(Array(keys[start...].prefix(ConfigFile.topLevelKeys.count)) == ConfigFile.topLevelKeys)
        #expect(Array(keys[(start + ConfigFile.topLevelKeys.count)...].prefix(ConfigFile.beaconKeys.count)) == ConfigFile.beaconKeys)
        for s in Setting.topLevel {
            let entry = ConfigReference.entry(s).joined(separator: "\n")
            #expect(page.contains(entry), "\(s.key)")
            #expect(entry.contains(ManPage.roff(s.help)) && entry.contains(ManPage.roff(s.flag)), "\(s.key)")
            if case .bool = s.kind {} else { #expect(entry.contains(ManPage.roff("Range: " + s.rangeText)), "\(s.key)") }
            #expect(entry.contains("Default (absent or null): "), "\(s.key)")
        }
        #expect(page.contains("\\fBrotation\\fR (\\fIinteger or null\\fR)\nd") && page.contains(ManPage.roff("Default (absent or null): 200.")))
        #expect(page.contains(ManPage.roff("Default (absent or null): until stopped.")))
        for f in ConfigFile.beaconFields { #expect(page.contains(ManPage.roff(f.meaning)), "\(f.key)") }
    }

    /// `--cycle` was kept as text and parsed again: " 30:060" passed the check, then the schedule
    /// read it as no cycle at all. Now it is parsed once, and dump-config writes the value back.
    @Test func cycleIsParsedOnceAndWrittenBackTyped() throws {
        let plain = tool(["start"] + goldenFlags + ["--dry-run", "--cycle", "30:60"])
        let spaced = tool(["start"] + goldenFlags + ["--dry-run", "--cycle", " 30:060"])
        #expect(plain.code == 0 && spaced.code == 0, "\(spaced.err)")
        #expect(plain.out.contains("schedule: on 30 s (the start commands), off 60 s"))
        #expect(spaced.out == plain.out)
        let dump = tool(["dump-config"] + goldenFlags + ["--cycle", " 30:060:0003"])
        #expect(try JSON.parse(dump.out)["cycle"] == .string("30:60:3"))
        let file = temp(#"{"cycle": "30:60:03", "beacons": [{"uuid": "\#(Golden.uuidText)", "major": 1, "minor": 2}]}"#)
        let fromFile = tool(["dump-config", "--config", file])
        #expect(try JSON.parse(fromFile.out)["cycle"] == .string("30:60:3"))
        let again = temp(fromFile.out)
        #expect(tool(["dump-config", "--config", again]).out == fromFile.out)
        let bad = tool(["start"] + goldenFlags + ["--dry-run", "--cycle", "30:0"])
        #expect(bad.code == 64)
        #expect(bad.err == "beacon-tx start: --cycle OFF: 0 is out of range (accepted 1–86400)\n")
    }

    /// Per-beacon overrides: one key-path table (key, setting, BeaconEntry field), read from a
    /// config and written back by dump-config; null is the top-level value.
    @Test func perBeaconOverridesComeFromTheKeyPathTable() throws {
        #expect(ConfigFile.beaconOverrides.map(\.setting.key) == ["interval", "connectable", "txPower"])
        let file = temp("""
            {"interval": 150, "beacons": [
              {"uuid": "\(Golden.uuidText)", "major": 1, "minor": 2, "interval": 250, "connectable": true, "txPower": -8},
              {"uuid": "\(Golden.uuidText)", "major": 1, "minor": 3, "interval": null, "connectable": false, "txPower": null}]}
            """)
        let dump = tool(["dump-config", "--config", file])
        #expect(dump.code == 0, "\(dump.err)")
        let beacons = try JSON.parse(dump.out)["beacons"]
        guard case let .array(b)? = beacons, b.count == 2 else { Issue.record("\(dump.out)"); return }
        #expect(b[0]["interval"] == .number(250) && b[0]["connectable"] == .bool(true) && b[0]["txPower"] == .number(-8))
        #expect(b[1]["interval"] == nil && b[1]["connectable"] == .bool(false) && b[1]["txPower"] == nil)
        #expect(tool(["dump-config", "--config", temp(dump.out)]).out == dump.out)
        let wrong = temp(#"{"beacons": [{"uuid": "\#(Golden.uuidText)", "major": 1, "minor": 2, "txPower": true}]}"#)
        let r = tool(["dump-config", "--config", wrong])
        #expect(r.code == 65)
        #expect(r.err == "beacon-tx dump-config: config \(wrong): beacons[0].txPower: expected a number, found a boolean\n")
    }

    /// stop, scan and devices list the settings they take; their --device and --timeout are the
    /// table's (same placeholder, same parser, same messages as start's).
    @Test func stopScanDevicesTakeDeviceAndTimeoutFromTheTable() {
        let commands: [(String, [Setting], [OptionSpec])] = [
            (StopCommand.name, StopCommand.settings, StopCommand.options),
            (ScanCommand.name, ScanCommand.settings, ScanCommand.options),
            (DevicesCommand.name, DevicesCommand.settings, DevicesCommand.options),
        ]
        #expect(commands.map { $0.1.map(\.key) } == [["device", "advertisingSet", "timeout"], ["device", "timeout"], ["timeout"]])
        for (name, settings, options) in commands {
            for s in settings {
                #expect(options.contains { $0.name == s.flag && $0.value == s.placeholder }, "\(name) \(s.flag)")
            }
            let r = tool([name, "--timeout", "50"])
            #expect(r.code == 64)
            #expect(r.err == "beacon-tx \(name): --timeout: 50 is out of range (accepted 100–60000)\n")
        }
    }
}

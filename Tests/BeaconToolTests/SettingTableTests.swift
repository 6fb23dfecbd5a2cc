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

    /// README's config-key table lists the table's keys in `dump-config` order, then `beacons`
    /// with every key a beacon takes (it lacked deviceTimeout, duration and cycle).
    @Test func readmeConfigKeyTableMatchesTheSettingTable() throws {
        let readme = try String(contentsOfFile: repoPath("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = try #require(lines.firstIndex(of: "| key | type | meaning |"))
        let rows = Array(lines[(header + 2)...].prefix { $0.hasPrefix("| `") })
        let keys = rows.map { String($0.dropFirst(3).prefix { $0 != "`" }) }
        #expect(keys == ConfigFile.topLevelKeys)
        let beacons = try #require(rows.last)
        for key in ConfigFile.beaconKeys { #expect(beacons.contains(key + "?") || beacons.contains(key + ","), "\(key)") }
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

// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

/// Issue 30, items 5 and 7: beacon-tx.json(5) and the config schema, generated from the tables.
@Suite struct ConfigReferenceTests {
    let u = Golden.uuidText
    func start(_ text: String, _ flags: [String] = []) -> (code: Int32, err: String) { startWithConfig(text, flags) }
    func beacons(_ minors: [Int]) -> String { goldenBeacons(minors) }
    func file(_ text: String) -> String { kioskFile(text) }

    @Test func schemaFollowsTheTables() throws {
        let schema = ConfigSchema.document
        guard case let .object(top)? = schema["properties"], case let .object(beacon)? = schema["properties"]?["beacons"]?["items"]?["properties"] else {
            Issue.record("no properties"); return
        }
        #expect(top.map(\.0) == [ConfigFile.schemaKey] + ConfigFile.topLevelKeys)
        #expect(beacon.map(\.0) == ConfigFile.beaconKeys)
        // Each type's required keys, and none of another type's: an absent type is an iBeacon.
        guard case let .array(kinds)? = schema["properties"]?["beacons"]?["items"]?["allOf"] else { Issue.record("no allOf"); return }
        #expect(kinds.count == ConfigFile.configurableKinds.count)
        #expect(kinds.first?["if"]?["properties"]?["type"]?["enum"] == .array([.string("ibeacon"), .null]))
        #expect(kinds.first?["then"]?["required"] == .array(["uuid", "major", "minor"].map(JSON.string)))
        #expect(kinds.dropFirst().first?["if"]?["properties"]?["type"]?["const"] == .string("altbeacon"))
        #expect(kinds.dropFirst().first?["then"]?["required"] == .array(["id1", "id2", "id3"].map(JSON.string)))
        #expect(kinds.last?["then"]?["required"] == .array(["data"].map(JSON.string)))
        #expect(schema["properties"]?["interval"]?["minimum"] == .number(20) && schema["properties"]?["interval"]?["maximum"] == .number(10240))
        #expect(schema["properties"]?["rotation"]?["default"] == .number(200))
        let r = tool(["dump-config", "--schema"])
        #expect(r.code == 0 && r.out == schema.pretty + "\n")
        let other = tool(["dump-config", "--schema", "--config", "x.json"])
        #expect(other.code == 64)
        #expect(other.err == "beacon-tx dump-config: --schema prints the schema of every config and takes no other option; drop --config\n")
    }

    @Test func manSectionFive() {
        #expect(tool(["man", "--section", "5"]).out == ConfigReference.render() + "\n")
        #expect(tool(["man", "--section", "1"]).out == tool(["man"]).out)
        let three = tool(["man", "--section", "3"])
        #expect(three.code == 64 && three.err == "beacon-tx man: --section: '3' is not one of 1, 5\n")
    }

    /// The page's examples are configs start accepts; the first two are the shipped files.
    @Test func examplesAreShippedConfigs() throws {
        for (title, text) in ConfigReference.examples {
            let r = tool(["start", "--config", file(text), "--dry-run", "--format", "hex"])
            #expect(r.code == 0, "\(title): \(r.err)")
        }
        for (i, name) in ["minimal.json", "kiosk.json"].enumerated() {
            let shipped = try String(contentsOfFile: repoPath("Config/" + name), encoding: .utf8)
            let body = shipped.split(separator: "\n", omittingEmptySubsequences: false).drop { $0.hasPrefix("//") }.joined(separator: "\n")
            #expect(ConfigReference.examples[i].1 + "\n" == body, "\(name)")
        }
    }

    /// The sample errors of the page are what the reader prints.
    @Test func sampleErrorsAreTheReadersOwn() {
        let inputs = [
            "{\n  \"beacons\": [\n    {\"major\": 007}\n  ]\n}",
            #"{"beacons": [{"uuid": "\#(u)", "major": 1, "minor": 2, "measured_power": -60}]}"#,
            #"{"beacons": \#(beacons([1, 2, 1]))}"#,
            #"{"rotation": 50, "beacons": \#(beacons([1, 2]))}"#,
        ]
        #expect(inputs.count == ConfigReference.sampleErrors.count)
        for (input, sample) in zip(inputs, ConfigReference.sampleErrors) {
            #expect(start(input).err == sample + "\n")
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import BeaconTool

/// `start --dry-run --format json` (snapshots, and valid against Docs/plan.schema.json) and
/// `start --dry-run --check GOLDEN` (each golden format, each field kind, missing and extra commands).
@Suite struct PlanCheckTests {
    static let museum = ["start", "--config", repoPath("Config/museum.json"), "--dry-run", "--controller", "extended"]
    static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"

    /// A golden file written by the dry run with `args`, in `format`.
    static func golden(_ args: [String], _ format: String) -> String {
        let path = NSTemporaryDirectory() + "beacon-tx-golden-\(UUID().uuidString).\(format)"
        let r = tool(args + ["--format", format, "--output", path])
        #expect(r.code == 0, "\(r.err)")
        return path
    }

    static func write(_ text: String) -> String {
        let path = NSTemporaryDirectory() + "beacon-tx-golden-\(UUID().uuidString).hex"
        try? text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    // MARK: the JSON plan

    @Test func jsonPlanSnapshots() throws {
        let sets = tool(Self.museum + ["--format", "json"])
        #expect(sets.code == 0, "\(sets.err)")
        expectSnapshot(sets.out, "start-museum.json")
        let rotation = tool(["start", "--config", repoPath("Config/museum.json"), "--dry-run", "--format", "json",
                             "--cycle", "2:3:4", "--duration", "60", "--tx-power", "-4"])
        #expect(rotation.code == 0, "\(rotation.err)")
        expectSnapshot(rotation.out, "start-museum-rotation.json")
    }

    /// Every plan shape validates against the documented schema; a plan without `stop`, with an
    /// unknown key, or with a string major does not (so the validator can fail).
    @Test func jsonPlanFollowsTheSchema() throws {
        let schema = try JSON.parse(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: repoPath("Docs/plan.schema.json")))))
        let validator = SchemaValidator(root: schema)
        for args in [Self.museum, ["start", "--config", repoPath("Config/museum.json"), "--dry-run", "--cycle", "2:3"],
                     ["start", "--uuid", Self.uuid, "--major", "1", "--minor", "2", "--dry-run", "--connectable", "--tx-power", "-20", "--controller", "extended"],
                     ["start", "--config", repoPath("Config/kiosk.json"), "--dry-run", "--duration", "5"],
                     ["start", "--config", repoPath("Config/kiosk.json"), "--dry-run", "--share", "always"]] {
            let r = tool(args + ["--format", "json"])
            let plan = try JSON.parse(r.out)
            #expect(validator.errors(plan) == [], "\(args)")
        }
        let plan = try JSON.parse(tool(Self.museum + ["--format", "json"]).out)
        guard case let .object(pairs) = plan else { Issue.record("not an object"); return }
        #expect(validator.errors(.object(pairs.filter { $0.0 != "stop" })) == ["$: missing stop"])
        #expect(validator.errors(.object(pairs + [("extra", .null)])) == ["$: unexpected key extra"])
        let beacons = pairs.map { $0.0 == "beacons" ? ($0.0, JSON.array([.object([("major", .string("1"))])])) : $0 }
        #expect(validator.errors(.object(beacons)).contains("$.beacons[0]: matches none of anyOf"))
    }

    /// The JSON plan's commands are the hex plan's packets, in the same sections.
    @Test func jsonPlanCommandsAreTheHexPlan() throws {
        let plan = try JSON.parse(tool(Self.museum + ["--format", "json"]).out)
        var fromJSON: [String] = []
        for section in ["start", "rotation", "stop"] {
            guard case let .array(commands)? = plan[section] else { continue }
            if !commands.isEmpty && section != "start" { fromJSON.append("# \(section):") }
            if section == "start" { fromJSON.append("# start:") }
            for c in commands { if case let .string(hex)? = c["hex"] { fromJSON.append(hex) } }
        }
        let hex = tool(Self.museum + ["--format", "hex"]).out
        #expect(fromJSON.joined(separator: "\n") + "\n" == hex)
    }

    // MARK: --check

    @Test func everyGoldenFormatMatchesItsOwnPlan() {
        for format in ["hex", "hcitool", "json", "btsnoop"] {
            let path = Self.golden(Self.museum, format)
            let r = tool(Self.museum + ["--check", path])
            #expect(r.code == 0, "\(format): \(r.out)\(r.err)")
            #expect(r.out == "plan matches \(path) (\(format), 16 commands)\n")
        }
    }

    /// A changed setting is named by command and field, golden value first, in every format.
    @Test func changedFieldsAreNamed() {
        let cases: [([String], [String])] = [
            (["--interval", "200"], [
                "start #2 LE Set Extended Advertising Parameters: Primary_Advertising_Interval_Min 0x0000a0 ≠ 0x000140",
                "start #2 LE Set Extended Advertising Parameters: Primary_Advertising_Interval_Max 0x0000a0 ≠ 0x000140",
                "start #5 LE Set Extended Advertising Parameters: Primary_Advertising_Interval_Min 0x0000a0 ≠ 0x000140",
                "start #5 LE Set Extended Advertising Parameters: Primary_Advertising_Interval_Max 0x0000a0 ≠ 0x000140",
            ]),
            (["--connectable"], (0..<3).map { "start #\(2 + 3 * $0) LE Set Extended Advertising Parameters: Advertising_Event_Properties 0x0010 ≠ 0x0013" }),
            (["--tx-power", "-4"], (0..<3).map { "start #\(2 + 3 * $0) LE Set Extended Advertising Parameters: Advertising_TX_Power 127 ≠ -4" }),
            (["--advertising-set", "5"], [
                "start #1 LE Set Extended Advertising Enable: Advertising_Handle[0] 0xef ≠ 0x05",
            ]),
        ]
        for format in ["hex", "json", "btsnoop"] {
            let path = Self.golden(Self.museum, format)
            for (flags, expected) in cases {
                let r = tool(Self.museum + flags + ["--check", path])
                #expect(r.code == 1, "\(flags) \(format)")
                let lines = r.out.split(separator: "\n").map(String.init)
                let section = format == "btsnoop" ? "command" : "start"
                let want = expected.map { section + $0.dropFirst("start".count) }
                #expect(Array(lines.dropFirst().prefix(want.count)).map { $0.trimmingCharacters(in: .whitespaces) } == want, "\(flags) \(format)")
                #expect(lines.first?.hasPrefix("plan differs from \(path) (\(format)) in ") == true)
            }
        }
    }

    @Test func iBeaconFieldsAreNamed() {
        let base = ["start", "--beacon", "\(Self.uuid):1:2", "--dry-run"]
        let path = Self.golden(base, "hex")
        let cases: [(String, String)] = [
            ("\(Self.uuid):1:3", "iBeacon minor 2 ≠ 3"),
            ("\(Self.uuid):7:2", "iBeacon major 1 ≠ 7"),
            ("\(Self.uuid):1:2:-40", "iBeacon measured power -59 ≠ -40"),
            ("00000000-0000-0000-0000-000000000001:1:2", "iBeacon uuid \(Self.uuid) ≠ 00000000-0000-0000-0000-000000000001"),
        ]
        for (beacon, field) in cases {
            let r = tool(["start", "--beacon", beacon, "--dry-run", "--check", path])
            #expect(r.code == 1)
            #expect(r.out == "plan differs from \(path) (hex) in 1 place (golden ≠ plan):\n  start #3 LE Set Advertising Data: \(field)\n", "\(beacon)")
        }
    }

    /// Golden files edited by hand: a command taken out, one added, the Flags changed, a family changed.
    @Test func missingExtraAndRawFields() throws {
        let base = ["start", "--beacon", "\(Self.uuid):1:2", "--dry-run"]
        let hex = tool(base + ["--format", "hex"]).out
        var lines = hex.split(separator: "\n").map(String.init)
        // # start:, enable(off), parameters, data, enable(on), # stop:, enable(off)
        let dataLine = lines[3]
        lines.remove(at: 3)
        let extra = tool(base + ["--check", Self.write(lines.joined(separator: "\n"))])
        #expect(extra.code == 1)
        #expect(extra.out.hasSuffix("  start #3 LE Set Advertising Data: not in the golden file (the plan has it)\n"), "\(extra.out)")
        lines.insert(dataLine, at: 3)
        lines.insert("01052006c01122334455", at: 2)   // LE Set Random Address
        let missing = tool(base + ["--check", Self.write(lines.joined(separator: "\n"))])
        #expect(missing.out.hasSuffix("  start #2 LE Set Random Address: missing from the plan (the golden file has it)\n"), "\(missing.out)")
        let changedFlags = tool(base + ["--check", Self.write(hex.replacingOccurrences(of: "0201061aff", with: "0201021aff"))])
        #expect(changedFlags.out.contains("start #3 LE Set Advertising Data: Advertising_Data 0201021aff"), "\(changedFlags.out)")
        let family = tool(base + ["--controller", "extended", "--check", Self.write(hex)])
        #expect(family.out.split(separator: "\n").dropFirst().first == "  family: legacy ≠ extended (the golden file has legacy advertising commands; every one of them differs)")
        #expect(family.out.contains("  stop #2 LE Remove Advertising Set: not in the golden file (the plan has it)"))
    }

    @Test func badGoldensAndFlags() {
        let base = ["start", "--beacon", "\(Self.uuid):1:2", "--dry-run"]
        let cases: [([String], Int32, String)] = [
            (["--check", Self.write("# start:\n01zz\n")], 65, "--check \(NSTemporaryDirectory())"),
            (["--check", Self.write(tool(base).out)], 65, "the text format is for people"),
            (["--check", Self.write("{\"start\": [], \"rotation\": []}")], 65, "no \"stop\" list"),
            (["--check", Self.write("{\"start\": [{\"hex\": \"0203\"}], \"rotation\": [], \"stop\": []}")], 65, "start[0].hex: not an H4 command packet"),
            (["--check", Self.write("hcitool -i hci0 cmd 0x40 0x0001\n")], 65, "OGF 0x00–0x3f"),
            (["--check", "/nonexistent/golden.hex"], 66, "--check /nonexistent/golden.hex"),
            (["--check", Self.write(""), "--format", "hex"], 64, "drop --format"),
        ]
        for (flags, code, message) in cases {
            let r = tool(base + flags)
            #expect(r.code == code, "\(flags): \(r.err)")
            #expect(r.err.contains(message), "\(flags): \(r.err)")
            #expect(r.err.split(separator: "\n").count == 1)
        }
        let live = tool(["start", "--beacon", "\(Self.uuid):1:2", "--check", "x.hex"])
        #expect(live.code == 64 && live.err.contains("--check only applies with --dry-run"))
    }
}

/// The part of JSON Schema (2020-12) Docs/plan.schema.json uses: type, const, enum, required,
/// properties, additionalProperties, items, minItems, minimum, maximum, anyOf and local $ref.
/// Errors are `path: problem`.
struct SchemaValidator {
    let root: JSON

    func errors(_ value: JSON) -> [String] { errors(value, root, "$") }

    func errors(_ value: JSON, _ schema: JSON, _ path: String) -> [String] {
        if case let .string(ref)? = schema["$ref"] {
            var target: JSON? = root
            for part in ref.dropFirst(2).split(separator: "/") { target = target?[String(part)] }
            guard let target else { return ["\(path): unresolved \(ref)"] }
            return errors(value, target, path)
        }
        if case let .array(options)? = schema["anyOf"] {
            return options.contains { errors(value, $0, path).isEmpty } ? [] : ["\(path): matches none of anyOf"]
        }
        if let c = schema["const"], c != value { return ["\(path): expected \(c.compact)"] }
        if case let .array(choices)? = schema["enum"], !choices.contains(value) { return ["\(path): not one of the enum"] }
        if let type = schema["type"] {
            let types: [String]
            switch type {
            case let .string(t): types = [t]
            case let .array(ts): types = ts.compactMap { if case let .string(t) = $0 { return t } else { return nil } }
            default: types = []
            }
            guard types.contains(where: { Self.matches(value, $0) }) else {
                return ["\(path): expected \(types.joined(separator: " or ")), got \(value.kind)"]
            }
        }
        var out: [String] = []
        if case let .number(n) = value {
            if case let .number(min)? = schema["minimum"], n < min { out.append("\(path): below \(min)") }
            if case let .number(max)? = schema["maximum"], n > max { out.append("\(path): above \(max)") }
        }
        if case let .object(pairs) = value {
            if case let .array(required)? = schema["required"] {
                for case let .string(key) in required where value[key] == nil { out.append("\(path): missing \(key)") }
            }
            for (key, v) in pairs {
                if let property = schema["properties"]?[key] {
                    out += errors(v, property, "\(path).\(key)")
                } else if let extra = schema["additionalProperties"] {
                    if extra == .bool(false) { out.append("\(path): unexpected key \(key)") } else { out += errors(v, extra, "\(path).\(key)") }
                }
            }
        }
        if case let .array(items) = value {
            if case let .number(min)? = schema["minItems"], Double(items.count) < min { out.append("\(path): fewer than \(Int(min)) items") }
            if let itemSchema = schema["items"] {
                for (i, item) in items.enumerated() { out += errors(item, itemSchema, "\(path)[\(i)]") }
            }
        }
        return out
    }

    static func matches(_ value: JSON, _ type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object), ("number", .number): return true
        case let ("integer", .number(n)): return n.rounded() == n
        default: return false
        }
    }
}

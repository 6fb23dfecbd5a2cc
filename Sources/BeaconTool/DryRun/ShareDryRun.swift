// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// The dry run of the sharing mode (`--share always`): the MGMT commands of a start and a stop, in
/// text and JSON (the HCI formats have no MGMT commands).
enum ShareDryRun {
    /// The plan a live start would send on a controller with no kernel instances (the instances are
    /// chosen at start from Read Advertising Features: the highest free ones).
    static func plan(_ s: Settings) -> SharePlan {
        let n = s.beacons.count
        let instances = (0..<n).map { SharePlan.assumedMaxInstances &- UInt8(clamping: $0) }
        return SharePlan(index: s.device?.index ?? 0, beacons: s.beacons.map(s.advertisement), instances: instances,
                         dwellMilliseconds: s.rotationMilliseconds, method: s.shareCommands ?? .extended)
    }

    static func text(_ s: Settings, _ plan: SharePlan, device: String) -> String {
        var lines = DryRun.header(s) { i, entry in DryRun.overrides(entry) + ", instance \(plan.instances[i])" }
        lines.append("device:   \(device), shared through the kernel (MGMT on the control channel): each beacon a kernel advertising instance, "
                     + "on air \(plan.durationSeconds) s at a time in the kernel's rotation")
        lines += notes(s, plan).map { "          (" + $0 + ")" }
        lines += ["", "start:"]
        for c in plan.start { lines += MGMTText.describe(c) }
        if let schedule = DryRun.scheduleText(s) { lines += ["", "schedule: " + schedule] }
        lines += ["", "stop:"]
        for c in plan.stop { lines += MGMTText.describe(c) }
        return lines.joined(separator: "\n") + "\n"
    }

    static func notes(_ s: Settings, _ plan: SharePlan) -> [String] {
        var notes = ["instances \(plan.instances.map(String.init).joined(separator: ", ")) assume no kernel instances in use; a live start takes the highest free ones (Read Advertising Features)"]
        if Int(plan.durationSeconds) * 1000 != s.rotationMilliseconds {
            notes.append("MGMT durations are whole seconds: the \(s.rotationMilliseconds) ms dwell (--rotation) becomes \(plan.durationSeconds) s")
        }
        notes.append(plan.method == .addAdvertising
                     ? "Add Advertising, as --share-commands asks: the kernel's interval and tx power"
                     : "a kernel that refuses Add Extended Advertising Data with Invalid Parameters (0x0d) gets Add Advertising instead: the kernel's interval, not ours")
        return notes
    }

    /// The plan as JSON, `Docs/plan.schema.json` with family `mgmt` and layout `instances`.
    static func json(_ s: Settings, _ plan: SharePlan, device: String) -> JSON {
        func number<T: BinaryInteger>(_ v: T) -> JSON { .number(Double(v)) }
        let schedule = s.schedule
        let scheduleJSON: JSON = schedule.isEmpty ? .null : .object([
            ("durationMilliseconds", schedule.durationMilliseconds.map(number) ?? .null), ("cycle", .null),
        ])
        return .object([
            ("format", .string(DryRun.planFormat)), ("formatVersion", number(DryRun.planFormatVersion)),
            ("device", .string(device)), ("family", .string("mgmt")),
            ("layout", .object([("kind", .string("instances")), ("instances", .array(plan.instances.map(number))),
                                ("durationSeconds", number(plan.durationSeconds)), ("method", .string(plan.method.rawValue))])),
            ("beacons", DryRun.beaconsJSON(s.beacons, plan.beacons)),
            ("start", .array(plan.start.map(command))), ("rotation", .array([])),
            ("schedule", scheduleJSON), ("stop", .array(plan.stop.map(command))),
        ])
    }

    /// `{"mgmtOpcode": "0x003e", "index": 0, "name": "Add Advertising", "parameters": {…}, "hex": …}`.
    static func command(_ c: MGMTCommand) -> JSON {
        var pairs: [(String, JSON)] = [("mgmtOpcode", .string(Hex.word(c.opcode.rawValue))), ("index", .number(Double(c.index))),
                                       ("name", c.opcode.name.map(JSON.string) ?? .null)]
        if let d = MGMTCommandTable.description(c.opcode), let values = try? MGMTFields.decode(c.parameters, d.parameters) {
            pairs.append(("parameters", .object(zip(d.parameters, values).map { field, value in
                switch (field.width, value) {
                case let (.data, .bytes(b)): return (field.name, HCIJSON.advertisingData(b))
                case let (_, .integer(v)): return (field.name, .number(Double(v)))
                case let (_, .bytes(b)): return (field.name, .string(Hex.encode(b)))
                default: return (field.name, .null)
                }
            })))
        } else {
            pairs.append(("parameters", .null))
        }
        pairs.append(("hex", .string(Hex.encode(c.packet))))
        return .object(pairs)
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// `start --dry-run --check FILE`: the plan compared with a golden file written by an earlier dry
/// run in any machine format (hex, hcitool, json, btsnoop), command by command and field by field.
enum PlanCheck {
    /// The commands of a golden file: by section (`start`, `rotation`, `stop`) when the file marks
    /// them, or one run of commands (btsnoop, or hex without `# start:` lines).
    struct Golden: Equatable {
        var format: String
        /// nil: the file does not say which command belongs to which section.
        var sections: [String: [HCICommand]]?
        var commands: [HCICommand]
    }

    static let sectionNames = ["start", "rotation", "stop"]

    /// Reads a golden file; a file in none of the formats, or a bad line, is bad data (65) naming where.
    static func parse(_ bytes: [UInt8], name: String) throws(CLIError) -> Golden {
        if bytes.starts(with: BTSnoop.magic) {
            // Any btsnoop kind `CaptureFile` reads (ours is 1002); the commands sent, in order.
            let capture: CaptureFile
            do { capture = try CaptureFile.read(bytes, .dropWithWarning) } catch { throw .data("--check \(name): \(error)") }
            let commands = capture.records.compactMap { record -> HCICommand? in
                if case let .command(c) = record.kind { return c } else { return nil }
            }
            return Golden(format: "btsnoop", sections: nil, commands: commands)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .data("--check \(name): neither a btsnoop capture nor text (hex, hcitool or json from start --dry-run)")
        }
        let trimmed = text.trimmingCharacters()
        if trimmed.hasPrefix("{") { return try parseJSON(bytes, name: name) }
        if trimmed.hasPrefix("beacon-tx dry run") {
            throw .data("--check \(name): the text format is for people; write the golden with --format hex, json, hcitool or btsnoop")
        }
        return try parseLines(text, name: name)
    }

    /// `--format hex` and `--format hcitool`: `# start:` / `# rotation…` / `# stop:` open sections;
    /// other `#` lines are comments, except hcitool lines commented out (the rotation and stop steps).
    static func parseLines(_ text: String, name: String) throws(CLIError) -> Golden {
        var sections: [String: [HCICommand]] = [:]
        var current: String?
        var commands: [HCICommand] = []
        var sawHcitool = false
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = String(raw).trimmingCharacters()
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                let body = String(line.dropFirst()).trimmingCharacters()
                if let section = sectionNames.first(where: { body.hasPrefix($0 + ":") || body.hasPrefix($0 + ",") }) {
                    current = section
                    if sections[section] == nil { sections[section] = [] }   // a section may be empty
                    continue
                }
                guard body.hasPrefix("hcitool ") else { continue }
                line = body
            }
            let command: HCICommand
            if line.hasPrefix("hcitool ") {
                sawHcitool = true
                command = try hcitoolCommand(line, where: "--check \(name): line \(number + 1)")
            } else {
                guard let bytes = Hex.decode(line), !bytes.isEmpty else {
                    throw .data("--check \(name): line \(number + 1): \(Quote.user(line)) is not hex, an hcitool line or a # comment")
                }
                do { command = try HCICommand(packet: bytes) } catch {
                    throw .data("--check \(name): line \(number + 1): not an H4 command packet: \(error)")
                }
            }
            commands.append(command)
            if let current { sections[current, default: []].append(command) }
        }
        return Golden(format: sawHcitool ? "hcitool" : "hex", sections: sections.isEmpty ? nil : sections, commands: commands)
    }

    /// `hcitool -i hci0 cmd 0x08 0x0008 1e 02 01 …`.
    static func hcitoolCommand(_ line: String, where place: String) throws(CLIError) -> HCICommand {
        let words = line.split(separator: " ").map(String.init)
        guard let cmd = words.firstIndex(of: "cmd"), cmd + 2 < words.count,
              let ogf = UInt8(words[cmd + 1].replacingPrefix("0x"), radix: 16), ogf <= 0x3F,
              let ocf = UInt16(words[cmd + 2].replacingPrefix("0x"), radix: 16), ocf <= 0x3FF,
              let parameters = Hex.decode(words[(cmd + 3)...].joined(separator: " ")) ?? (cmd + 3 == words.count ? [] : nil),
              parameters.count <= 255 else {
            throw .data("\(place): \(Quote.user(line)) is not `hcitool … cmd OGF OCF [PARAMETER…]` (OGF 0x00–0x3f, OCF 0x000–0x3ff, at most 255 octets)")
        }
        return HCICommand(Opcode(ogf: ogf, ocf: ocf), parameters)
    }

    /// `--format json`: the `hex` of every command under `start`, `rotation` and `stop`.
    static func parseJSON(_ bytes: [UInt8], name: String) throws(CLIError) -> Golden {
        let json: JSON
        do { json = try JSON.parse(bytes: bytes) } catch { throw .data("--check \(name): \(error)") }
        var sections: [String: [HCICommand]] = [:]
        var commands: [HCICommand] = []
        for section in sectionNames {
            guard let list = json[section] else { throw .data("--check \(name): no \"\(section)\" list (a JSON plan has start, rotation and stop)") }
            guard case let .array(items) = list else { throw .data("--check \(name): \"\(section)\" is \(list.kind), expected a list of commands") }
            for (i, item) in items.enumerated() {
                let place = "--check \(name): \(section)[\(i)].hex"
                guard case let .string(hex)? = item["hex"] else { throw .data("\(place): missing, expected the command's H4 packet as hex") }
                guard let packet = Hex.decode(hex) else { throw .data("\(place): \(Quote.user(hex)) is not hex") }
                do {
                    let c = try HCICommand(packet: packet)
                    sections[section, default: []].append(c)
                    commands.append(c)
                } catch { throw .data("\(place): not an H4 command packet: \(error)") }
            }
        }
        return Golden(format: "json", sections: sections, commands: commands)
    }

    /// The differences of `plan` from `golden`, one line each (`start #4 LE Set Advertising Data:
    /// iBeacon minor 2 ≠ 3`, golden first); empty when they are equal.
    static func differences(_ golden: Golden, _ plan: KioskPlan) -> [String] {
        let planned: [String: [HCICommand]] = [
            "start": plan.start.map(\.command), "rotation": plan.rotationSteps.map(\.command), "stop": plan.stop.map(\.command),
        ]
        var out: [String] = []
        if let family = family(of: golden.commands), family != plan.family {
            out.append("family: \(family) ≠ \(plan.family) (the golden file has \(family) advertising commands; every one of them differs)")
        }
        guard let sections = golden.sections else {
            return out + lines("command", CommandDiff.compare(expected: golden.commands, actual: sectionNames.flatMap { planned[$0] ?? [] }))
        }
        return out + sectionNames.flatMap { section in
            lines(section, CommandDiff.compare(expected: sections[section] ?? [], actual: planned[section] ?? []))
        }
    }

    /// Extended when any command is of the extended family (the table's family column), legacy when
    /// any is of the legacy family, nil when neither.
    static func family(of commands: [HCICommand]) -> AdvertisingFamily? {
        let families = Set(commands.compactMap { CommandTable.description($0.opcode)?.family.advertisingFamily })
        return families.contains(.extended) ? .extended : families.first
    }

    static func lines(_ section: String, _ steps: [CommandDiff.Step]) -> [String] {
        func name(_ c: HCICommand) -> String { c.opcode.name ?? "Unknown command \(Hex.word(c.opcode.rawValue))" }
        return steps.flatMap { step -> [String] in
            switch step {
            case let .missing(i, c): return ["\(section) #\(i + 1) \(name(c)): missing from the plan (the golden file has it)"]
            case let .extra(i, c): return ["\(section) #\(i + 1) \(name(c)): not in the golden file (the plan has it)"]
            case let .changed(i, fields): return fields.map { "\(section) #\(i + 1) \($0)" }
            }
        }
    }
}

extension String {
    func replacingPrefix(_ prefix: String) -> String { hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self }
}

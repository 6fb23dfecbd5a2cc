// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// `beacon-tx decode HEX`: advertising data, or an H4 command or event packet.
enum DecodeCommand: Subcommand {
    static let name = "decode"
    static let summary = "decode hex: advertising data, or an H4 command or event packet"
    static let usage = "beacon-tx decode (HEX | -) [--as auto|ad|command|event] [--json]"
    static let options: [OptionSpec] = [
        .flag("--json", "print JSON (with -: one compact JSON object per line)"),
        .value("--as", "KIND", "auto (default: H4 01.. command, 04.. event, a 32-byte LE Set Advertising Data parameter, otherwise advertising data), ad, command or event",
               choices: ["auto", "ad", "command", "event"]),
    ]
    static let examples = [
        "beacon-tx decode 0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5",
        "beacon-tx decode 01030c00 --json",
        "beacon-tx decode '04 0e 04 01 06 20 0c'",
        "beacon-tx decode - < plan.hex     # one packet per line, e.g. from start --dry-run --format hex",
    ]

    static let takesPositionals = true

    enum Kind { case auto, ad, command, event }

    static let hexHelp = "accepted: pairs of 0-9 a-f, separated by spaces, colons, dashes, tabs or line ends"

    static func run(_ a: ParsedArguments, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        guard !a.positionals.isEmpty else { throw .usage("missing HEX; see beacon-tx decode --help") }
        let kind = try Validate.choice("--as", a.value("--as") ?? "auto",
                                       [("auto", Kind.auto), ("ad", .ad), ("command", .command), ("event", .event)])
        let json = a.has("--json")
        if a.positionals.contains("-") {
            guard a.positionals.count == 1 else { throw .usage("- (read stdin) takes no other HEX argument") }
            return try decodeLines(kind, json: json, ctx)
        }
        let text = a.positionals.joined(separator: " ")
        ctx.stdout(try decode(text, kind, json: json, compact: false))
        return .success
    }

    /// `decode -`: one packet per line of stdin; blank lines and `#` comments are skipped (so the
    /// hex and hcitool dry-run formats can be piped in). A bad line is reported with its number
    /// and the others are still decoded; the exit code is 65 if any line was bad.
    static func decodeLines(_ kind: Kind, json: Bool, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        var number = 0, failed = 0, printed = 0
        while let raw = try ctx.readStdinLine() {
            number += 1
            guard let line = String(validating: raw, as: UTF8.self) else {
                ctx.log(.error, "beacon-tx decode: line \(number): '\(Quote.bytes(raw))' is not valid UTF-8")
                failed += 1
                continue
            }
            let t = line.trimmingCharacters()
            if t.isEmpty || t.hasPrefix("#") { continue }
            do {
                let out = try decode(t, kind, json: json, compact: true)
                if !json && printed > 0 { ctx.stdout("") }
                ctx.stdout(out)
                printed += 1
            } catch {
                ctx.log(.error, "beacon-tx decode: line \(number): \(Quote.sanitized(error.message))")
                failed += 1
            }
            if ctx.stdoutError() != nil { return .success }   // exit 74 says why
        }
        return failed == 0 ? .success : .dataError
    }

    /// The text (or JSON) of one packet.
    static func decode(_ text: String, _ kind: Kind, json: Bool, compact: Bool) throws(CLIError) -> String {
        guard let bytes = Hex.decode(text), !bytes.isEmpty else {
            throw .data("HEX: \(Quote.user(text)) is not hex (\(hexHelp))")
        }
        func render(_ j: JSON) -> String { compact ? j.compact : j.pretty }
        let h4: Kind? = kind == .auto
            ? (bytes[0] == PacketType.command.rawValue ? .command : bytes[0] == PacketType.event.rawValue ? .event : nil)
            : (kind == .ad ? nil : kind)
        let hint = kind == .auto ? "; for advertising data use --as ad" : ""
        switch h4 {
        case .command?:
            do {
                let c = try HCICommand(packet: bytes)
                return json ? render(commandJSON(c)) : CommandText.describe(c).joined(separator: "\n")
            } catch {
                let start = kind == .auto ? "starts like an H4 command packet (01) but is not one" : "not an H4 command packet"
                throw .data("HEX: \(start): \(error)\(hint)")
            }
        case .event?:
            do {
                let e = try HCIEvent(packet: bytes)
                return json ? render(eventJSON(e)) : CommandText.describe(e).joined(separator: "\n")
            } catch {
                let start = kind == .auto ? "starts like an H4 event packet (04) but is not one" : "not an H4 event packet"
                throw .data("HEX: \(start): \(error)\(hint)")
            }
        default:
            break
        }
        if kind == .auto, let data = advertisingDataParameter(bytes) {
            if json {
                return render(.object([("kind", .string("advertisingDataParameter")),
                                       ("advertisingDataLength", .number(Double(data.count))),
                                       ("advertisingData", advertisingDataJSON(data))]))
            }
            return (["LE Set Advertising Data parameter: Advertising_Data_Length \(data.count), then \(data.count) of 31 bytes"]
                + CommandText.describeAdvertisingData(data).map { "  " + $0 }).joined(separator: "\n")
        }
        do {
            _ = try ADStructure.parse(bytes)
            return json ? render(advertisingDataJSON(bytes)) : CommandText.describeAdvertisingData(bytes).joined(separator: "\n")
        } catch {
            let what = kind == .ad ? "not advertising data" : "not advertising data, an H4 command (01...) or an H4 event (04...)"
            throw .data("HEX: \(what): \(error)")
        }
    }

    /// The 32-byte parameter of LE Set Advertising Data (0x2008) / Scan Response Data (0x2009), as
    /// dry runs print it (`1e 02 01 06 ...`): Advertising_Data_Length, then 31 bytes whose first
    /// `length` parse as AD structures and the rest are zero. nil when the bytes are not that.
    static func advertisingDataParameter(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count == 32, bytes[0] >= 1, bytes[0] <= 31 else { return nil }
        let length = Int(bytes[0])
        guard bytes[(1 + length)...].allSatisfy({ $0 == 0 }) else { return nil }
        let data = Array(bytes[1...length])
        guard let structures = try? ADStructure.parse(data), !structures.isEmpty else { return nil }
        return data
    }

    /// `{"kind": "command", …}`: the command field by field (the same object a JSON plan lists).
    static func commandJSON(_ c: HCICommand) -> JSON { kind("command", HCIJSON.command(c)) }

    /// `{"kind": "event", …}`: the event field by field, Command Complete's return parameters too.
    static func eventJSON(_ e: HCIEvent) -> JSON { kind("event", HCIJSON.event(e)) }

    static func advertisingDataJSON(_ bytes: [UInt8]) -> JSON { kind("advertisingData", HCIJSON.advertisingData(bytes)) }

    static func kind(_ name: String, _ object: JSON) -> JSON {
        guard case let .object(pairs) = object else { return object }
        return .object([("kind", .string(name))] + pairs)
    }
}

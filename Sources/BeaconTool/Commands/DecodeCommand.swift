import BeaconKit

/// `beacon-tx decode HEX`: advertising data, or an H4 command or event packet.
enum DecodeCommand: Subcommand {
    static let name = "decode"
    static let summary = "decode hex: advertising data, or an H4 command or event packet"
    static let usage = "beacon-tx decode HEX [--as auto|ad|command|event] [--json]"
    static let options: [OptionSpec] = [
        .flag("--json", "print JSON"),
        .value("--as", "KIND", "auto (default: H4 01.. command, 04.. event, otherwise advertising data), ad, command or event"),
    ]
    static let examples = [
        "beacon-tx decode 0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5",
        "beacon-tx decode 01030c00 --json",
        "beacon-tx decode '04 0e 04 01 06 20 0c'",
    ]

    static let takesPositionals = true

    enum Kind { case auto, ad, command, event }

    static func run(_ a: ParsedArguments, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        guard !a.positionals.isEmpty else { throw .usage("missing HEX; see beacon-tx decode --help") }
        let text = a.positionals.joined(separator: " ")
        guard let bytes = Hex.decode(text), !bytes.isEmpty else {
            throw .data("HEX: '\(text)' is not hex (accepted: pairs of 0-9 a-f, spaces and colons allowed)")
        }
        let kind = try Validate.choice("--as", a.value("--as") ?? "auto",
                                       [("auto", Kind.auto), ("ad", .ad), ("command", .command), ("event", .event)])
        let json = a.has("--json")
        if kind == .command || (kind == .auto && bytes.first == PacketType.command.rawValue) {
            do {
                let c = try HCICommand(packet: bytes)
                emit(json ? commandJSON(c).pretty : CommandText.describe(c).joined(separator: "\n"), ctx)
                return .success
            } catch where kind == .command {
                throw .data("HEX: not an H4 command packet: \(error)")
            } catch {}
        }
        if kind == .event || (kind == .auto && bytes.first == PacketType.event.rawValue) {
            do {
                let e = try HCIEvent(packet: bytes)
                emit(json ? eventJSON(e).pretty : CommandText.describe(e).joined(separator: "\n"), ctx)
                return .success
            } catch where kind == .event {
                throw .data("HEX: not an H4 event packet: \(error)")
            } catch {}
        }
        do {
            let structures = try ADStructure.parse(bytes)
            emit(json ? advertisingDataJSON(bytes, structures).pretty : CommandText.describeAdvertisingData(bytes).joined(separator: "\n"), ctx)
            return .success
        } catch {
            throw .data("HEX: not advertising data, an H4 command (01...) or an H4 event (04...): \(error)")
        }
    }

    static func emit(_ s: String, _ ctx: ToolContext) { ctx.stdout(s) }

    static func commandJSON(_ c: HCICommand) -> JSON {
        var pairs: [(String, JSON)] = [
            ("kind", .string("command")), ("opcode", .string(Hex.word(c.opcode.rawValue))),
            ("ogf", .number(Double(c.opcode.ogf))), ("ocf", .number(Double(c.opcode.ocf))),
            ("name", c.opcode.name.map(JSON.string) ?? .null), ("parameters", .string(Hex.encode(c.parameters))),
        ]
        if let data = c.carriedAdvertisingData, let structures = try? ADStructure.parse(data) {
            pairs.append(("advertisingData", advertisingDataJSON(data, structures)))
        }
        return .object(pairs)
    }

    static func eventJSON(_ e: HCIEvent) -> JSON {
        var pairs: [(String, JSON)] = [
            ("kind", .string("event")), ("code", .string(Hex.byte(e.code.rawValue))), ("name", .string(e.code.name)),
            ("parameters", .string(Hex.encode(e.parameters))),
        ]
        if let cc = try? CommandComplete(e) {
            pairs += [("opcode", .string(Hex.word(cc.opcode.rawValue))), ("command", cc.opcode.name.map(JSON.string) ?? .null),
                      ("ncmd", .number(Double(cc.numHCICommandPackets))),
                      ("status", cc.status.map { .number(Double($0.rawValue)) } ?? .null),
                      ("statusName", cc.status.map { .string($0.name) } ?? .null),
                      ("returnParameters", .string(Hex.encode(cc.returnParameters)))]
        } else if let cs = try? CommandStatus(e) {
            pairs += [("opcode", .string(Hex.word(cs.opcode.rawValue))), ("command", cs.opcode.name.map(JSON.string) ?? .null),
                      ("ncmd", .number(Double(cs.numHCICommandPackets))),
                      ("status", .number(Double(cs.status.rawValue))), ("statusName", .string(cs.status.name))]
        } else if let batch = AdvertisingReports.decodePartial(event: e) {
            pairs.append(("subevent", .string(Hex.byte(batch.subevent.rawValue))))
            pairs.append(("reports", .array(batch.reports.map { r in
                var fields: [(String, JSON)] = [
                    ("address", .string(r.address)), ("addressType", .string(ScanCommand.addressTypeName(r.addressType))),
                    ("extended", .bool(r.isExtended)), ("rssi", r.rssi.map { .number(Double($0)) } ?? .null),
                ]
                if let structures = try? ADStructure.parse(r.data) {
                    fields.append(("advertisingData", advertisingDataJSON(r.data, structures)))
                } else {
                    fields.append(("data", .string(Hex.encode(r.data))))
                }
                return .object(fields)
            })))
            if let error = batch.error { pairs.append(("error", .string(error.description))) }
        }
        return .object(pairs)
    }

    static func advertisingDataJSON(_ bytes: [UInt8], _ structures: [ADStructure]) -> JSON {
        var pairs: [(String, JSON)] = [
            ("kind", .string("advertisingData")),
            ("structures", .array(structures.map {
                .object([("type", .number(Double($0.type.rawValue))), ("typeName", .string($0.type.name)),
                         ("data", .string(Hex.encode($0.data)))])
            })),
        ]
        if let b = IBeacon(advertisingData: bytes) {
            pairs.append(("iBeacon", .object([("uuid", .string(b.uuid.description)), ("major", .number(Double(b.major))),
                                              ("minor", .number(Double(b.minor))), ("measuredPower", .number(Double(b.measuredPower)))])))
        } else {
            pairs.append(("iBeacon", .null))
        }
        return .object(pairs)
    }
}

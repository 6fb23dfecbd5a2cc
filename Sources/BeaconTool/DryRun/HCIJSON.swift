// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// Commands, events and advertising data as JSON, field by field under the spec's field names
/// (`start --dry-run --format json`, `decode --json`). Integers are numbers (signed fields
/// negative), octet runs hex (addresses and masks as printed: `C0:11:…`, `0x3dbf…`), advertising
/// data an object with its AD structures and iBeacon fields, and a repeated group's fields arrays
/// (`"Advertising_Handle": [239, 238]`), as the spec writes them.
enum HCIJSON {
    /// `{"opcode": "0x2006", "ogf": 8, "ocf": 6, "name": …, "parameters": {…}, "hex": "0106200f…"}`.
    static func command(_ c: HCICommand) -> JSON {
        var pairs: [(String, JSON)] = [
            ("opcode", .string(Hex.word(c.opcode.rawValue))), ("ogf", number(c.opcode.ogf)), ("ocf", number(c.opcode.ocf)),
            ("name", c.opcode.name.map(JSON.string) ?? .null),
        ]
        if let d = CommandTable.description(c.opcode) {
            do {
                pairs.append(("parameters", fields(try d.decodeParameters(c.parameters), d.parameters)))
            } catch {
                pairs += [("parameters", .null), ("malformed", .string(error.description))]
            }
        } else {
            pairs.append(("parameters", .null))
        }
        pairs.append(("hex", .string(Hex.encode(c.packet))))
        return .object(pairs)
    }

    /// `{"code": "0x0e", "name": "Command Complete", "parameters": {…}, "hex": …}`; Command Complete
    /// adds `command` (the completed command's name) and `returnParameters` decoded by its return fields.
    static func event(_ e: HCIEvent) -> JSON {
        var pairs: [(String, JSON)] = [("code", .string(Hex.byte(e.code.rawValue)))]
        do {
            if let decoded = try EventTable.decode(e) {
                let d = decoded.description
                pairs.append(("name", .string(d.name)))
                if let sub = d.subevent { pairs.append(("subevent", .string(Hex.byte(sub.rawValue)))) }
                pairs.append(("parameters", fields(decoded.values, d.fields)))
                if e.code == .commandComplete {
                    if let (command, values) = decoded.returned {
                        pairs += [("command", .string(command.name)), ("returnParameters", fields(values, command.returnParameters))]
                    } else {
                        pairs += [("command", .null), ("returnParameters", .string(Hex.encode(decoded.returnParameters)))]
                    }
                }
            } else {
                pairs += [("name", .string(e.code.name)), ("parameters", .null)]
            }
        } catch {
            pairs += [("name", .string(EventTable.description(of: e)?.name ?? e.code.name)), ("parameters", .null),
                      ("malformed", .string(error.description))]
        }
        pairs.append(("hex", .string(Hex.encode(e.packet))))
        return .object(pairs)
    }

    /// One object, a key per field in order; a repeated group becomes one array per group field.
    static func fields(_ values: [HCIValue], _ fields: [HCIField]) -> JSON {
        var pairs: [(String, JSON)] = []
        for (field, value) in zip(fields, values) {
            if case let (.repeated(_, _, group), .entries(entries)) = (field.width, value) {
                for (i, member) in group.enumerated() {
                    pairs.append((member.name, .array(entries.map { i < $0.count ? self.value($0[i], member) : .null })))
                }
            } else {
                pairs.append((field.name, self.value(value, field)))
            }
        }
        return .object(pairs)
    }

    static func value(_ value: HCIValue, _ field: HCIField) -> JSON {
        switch (field.width, value) {
        case let (_, .integer(v)):
            // An opcode reads as the spec writes it (0x2006), not as 8198.
            if field.name == "Command_Opcode" { return .string(Hex.word(UInt16(truncatingIfNeeded: v))) }
            return .number(Double(field.number(v)))
        case let (.lengthPrefixed, .bytes(b)):
            return advertisingData(b)
        case let (_, .bytes(b)):
            // Addresses and masks print most significant octet first; keep that one-line text.
            if case let .run(n) = field.width, n <= 8, let line = field.valueText(value).first { return .string(line) }
            return .string(Hex.encode(b))
        case (_, .entries):
            return .null   // unrolled by `fields`
        }
    }

    /// `{"hex": …, "structures": [{"type": 1, "typeName": "Flags", "data": "06"}, …], "iBeacon": {…} | null}`,
    /// and `"altBeacon": {…}` or `"eddystone": {…}` only when the data is one.
    static func advertisingData(_ bytes: [UInt8]) -> JSON {
        var pairs: [(String, JSON)] = [("hex", .string(Hex.encode(bytes)))]
        if let structures = try? ADStructure.parse(bytes) {
            pairs.append(("structures", .array(structures.map {
                .object([("type", number($0.type.rawValue)), ("typeName", .string($0.type.name)), ("data", .string(Hex.encode($0.data)))])
            })))
        } else {
            pairs.append(("structures", .null))
        }
        pairs.append(("iBeacon", IBeacon(advertisingData: bytes).map { .object($0.jsonFields) } ?? .null))
        if let b = AltBeacon(advertisingData: bytes) { pairs.append(("altBeacon", .object(b.jsonFields))) }
        if let f = Eddystone.Frame(advertisingData: bytes) { pairs.append(("eddystone", .object(f.jsonFields))) }
        return .object(pairs)
    }

    static func number<T: BinaryInteger>(_ v: T) -> JSON { .number(Double(v)) }
}

extension IBeacon {
    /// `uuid`, `major`, `minor`, `measuredPower`: the four fields every JSON output names a beacon by.
    var jsonFields: [(String, JSON)] {
        [("uuid", .string(uuid.description)), ("major", .number(Double(major))), ("minor", .number(Double(minor))),
         ("measuredPower", .number(Double(measuredPower)))]
    }
}

extension AltBeacon {
    var jsonFields: [(String, JSON)] {
        [("id1", .string(id1.description)), ("id2", .number(Double(id2))), ("id3", .number(Double(id3))),
         ("referenceRSSI", .number(Double(referenceRSSI))), ("manufacturer", .number(Double(manufacturer))), ("reserved", .number(Double(reserved)))]
    }
}

extension Eddystone.Frame {
    /// `frame` (uid, url, tlm), then its fields; TLM's temperature in °C or null (not supported).
    var jsonFields: [(String, JSON)] {
        switch self {
        case let .uid(f):
            return [("frame", .string("uid")), ("txPower", .number(Double(f.txPower))),
                    ("namespace", .string(Hex.encode(f.namespace))), ("instance", .string(Hex.encode(f.instance)))]
        case let .url(f):
            return [("frame", .string("url")), ("txPower", .number(Double(f.txPower))), ("url", .string(f.url))]
        case let .tlm(f):
            return [("frame", .string("tlm")), ("batteryMillivolts", .number(Double(f.batteryMillivolts))),
                    ("temperatureCelsius", f.celsius.map(JSON.number) ?? .null),
                    ("advertisingPDUCount", .number(Double(f.advertisingPDUCount))), ("uptimeSeconds", .number(Double(f.uptimeTenths) / 10))]
        }
    }
}

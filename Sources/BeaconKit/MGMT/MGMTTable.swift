// SPDX-License-Identifier: Apache-2.0
/// One field of an MGMT command, return parameter list or event, as BlueZ's mgmt-api lists it. All
/// integers are little-endian. MGMT data fields are preceded by their length fields (Adv_Data_Len,
/// Scan_Rsp_Len, then Adv_Data, Scan_Rsp), which an HCI field cannot say: hence a width of its own.
public struct MGMTField: Sendable {
    public enum Width: Sendable {
        /// An unsigned little-endian integer of 1 to 4 octets.
        case octets(Int)
        /// A fixed run of octets (an address, a NUL-padded name).
        case run(Int)
        /// One octet: the length of the data field named here. Encoding writes the data's count;
        /// the value given for it is ignored.
        case lengthOf(String)
        /// Octets counted by the `lengthOf` field that names this one.
        case data
        /// One-octet entries counted by the previous field (Instance[] after Num_Instances).
        case list
        /// Everything left (Command Complete's Return_Parameters).
        case rest
    }

    public let name: String
    public let width: Width
    /// The value's text after `Name: `; nil: the default for the width.
    let format: (@Sendable (HCIValue) -> String)?

    public init(_ name: String, _ width: Width, _ format: (@Sendable (HCIValue) -> String)? = nil) {
        self.name = name
        self.width = width
        self.format = format
    }

    /// An integer field printed with `format`.
    static func integer(_ name: String, _ octets: Int, _ format: @escaping @Sendable (UInt32) -> String) -> MGMTField {
        MGMTField(name, .octets(octets)) { v in v.integer.map(format) ?? "" }
    }

    var minimumSize: Int {
        switch width {
        case let .octets(n), let .run(n): return n
        case .lengthOf: return 1
        case .data, .list, .rest: return 0
        }
    }

    public func valueText(_ value: HCIValue) -> String {
        if let format { return format(value) }
        switch (width, value) {
        case let (.octets(n), .integer(v)):
            let digits = String(v, radix: 16)
            return "0x" + String(repeating: "0", count: max(0, 2 * n - digits.count)) + digits
        case let (.list, .bytes(b)): return b.isEmpty ? "none" : b.map { "\($0)" }.joined(separator: ", ")
        case let (_, .bytes(b)): return b.isEmpty ? "none" : Hex.encode(b)
        case let (_, .integer(v)): return "\(v)"
        default: return ""
        }
    }
}

/// A field list that does not fit the bytes from the kernel or a capture. Never a trap.
public struct MGMTFieldError: Error, Equatable, Sendable, CustomStringConvertible {
    public let field: String
    public let problem: String
    public var description: String { "\(field): \(problem)" }
}

/// The encoder and decoder of MGMT field lists.
public enum MGMTFields {
    /// The octets of `values`, one per field in order; a `lengthOf` field gets its data's count.
    public static func encode(_ values: [HCIValue], _ fields: [MGMTField]) -> [UInt8] {
        var w = ByteWriter(capacity: 16)
        for (i, field) in fields.enumerated() where i < values.count {
            switch (field.width, values[i]) {
            case let (.octets(n), .integer(v)):
                for k in 0..<n { w.writeUInt8(UInt8(truncatingIfNeeded: v >> (8 * UInt32(k)))) }
            case let (.lengthOf(target), _):
                let j = fields.firstIndex { $0.name == target } ?? i
                w.writeUInt8(UInt8(truncatingIfNeeded: j < values.count ? (values[j].bytes?.count ?? 0) : 0))
            case let (.run(n), .bytes(b)):
                w.writeBytes(b.prefix(n))
                w.writeZeros(max(0, n - b.count))
            case let (.data, .bytes(b)), let (.list, .bytes(b)), let (.rest, .bytes(b)):
                w.writeBytes(b)
            default:
                break  // a value of the wrong kind: the encoder tests catch it
            }
        }
        return w.bytes
    }

    /// One value per field, or the first field the bytes do not fit; no octets may be left over.
    public static func decode(_ bytes: [UInt8], _ fields: [MGMTField]) throws(MGMTFieldError) -> [HCIValue] {
        var r = ByteReader(bytes)
        var values: [HCIValue] = []
        var lengths: [String: Int] = [:]
        for field in fields {
            func take(_ count: Int) throws(MGMTFieldError) -> [UInt8] {
                let left = r.remaining
                do { return try r.readBytes(count, field.name) } catch {
                    throw MGMTFieldError(field: field.name, problem: "needs \(count) byte(s), \(left) left")
                }
            }
            switch field.width {
            case let .octets(n):
                var v: UInt32 = 0
                for (k, b) in try take(n).enumerated() { v |= UInt32(b) << (8 * UInt32(k)) }
                values.append(.integer(v))
            case let .run(n):
                values.append(.bytes(try take(n)))
            case let .lengthOf(target):
                let n = Int(try take(1)[0])
                lengths[target] = n
                values.append(.integer(UInt32(n)))
            case .data:
                values.append(.bytes(try take(lengths[field.name] ?? 0)))
            case .list:
                values.append(.bytes(try take(Int(values.last?.integer ?? 0))))
            case .rest:
                values.append(.bytes(r.readRest()))
            }
        }
        guard r.remaining == 0 else {
            throw MGMTFieldError(field: fields.last?.name ?? "parameters", problem: "\(r.remaining) octet(s) after the last field")
        }
        return values
    }

    /// `Name: text` lines of decoded values.
    public static func describe(_ values: [HCIValue], _ fields: [MGMTField]) -> [String] {
        zip(fields, values).map { "\($0.name): \($0.valueText($1))" }
    }

    static let instance = MGMTField.integer("Instance", 1) { "\($0)" }
    static let flags = MGMTField.integer("Flags", 4) { flagsText($0) }
    static let seconds = { @Sendable (v: UInt32) -> String in v == 0 ? "default (0)" : "\(v) s" }
    static let timeoutText = { @Sendable (v: UInt32) -> String in v == 0 ? "none (0)" : "\(v) s" }

    static func flagsText(_ v: UInt32) -> String {
        let names = MGMTAdvertisingFlags(rawValue: v).names
        return "0x" + Hex.encode([UInt8(truncatingIfNeeded: v >> 24), UInt8(truncatingIfNeeded: v >> 16),
                                  UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)])
            + (names.isEmpty ? "" : " (" + names.joined(separator: ", ") + ")")
    }

    static func settingsText(_ v: UInt32) -> String {
        let names = MGMTSettings(rawValue: v).names
        return "0x" + Hex.encode([UInt8(truncatingIfNeeded: v >> 24), UInt8(truncatingIfNeeded: v >> 16),
                                  UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)])
            + (names.isEmpty ? "" : " (" + names.joined(separator: ", ") + ")")
    }

    static func interval(_ v: UInt32) -> String { HCIFields.interval(v) }

    /// Advertising data printed as AD structures (iBeacon fields decoded).
    static func advertisingData(_ name: String) -> MGMTField {
        MGMTField(name, .data) { v in
            let b = v.bytes ?? []
            guard !b.isEmpty else { return "none" }
            return "\(b.count) octets: " + Hex.encode(b)
        }
    }
}

/// One MGMT command, declared once: code, name as mgmt-api spells it, parameter fields and return
/// parameter fields (Command Complete's Return_Parameters, after the Status the event carries).
public struct MGMTCommandDescription: Sendable {
    public let opcode: MGMTOpcode
    public let name: String
    public let parameters: [MGMTField]
    public let returnParameters: [MGMTField]

    public init(_ opcode: MGMTOpcode, _ name: String, parameters: [MGMTField] = [], returns: [MGMTField] = []) {
        self.opcode = opcode
        self.name = name
        self.parameters = parameters
        self.returnParameters = returns
    }

    /// The smallest parameter block; commands with data fields take more.
    public var minimumParameterLength: Int { parameters.reduce(0) { $0 + $1.minimumSize } }
    /// True when every field has a fixed size (then the size must be exactly the minimum).
    public var isFixedSize: Bool {
        parameters.allSatisfy { if case .octets = $0.width { return true }; if case .run = $0.width { return true }; return false }
    }

    public func command(index: UInt16, _ values: [HCIValue]) -> MGMTCommand {
        MGMTCommand(opcode, index: index, MGMTFields.encode(values, parameters))
    }
}

/// The one table of MGMT commands beacon-tx sends or decodes (BlueZ doc/mgmt-api, "Commands").
/// Encoders (`MGMTCommand.addAdvertising(…)` …), `MGMTCommand(packet:)`'s size check, the dry-run
/// text, `--verbose` and return-parameter decoding all read it.
public enum MGMTCommandTable {
    public static let descriptions: [MGMTCommandDescription] = {
        typealias D = MGMTCommandDescription
        typealias F = MGMTField
        let f = MGMTFields.self
        let dataLength = { (name: String, of: String) in F(name, .lengthOf(of)) { "\($0.integer ?? 0)" } }
        let settings = F.integer("Current_Settings", 4, f.settingsText)
        let onOff = { (name: String) in F.integer(name, 1) { $0 == 0 ? "off (0x00)" : $0 == 1 ? "on (0x01)" : Hex.byte(UInt8(truncatingIfNeeded: $0)) } }
        let name = { (name: String, size: Int) in
            F(name, .run(size)) { v in String(decoding: (v.bytes ?? []).prefix { $0 != 0 }, as: UTF8.self) }
        }
        return [
            D(.readControllerInformation, "Read Controller Information", returns: [
                F("Address", .run(6)) { v in (v.bytes ?? []).reversed().map { Hex.encode([$0], uppercase: true) }.joined(separator: ":") },
                F.integer("Bluetooth_Version", 1) { "\($0)" },
                F.integer("Manufacturer", 2) { Hex.word(UInt16(truncatingIfNeeded: $0)) },
                F.integer("Supported_Settings", 4, f.settingsText),
                F.integer("Current_Settings", 4, f.settingsText),
                F("Class_Of_Device", .run(3)),
                F("Name", .run(249)) { v in String(decoding: (v.bytes ?? []).prefix { $0 != 0 }, as: UTF8.self) },
                F("Short_Name", .run(11)) { v in String(decoding: (v.bytes ?? []).prefix { $0 != 0 }, as: UTF8.self) },
            ]),
            // The settings commands whose HCI commands a capture attributes to a program (`verify`).
            D(.setPowered, "Set Powered", parameters: [onOff("Powered")], returns: [settings]),
            D(.setDiscoverable, "Set Discoverable", parameters: [onOff("Discoverable"), F.integer("Timeout", 2, f.timeoutText)], returns: [settings]),
            D(.setConnectable, "Set Connectable", parameters: [onOff("Connectable")], returns: [settings]),
            D(.setLowEnergy, "Set Low Energy", parameters: [onOff("Low_Energy")], returns: [settings]),
            D(.setLocalName, "Set Local Name", parameters: [name("Name", 249), name("Short_Name", 11)],
              returns: [name("Name", 249), name("Short_Name", 11)]),
            D(.setAdvertising, "Set Advertising", parameters: [onOff("Advertising")], returns: [settings]),
            D(.setBREDR, "Set BR/EDR", parameters: [onOff("BR/EDR")], returns: [settings]),
            D(.setAppearance, "Set Appearance", parameters: [F.integer("Appearance", 2) { Hex.word(UInt16(truncatingIfNeeded: $0)) }]),
            D(.readAdvertisingFeatures, "Read Advertising Features", returns: [
                F.integer("Supported_Flags", 4, f.flagsText),
                F.integer("Max_Adv_Data_Len", 1) { "\($0)" },
                F.integer("Max_Scan_Rsp_Len", 1) { "\($0)" },
                F.integer("Max_Instances", 1) { "\($0)" },
                F.integer("Num_Instances", 1) { "\($0)" },
                F("Instance", .list),
            ]),
            D(.addAdvertising, "Add Advertising", parameters: [
                f.instance, f.flags,
                F.integer("Duration", 2, f.seconds),
                F.integer("Timeout", 2, f.timeoutText),
                dataLength("Adv_Data_Len", "Adv_Data"),
                dataLength("Scan_Rsp_Len", "Scan_Rsp"),
                f.advertisingData("Adv_Data"),
                f.advertisingData("Scan_Rsp"),
            ], returns: [f.instance]),
            D(.removeAdvertising, "Remove Advertising", parameters: [
                F.integer("Instance", 1) { $0 == 0 ? "all (0)" : "\($0)" },
            ], returns: [f.instance]),
            D(.getAdvertisingSizeInformation, "Get Advertising Size Information", parameters: [f.instance, f.flags], returns: [
                f.instance, f.flags,
                F.integer("Max_Adv_Data_Len", 1) { "\($0)" },
                F.integer("Max_Scan_Rsp_Len", 1) { "\($0)" },
            ]),
            D(.addExtendedAdvertisingParameters, "Add Extended Advertising Parameters", parameters: [
                f.instance, f.flags,
                F.integer("Duration", 2, f.seconds),
                F.integer("Timeout", 2, f.timeoutText),
                F.integer("MinInterval", 4, f.interval),
                F.integer("MaxInterval", 4, f.interval),
                F.integer("TxPower", 1) { "\(Int8(bitPattern: UInt8(truncatingIfNeeded: $0))) dBm" },
            ], returns: [
                f.instance,
                F.integer("TxPower", 1) { "\(Int8(bitPattern: UInt8(truncatingIfNeeded: $0))) dBm" },
                F.integer("MaxAdvDataLen", 1) { "\($0)" },
                F.integer("MaxScanRspLen", 1) { "\($0)" },
            ]),
            D(.addExtendedAdvertisingData, "Add Extended Advertising Data", parameters: [
                f.instance,
                dataLength("Advertising Data Length", "Advertising Data"),
                dataLength("Scan Response Length", "Scan Response"),
                f.advertisingData("Advertising Data"),
                f.advertisingData("Scan Response"),
            ], returns: [f.instance]),
        ]
    }()

    private static let byOpcode: [MGMTOpcode: MGMTCommandDescription] = Dictionary(
        descriptions.map { ($0.opcode, $0) }, uniquingKeysWith: { a, _ in a })

    public static func description(_ opcode: MGMTOpcode) -> MGMTCommandDescription? { byOpcode[opcode] }
}

/// One MGMT event, declared once (BlueZ doc/mgmt-api, "Events").
public struct MGMTEventDescription: Sendable {
    public let code: MGMTEventCode
    public let name: String
    public let fields: [MGMTField]
}

public enum MGMTEventTable {
    public static let descriptions: [MGMTEventDescription] = {
        typealias E = MGMTEventDescription
        typealias F = MGMTField
        let opcode = F.integer("Command_Opcode", 2) { MGMTOpcode(rawValue: UInt16(truncatingIfNeeded: $0)).description }
        let status = F.integer("Status", 1) { MGMTStatus(rawValue: UInt8(truncatingIfNeeded: $0)).description }
        return [
            E(code: .commandComplete, name: "Command Complete", fields: [opcode, status, F("Return_Parameters", .rest)]),
            E(code: .commandStatus, name: "Command Status", fields: [opcode, status]),
            E(code: .controllerError, name: "Controller Error", fields: [F.integer("Error_Code", 1) { Hex.byte(UInt8(truncatingIfNeeded: $0)) }]),
            E(code: .indexAdded, name: "Index Added", fields: []),
            E(code: .indexRemoved, name: "Index Removed", fields: []),
            E(code: .newSettings, name: "New Settings", fields: [F.integer("Current_Settings", 4, MGMTFields.settingsText)]),
            E(code: .advertisingAdded, name: "Advertising Added", fields: [MGMTFields.instance]),
            E(code: .advertisingRemoved, name: "Advertising Removed", fields: [MGMTFields.instance]),
        ]
    }()

    private static let byCode: [MGMTEventCode: MGMTEventDescription] = Dictionary(
        descriptions.map { ($0.code, $0) }, uniquingKeysWith: { a, _ in a })

    public static func description(_ code: MGMTEventCode) -> MGMTEventDescription? { byCode[code] }
}

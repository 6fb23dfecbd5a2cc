// SPDX-License-Identifier: Apache-2.0
/// One value of a command or return parameter field.
public enum HCIValue: Hashable, Sendable {
    /// An unsigned little-endian integer of the field's width (a signed field holds its bit pattern).
    case integer(UInt32)
    /// A fixed run of octets as sent, or the data of a length-prefixed field.
    case bytes([UInt8])
    /// The entries of a repeated group, each one value per group field.
    case entries([[HCIValue]])

    /// An unsigned integer field's value.
    public static func int<T: FixedWidthInteger>(_ v: T) -> HCIValue { .integer(UInt32(truncatingIfNeeded: v)) }

    public var integer: UInt32? { if case let .integer(v) = self { return v } else { return nil } }
    public var bytes: [UInt8]? { if case let .bytes(b) = self { return b } else { return nil } }
}

/// One parameter field as the Core spec (Vol 4, Part E, §7) lists it: spec name, width, and how
/// beacon-tx prints its value. Text, JSON and `--check` differences all name fields by `name`;
/// fields of a repeated group are named `Name[i]`, as the spec writes its arrays.
public struct HCIField: Sendable {
    public enum Width: Sendable {
        /// An unsigned little-endian integer of 1 to 4 octets.
        case octets(Int)
        /// A fixed run of octets (an address, a mask, a bitmap).
        case run(Int)
        /// A one-octet length, then that many data octets, zero padded to `padTo` octets when set
        /// (legacy advertising data: Length + 31 octets).
        case lengthPrefixed(padTo: Int?)
        /// Repeated groups after a count field: one per unit of the previous field, or one per bit set
        /// in it; at least `atLeast` of them.
        case repeated(perBitOfPreviousField: Bool, atLeast: Int, [HCIField])
    }

    /// `Advertising_Interval_Min`, as the spec spells it.
    public let name: String
    public let width: Width
    /// A two's complement integer (dBm).
    public let signed: Bool
    /// The value's text after `Name: `, then any further lines; nil: the default for the width.
    let text: (@Sendable (HCIValue) -> [String])?

    public init(_ name: String, _ width: Width, signed: Bool = false, text: (@Sendable (HCIValue) -> [String])? = nil) {
        self.name = name
        self.width = width
        self.signed = signed
        self.text = text
    }

    /// An integer field whose value prints as one line of `format`.
    public init(_ name: String, _ width: Width, signed: Bool = false, _ format: @escaping @Sendable (UInt32) -> String) {
        self.init(name, width, signed: signed, text: { value in value.integer.map { [format($0)] } ?? [] })
    }

    /// Fixed octets this field takes, or nil when it varies.
    var fixedSize: Int? {
        switch width {
        case let .octets(n), let .run(n): return n
        case let .lengthPrefixed(padTo): return padTo.map { $0 + 1 }
        case .repeated: return nil
        }
    }

    /// The smallest size this field can take.
    var minimumSize: Int {
        switch width {
        case let .octets(n), let .run(n): return n
        case let .lengthPrefixed(padTo): return (padTo ?? 0) + 1
        case let .repeated(_, atLeast, group): return atLeast * group.reduce(0) { $0 + $1.minimumSize }
        }
    }

    /// An integer value as a signed number when the field is signed, otherwise as is.
    public func number(_ v: UInt32) -> Int {
        guard signed, case let .octets(n) = width, n >= 1, n <= 4 else { return Int(v) }
        let bits = n * 8
        let top = UInt32(1) << UInt32(bits - 1)
        return v & top == 0 ? Int(v) : Int(v) - (1 << bits)
    }

    /// `0x00a0` (the field's width in hex digits) or, signed, `-59`.
    public func integerText(_ v: UInt32) -> String {
        if signed { return "\(number(v))" }
        guard case let .octets(n) = width else { return "\(v)" }
        let digits = String(v, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 2 * n - digits.count)) + digits
    }

    /// The text of one value: the line after `Name: `, then any further lines.
    public func valueText(_ value: HCIValue) -> [String] {
        if let text { return text(value) }
        switch value {
        case let .integer(v): return [integerText(v)]
        case let .bytes(b):
            guard case .lengthPrefixed = width else { return [Hex.encode(b)] }
            return ["\(b.count) octets"] + CommandText.describeAdvertisingData(b).map { "  " + $0 }
        case .entries: return []
        }
    }

    /// The printed lines of one value: `Name: text` (`label` instead of the name when given),
    /// further lines indented.
    func lines(_ value: HCIValue, label: String? = nil) -> [String] {
        let body = valueText(value)
        guard let first = body.first else { return [] }
        return ["\(label ?? name): \(first)"] + body.dropFirst()
    }
}

/// One leaf of a decoded parameter list: a field and its value, named as the spec names it
/// (`Advertising_Handle[1]` inside a repeated group).
public struct HCIFieldValue: Sendable {
    public let name: String
    public let field: HCIField
    public let value: HCIValue

    /// The leaves of `values` decoded with `fields`, repeated groups unrolled in order.
    public static func leaves(_ values: [HCIValue], _ fields: [HCIField]) -> [HCIFieldValue] {
        var out: [HCIFieldValue] = []
        for (field, value) in zip(fields, values) {
            if case let (.repeated(_, _, group), .entries(entries)) = (field.width, value) {
                for (i, entry) in entries.enumerated() {
                    out += leaves(entry, group).map { HCIFieldValue(name: "\($0.name)[\(i)]", field: $0.field, value: $0.value) }
                }
            } else {
                out.append(HCIFieldValue(name: field.name, field: field, value: value))
            }
        }
        return out
    }
}

/// A field list that does not fit the bytes, or values that do not fit the fields.
public struct HCIFieldError: Error, Equatable, Sendable, CustomStringConvertible {
    public let field: String
    public let problem: String
    public init(field: String, problem: String) {
        self.field = field
        self.problem = problem
    }
    public var description: String { "\(field): \(problem)" }
}

/// The command families of the Core spec's mixing rule (Vol 4, Part E, §3.1.1): once a controller has
/// accepted a legacy advertising or scanning command it refuses the extended ones with Command
/// Disallowed until HCI Reset, and the other way round. Neutral commands belong to neither.
public enum CommandFamily: String, Hashable, Sendable {
    case legacy
    case extended
    case neutral

    /// The advertising family this command family locks a controller to; nil for neutral commands.
    public var advertisingFamily: AdvertisingFamily? {
        switch self {
        case .legacy: return .legacy
        case .extended: return .extended
        case .neutral: return nil
        }
    }
}

/// What a command does to the controller's advertising (Core spec Vol 4, Part E, §7.8.4–7.8.9 for the
/// legacy instance, §7.8.52–7.8.61 for extended sets, §7.3.2 for Reset). Every list of "advertising
/// commands" (the session's foreign-command filter, the controller model's placements, `verify`'s
/// replay, the hand-back's record, the fuzzer's opcodes) derives from this column of `CommandTable`.
public enum AdvertisingEffect: String, Hashable, Sendable, CaseIterable {
    /// LE Set Random Address: the device's random address, which advertising on a random own address
    /// uses and scanning and initiating use too.
    case randomAddress
    /// LE Set Advertising Set Random Address: one set's random address.
    case setRandomAddress
    /// LE Set (Extended) Advertising Parameters.
    case parameters
    /// LE Set (Extended) Advertising Data.
    case data
    /// LE Set (Extended) Scan Response Data.
    case scanResponse
    /// LE Set (Extended) Advertising Enable.
    case enable
    /// LE Remove Advertising Set, LE Clear Advertising Sets: sets cease to exist.
    case setLifecycle
    /// HCI Reset: every instance and set back to its default, the mixing rule's lock released.
    case reset

    /// Writes the advertising data or scan response data octets the command carries.
    public var writesData: Bool { self == .data || self == .scanResponse }
}

/// One HCI command, declared once: opcode, spec name, parameter fields, return parameter fields
/// (Status first), its Supported_Commands bit and what it does to advertising. Encoding, size checks, text printing and return
/// parameter decoding all derive from it.
public struct HCICommandDescription: Sendable {
    public let opcode: Opcode
    public let name: String
    public let parameters: [HCIField]
    public let returnParameters: [HCIField]
    /// Bit index in Read Local Supported Commands (octet * 8 + bit), when the spec assigns one.
    public let supportedCommandsBit: Int?
    /// Which side of the legacy/extended mixing rule the command is on (Vol 4, Part E, §3.1.1).
    public let family: CommandFamily
    /// What the command does to advertising; nil for commands that leave it alone (reads, scanning,
    /// event masks).
    public let advertising: AdvertisingEffect?

    public init(_ opcode: Opcode, _ name: String, _ family: CommandFamily = .neutral, bit: Int?, advertising: AdvertisingEffect? = nil,
                parameters: [HCIField] = [], returns: [HCIField] = [HCIFields.status]) {
        self.opcode = opcode
        self.name = name
        self.family = family
        self.advertising = advertising
        self.parameters = parameters
        self.returnParameters = returns
        supportedCommandsBit = bit
    }

    public var parameterLength: ParameterLength { Self.length(of: parameters) }
    public var returnParameterLength: ParameterLength { Self.length(of: returnParameters) }

    static func length(of fields: [HCIField]) -> ParameterLength {
        var total = 0
        for field in fields {
            guard let size = field.fixedSize else {
                return .variable(minimum: fields.reduce(0) { $0 + $1.minimumSize })
            }
            total += size
        }
        return .fixed(total)
    }

    /// The parameter octets for `values`, one per field in order.
    public func encode(_ values: [HCIValue]) -> [UInt8] {
        var w = ByteWriter(capacity: parameterLength.minimum)
        Self.encode(values, parameters, into: &w)
        return w.bytes
    }

    public func command(_ values: [HCIValue]) -> HCICommand { HCICommand(opcode, encode(values)) }

    static func encode(_ values: [HCIValue], _ fields: [HCIField], into w: inout ByteWriter) {
        for (field, value) in zip(fields, values) {
            switch (field.width, value) {
            case let (.octets(n), .integer(v)):
                for i in 0..<n { w.writeUInt8(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) }
            case let (.run, .bytes(b)):
                w.writeBytes(b)
            case let (.lengthPrefixed(padTo), .bytes(b)):
                let data = padTo.map { Array(b.prefix($0)) } ?? b
                w.writeUInt8(UInt8(truncatingIfNeeded: data.count))
                w.writeBytes(data)
                if let padTo { w.writeZeros(padTo - data.count) }
            case let (.repeated(_, _, group), .entries(entries)):
                for entry in entries { encode(entry, group, into: &w) }
            default:
                break  // a value of the wrong kind: the encoder tests catch it
            }
        }
    }

    /// The values of `parameters`, one per field, or the first field that does not fit.
    public func decodeParameters(_ bytes: [UInt8]) throws(HCIFieldError) -> [HCIValue] {
        try Self.decode(bytes, parameters)
    }

    /// The values of the Command Complete return parameters (Status first).
    public func decodeReturnParameters(_ bytes: [UInt8]) throws(HCIFieldError) -> [HCIValue] {
        try Self.decode(bytes, returnParameters)
    }

    static func decode(_ bytes: [UInt8], _ fields: [HCIField]) throws(HCIFieldError) -> [HCIValue] {
        var r = ByteReader(bytes)
        let values = try decode(&r, fields)
        guard r.remaining == 0 else {
            throw HCIFieldError(field: fields.last?.name ?? "parameters", problem: "\(r.remaining) octet(s) after the last field")
        }
        return values
    }

    static func decode(_ r: inout ByteReader, _ fields: [HCIField]) throws(HCIFieldError) -> [HCIValue] {
        var values: [HCIValue] = []
        for field in fields {
            /// `count` octets of this field, or the field that ran out of bytes.
            func take(_ count: Int) throws(HCIFieldError) -> [UInt8] {
                do { return try r.readBytes(count, field.name) } catch {
                    guard case let .truncated(_, needed, available) = error else { return [] }
                    throw HCIFieldError(field: field.name, problem: "needs \(needed) byte(s), \(available) left")
                }
            }
            switch field.width {
            case let .octets(n):
                var v: UInt32 = 0
                for (i, b) in try take(n).enumerated() { v |= UInt32(b) << (8 * UInt32(i)) }
                values.append(.integer(v))
            case let .run(n):
                values.append(.bytes(try take(n)))
            case let .lengthPrefixed(padTo):
                let length = Int(try take(1)[0])
                if let padTo {
                    guard length <= padTo else {
                        throw HCIFieldError(field: field.name, problem: "length \(length) is more than \(padTo)")
                    }
                    values.append(.bytes(Array(try take(padTo).prefix(length))))
                } else {
                    values.append(.bytes(try take(length)))
                }
            case let .repeated(perBit, atLeast, group):
                let count = values.last?.integer.map { perBit ? $0.nonzeroBitCount : Int($0) } ?? 0
                guard count >= atLeast else {
                    throw HCIFieldError(field: field.name, problem: "\(count) entries, at least \(atLeast) needed")
                }
                var entries: [[HCIValue]] = []
                for _ in 0..<count { entries.append(try decode(&r, group)) }
                values.append(.entries(entries))
            }
        }
        return values
    }

    /// The printed lines of the parameters, or one `Malformed parameters: …` line.
    public func describeParameters(_ bytes: [UInt8]) -> [String] {
        do {
            return Self.describe(try decodeParameters(bytes), parameters)
        } catch {
            return ["Malformed parameters: \(error)"]
        }
    }

    /// The printed lines of the return parameters after Status (which the event line shows).
    public func describeReturnParameters(_ bytes: [UInt8]) -> [String] {
        guard let values = try? decodeReturnParameters(bytes) else { return [] }
        return Self.describe(Array(values.dropFirst()), Array(returnParameters.dropFirst()))
    }

    static func describe(_ values: [HCIValue], _ fields: [HCIField]) -> [String] {
        HCIFieldValue.leaves(values, fields).flatMap { leaf in
            leaf.field.lines(leaf.value, label: leaf.name)
        }
    }
}

extension ParameterLength {
    var minimum: Int {
        switch self {
        case let .fixed(n): return n
        case let .variable(minimum): return minimum
        }
    }
}

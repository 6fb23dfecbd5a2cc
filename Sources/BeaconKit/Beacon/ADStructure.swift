// SPDX-License-Identifier: Apache-2.0
/// AD type (Bluetooth Assigned Numbers, "Common Data Types"). Open struct: unknown types stay representable.
public struct ADType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let flags = ADType(rawValue: 0x01)
    public static let incompleteList16BitServiceUUIDs = ADType(rawValue: 0x02)
    public static let completeList16BitServiceUUIDs = ADType(rawValue: 0x03)
    public static let shortenedLocalName = ADType(rawValue: 0x08)
    public static let completeLocalName = ADType(rawValue: 0x09)
    public static let txPowerLevel = ADType(rawValue: 0x0A)
    public static let serviceData16BitUUID = ADType(rawValue: 0x16)
    public static let manufacturerSpecificData = ADType(rawValue: 0xFF)

    static let names: [UInt8: String] = [
        0x01: "Flags", 0x02: "Incomplete List of 16-bit Service UUIDs", 0x03: "Complete List of 16-bit Service UUIDs",
        0x08: "Shortened Local Name", 0x09: "Complete Local Name", 0x0A: "Tx Power Level",
        0x16: "Service Data - 16-bit UUID", 0xFF: "Manufacturer Specific Data",
    ]

    /// The assigned-numbers name, e.g. "Manufacturer Specific Data".
    public var name: String { Self.names[rawValue] ?? "Unknown" }

    public var description: String { "\(name) (\(Hex.byte(rawValue)))" }
}

/// One AD structure (Core spec Vol 3, Part C, §11): length (type + data), type, data.
public struct ADStructure: Hashable, Sendable {
    public var type: ADType
    public var data: [UInt8]

    public init(type: ADType, data: [UInt8]) {
        self.type = type
        self.data = data
    }

    public var encoded: [UInt8] { [UInt8(truncatingIfNeeded: data.count + 1), type.rawValue] + data }

    /// Splits advertising or scan response data into AD structures (Core spec Vol 3, Part C, §11).
    /// A zero length octet ends the significant part; what follows is the non-significant part,
    /// which the spec fills with zero octets, so a non-zero octet there throws (it would be data
    /// silently ignored). A length past the end throws.
    public static func parse(_ bytes: [UInt8]) throws(ADParseError) -> [ADStructure] {
        var out: [ADStructure] = []
        var i = 0
        while i < bytes.count {
            let length = Int(bytes[i])
            if length == 0 {
                if let junk = bytes[i...].firstIndex(where: { $0 != 0 }) {
                    throw .nonZeroPadding(end: i, offset: junk, value: bytes[junk])
                }
                break
            }
            guard i + 1 + length <= bytes.count else {
                throw .lengthPastEnd(offset: i, length: length, available: bytes.count - i - 1)
            }
            out.append(ADStructure(type: ADType(rawValue: bytes[i + 1]), data: Array(bytes[(i + 2)..<(i + 1 + length)])))
            i += 1 + length
        }
        return out
    }
}

public enum ADParseError: Error, Equatable, Sendable, CustomStringConvertible {
    case lengthPastEnd(offset: Int, length: Int, available: Int)
    /// A zero length at `end` ended the significant part, but `offset` holds a non-zero `value`.
    case nonZeroPadding(end: Int, offset: Int, value: UInt8)

    public var description: String {
        switch self {
        case let .lengthPastEnd(offset, length, available):
            return "AD structure at offset \(offset) claims \(length) byte(s), only \(available) left"
        case let .nonZeroPadding(end, offset, value):
            return "a zero length at offset \(end) ends the significant data, but offset \(offset) holds \(Hex.byte(value)) (padding must be zero)"
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
/// An HCI command opcode (Core spec Vol 4, Part E, §5.4.1): OGF in the upper 6 bits, OCF in the lower 10.
/// Open struct: an opcode the table does not know is still representable.
public struct Opcode: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public init(ogf: UInt8, ocf: UInt16) {
        rawValue = UInt16(ogf & 0x3f) << 10 | (ocf & 0x03ff)
    }

    /// OpCode Group Field: 0x03 Controller & Baseband, 0x04 Informational, 0x08 LE Controller.
    public var ogf: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 10) }
    /// OpCode Command Field.
    public var ocf: UInt16 { rawValue & 0x03ff }

    /// The spec name from the command table, or nil for an unknown opcode.
    public var name: String? { CommandTable.entry(self)?.name }

    /// `(0x08|0x0008)` as btmon prints OGF and OCF.
    public var ogfOcfText: String {
        "(" + Hex.byte(ogf) + "|" + Hex.word(ocf) + ")"
    }

    /// `LE Set Advertising Data (0x2008)`, or `Unknown (0xfc01)`.
    public var description: String { "\(name ?? "Unknown") (\(Hex.word(rawValue)))" }

    public static func < (a: Opcode, b: Opcode) -> Bool { a.rawValue < b.rawValue }

    // Controller & Baseband (OGF 0x03)
    public static let setEventMask = Opcode(ogf: 0x03, ocf: 0x0001)
    public static let reset = Opcode(ogf: 0x03, ocf: 0x0003)
    // Informational (OGF 0x04)
    public static let readLocalVersionInformation = Opcode(ogf: 0x04, ocf: 0x0001)
    public static let readLocalSupportedCommands = Opcode(ogf: 0x04, ocf: 0x0002)
    public static let readBDADDR = Opcode(ogf: 0x04, ocf: 0x0009)
    // LE Controller (OGF 0x08)
    public static let leSetEventMask = Opcode(ogf: 0x08, ocf: 0x0001)
    public static let leReadLocalSupportedFeatures = Opcode(ogf: 0x08, ocf: 0x0003)
    public static let leSetRandomAddress = Opcode(ogf: 0x08, ocf: 0x0005)
    public static let leSetAdvertisingParameters = Opcode(ogf: 0x08, ocf: 0x0006)
    public static let leReadAdvertisingPhysicalChannelTxPower = Opcode(ogf: 0x08, ocf: 0x0007)
    public static let leSetAdvertisingData = Opcode(ogf: 0x08, ocf: 0x0008)
    public static let leSetScanResponseData = Opcode(ogf: 0x08, ocf: 0x0009)
    public static let leSetAdvertisingEnable = Opcode(ogf: 0x08, ocf: 0x000a)
    public static let leSetScanParameters = Opcode(ogf: 0x08, ocf: 0x000b)
    public static let leSetScanEnable = Opcode(ogf: 0x08, ocf: 0x000c)
    public static let leSetAdvertisingSetRandomAddress = Opcode(ogf: 0x08, ocf: 0x0035)
    public static let leSetExtendedAdvertisingParameters = Opcode(ogf: 0x08, ocf: 0x0036)
    public static let leSetExtendedAdvertisingData = Opcode(ogf: 0x08, ocf: 0x0037)
    public static let leSetExtendedScanResponseData = Opcode(ogf: 0x08, ocf: 0x0038)
    public static let leSetExtendedAdvertisingEnable = Opcode(ogf: 0x08, ocf: 0x0039)
    public static let leReadMaximumAdvertisingDataLength = Opcode(ogf: 0x08, ocf: 0x003a)
    public static let leReadNumberOfSupportedAdvertisingSets = Opcode(ogf: 0x08, ocf: 0x003b)
    public static let leRemoveAdvertisingSet = Opcode(ogf: 0x08, ocf: 0x003c)
    public static let leClearAdvertisingSets = Opcode(ogf: 0x08, ocf: 0x003d)
    public static let leSetExtendedScanParameters = Opcode(ogf: 0x08, ocf: 0x0041)
    public static let leSetExtendedScanEnable = Opcode(ogf: 0x08, ocf: 0x0042)
}

/// Size of a parameter block: fixed, or variable with a minimum.
public enum ParameterLength: Hashable, Sendable {
    case fixed(Int)
    case variable(minimum: Int)

    public func accepts(_ count: Int) -> Bool {
        switch self {
        case let .fixed(n): return count == n
        case let .variable(minimum): return count >= minimum
        }
    }

    public var text: String {
        switch self {
        case let .fixed(n): return "\(n)"
        case let .variable(minimum): return "at least \(minimum)"
        }
    }
}

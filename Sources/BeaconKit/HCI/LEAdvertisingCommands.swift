// SPDX-License-Identifier: Apache-2.0
/// Legacy advertising type (LE Set Advertising Parameters, Vol 4, Part E, §7.8.5, Advertising_Type).
public struct AdvertisingType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let advInd = AdvertisingType(rawValue: 0x00)
    public static let advDirectIndHighDuty = AdvertisingType(rawValue: 0x01)
    public static let advScanInd = AdvertisingType(rawValue: 0x02)
    public static let advNonconnInd = AdvertisingType(rawValue: 0x03)
    public static let advDirectIndLowDuty = AdvertisingType(rawValue: 0x04)

    public var description: String {
        switch rawValue {
        case 0x00: return "Connectable undirected - ADV_IND (0x00)"
        case 0x01: return "Connectable directed - ADV_DIRECT_IND high duty (0x01)"
        case 0x02: return "Scannable undirected - ADV_SCAN_IND (0x02)"
        case 0x03: return "Non connectable undirected - ADV_NONCONN_IND (0x03)"
        case 0x04: return "Connectable directed - ADV_DIRECT_IND low duty (0x04)"
        default: return "Reserved (\(Hex.byte(rawValue)))"
        }
    }
}

/// LE advertising channel map bits: 37, 38, 39.
public let allAdvertisingChannels: UInt8 = 0x07

/// Legacy advertising commands (Core spec Vol 4, Part E, §7.8.4–§7.8.9).
extension HCICommand {
    /// LE Set Advertising Parameters (§7.8.5): 15 bytes. Intervals in 0.625 ms units (0x0020–0x4000);
    /// own and peer address type public, no peer, `channelMap`, filter policy "process all".
    public static func leSetAdvertisingParameters(
        intervalMin: UInt16, intervalMax: UInt16, type: AdvertisingType,
        ownAddressType: UInt8 = 0x00, channelMap: UInt8 = allAdvertisingChannels, filterPolicy: UInt8 = 0x00
    ) -> HCICommand {
        described(.leSetAdvertisingParameters, [
            .int(intervalMin), .int(intervalMax), .int(type.rawValue), .int(ownAddressType),
            .int(0x00),                    // Peer_Address_Type: public
            .bytes([0, 0, 0, 0, 0, 0]),    // Peer_Address: none (undirected)
            .int(channelMap), .int(filterPolicy),
        ])
    }

    /// LE Set Advertising Data (§7.8.7): length, then 31 bytes zero padded (always 32 bytes).
    /// Data longer than 31 bytes is cut; callers validate the length first.
    public static func leSetAdvertisingData(_ data: [UInt8]) -> HCICommand {
        described(.leSetAdvertisingData, [.bytes(data)])
    }

    /// LE Set Scan Response Data (§7.8.8): same shape as advertising data.
    public static func leSetScanResponseData(_ data: [UInt8]) -> HCICommand {
        described(.leSetScanResponseData, [.bytes(data)])
    }

    /// LE Set Advertising Enable (§7.8.9): 0x01 on, 0x00 off.
    public static func leSetAdvertisingEnable(_ enable: Bool) -> HCICommand {
        described(.leSetAdvertisingEnable, [.int(enable ? 0x01 : 0x00)])
    }

    /// LE Set Random Address (§7.8.4): the address in display order `C0:11:22:33:44:55` is sent reversed.
    public static func leSetRandomAddress(_ address: [UInt8]) -> HCICommand {
        described(.leSetRandomAddress, [.bytes(Array(address.prefix(6).reversed()))])
    }

    /// LE Read Advertising Physical Channel Tx Power (§7.8.6), no parameters.
    public static let leReadAdvertisingPhysicalChannelTxPower = HCICommand(.leReadAdvertisingPhysicalChannelTxPower)

    /// Maximum legacy advertising data length.
    public static let legacyAdvertisingDataMaximum = 31

    /// The command `opcode` with `values`, one per field, encoded by its description in `CommandTable`.
    static func described(_ opcode: Opcode, _ values: [HCIValue]) -> HCICommand {
        CommandTable.description(opcode)?.command(values) ?? HCICommand(opcode)
    }
}

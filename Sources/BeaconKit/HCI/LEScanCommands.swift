// SPDX-License-Identifier: Apache-2.0
/// LE_Scan_Type / Scan_Type (LE Set Scan Parameters, Core spec Vol 4, Part E, §7.8.10; LE Set Extended
/// Scan Parameters, §7.8.64). Open struct: a reserved value stays representable.
public struct LEScanType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Passive scanning: no SCAN_REQ is sent. Enough for beacons, which are non-scannable.
    public static let passive = LEScanType(rawValue: 0x00)
    /// Active scanning: SCAN_REQ PDUs may be sent and scan responses are reported.
    public static let active = LEScanType(rawValue: 0x01)

    /// `Passive (0x00)`, as btmon prints it.
    public var description: String {
        switch rawValue {
        case 0x00: return "Passive (0x00)"
        case 0x01: return "Active (0x01)"
        default: return "Reserved (\(Hex.byte(rawValue)))"
        }
    }
}

/// Scanning_Filter_Policy (Core spec Vol 4, Part E, §7.8.10 and §7.8.64). Open struct.
public struct ScanningFilterPolicy: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Basic unfiltered: accept all advertising PDUs (directed ones only when addressed to us).
    public static let acceptAll = ScanningFilterPolicy(rawValue: 0x00)
    /// Basic filtered: only advertisers in the Filter Accept List.
    public static let filterAcceptList = ScanningFilterPolicy(rawValue: 0x01)
    /// Extended unfiltered: as 0x00, plus directed PDUs to a resolvable private address.
    public static let extendedAcceptAll = ScanningFilterPolicy(rawValue: 0x02)
    /// Extended filtered: as 0x01, plus directed PDUs to a resolvable private address.
    public static let extendedFilterAcceptList = ScanningFilterPolicy(rawValue: 0x03)

    public var description: String {
        switch rawValue {
        case 0x00: return "Accept all advertisement (0x00)"
        case 0x01: return "Ignore not in accept list (0x01)"
        case 0x02: return "Accept all advertisement, inc. directed unresolved RPA (0x02)"
        case 0x03: return "Ignore not in accept list, exc. directed unresolved RPA (0x03)"
        default: return "Reserved (\(Hex.byte(rawValue)))"
        }
    }
}

/// One PHY entry of LE Set Extended Scan Parameters (Core spec Vol 4, Part E, §7.8.64): Scan_Type,
/// Scan_Interval and Scan_Window (u16 LE, units of 0.625 ms, 0x0004–0xFFFF, window ≤ interval).
public struct ScanPHYParameters: Hashable, Sendable {
    public var type: LEScanType
    /// Units of 0.625 ms.
    public var interval: UInt16
    /// Units of 0.625 ms.
    public var window: UInt16

    public init(type: LEScanType, interval: UInt16, window: UInt16) {
        self.type = type
        self.interval = interval
        self.window = window
    }
}

/// Scan commands (Core spec Vol 4, Part E, §7.8.10, §7.8.11, §7.8.64, §7.8.65). Encoders only write
/// bytes; range checks live in `ScanPlan` so that a test can still build an out-of-range packet.
extension HCICommand {
    /// Scanning_PHYs bit of LE 1M (bit 0) in LE Set Extended Scan Parameters.
    public static let scanningPHYLE1M: UInt8 = 0x01
    /// Scanning_PHYs bit of LE Coded (bit 2) in LE Set Extended Scan Parameters.
    public static let scanningPHYLECoded: UInt8 = 0x04

    /// LE Set Scan Parameters (§7.8.10): 7 bytes — LE_Scan_Type, LE_Scan_Interval (u16 LE),
    /// LE_Scan_Window (u16 LE), Own_Address_Type, Scanning_Filter_Policy. Interval and window in
    /// units of 0.625 ms (0x0004–0x4000, window ≤ interval).
    public static func leSetScanParameters(
        type: LEScanType, interval: UInt16, window: UInt16,
        ownAddressType: UInt8 = 0x00, filterPolicy: ScanningFilterPolicy = .acceptAll
    ) -> HCICommand {
        described(.leSetScanParameters, [
            .int(type.rawValue), .int(interval), .int(window), .int(ownAddressType), .int(filterPolicy.rawValue),
        ])
    }

    /// LE Set Scan Enable (§7.8.11): 2 bytes — LE_Scan_Enable, Filter_Duplicates.
    /// Keep `filterDuplicates` false to go on receiving every advertisement (RSSI updates).
    public static func leSetScanEnable(_ enable: Bool, filterDuplicates: Bool = false) -> HCICommand {
        described(.leSetScanEnable, [.int(enable ? 0x01 : 0x00), .int(filterDuplicates ? 0x01 : 0x00)])
    }

    /// LE Set Extended Scan Parameters (§7.8.64): Own_Address_Type, Scanning_Filter_Policy,
    /// Scanning_PHYs, then one Scan_Type / Scan_Interval (u16 LE) / Scan_Window (u16 LE) entry per
    /// PHY bit set, in bit order (LE 1M, then LE Coded): 3 + 5 × PHYs bytes.
    public static func leSetExtendedScanParameters(
        ownAddressType: UInt8 = 0x00, filterPolicy: ScanningFilterPolicy = .acceptAll,
        le1M: ScanPHYParameters?, leCoded: ScanPHYParameters? = nil
    ) -> HCICommand {
        let entries = [le1M, leCoded].compactMap { $0 }
        return described(.leSetExtendedScanParameters, [
            .int(ownAddressType), .int(filterPolicy.rawValue),
            .int((le1M == nil ? 0 : scanningPHYLE1M) | (leCoded == nil ? 0 : scanningPHYLECoded)),
            .entries(entries.map { [.int($0.type.rawValue), .int($0.interval), .int($0.window)] }),
        ])
    }

    /// LE Set Extended Scan Enable (§7.8.65): 6 bytes — Enable, Filter_Duplicates, Duration (u16 LE,
    /// units of 10 ms, 0 = until disabled), Period (u16 LE, units of 1.28 s, 0 = no periodic scanning).
    public static func leSetExtendedScanEnable(
        _ enable: Bool, filterDuplicates: Bool = false, duration: UInt16 = 0, period: UInt16 = 0
    ) -> HCICommand {
        described(.leSetExtendedScanEnable, [
            .int(enable ? 0x01 : 0x00), .int(filterDuplicates ? 0x01 : 0x00), .int(duration), .int(period),
        ])
    }
}

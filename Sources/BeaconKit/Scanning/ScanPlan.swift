// SPDX-License-Identifier: Apache-2.0
/// Which HCI scanning command family drives the controller: legacy (LE Set Scan Parameters / Enable,
/// Core spec Vol 4, Part E, §7.8.10–§7.8.11) or extended (§7.8.64–§7.8.65). It is the same family as
/// for advertising: a controller refuses to mix legacy and extended commands of either kind (§3.1.1).
public typealias ScanFamily = AdvertisingFamily

/// How to scan. Interval and window are in units of 0.625 ms, as on the wire.
public struct ScanOptions: Hashable, Sendable {
    /// Active scanning sends SCAN_REQ and also reports scan responses; beacons need only passive.
    public var active: Bool
    /// Units of 0.625 ms; legacy 0x0004–0x4000 (2.5 ms–10.24 s), extended 0x0004–0xFFFF.
    public var interval: UInt16
    /// Units of 0.625 ms; 0x0004 up to `interval`. Equal to `interval` = scan continuously.
    public var window: UInt16
    /// Controller duplicate filtering. Off by default: with it on, a controller reports each beacon
    /// once and the RSSI never updates, which would freeze ranging.
    public var filterDuplicates: Bool
    public var ownAddressType: UInt8
    public var filterPolicy: ScanningFilterPolicy
    /// Extended family only: also scan the LE Coded PHY (long range) with the same type, interval, window.
    public var scanCodedPHY: Bool

    /// hcitool `lescan`'s 0x0010 (10 ms): window = interval, a 100 % duty cycle, so no advertisement
    /// is missed between windows.
    public static let defaultInterval: UInt16 = 0x0010
    public static let defaultWindow: UInt16 = 0x0010

    public init(active: Bool = false, interval: UInt16 = ScanOptions.defaultInterval, window: UInt16 = ScanOptions.defaultWindow,
                filterDuplicates: Bool = false, ownAddressType: UInt8 = 0x00, filterPolicy: ScanningFilterPolicy = .acceptAll,
                scanCodedPHY: Bool = false) {
        self.active = active
        self.interval = interval
        self.window = window
        self.filterDuplicates = filterDuplicates
        self.ownAddressType = ownAddressType
        self.filterPolicy = filterPolicy
        self.scanCodedPHY = scanCodedPHY
    }

    /// Milliseconds rounded to the nearest 0.625 ms unit; nil when not finite or outside 0…65535 units.
    /// Range checks against the family happen in `ScanPlan`.
    public static func units(milliseconds: Double) -> UInt16? {
        guard milliseconds.isFinite, milliseconds >= 0 else { return nil }
        let units = (milliseconds / 0.625).rounded()
        guard units <= Double(UInt16.max) else { return nil }
        return UInt16(units)
    }

    /// Lowest interval and window, both families: 0x0004 (2.5 ms).
    public static let minimumUnits: UInt16 = 0x0004

    /// Highest interval and window of the family: 0x4000 (10.24 s) legacy, 0xFFFF (40.959375 s) extended.
    public static func maximumUnits(_ family: ScanFamily) -> UInt16 {
        family == .legacy ? 0x4000 : 0xFFFF
    }

    var scanType: LEScanType { active ? .active : .passive }
}

/// Scan options a controller would refuse, caught before a byte is sent.
public enum ScanOptionsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `field` is "scan interval" or "scan window"; the value and bounds are in 0.625 ms units.
    case outOfRange(field: String, units: UInt16, minimum: UInt16, maximum: UInt16)
    case windowLongerThanInterval(window: UInt16, interval: UInt16)

    public var description: String {
        switch self {
        case let .outOfRange(field, units, minimum, maximum):
            return "\(field) \(Self.text(units)) is out of range: \(Self.text(minimum)) to \(Self.text(maximum))"
        case let .windowLongerThanInterval(window, interval):
            return "scan window \(Self.text(window)) must not be longer than the scan interval \(Self.text(interval))"
        }
    }

    /// `10.000 ms (0x0010)`.
    static func text(_ units: UInt16) -> String {
        "\(Milliseconds.format(Double(units) * 0.625)) ms (\(Hex.word(units)))"
    }
}

/// The exact ordered commands to start and to stop scanning: data, not behaviour. The dry run prints
/// them; the live path sends them with `HCICommandRunner.run(_:)`.
public struct ScanPlan: Hashable, Sendable {
    public let family: ScanFamily
    public let options: ScanOptions
    /// Disable (parameters cannot change while scanning), parameters, enable.
    public let start: [PlannedCommand]
    /// Disable.
    public let stop: [PlannedCommand]

    public init(family: ScanFamily, options: ScanOptions = ScanOptions()) throws(ScanOptionsError) {
        let maximum = ScanOptions.maximumUnits(family)
        for (field, units) in [("scan interval", options.interval), ("scan window", options.window)]
        where units < ScanOptions.minimumUnits || units > maximum {
            throw .outOfRange(field: field, units: units, minimum: ScanOptions.minimumUnits, maximum: maximum)
        }
        guard options.window <= options.interval else {
            throw .windowLongerThanInterval(window: options.window, interval: options.interval)
        }
        self.family = family
        self.options = options
        let stop = Self.stopCommands(family: family)
        switch family {
        case .legacy:
            start = stop + [
                PlannedCommand(.leSetScanParameters(
                    type: options.scanType, interval: options.interval, window: options.window,
                    ownAddressType: options.ownAddressType, filterPolicy: options.filterPolicy)),
                PlannedCommand(.leSetScanEnable(true, filterDuplicates: options.filterDuplicates)),
            ]
        case .extended:
            let phy = ScanPHYParameters(type: options.scanType, interval: options.interval, window: options.window)
            start = stop + [
                PlannedCommand(.leSetExtendedScanParameters(
                    ownAddressType: options.ownAddressType, filterPolicy: options.filterPolicy,
                    le1M: phy, leCoded: options.scanCodedPHY ? phy : nil)),
                PlannedCommand(.leSetExtendedScanEnable(true, filterDuplicates: options.filterDuplicates)),
            ]
        }
        self.stop = stop
    }

    /// Disabling a scan that is not running is harmless; controllers before Core 5.0 may answer it with
    /// Command Disallowed, which therefore counts as success.
    public static func stopCommands(family: ScanFamily) -> [PlannedCommand] {
        switch family {
        case .legacy:
            return [PlannedCommand(.leSetScanEnable(false), tolerating: [.commandDisallowed])]
        case .extended:
            return [PlannedCommand(.leSetExtendedScanEnable(false), tolerating: [.commandDisallowed])]
        }
    }
}

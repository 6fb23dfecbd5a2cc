// SPDX-License-Identifier: Apache-2.0
/// A Bluetooth Management command code (BlueZ doc/mgmt-api, "Commands"). Open struct: a code the
/// table does not know is still representable.
public struct MGMTOpcode: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let readControllerInformation = MGMTOpcode(rawValue: 0x0004)
    public static let setPowered = MGMTOpcode(rawValue: 0x0005)
    public static let setDiscoverable = MGMTOpcode(rawValue: 0x0006)
    public static let setConnectable = MGMTOpcode(rawValue: 0x0007)
    public static let setLowEnergy = MGMTOpcode(rawValue: 0x000d)
    public static let setLocalName = MGMTOpcode(rawValue: 0x000f)
    public static let setAdvertising = MGMTOpcode(rawValue: 0x0029)
    public static let setBREDR = MGMTOpcode(rawValue: 0x002a)
    public static let setAppearance = MGMTOpcode(rawValue: 0x0043)
    public static let readAdvertisingFeatures = MGMTOpcode(rawValue: 0x003d)
    public static let addAdvertising = MGMTOpcode(rawValue: 0x003e)
    public static let removeAdvertising = MGMTOpcode(rawValue: 0x003f)
    public static let getAdvertisingSizeInformation = MGMTOpcode(rawValue: 0x0040)
    public static let addExtendedAdvertisingParameters = MGMTOpcode(rawValue: 0x0054)
    public static let addExtendedAdvertisingData = MGMTOpcode(rawValue: 0x0055)

    /// The name from the MGMT command table, or nil for an unknown code.
    public var name: String? { MGMTCommandTable.description(self)?.name }

    /// `Add Advertising (0x003e)`, or `Unknown (0x00ff)`.
    public var description: String { "\(name ?? "Unknown") (\(Hex.word(rawValue)))" }

    public static func < (a: MGMTOpcode, b: MGMTOpcode) -> Bool { a.rawValue < b.rawValue }
}

/// A Bluetooth Management event code (BlueZ doc/mgmt-api, "Events"). Open struct.
public struct MGMTEventCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let commandComplete = MGMTEventCode(rawValue: 0x0001)
    public static let commandStatus = MGMTEventCode(rawValue: 0x0002)
    public static let controllerError = MGMTEventCode(rawValue: 0x0003)
    public static let indexAdded = MGMTEventCode(rawValue: 0x0004)
    public static let indexRemoved = MGMTEventCode(rawValue: 0x0005)
    public static let newSettings = MGMTEventCode(rawValue: 0x0006)
    public static let advertisingAdded = MGMTEventCode(rawValue: 0x0023)
    public static let advertisingRemoved = MGMTEventCode(rawValue: 0x0024)

    public var name: String? { MGMTEventTable.description(self)?.name }

    /// `Advertising Removed (0x0024)`.
    public var description: String { "\(name ?? "Unknown") (\(Hex.word(rawValue)))" }
}

/// A Bluetooth Management status (BlueZ doc/mgmt-api, "Error Codes"); not the HCI error codes.
public struct MGMTStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let success = MGMTStatus(rawValue: 0x00)
    public static let unknownCommand = MGMTStatus(rawValue: 0x01)
    public static let failed = MGMTStatus(rawValue: 0x03)
    public static let busy = MGMTStatus(rawValue: 0x0a)
    public static let rejected = MGMTStatus(rawValue: 0x0b)
    public static let notSupported = MGMTStatus(rawValue: 0x0c)
    public static let invalidParameters = MGMTStatus(rawValue: 0x0d)
    public static let notPowered = MGMTStatus(rawValue: 0x0f)
    public static let invalidIndex = MGMTStatus(rawValue: 0x11)
    public static let rfkilled = MGMTStatus(rawValue: 0x12)
    public static let permissionDenied = MGMTStatus(rawValue: 0x14)

    /// "Invalid Parameters".
    public var name: String { Int(rawValue) < Self.names.count ? Self.names[Int(rawValue)] : "Unknown" }

    /// "Invalid Parameters (0x0d)".
    public var description: String { "\(name) (\(Hex.byte(rawValue)))" }

    /// Names 0x00–0x14, indexed by code, as mgmt-api spells them.
    static let names: [String] = [
        "Success", "Unknown Command", "Not Connected", "Failed", "Connect Failed",
        "Authentication Failed", "Not Paired", "No Resources", "Timeout", "Already Connected",
        "Busy", "Rejected", "Not Supported", "Invalid Parameters", "Disconnected", "Not Powered",
        "Cancelled", "Invalid Index", "RFKilled", "Already Paired", "Permission Denied",
    ]
}

/// The Flags of Add Advertising and Add Extended Advertising Parameters (and Supported_Flags of
/// Read Advertising Features), as mgmt-api lists their bits.
public struct MGMTAdvertisingFlags: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let switchIntoConnectableMode = MGMTAdvertisingFlags(rawValue: 1 << 0)
    public static let advertiseAsDiscoverable = MGMTAdvertisingFlags(rawValue: 1 << 1)
    public static let advertiseAsLimitedDiscoverable = MGMTAdvertisingFlags(rawValue: 1 << 2)
    public static let addFlagsField = MGMTAdvertisingFlags(rawValue: 1 << 3)
    public static let addTXPowerField = MGMTAdvertisingFlags(rawValue: 1 << 4)
    public static let addAppearanceField = MGMTAdvertisingFlags(rawValue: 1 << 5)
    public static let addLocalName = MGMTAdvertisingFlags(rawValue: 1 << 6)
    public static let secondaryLE1M = MGMTAdvertisingFlags(rawValue: 1 << 7)
    public static let secondaryLE2M = MGMTAdvertisingFlags(rawValue: 1 << 8)
    public static let secondaryLECoded = MGMTAdvertisingFlags(rawValue: 1 << 9)
    public static let canSetTXPower = MGMTAdvertisingFlags(rawValue: 1 << 10)
    public static let hardwareOffload = MGMTAdvertisingFlags(rawValue: 1 << 11)
    public static let durationParameter = MGMTAdvertisingFlags(rawValue: 1 << 12)
    public static let timeoutParameter = MGMTAdvertisingFlags(rawValue: 1 << 13)
    public static let intervalParameters = MGMTAdvertisingFlags(rawValue: 1 << 14)
    public static let txPowerParameter = MGMTAdvertisingFlags(rawValue: 1 << 15)
    public static let scanResponse = MGMTAdvertisingFlags(rawValue: 1 << 16)

    /// The bit names, lowest first.
    static let names: [String] = [
        "Switch into Connectable mode", "Advertise as Discoverable", "Advertise as Limited Discoverable",
        "Add Flags field to Adv_Data", "Add TX Power field to Adv_Data", "Add Appearance field to Scan_Rsp",
        "Add Local Name in Scan_Rsp", "Secondary Channel with LE 1M", "Secondary Channel with LE 2M",
        "Secondary Channel with LE Coded", "Indicate tx power can be specified",
        "Indicate HW supports the advertising offload", "The Duration parameter should be used",
        "The Timeout parameter should be used", "The Interval parameters should be used",
        "The Tx Power parameter should be used", "The advertisement will contain a scan response",
    ]

    /// The names of the bits set; unnamed bits as `bit N`.
    public var names: [String] {
        (0..<32).filter { rawValue & (UInt32(1) << UInt32($0)) != 0 }
            .map { $0 < Self.names.count ? Self.names[$0] : "bit \($0)" }
    }
}

/// Current_Settings / Supported_Settings of Read Controller Information and New Settings.
public struct MGMTSettings: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let powered = MGMTSettings(rawValue: 1 << 0)
    public static let connectable = MGMTSettings(rawValue: 1 << 1)
    public static let discoverable = MGMTSettings(rawValue: 1 << 3)
    public static let basicRateEnhancedDataRate = MGMTSettings(rawValue: 1 << 7)
    public static let lowEnergy = MGMTSettings(rawValue: 1 << 9)
    public static let advertising = MGMTSettings(rawValue: 1 << 10)

    static let names: [String] = [
        "Powered", "Connectable", "Fast Connectable", "Discoverable", "Bondable",
        "Link Level Security", "Secure Simple Pairing", "Basic Rate/Enhanced Data Rate", "High Speed",
        "Low Energy", "Advertising", "Secure Connections", "Debug Keys", "Privacy",
        "Controller Configuration", "Static Address", "PHY Configuration", "Wideband Speech",
        "Connected Isochronous Stream - Central", "Connected Isochronous Stream - Peripheral",
        "Isochronous Broadcaster", "Synchronized Receiver", "LL Privacy", "PAST Sender", "PAST Receiver",
        "Shorter Connection Interval",
    ]

    public var names: [String] {
        (0..<32).filter { rawValue & (UInt32(1) << UInt32($0)) != 0 }
            .map { $0 < Self.names.count ? Self.names[$0] : "bit \($0)" }
    }
}

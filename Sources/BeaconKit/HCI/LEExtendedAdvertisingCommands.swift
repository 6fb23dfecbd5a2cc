// SPDX-License-Identifier: Apache-2.0
/// Advertising_Event_Properties of LE Set Extended Advertising Parameters (Vol 4, Part E, §7.8.53).
public struct AdvertisingEventProperties: OptionSet, Hashable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let connectable = AdvertisingEventProperties(rawValue: 1 << 0)
    public static let scannable = AdvertisingEventProperties(rawValue: 1 << 1)
    public static let directed = AdvertisingEventProperties(rawValue: 1 << 2)
    public static let highDutyCycleDirected = AdvertisingEventProperties(rawValue: 1 << 3)
    public static let useLegacyPDUs = AdvertisingEventProperties(rawValue: 1 << 4)
    public static let anonymous = AdvertisingEventProperties(rawValue: 1 << 5)
    public static let includeTxPower = AdvertisingEventProperties(rawValue: 1 << 6)

    /// Legacy ADV_NONCONN_IND: 0x0010.
    public static let legacyNonconnectable: AdvertisingEventProperties = [.useLegacyPDUs]
    /// Legacy ADV_IND: 0x0013.
    public static let legacyConnectable: AdvertisingEventProperties = [.useLegacyPDUs, .connectable, .scannable]
}

/// One set in LE Set Extended Advertising Enable: handle, duration (10 ms units, 0 = none), max events.
public struct AdvertisingSetEnable: Hashable, Sendable {
    public var handle: UInt8
    public var duration: UInt16
    public var maxExtendedAdvertisingEvents: UInt8

    public init(handle: UInt8, duration: UInt16 = 0, maxExtendedAdvertisingEvents: UInt8 = 0) {
        self.handle = handle
        self.duration = duration
        self.maxExtendedAdvertisingEvents = maxExtendedAdvertisingEvents
    }
}

/// Extended advertising commands (Core spec Vol 4, Part E, §7.8.53–§7.8.60).
extension HCICommand {
    /// "No preference" for Advertising_TX_Power.
    public static let txPowerNoPreference: Int8 = 0x7f
    /// LE 1M PHY.
    public static let le1MPHY: UInt8 = 0x01

    /// LE Set Extended Advertising Parameters (§7.8.53): 25 bytes; intervals are 24-bit, 0.625 ms units.
    public static func leSetExtendedAdvertisingParameters(
        handle: UInt8, properties: AdvertisingEventProperties, intervalMin: UInt32, intervalMax: UInt32,
        channelMap: UInt8 = allAdvertisingChannels, ownAddressType: UInt8 = 0x00, filterPolicy: UInt8 = 0x00,
        txPower: Int8 = txPowerNoPreference, primaryPHY: UInt8 = le1MPHY, secondaryMaxSkip: UInt8 = 0,
        secondaryPHY: UInt8 = le1MPHY, sid: UInt8 = 0, scanRequestNotification: Bool = false
    ) -> HCICommand {
        described(.leSetExtendedAdvertisingParameters, [
            .int(handle), .int(properties.rawValue), .int(intervalMin), .int(intervalMax), .int(channelMap),
            .int(ownAddressType),
            .int(0x00),                    // Peer_Address_Type: public
            .bytes([0, 0, 0, 0, 0, 0]),    // Peer_Address: none
            .int(filterPolicy), .int(UInt8(bitPattern: txPower)), .int(primaryPHY), .int(secondaryMaxSkip),
            .int(secondaryPHY), .int(sid), .int(scanRequestNotification ? 1 : 0),
        ])
    }

    /// LE Set Advertising Set Random Address (§7.8.52): the set's own random address, given in display
    /// order (`C3:11:22:33:44:55`) and sent reversed, as LE Set Random Address.
    public static func leSetAdvertisingSetRandomAddress(handle: UInt8, address: [UInt8]) -> HCICommand {
        described(.leSetAdvertisingSetRandomAddress, [.int(handle), .bytes(Array(address.prefix(6).reversed()))])
    }

    /// Own_Address_Type 0x01: the random address (for a set: its LE Set Advertising Set Random Address).
    public static let ownAddressRandom: UInt8 = 0x01

    /// Operation 0x03: complete extended advertising data.
    public static let operationComplete: UInt8 = 0x03
    /// Fragment preference 0x01: the controller should not fragment.
    public static let fragmentPreferenceNone: UInt8 = 0x01

    /// LE Set Extended Advertising Data (§7.8.54): handle, operation, fragment preference, length, data.
    public static func leSetExtendedAdvertisingData(
        handle: UInt8, data: [UInt8], operation: UInt8 = operationComplete,
        fragmentPreference: UInt8 = fragmentPreferenceNone
    ) -> HCICommand {
        described(.leSetExtendedAdvertisingData, [.int(handle), .int(operation), .int(fragmentPreference), .bytes(data)])
    }

    /// LE Set Extended Advertising Enable (§7.8.56): enable, number of sets, per set handle/duration/max events.
    /// Disabling with no sets disables all sets.
    public static func leSetExtendedAdvertisingEnable(_ enable: Bool, sets: [AdvertisingSetEnable]) -> HCICommand {
        described(.leSetExtendedAdvertisingEnable, [
            .int(enable ? 0x01 : 0x00), .int(UInt8(truncatingIfNeeded: sets.count)),
            .entries(sets.map { [.int($0.handle), .int($0.duration), .int($0.maxExtendedAdvertisingEvents)] }),
        ])
    }

    /// LE Read Maximum Advertising Data Length (§7.8.57), no parameters.
    public static let leReadMaximumAdvertisingDataLength = HCICommand(.leReadMaximumAdvertisingDataLength)
    /// LE Read Number of Supported Advertising Sets (§7.8.58), no parameters.
    public static let leReadNumberOfSupportedAdvertisingSets = HCICommand(.leReadNumberOfSupportedAdvertisingSets)

    /// LE Remove Advertising Set (§7.8.59).
    public static func leRemoveAdvertisingSet(handle: UInt8) -> HCICommand {
        described(.leRemoveAdvertisingSet, [.int(handle)])
    }

    /// LE Clear Advertising Sets (§7.8.60), no parameters.
    public static let leClearAdvertisingSets = HCICommand(.leClearAdvertisingSets)
}

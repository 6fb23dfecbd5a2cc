// SPDX-License-Identifier: Apache-2.0
/// What the probe learnt about a controller: version, Read Local Supported Commands bitmap
/// (Vol 4, Part E, §6.27) and LE features (Vol 6, Part B, §4.6).
public struct ControllerCapabilities: Hashable, Sendable {
    public var version: LocalVersionInformation
    /// 64 octets of Supported_Commands.
    public var supportedCommands: [UInt8]
    /// 8 octets of LE_Features; empty when the controller has no LE.
    public var leFeatures: [UInt8]
    /// LE Read Maximum Advertising Data Length, when extended advertising is supported.
    public var maximumAdvertisingDataLength: UInt16?
    /// LE Read Number of Supported Advertising Sets, when extended advertising is supported.
    public var numberOfSupportedAdvertisingSets: UInt8?

    public init(version: LocalVersionInformation, supportedCommands: [UInt8], leFeatures: [UInt8],
                maximumAdvertisingDataLength: UInt16? = nil, numberOfSupportedAdvertisingSets: UInt8? = nil) {
        self.version = version
        self.supportedCommands = supportedCommands
        self.leFeatures = leFeatures
        self.maximumAdvertisingDataLength = maximumAdvertisingDataLength
        self.numberOfSupportedAdvertisingSets = numberOfSupportedAdvertisingSets
    }

    /// LE feature bit 12: LE Extended Advertising.
    public static let extendedAdvertisingFeatureBit = 12

    public func supports(_ opcode: Opcode) -> Bool {
        guard let bit = CommandTable.entry(opcode)?.supportedCommandsBit else { return false }
        return Self.bit(bit, in: supportedCommands)
    }

    public var supportsLE: Bool { supports(.leSetAdvertisingParameters) || !leFeatures.isEmpty }

    public var supportsLegacyAdvertising: Bool {
        supports(.leSetAdvertisingParameters) && supports(.leSetAdvertisingData) && supports(.leSetAdvertisingEnable)
    }

    /// The LE feature bit and the Supported_Commands bits together: the kernel trusts the feature bit
    /// alone, but some controllers set it without every extended command. beacon-tx needs the
    /// parameters, data, enable and remove commands (its start and stop plans).
    public var supportsExtendedAdvertising: Bool {
        Self.bit(Self.extendedAdvertisingFeatureBit, in: leFeatures)
            && supports(.leSetExtendedAdvertisingParameters) && supports(.leSetExtendedAdvertisingData)
            && supports(.leSetExtendedAdvertisingEnable) && supports(.leRemoveAdvertisingSet)
    }

    /// Extended scanning uses the same LE feature bit.
    public var supportsExtendedScanning: Bool {
        Self.bit(Self.extendedAdvertisingFeatureBit, in: leFeatures)
            && supports(.leSetExtendedScanParameters) && supports(.leSetExtendedScanEnable)
    }

    /// `auto`: extended when supported, legacy otherwise; nil when the controller can do neither.
    public var preferredAdvertisingFamily: AdvertisingFamily? {
        if supportsExtendedAdvertising { return .extended }
        if supportsLegacyAdvertising { return .legacy }
        return nil
    }

    public func supports(_ family: AdvertisingFamily) -> Bool {
        family == .legacy ? supportsLegacyAdvertising : supportsExtendedAdvertising
    }

    static func bit(_ index: Int, in octets: [UInt8]) -> Bool {
        let octet = index / 8
        guard index >= 0, octet < octets.count else { return false }
        return octets[octet] & (1 << UInt8(index % 8)) != 0
    }
}

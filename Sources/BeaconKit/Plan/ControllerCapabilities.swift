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
    /// Answers outside the Core spec's range, read as "not known" (the fields above stay nil).
    public var implausible: [ImplausibleAnswer] = []

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

    /// The controller answered Unknown HCI Command to a command of `family` it listed: it is treated as
    /// not supporting that family from now on (its Supported_Commands bits for the family cleared).
    public mutating func drop(_ family: AdvertisingFamily) {
        let opcodes: [Opcode] = family == .extended
            ? [.leSetExtendedAdvertisingParameters, .leSetExtendedAdvertisingData, .leSetExtendedAdvertisingEnable, .leRemoveAdvertisingSet]
            : [.leSetAdvertisingParameters, .leSetAdvertisingData, .leSetAdvertisingEnable]
        for op in opcodes {
            guard let bit = CommandTable.entry(op)?.supportedCommandsBit, bit / 8 < supportedCommands.count else { continue }
            supportedCommands[bit / 8] &= ~(1 << UInt8(bit % 8))
        }
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

/// A value a controller answered that the Core spec does not allow in that field: beacon-tx reads it
/// as "not known" and trusts nothing of it (Selected_TX_Power 127 from a Zephyr controller; a set
/// count of 0; a maximum data length under 31).
public struct ImplausibleAnswer: Hashable, Sendable {
    /// The command that answered, and the return parameter as the Core spec names it.
    public var command: Opcode
    public var field: String
    public var value: Int
    public var allowed: ClosedRange<Int>

    public init(command: Opcode, field: String, value: Int, allowed: ClosedRange<Int>) {
        self.command = command
        self.field = field
        self.value = value
        self.allowed = allowed
    }

    /// Num_Supported_Advertising_Sets (Vol 4, Part E, §7.8.58): 0x01–0xF0.
    public static let advertisingSetsRange = 1...240
    /// Max_Advertising_Data_Length (§7.8.57): 0x001F–0x0672.
    public static let maximumAdvertisingDataLengthRange = 31...1650
    /// Selected_TX_Power (§7.8.53): -127 to +20 dBm.
    public static let selectedTXPowerRange = -127...20
    /// The return parameters by their Core spec names.
    public static let advertisingSetsField = "Num_Supported_Advertising_Sets"
    public static let maximumAdvertisingDataLengthField = "Max_Advertising_Data_Length"
    public static let selectedTXPowerField = "Selected_TX_Power"

    /// The value when the spec allows it; otherwise nil, with the answer appended to `implausible`.
    public static func checked(_ value: Int, _ field: String, of command: Opcode, allowed: ClosedRange<Int>,
                               into implausible: inout [ImplausibleAnswer]) -> Int? {
        guard allowed.contains(value) else {
            implausible.append(ImplausibleAnswer(command: command, field: field, value: value, allowed: allowed))
            return nil
        }
        return value
    }

    /// `LE Read Number of Supported Advertising Sets answered Num_Supported_Advertising_Sets 0, outside 1 to 240: read as not known`.
    public var text: String {
        let name = CommandTable.entry(command)?.name ?? command.description
        return "\(name) answered \(field) \(value), outside \(allowed.lowerBound) to \(allowed.upperBound): read as not known"
    }
}

extension ControllerCapabilities {
    /// `4`, `?` (not read) or `not known (the controller answered 0)`: how devices and doctor print a limit.
    public func shown<T: BinaryInteger>(_ value: KeyPath<ControllerCapabilities, T?>) -> String {
        if let v = self[keyPath: value] { return String(v) }
        let field = value == \ControllerCapabilities.numberOfSupportedAdvertisingSets
            ? ImplausibleAnswer.advertisingSetsField : ImplausibleAnswer.maximumAdvertisingDataLengthField
        if let bad = implausible.first(where: { $0.field == field }) { return "not known (the controller answered \(bad.value))" }
        return "?"
    }
}

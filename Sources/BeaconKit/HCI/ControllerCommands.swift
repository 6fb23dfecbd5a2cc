// SPDX-License-Identifier: Apache-2.0
/// Controller & Baseband and Informational commands (Core spec Vol 4, Part E, §7.3 and §7.4),
/// and the LE features read (§7.8.3).
extension HCICommand {
    /// Reset (§7.3.2), no parameters.
    public static let reset = HCICommand(.reset)
    /// Read Local Version Information (§7.4.1), no parameters.
    public static let readLocalVersionInformation = HCICommand(.readLocalVersionInformation)
    /// Read Local Supported Commands (§7.4.2), no parameters.
    public static let readLocalSupportedCommands = HCICommand(.readLocalSupportedCommands)
    /// LE Read Local Supported Features (§7.8.3), no parameters.
    public static let leReadLocalSupportedFeatures = HCICommand(.leReadLocalSupportedFeatures)
}

/// Read Local Version Information return parameters (§7.4.1).
public struct LocalVersionInformation: Hashable, Sendable {
    public var hciVersion: UInt8
    public var hciSubversion: UInt16
    public var lmpVersion: UInt8
    public var companyIdentifier: UInt16
    public var lmpSubversion: UInt16

    public init(hciVersion: UInt8, hciSubversion: UInt16, lmpVersion: UInt8, companyIdentifier: UInt16, lmpSubversion: UInt16) {
        self.hciVersion = hciVersion
        self.hciSubversion = hciSubversion
        self.lmpVersion = lmpVersion
        self.companyIdentifier = companyIdentifier
        self.lmpSubversion = lmpSubversion
    }

    /// Decodes the return parameters (Status first) by the command's description in `CommandTable`.
    public init(returnParameters p: [UInt8]) throws(HCIDecodingError) {
        let fields = try CommandTable.returnIntegers(of: .readLocalVersionInformation, p)
        hciVersion = UInt8(truncatingIfNeeded: fields[1])
        hciSubversion = UInt16(truncatingIfNeeded: fields[2])
        lmpVersion = UInt8(truncatingIfNeeded: fields[3])
        companyIdentifier = UInt16(truncatingIfNeeded: fields[4])
        lmpSubversion = UInt16(truncatingIfNeeded: fields[5])
    }

    /// Core specification version name for an HCI_Version (Assigned Numbers), e.g. 9 → "5.0".
    public static func coreVersionName(_ v: UInt8) -> String {
        let names = ["1.0b", "1.1", "1.2", "2.0", "2.1", "3.0", "4.0", "4.1", "4.2", "5.0", "5.1", "5.2", "5.3", "5.4", "6.0", "6.1"]
        return Int(v) < names.count ? names[Int(v)] : "unknown (\(Hex.byte(v)))"
    }

    public var coreVersion: String { Self.coreVersionName(hciVersion) }
}

/// The return parameters of the probe's reads, after Status (§7.4.2, §7.8.3, §7.8.57, §7.8.58):
/// nil when the answer is of another command. Octet runs are kept as long as the controller sent them
/// (a short bitmap reads as unset bits), as the capability checks expect.
extension CommandComplete {
    /// Read Local Supported Commands: Supported_Commands (64 octets).
    public var supportedCommands: [UInt8]? { opcode == .readLocalSupportedCommands ? afterStatus : nil }
    /// LE Read Local Supported Features: LE_Features (8 octets).
    public var leFeatures: [UInt8]? { opcode == .leReadLocalSupportedFeatures ? afterStatus : nil }
    /// LE Read Maximum Advertising Data Length: Max_Advertising_Data_Length.
    public var maximumAdvertisingDataLength: UInt16? {
        guard opcode == .leReadMaximumAdvertisingDataLength else { return nil }
        var r = ByteReader(afterStatus)
        return try? r.readUInt16LE()
    }
    /// LE Read Number of Supported Advertising Sets: Num_Supported_Advertising_Sets.
    public var numberOfSupportedAdvertisingSets: UInt8? {
        opcode == .leReadNumberOfSupportedAdvertisingSets ? afterStatus.first : nil
    }

    private var afterStatus: [UInt8] { Array(returnParameters.dropFirst()) }
}

// SPDX-License-Identifier: Apache-2.0
/// The one table of HCI commands beacon-tx sends or decodes: each command declared once (Core spec
/// Vol 4, Part E, §7 for the fields; §6.27 for the Supported_Commands bits). Encoders
/// (`HCICommand.leSetAdvertisingData(_:)` …), `HCICommand(packet:)`'s size check, the dry-run text,
/// `--verbose`, `decode` and return-parameter decoding all read it, and every list of advertising
/// commands derives from its `advertising` column.
public enum CommandTable {
    /// The size view of one description, for size checks and capability bits.
    public struct Entry: Sendable {
        public let description: HCICommandDescription
        public var opcode: Opcode { description.opcode }
        public var name: String { description.name }
        public var parameters: ParameterLength { description.parameterLength }
        public var returnParameters: ParameterLength { description.returnParameterLength }
        public var supportedCommandsBit: Int? { description.supportedCommandsBit }
    }

    public static let descriptions: [HCICommandDescription] = {
        typealias D = HCICommandDescription
        typealias F = HCIField
        let f = HCIFields.self
        return [
            // Controller & Baseband (§7.3)
            D(.setEventMask, "Set Event Mask", bit: 46, parameters: [f.mask("Event_Mask")]),
            D(.reset, "Reset", bit: 47, advertising: .reset),
            // Informational (§7.4)
            D(.readLocalVersionInformation, "Read Local Version Information", bit: 115, returns: [
                f.status,
                F("HCI_Version", .octets(1)) { "\(LocalVersionInformation.coreVersionName(UInt8(truncatingIfNeeded: $0))) (\(Hex.byte(UInt8(truncatingIfNeeded: $0))))" },
                F("HCI_Subversion", .octets(2), f.word),
                F("LMP_Version", .octets(1), f.byte),
                F("Company_Identifier", .octets(2), f.word),
                F("LMP_Subversion", .octets(2), f.word),
            ]),
            D(.readLocalSupportedCommands, "Read Local Supported Commands", bit: nil, returns: [
                f.status, F("Supported_Commands", .run(64), text: { f.supportedCommandsText($0.bytes ?? []) }),
            ]),
            D(.readBDADDR, "Read BD ADDR", bit: 121, returns: [f.status, f.address("BD_ADDR")]),
            // LE Controller (§7.8)
            D(.leSetEventMask, "LE Set Event Mask", bit: 200, parameters: [f.mask("LE_Event_Mask")]),
            D(.leReadLocalSupportedFeatures, "LE Read Local Supported Features", bit: 202, returns: [
                f.status, f.mask("LE_Features"),
            ]),
            D(.leSetRandomAddress, "LE Set Random Address", bit: 204, advertising: .randomAddress, parameters: [f.address("Random_Address")]),
            D(.leSetAdvertisingParameters, "LE Set Advertising Parameters", .legacy, bit: 205, advertising: .parameters, parameters: [
                F("Advertising_Interval_Min", .octets(2), f.interval),
                F("Advertising_Interval_Max", .octets(2), f.interval),
                F("Advertising_Type", .octets(1)) { AdvertisingType(rawValue: UInt8(truncatingIfNeeded: $0)).description },
                F("Own_Address_Type", .octets(1), f.ownAddressType),
                F("Peer_Address_Type", .octets(1)),
                f.address("Peer_Address"),
                F("Advertising_Channel_Map", .octets(1), f.channels),
                F("Advertising_Filter_Policy", .octets(1)),
            ]),
            D(.leReadAdvertisingPhysicalChannelTxPower, "LE Read Advertising Physical Channel Tx Power", .legacy, bit: 206, returns: [
                f.status, F("TX_Power_Level", .octets(1), signed: true, f.dBm),
            ]),
            D(.leSetAdvertisingData, "LE Set Advertising Data", .legacy, bit: 207, advertising: .data, parameters: [f.legacyData("Advertising_Data")]),
            D(.leSetScanResponseData, "LE Set Scan Response Data", .legacy, bit: 208, advertising: .scanResponse, parameters: [f.legacyData("Scan_Response_Data")]),
            D(.leSetAdvertisingEnable, "LE Set Advertising Enable", .legacy, bit: 209, advertising: .enable, parameters: [
                F("Advertising_Enable", .octets(1), f.enable),
            ]),
            D(.leSetScanParameters, "LE Set Scan Parameters", .legacy, bit: 210, parameters: [
                F("LE_Scan_Type", .octets(1), f.scanType),
                F("LE_Scan_Interval", .octets(2), f.interval),
                F("LE_Scan_Window", .octets(2), f.interval),
                F("Own_Address_Type", .octets(1), f.ownAddressType),
                F("Scanning_Filter_Policy", .octets(1), f.filterPolicy),
            ]),
            D(.leSetScanEnable, "LE Set Scan Enable", .legacy, bit: 211, parameters: [
                F("LE_Scan_Enable", .octets(1), f.enable),
                F("Filter_Duplicates", .octets(1), f.enable),
            ]),
            D(.leSetAdvertisingSetRandomAddress, "LE Set Advertising Set Random Address", .extended, bit: 289, advertising: .setRandomAddress, parameters: [
                f.handle, f.address("Random_Address"),
            ]),
            D(.leSetExtendedAdvertisingParameters, "LE Set Extended Advertising Parameters", .extended, bit: 290, advertising: .parameters, parameters: [
                f.handle,
                F("Advertising_Event_Properties", .octets(2)) { Hex.word(UInt16(truncatingIfNeeded: $0)) + f.propertiesText(UInt16(truncatingIfNeeded: $0)) },
                F("Primary_Advertising_Interval_Min", .octets(3), f.interval),
                F("Primary_Advertising_Interval_Max", .octets(3), f.interval),
                F("Primary_Advertising_Channel_Map", .octets(1), f.channels),
                F("Own_Address_Type", .octets(1), f.ownAddressType),
                F("Peer_Address_Type", .octets(1)),
                f.address("Peer_Address"),
                F("Advertising_Filter_Policy", .octets(1)),
                F("Advertising_TX_Power", .octets(1), signed: true) {
                    $0 == UInt32(UInt8(bitPattern: HCICommand.txPowerNoPreference)) ? "Host has no preference (0x7f)" : f.dBm($0)
                },
                F("Primary_Advertising_PHY", .octets(1), f.phy),
                F("Secondary_Advertising_Max_Skip", .octets(1)),
                F("Secondary_Advertising_PHY", .octets(1), f.phy),
                F("Advertising_SID", .octets(1)),
                F("Scan_Request_Notification_Enable", .octets(1)),
            ], returns: [f.status, F("Selected_TX_Power", .octets(1), signed: true, f.dBm)]),
            D(.leSetExtendedAdvertisingData, "LE Set Extended Advertising Data", .extended, bit: 291, advertising: .data, parameters: f.extendedData("Advertising_Data")),
            D(.leSetExtendedScanResponseData, "LE Set Extended Scan Response Data", .extended, bit: 292, advertising: .scanResponse, parameters: f.extendedData("Scan_Response_Data")),
            D(.leSetExtendedAdvertisingEnable, "LE Set Extended Advertising Enable", .extended, bit: 293, advertising: .enable, parameters: [
                F("Enable", .octets(1), f.enable),
                F("Number_of_Sets", .octets(1), f.decimal),
                F("Sets", .repeated(perBitOfPreviousField: false, atLeast: 0, [
                    f.handle,
                    F("Duration", .octets(2)) { $0 == 0 ? "none (0x0000)" : "\(Int($0) * 10) ms (\(Hex.word(UInt16(truncatingIfNeeded: $0))))" },
                    F("Max_Extended_Advertising_Events", .octets(1)) { $0 == 0 ? "none (0x00)" : "\($0)" },
                ])),
            ]),
            D(.leReadMaximumAdvertisingDataLength, "LE Read Maximum Advertising Data Length", .extended, bit: 294, returns: [
                f.status, F("Max_Advertising_Data_Length", .octets(2), f.decimal),
            ]),
            D(.leReadNumberOfSupportedAdvertisingSets, "LE Read Number of Supported Advertising Sets", .extended, bit: 295, returns: [
                f.status, F("Num_Supported_Advertising_Sets", .octets(1), f.decimal),
            ]),
            D(.leRemoveAdvertisingSet, "LE Remove Advertising Set", .extended, bit: 296, advertising: .setLifecycle, parameters: [f.handle]),
            D(.leClearAdvertisingSets, "LE Clear Advertising Sets", .extended, bit: 297, advertising: .setLifecycle),
            D(.leSetExtendedScanParameters, "LE Set Extended Scan Parameters", .extended, bit: 301, parameters: [
                F("Own_Address_Type", .octets(1), f.ownAddressType),
                F("Scanning_Filter_Policy", .octets(1), f.filterPolicy),
                F("Scanning_PHYs", .octets(1), f.scanningPHYs),
                F("PHYs", .repeated(perBitOfPreviousField: true, atLeast: 1, [
                    F("Scan_Type", .octets(1), f.scanType), F("Scan_Interval", .octets(2), f.interval), F("Scan_Window", .octets(2), f.interval),
                ])),
            ]),
            D(.leSetExtendedScanEnable, "LE Set Extended Scan Enable", .extended, bit: 302, parameters: [
                F("Enable", .octets(1), f.enable),
                F("Filter_Duplicates", .octets(1), f.enable),
                F("Duration", .octets(2)) { $0 == 0 ? "none (0x0000)" : "\(Int($0) * 10) ms (\(Hex.word(UInt16(truncatingIfNeeded: $0))))" },
                F("Period", .octets(2)) { $0 == 0 ? "none (0x0000)" : "\(Milliseconds.format(Double($0) * 1280)) msec (\(Hex.word(UInt16(truncatingIfNeeded: $0))))" },
            ]),
        ]
    }()

    private static let byOpcode: [Opcode: Entry] = Dictionary(
        descriptions.map { ($0.opcode, Entry(description: $0)) }, uniquingKeysWith: { a, _ in a })

    public static var entries: [Entry] { descriptions.map { Entry(description: $0) } }

    public static func entry(_ opcode: Opcode) -> Entry? { byOpcode[opcode] }

    public static func description(_ opcode: Opcode) -> HCICommandDescription? { byOpcode[opcode]?.description }

    /// What `opcode` does to advertising, from the table's column; nil for any other command.
    public static func advertisingEffect(_ opcode: Opcode) -> AdvertisingEffect? { byOpcode[opcode]?.description.advertising }

    /// Every command that touches advertising, HCI Reset included, in table order.
    public static let advertisingOpcodes: [Opcode] = descriptions.filter { $0.advertising != nil }.map(\.opcode)

    /// Whether `opcode` writes the legacy advertising instance: the legacy advertising commands and
    /// LE Set Random Address (the address a random-address legacy instance advertises from).
    public static func touchesLegacyInstance(_ opcode: Opcode) -> Bool {
        guard let d = description(opcode), let effect = d.advertising else { return false }
        return d.family != .extended && effect != .reset
    }

    /// The integer return parameters of a command whose return fields are all integers (Status first).
    /// Trailing octets beyond the fields are allowed (a later spec version may add some).
    static func returnIntegers(of opcode: Opcode, _ bytes: [UInt8]) throws(HCIDecodingError) -> [UInt32] {
        guard let d = description(opcode) else { return [] }
        var r = ByteReader(bytes)
        let values: [HCIValue]
        do { values = try HCICommandDescription.decode(&r, d.returnParameters) } catch {
            throw .truncated(.truncated(field: error.field, needed: d.returnParameterLength.minimum, available: bytes.count))
        }
        return values.map { $0.integer ?? 0 }
    }
}

/// Fields and value formats shared by several commands (btmon's spelling).
public enum HCIFields {
    public static let status = HCIField("Status", .octets(1)) { Status(rawValue: UInt8(truncatingIfNeeded: $0)).description }
    public static let handle = HCIField("Advertising_Handle", .octets(1), decimal)

    static func mask(_ name: String) -> HCIField {
        HCIField(name, .run(8), text: { ["0x" + Hex.encode(($0.bytes ?? []).reversed())] })
    }

    /// A BD_ADDR, sent least significant octet first, printed most significant first.
    static func address(_ name: String) -> HCIField {
        HCIField(name, .run(6), text: { [($0.bytes ?? []).reversed().map { Hex.encode([$0], uppercase: true) }.joined(separator: ":")] })
    }

    /// Length + 31 octets (legacy advertising and scan response data), printed as AD structures.
    static func legacyData(_ name: String) -> HCIField {
        HCIField(name, .lengthPrefixed(padTo: HCICommand.legacyAdvertisingDataMaximum))
    }

    /// Handle, Operation, Fragment_Preference, then length-prefixed data (§7.8.54, §7.8.55).
    static func extendedData(_ name: String) -> [HCIField] {
        [handle,
         HCIField("Operation", .octets(1)) { $0 == 3 ? "Complete extended advertising data (0x03)" : Hex.byte(UInt8(truncatingIfNeeded: $0)) },
         HCIField("Fragment_Preference", .octets(1)),
         HCIField(name, .lengthPrefixed(padTo: nil))]
    }

    static func decimal(_ v: UInt32) -> String { "\(v)" }
    static func byte(_ v: UInt32) -> String { Hex.byte(UInt8(truncatingIfNeeded: v)) }
    static func word(_ v: UInt32) -> String { Hex.word(UInt16(truncatingIfNeeded: v)) }
    static func dBm(_ v: UInt32) -> String { "\(Int8(bitPattern: UInt8(truncatingIfNeeded: v))) dBm" }

    static func enable(_ v: UInt32) -> String {
        v == 1 ? "Enabled (0x01)" : v == 0 ? "Disabled (0x00)" : "Reserved (\(byte(v)))"
    }

    /// `100.000 msec (0x00a0)`: 0.625 ms units, 16 or 24 bits.
    static func interval(_ units: UInt32) -> String {
        let hex = units > 0xFFFF ? "0x" + Hex.encode([UInt8(truncatingIfNeeded: units >> 16), UInt8(truncatingIfNeeded: units >> 8), UInt8(truncatingIfNeeded: units)])
                                 : Hex.word(UInt16(truncatingIfNeeded: units))
        return "\(Milliseconds.format(Double(units) * 0.625)) msec (\(hex))"
    }

    static func channels(_ map: UInt32) -> String {
        let names = [(0x01, "37"), (0x02, "38"), (0x04, "39")].filter { map & UInt32($0.0) != 0 }.map(\.1)
        return names.joined(separator: ", ") + " (\(byte(map)))"
    }

    static func propertiesText(_ p: UInt16) -> String {
        if p == AdvertisingEventProperties.legacyNonconnectable.rawValue { return " (legacy ADV_NONCONN_IND)" }
        if p == AdvertisingEventProperties.legacyConnectable.rawValue { return " (legacy ADV_IND)" }
        return ""
    }

    /// `LE 1M (0x01)`: a PHY value of §7.8.53.
    static func phy(_ v: UInt32) -> String {
        let names = [1: "LE 1M", 2: "LE 2M", 3: "LE Coded"]
        return (names[Int(v)] ?? "Reserved") + " (\(byte(v)))"
    }

    static func scanType(_ v: UInt32) -> String { LEScanType(rawValue: UInt8(truncatingIfNeeded: v)).description }
    static func filterPolicy(_ v: UInt32) -> String { ScanningFilterPolicy(rawValue: UInt8(truncatingIfNeeded: v)).description }

    static func ownAddressType(_ v: UInt32) -> String {
        let names = ["Public", "Random", "Resolvable or public", "Resolvable or random"]
        return (v < 4 ? names[Int(v)] : "Reserved") + " (\(byte(v)))"
    }

    static func scanningPHYs(_ v: UInt32) -> String {
        let names = [(UInt32(HCICommand.scanningPHYLE1M), "LE 1M"), (UInt32(HCICommand.scanningPHYLECoded), "LE Coded")]
            .filter { v & $0.0 != 0 }.map(\.1)
        return (names.isEmpty ? "none" : names.joined(separator: ", ")) + " (\(byte(v)))"
    }

    /// How many Supported_Commands bits are set, and which of the commands in the table they name.
    static func supportedCommandsText(_ bitmap: [UInt8]) -> [String] {
        let set = bitmap.reduce(0) { $0 + $1.nonzeroBitCount }
        let known = CommandTable.descriptions.filter { d in
            d.supportedCommandsBit.map { ControllerCapabilities.bit($0, in: bitmap) } ?? false
        }
        return ["\(set) bits set"] + known.map { "  \($0.name) (\(Hex.word($0.opcode.rawValue)))" }
    }
}

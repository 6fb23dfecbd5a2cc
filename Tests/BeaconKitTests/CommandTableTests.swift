// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
import Testing

/// The command table against the Core spec's literal values (never against itself), and every
/// description's encoding, decoding and printing against each other.
@Suite struct CommandTableTests {
    /// Core spec Vol 4, Part E, §7 (opcodes and names) and §6.27 (Supported_Commands octet and bit), by hand.
    static let spec: [(opcode: UInt16, name: String, octet: Int?, bit: Int?)] = [
        (0x0c01, "Set Event Mask", 5, 6),
        (0x0c03, "Reset", 5, 7),
        (0x1001, "Read Local Version Information", 14, 3),
        (0x1002, "Read Local Supported Commands", nil, nil),
        (0x1009, "Read BD ADDR", 15, 1),
        (0x2001, "LE Set Event Mask", 25, 0),
        (0x2003, "LE Read Local Supported Features", 25, 2),
        (0x2005, "LE Set Random Address", 25, 4),
        (0x2006, "LE Set Advertising Parameters", 25, 5),
        (0x2007, "LE Read Advertising Physical Channel Tx Power", 25, 6),
        (0x2008, "LE Set Advertising Data", 25, 7),
        (0x2009, "LE Set Scan Response Data", 26, 0),
        (0x200a, "LE Set Advertising Enable", 26, 1),
        (0x200b, "LE Set Scan Parameters", 26, 2),
        (0x200c, "LE Set Scan Enable", 26, 3),
        (0x2035, "LE Set Advertising Set Random Address", 36, 1),
        (0x2036, "LE Set Extended Advertising Parameters", 36, 2),
        (0x2037, "LE Set Extended Advertising Data", 36, 3),
        (0x2038, "LE Set Extended Scan Response Data", 36, 4),
        (0x2039, "LE Set Extended Advertising Enable", 36, 5),
        (0x203a, "LE Read Maximum Advertising Data Length", 36, 6),
        (0x203b, "LE Read Number of Supported Advertising Sets", 36, 7),
        (0x203c, "LE Remove Advertising Set", 37, 0),
        (0x203d, "LE Clear Advertising Sets", 37, 1),
        (0x2041, "LE Set Extended Scan Parameters", 37, 5),
        (0x2042, "LE Set Extended Scan Enable", 37, 6),
    ]

    @Test func opcodesNamesAndSupportedCommandsBitsAreTheSpecs() {
        #expect(CommandTable.descriptions.count == Self.spec.count)
        for row in Self.spec {
            let entry = CommandTable.entry(Opcode(rawValue: row.opcode))
            #expect(entry?.name == row.name, "\(Hex.word(row.opcode))")
            #expect(entry?.supportedCommandsBit == row.octet.map { $0 * 8 + row.bit! }, "\(Hex.word(row.opcode))")
            // And the capability check reads exactly that octet and bit.
            if let octet = row.octet, let bit = row.bit {
                var bitmap = [UInt8](repeating: 0, count: 64)
                bitmap[octet] = 1 << UInt8(bit)
                let caps = ControllerCapabilities(version: LocalVersionInformation(hciVersion: 9, hciSubversion: 0, lmpVersion: 9, companyIdentifier: 0, lmpSubversion: 0),
                                                  supportedCommands: bitmap, leFeatures: [])
                #expect(caps.supports(Opcode(rawValue: row.opcode)), "\(Hex.word(row.opcode))")
                #expect(Controllers.specSupportedCommands[row.opcode].map { [$0.octet, $0.bit] } == [octet, bit])
            }
        }
        // The named constants are the spec's opcodes.
        let named: [(Opcode, UInt16)] = [
            (.setEventMask, 0x0c01), (.reset, 0x0c03), (.readLocalVersionInformation, 0x1001),
            (.readLocalSupportedCommands, 0x1002), (.readBDADDR, 0x1009), (.leSetEventMask, 0x2001),
            (.leReadLocalSupportedFeatures, 0x2003), (.leSetRandomAddress, 0x2005), (.leSetAdvertisingParameters, 0x2006),
            (.leReadAdvertisingPhysicalChannelTxPower, 0x2007), (.leSetAdvertisingData, 0x2008),
            (.leSetScanResponseData, 0x2009), (.leSetAdvertisingEnable, 0x200a), (.leSetScanParameters, 0x200b),
            (.leSetScanEnable, 0x200c), (.leSetAdvertisingSetRandomAddress, 0x2035),
            (.leSetExtendedAdvertisingParameters, 0x2036), (.leSetExtendedAdvertisingData, 0x2037),
            (.leSetExtendedScanResponseData, 0x2038), (.leSetExtendedAdvertisingEnable, 0x2039),
            (.leReadMaximumAdvertisingDataLength, 0x203a), (.leReadNumberOfSupportedAdvertisingSets, 0x203b),
            (.leRemoveAdvertisingSet, 0x203c), (.leClearAdvertisingSets, 0x203d),
            (.leSetExtendedScanParameters, 0x2041), (.leSetExtendedScanEnable, 0x2042),
        ]
        for (opcode, raw) in named { #expect(opcode.rawValue == raw) }
    }

    /// The Core spec's commands that change advertising state, by hand (Vol 4, Part E: §7.3.2 Reset,
    /// §7.8.4–7.8.9 the legacy instance, §7.8.52–7.8.56 and §7.8.59–7.8.60 the extended sets), with
    /// what each does. The reads (§7.8.6, §7.8.57, §7.8.58) change nothing.
    static let advertisingSpec: [(opcode: UInt16, effect: AdvertisingEffect)] = [
        (0x0c03, .reset),
        (0x2005, .randomAddress), (0x2006, .parameters), (0x2008, .data), (0x2009, .scanResponse), (0x200a, .enable),
        (0x2035, .setRandomAddress), (0x2036, .parameters), (0x2037, .data), (0x2038, .scanResponse), (0x2039, .enable),
        (0x203c, .setLifecycle), (0x203d, .setLifecycle),
    ]

    @Test func theAdvertisingColumnIsTheSpecs() {
        let golden = Dictionary(uniqueKeysWithValues: Self.advertisingSpec.map { ($0.opcode, $0.effect) })
        for d in CommandTable.descriptions {
            #expect(d.advertising == golden[d.opcode.rawValue], "\(d.name)")
            #expect(CommandTable.advertisingEffect(d.opcode) == golden[d.opcode.rawValue], "\(d.name)")
        }
        #expect(CommandTable.advertisingOpcodes.map(\.rawValue) == Self.advertisingSpec.map(\.opcode))
        #expect(CommandTable.advertisingEffect(Opcode(rawValue: 0xfc01)) == nil)
    }

    /// Each list derived from the column is the list that was kept by hand before it (same
    /// behaviour): the fuzzer's opcodes, the legacy instance's commands (the controller model's
    /// placements, the hand-back's record), the data commands (`verify`'s candidates and writes).
    @Test func theDerivedListsAreTheHandKeptOnes() {
        let fuzzerBefore: [Opcode] = [
            .reset, .leSetRandomAddress, .leSetAdvertisingParameters, .leSetAdvertisingData, .leSetScanResponseData,
            .leSetAdvertisingEnable, .leSetAdvertisingSetRandomAddress, .leSetExtendedAdvertisingParameters,
            .leSetExtendedAdvertisingData, .leSetExtendedScanResponseData, .leSetExtendedAdvertisingEnable,
            .leRemoveAdvertisingSet, .leClearAdvertisingSets,
        ]
        #expect(CommandTable.advertisingOpcodes == fuzzerBefore)
        let legacyBefore: Set<Opcode> = [.leSetAdvertisingParameters, .leSetAdvertisingData, .leSetScanResponseData, .leSetAdvertisingEnable, .leSetRandomAddress]
        let all = CommandTable.descriptions.map(\.opcode) + [Opcode(rawValue: 0xfc01)]
        #expect(Set(all.filter(CommandTable.touchesLegacyInstance)) == legacyBefore)
        // The controller model places exactly those on the legacy instance.
        for opcode in all {
            var size = 0
            switch CommandTable.entry(opcode)?.parameters {
            case let .fixed(n)?: size = n
            case let .variable(minimum)?: size = minimum
            case nil: size = 0
            }
            let placements = ControllerAdvertisingState.placements(of: HCICommand(opcode, [UInt8](repeating: 0, count: size)))
            #expect(placements.contains(.legacy) == legacyBefore.contains(opcode), "\(opcode)")
        }
        // The hand-back records exactly those.
        for opcode in all {
            var foreign = ForeignLegacyAdvertising()
            let command = opcode == .leSetAdvertisingEnable ? HCICommand.leSetAdvertisingEnable(true) : HCICommand(opcode, [0])
            #expect(foreign.record(command) == legacyBefore.contains(opcode), "\(opcode)")
        }
        let dataBefore: Set<Opcode> = [.leSetAdvertisingData, .leSetExtendedAdvertisingData]
        #expect(Set(all.filter { CommandTable.advertisingEffect($0) == .data }) == dataBefore)
        let carriedBefore: Set<Opcode> = dataBefore.union([.leSetScanResponseData, .leSetExtendedScanResponseData])
        #expect(Set(all.filter { CommandTable.advertisingEffect($0)?.writesData == true }) == carriedBefore)
    }

    /// Parameter and return sizes as the spec gives them (§7.3–§7.8), by hand.
    @Test func sizesAreTheSpecs() {
        let sizes: [(Opcode, ParameterLength, ParameterLength)] = [
            (.setEventMask, .fixed(8), .fixed(1)), (.reset, .fixed(0), .fixed(1)),
            (.readLocalVersionInformation, .fixed(0), .fixed(9)), (.readLocalSupportedCommands, .fixed(0), .fixed(65)),
            (.readBDADDR, .fixed(0), .fixed(7)), (.leReadLocalSupportedFeatures, .fixed(0), .fixed(9)),
            (.leSetRandomAddress, .fixed(6), .fixed(1)), (.leSetAdvertisingParameters, .fixed(15), .fixed(1)),
            (.leReadAdvertisingPhysicalChannelTxPower, .fixed(0), .fixed(2)), (.leSetAdvertisingData, .fixed(32), .fixed(1)),
            (.leSetScanResponseData, .fixed(32), .fixed(1)), (.leSetAdvertisingEnable, .fixed(1), .fixed(1)),
            (.leSetScanParameters, .fixed(7), .fixed(1)), (.leSetScanEnable, .fixed(2), .fixed(1)),
            (.leSetAdvertisingSetRandomAddress, .fixed(7), .fixed(1)),
            (.leSetExtendedAdvertisingParameters, .fixed(25), .fixed(2)),
            (.leSetExtendedAdvertisingData, .variable(minimum: 4), .fixed(1)),
            (.leSetExtendedScanResponseData, .variable(minimum: 4), .fixed(1)),
            (.leSetExtendedAdvertisingEnable, .variable(minimum: 2), .fixed(1)),
            (.leReadMaximumAdvertisingDataLength, .fixed(0), .fixed(3)),
            (.leReadNumberOfSupportedAdvertisingSets, .fixed(0), .fixed(2)),
            (.leRemoveAdvertisingSet, .fixed(1), .fixed(1)), (.leClearAdvertisingSets, .fixed(0), .fixed(1)),
            (.leSetExtendedScanParameters, .variable(minimum: 8), .fixed(1)), (.leSetExtendedScanEnable, .fixed(6), .fixed(1)),
        ]
        for (opcode, parameters, returns) in sizes {
            #expect(CommandTable.entry(opcode)?.parameters == parameters, "\(opcode)")
            #expect(CommandTable.entry(opcode)?.returnParameters == returns, "\(opcode)")
        }
    }

    static let encoded: [HCICommand] = {
        let phy = ScanPHYParameters(type: .active, interval: 0x60, window: 0x30)
        return [
            .leSetAdvertisingParameters(intervalMin: 0xA0, intervalMax: 0xB0, type: .advNonconnInd, channelMap: 0x05),
            .leSetAdvertisingData([0x02, 0x01, 0x06]), .leSetScanResponseData([]), .leSetAdvertisingEnable(true),
            .leSetRandomAddress([0xC0, 0x11, 0x22, 0x33, 0x44, 0x55]),
            .leSetExtendedAdvertisingParameters(handle: 1, properties: .legacyNonconnectable, intervalMin: 0x12345, intervalMax: 0x12346, txPower: -8),
            .leSetExtendedAdvertisingData(handle: 1, data: [0x02, 0x01, 0x06]),
            .leSetExtendedAdvertisingEnable(true, sets: [AdvertisingSetEnable(handle: 1, duration: 5, maxExtendedAdvertisingEvents: 2),
                                                         AdvertisingSetEnable(handle: 2)]),
            .leSetExtendedAdvertisingEnable(false, sets: []), .leRemoveAdvertisingSet(handle: 3),
            .leSetScanParameters(type: .active, interval: 0x60, window: 0x30, ownAddressType: 1, filterPolicy: .filterAcceptList),
            .leSetScanEnable(true, filterDuplicates: true),
            .leSetExtendedScanParameters(le1M: phy, leCoded: phy), .leSetExtendedScanParameters(le1M: nil, leCoded: phy),
            .leSetExtendedScanEnable(true, filterDuplicates: false, duration: 500, period: 2),
        ]
    }()

    /// Every encoder's packet decodes by its description into values that encode back to the same bytes,
    /// and passes the packet parser's size check.
    @Test func encodeDecodeRoundTrip() throws {
        for c in Self.encoded {
            let d = try #require(CommandTable.description(c.opcode))
            let values = try d.decodeParameters(c.parameters)
            #expect(d.encode(values) == c.parameters, "\(c)")
            #expect(try HCICommand(packet: c.packet) == c)
        }
    }

    /// Every command we send prints its fields (`decode`, dry-run text, --verbose); whole outputs.
    @Test func scanCommandsPrintTheirFields() throws {
        let lines = Self.encoded.suffix(5).flatMap { CommandText.describe($0) }
        #expect(lines == [
            "< HCI Command: LE Set Scan Parameters (0x08|0x000b) plen 7",
            "        LE_Scan_Type: Active (0x01)",
            "        LE_Scan_Interval: 60.000 msec (0x0060)",
            "        LE_Scan_Window: 30.000 msec (0x0030)",
            "        Own_Address_Type: Random (0x01)",
            "        Scanning_Filter_Policy: Ignore not in accept list (0x01)",
            "        01 60 00 30 00 01 01",
            "< HCI Command: LE Set Scan Enable (0x08|0x000c) plen 2",
            "        LE_Scan_Enable: Enabled (0x01)",
            "        Filter_Duplicates: Enabled (0x01)",
            "        01 01",
            "< HCI Command: LE Set Extended Scan Parameters (0x08|0x0041) plen 13",
            "        Own_Address_Type: Public (0x00)",
            "        Scanning_Filter_Policy: Accept all advertisement (0x00)",
            "        Scanning_PHYs: LE 1M, LE Coded (0x05)",
            "        Scan_Type[0]: Active (0x01)",
            "        Scan_Interval[0]: 60.000 msec (0x0060)",
            "        Scan_Window[0]: 30.000 msec (0x0030)",
            "        Scan_Type[1]: Active (0x01)",
            "        Scan_Interval[1]: 60.000 msec (0x0060)",
            "        Scan_Window[1]: 30.000 msec (0x0030)",
            "        00 00 05 01 60 00 30 00 01 60 00 30 00",
            "< HCI Command: LE Set Extended Scan Parameters (0x08|0x0041) plen 8",
            "        Own_Address_Type: Public (0x00)",
            "        Scanning_Filter_Policy: Accept all advertisement (0x00)",
            "        Scanning_PHYs: LE Coded (0x04)",
            "        Scan_Type[0]: Active (0x01)",
            "        Scan_Interval[0]: 60.000 msec (0x0060)",
            "        Scan_Window[0]: 30.000 msec (0x0030)",
            "        00 00 04 01 60 00 30 00",
            "< HCI Command: LE Set Extended Scan Enable (0x08|0x0042) plen 6",
            "        Enable: Enabled (0x01)",
            "        Filter_Duplicates: Disabled (0x00)",
            "        Duration: 5000 ms (0x01f4)",
            "        Period: 2560.000 msec (0x0002)",
            "        01 00 f4 01 02 00",
        ])
    }

    @Test func otherCommandsPrintTheirFields() throws {
        #expect(CommandText.describe(HCICommand.leSetRandomAddress([0xC0, 0x11, 0x22, 0x33, 0x44, 0x55])) == [
            "< HCI Command: LE Set Random Address (0x08|0x0005) plen 6",
            "        Random_Address: C0:11:22:33:44:55",
            "        55 44 33 22 11 c0",
        ])
        #expect(CommandText.describe(HCICommand(.setEventMask, [0xff, 0xff, 0xfb, 0xff, 0x07, 0xf8, 0xbf, 0x3d])) == [
            "< HCI Command: Set Event Mask (0x03|0x0001) plen 8",
            "        Event_Mask: 0x3dbff807fffbffff",
            "        ff ff fb ff 07 f8 bf 3d",
        ])
        // Return parameters are printed from the same description.
        let version = try HCIEvent(packet: [0x04, 0x0e, 0x0c, 0x01, 0x01, 0x10, 0x00, 0x09, 0x01, 0x00, 0x02, 0x0f, 0x00, 0x01, 0x00])
        #expect(CommandText.describe(version) == [
            "> HCI Event: Command Complete (0x0e) plen 12",
            "        Read Local Version Information (0x04|0x0001) ncmd 1",
            "          Status: Success (0x00)",
            "          HCI_Version: 5.0 (0x09)",
            "          HCI_Subversion: 0x0001",
            "          LMP_Version: 0x02",
            "          Company_Identifier: 0x000f",
            "          LMP_Subversion: 0x0001",
            "        01 01 10 00 09 01 00 02 0f 00 01 00",
        ])
        #expect(try LocalVersionInformation(returnParameters: [0x00, 0x09, 0x01, 0x00, 0x02, 0x0f, 0x00, 0x01, 0x00])
            == LocalVersionInformation(hciVersion: 9, hciSubversion: 1, lmpVersion: 2, companyIdentifier: 15, lmpSubversion: 1))
    }

    /// Bytes that do not fit the fields are reported by field name, never trapped on.
    @Test func malformedParametersNameTheField() throws {
        let d = try #require(CommandTable.description(.leSetExtendedScanParameters))
        #expect(throws: HCIFieldError(field: "PHYs", problem: "0 entries, at least 1 needed")) { try d.decodeParameters([0, 0, 0]) }
        #expect(d.describeParameters([0, 0, 1, 0]) == ["Malformed parameters: Scan_Interval: needs 2 byte(s), 0 left"])
        let legacy = try #require(CommandTable.description(.leSetAdvertisingData))
        #expect(legacy.describeParameters([32] + [UInt8](repeating: 0, count: 31)) == ["Malformed parameters: Advertising_Data: length 32 is more than 31"])
    }
}

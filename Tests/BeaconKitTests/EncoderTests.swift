// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
import Testing

/// Whole packets as hex against golden vectors. Where a vector comes from a public source, the
/// source is named.
@Suite struct EncoderTests {
    func hex(_ c: HCICommand) -> String { Hex.encode(c.packet) }

    @Test func goldenIBeaconAdvertisingData() throws {
        let beacon = try #require(Golden.beacon)
        #expect(Hex.encode(beacon.advertisingData) == "0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5")
        #expect(beacon.advertisingData.count == 30)
    }

    @Test func resetIsTheSpecPacket() {
        // Core spec Vol 4, Part E, §7.3.2: OGF 0x03, OCF 0x0003, no parameters.
        #expect(hex(.reset) == "01030c00")
    }

    @Test func informationalAndLEReads() {
        #expect(hex(.readLocalVersionInformation) == "01011000")
        #expect(hex(.readLocalSupportedCommands) == "01021000")
        #expect(hex(.leReadLocalSupportedFeatures) == "01032000")
        #expect(hex(.leReadAdvertisingPhysicalChannelTxPower) == "01072000")
        #expect(hex(.leReadMaximumAdvertisingDataLength) == "013a2000")
        #expect(hex(.leReadNumberOfSupportedAdvertisingSets) == "013b2000")
        #expect(hex(.leClearAdvertisingSets) == "013d2000")
    }

    /// Radius Networks, "How to make an iBeacon out of a Raspberry Pi" (2013), repeated in
    /// stackoverflow.com/questions/23483086: `hcitool -i hci0 cmd 0x08 0x0008 1e 02 01 1a 1a ff 4c 00
    /// 02 15 e2 c5 6d b5 df fb 48 d2 b0 60 d0 f5 a7 10 96 e0 00 00 00 00 c5 00` (flags 0x1a there).
    @Test func radiusNetworksRaspberryPiVector() throws {
        let data = try #require(Hex.decode("02011a1aff4c000215e2c56db5dffb48d2b060d0f5a71096e000000000c5"))
        #expect(hex(.leSetAdvertisingData(data)) ==
            "01082020" + "1e02011a1aff4c000215e2c56db5dffb48d2b060d0f5a71096e000000000c500")
        // Our iBeacon encoder produces the same manufacturer data for major 0, minor 0, power -59.
        let beacon = try #require(Golden.beacon)
        let zero = IBeacon(uuid: beacon.uuid, major: 0, minor: 0, measuredPower: -59)
        #expect([0x1a, 0xff] + zero.manufacturerData == Array(data[3...]))
    }

    /// Adafruit "Pi Beacon" guide / the same Radius Networks recipe: `hcitool -i hci0 cmd 0x08 0x0006
    /// A0 00 A0 00 03 00 00 00 00 00 00 00 00 07 00` (100 ms, ADV_NONCONN_IND, all channels).
    @Test func publicAdvertisingParametersVector() {
        #expect(hex(.leSetAdvertisingParameters(intervalMin: 0xA0, intervalMax: 0xA0, type: .advNonconnInd))
            == "0106200f" + "a000a0000300000000000000000700")
    }

    @Test func legacyEncoders() {
        #expect(hex(.leSetAdvertisingEnable(true)) == "010a200101")
        #expect(hex(.leSetAdvertisingEnable(false)) == "010a200100")
        #expect(hex(.leSetAdvertisingParameters(intervalMin: 0x20, intervalMax: 0x4000, type: .advInd))
            == "0106200f" + "2000" + "0040" + "00" + "00" + "00" + "000000000000" + "07" + "00")
        #expect(hex(.leSetScanResponseData([0x02, 0x0A, 0xF4])) == "01092020" + "03020af4" + String(repeating: "00", count: 28))
        #expect(hex(.leSetAdvertisingData([])) == "01082020" + String(repeating: "00", count: 32))
        // Display order C0:11:22:33:44:55 goes on the wire reversed.
        #expect(hex(.leSetRandomAddress([0xC0, 0x11, 0x22, 0x33, 0x44, 0x55])) == "0105200655443322" + "11c0")
    }

    @Test func extendedEncoders() throws {
        let beacon = try #require(Golden.beacon)
        #expect(hex(.leSetExtendedAdvertisingParameters(handle: 0, properties: .legacyNonconnectable, intervalMin: 0xA0, intervalMax: 0xA0))
            == "01362019" + "00" + "1000" + "a00000" + "a00000" + "07" + "00" + "00" + "000000000000" + "00" + "7f" + "01" + "00" + "01" + "00" + "00")
        #expect(hex(.leSetExtendedAdvertisingParameters(handle: 3, properties: .legacyConnectable, intervalMin: 0x4000, intervalMax: 0x4000, txPower: -10, sid: 2))
            == "01362019" + "03" + "1300" + "004000" + "004000" + "07" + "00" + "00" + "000000000000" + "00" + "f6" + "01" + "00" + "01" + "02" + "00")
        #expect(hex(.leSetExtendedAdvertisingData(handle: 0, data: beacon.advertisingData))
            == "01372022" + "0003011e" + Golden.advertisingDataHex)
        #expect(hex(.leSetExtendedAdvertisingEnable(true, sets: [AdvertisingSetEnable(handle: 0)])) == "013920060101" + "00000000")
        #expect(hex(.leSetExtendedAdvertisingEnable(false, sets: [])) == "0139200200" + "00")
        #expect(hex(.leSetExtendedAdvertisingEnable(true, sets: [AdvertisingSetEnable(handle: 1, duration: 500, maxExtendedAdvertisingEvents: 3)]))
            == "01392006" + "0101" + "01f40103")
        #expect(hex(.leRemoveAdvertisingSet(handle: 0)) == "013c200100")
    }

    @Test func opcodeKnowsOGFAndOCF() {
        let op = Opcode.leSetAdvertisingData
        #expect(op.rawValue == 0x2008)
        #expect(op.ogf == 0x08 && op.ocf == 0x0008)
        #expect(op.ogfOcfText == "(0x08|0x0008)")
        #expect(op.description == "LE Set Advertising Data (0x2008)")
        #expect(Opcode(ogf: 0x03, ocf: 0x0003) == .reset)
        #expect(Opcode(rawValue: 0xFC01).description == "Unknown (0xfc01)")
    }

    @Test func statusNamesFollowTheSpec() {
        #expect(Status.commandDisallowed.description == "Command Disallowed (0x0c)")
        #expect(Status.success.description == "Success (0x00)")
        #expect(Status(rawValue: 0x42).name == "Unknown Advertising Identifier")
        #expect(Status(rawValue: 0x45).name == "Packet Too Long")
        #expect(Status(rawValue: 0x12).name == "Invalid HCI Command Parameters")
        #expect(Status(rawValue: 0x46).description == "Unknown (0x46)")
        #expect(Status(rawValue: 0xFF).name == "Unknown")
    }

    @Test func everyTableEntryMatchesItsEncoder() {
        // Fixed-size entries must agree with what the encoders emit.
        let samples: [HCICommand] = [
            .reset, .readLocalVersionInformation, .readLocalSupportedCommands, .leReadLocalSupportedFeatures,
            .leSetAdvertisingParameters(intervalMin: 0xA0, intervalMax: 0xA0, type: .advNonconnInd),
            .leSetAdvertisingData([1, 2]), .leSetScanResponseData([]), .leSetAdvertisingEnable(true),
            .leSetRandomAddress([1, 2, 3, 4, 5, 6]),
            .leSetExtendedAdvertisingParameters(handle: 0, properties: .legacyNonconnectable, intervalMin: 0xA0, intervalMax: 0xA0),
            .leSetExtendedAdvertisingData(handle: 0, data: [1]), .leSetExtendedAdvertisingEnable(false, sets: []),
            .leRemoveAdvertisingSet(handle: 0), .leClearAdvertisingSets,
        ]
        for c in samples {
            let entry = CommandTable.entry(c.opcode)
            #expect(entry != nil, "\(c.opcode) missing from the table")
            #expect(entry?.parameters.accepts(c.parameters.count) == true, "\(c.opcode): \(c.parameters.count) bytes")
        }
    }

    @Test func uuidParsing() throws {
        let a = try #require(ProximityUUID("e2c56db5dffb48d2b060d0f5a71096e0"))
        let b = try #require(ProximityUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
        #expect(a == b)
        #expect(a.description == "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")
        #expect(ProximityUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E") == nil)
        #expect(ProximityUUID("E2C56DB5DFFB-48D2-B060-D0F5A71096E0A") == nil)
        #expect(ProximityUUID("Z2C56DB5-DFFB-48D2-B060-D0F5A71096E0") == nil)
        #expect(ProximityUUID("") == nil)
    }

    @Test func iBeaconRoundTripsThroughAdvertisingData() throws {
        let beacon = try #require(Golden.beacon)
        #expect(IBeacon(advertisingData: beacon.advertisingData) == beacon)
        let edge = IBeacon(uuid: beacon.uuid, major: 0xFFFF, minor: 0, measuredPower: -128)
        #expect(IBeacon(advertisingData: edge.advertisingData) == edge)
        // Not Apple, wrong type, short: nil, no trap.
        #expect(IBeacon(manufacturerData: [0x4D, 0x00, 0x02, 0x15] + beacon.uuid.bytes + [0, 1, 0, 2, 0xC5]) == nil)
        #expect(IBeacon(manufacturerData: [0x4C, 0x00, 0x02, 0x15, 0x01]) == nil)
        #expect(IBeacon(advertisingData: [0x1A, 0xFF, 0x4C]) == nil)
    }
}

@Suite struct DeviceNameTests {
    @Test func namesAndIndexes() {
        #expect(HCIDeviceInfo.id(fromName: "hci0") == 0)
        #expect(HCIDeviceInfo.id(fromName: "7") == 7)
        #expect(HCIDeviceInfo.id(fromName: "hci65534") == 65534)
        for bad in ["", "hci", "hci65535", "hci99999999999", "-1", "+1", "hci 0", "HCI0", "hci0x", "wlan0", "hci٣"] {
            #expect(HCIDeviceInfo.id(fromName: bad) == nil, "\(bad)")
        }
    }
}

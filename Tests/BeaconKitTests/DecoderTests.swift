// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
import Testing

@Suite struct DecoderTests {
    func bytes(_ hex: String) throws -> [UInt8] { try #require(Hex.decode(hex)) }

    /// raspberrypi.stackexchange.com/questions/111740: after `hcitool cmd 0x08 0x0008 ...` the
    /// controller answered `> HCI Event: 0x0e plen 4  01 08 20 00`.
    @Test func commandCompleteFromAPublicTrace() throws {
        let cc = try CommandComplete(try HCIEvent(packet: try bytes("040e0401082000")))
        #expect(cc.numHCICommandPackets == 1)
        #expect(cc.opcode == .leSetAdvertisingData)
        #expect(cc.status == .success)
    }

    /// Same thread: `hcitool cmd 0x08 0x0007` → `01 07 20 00 0C`: Success, tx power 12 dBm.
    @Test func readTxPowerFromAPublicTrace() throws {
        let cc = try CommandComplete(try HCIEvent(packet: try bytes("040e050107200" + "00c"))).validated()
        #expect(cc.opcode == .leReadAdvertisingPhysicalChannelTxPower)
        #expect(cc.status == .success)
        #expect(cc.returnParameters == [0x00, 0x0C])
    }

    @Test func commandStatus() throws {
        let cs = try CommandStatus(try HCIEvent(packet: try bytes("040f040c010620")))
        #expect(cs.status == .commandDisallowed)
        #expect(cs.numHCICommandPackets == 1)
        #expect(cs.opcode == .leSetAdvertisingParameters)
        #expect(throws: HCIDecodingError.lengthMismatch(expected: 4, actual: 3)) {
            try CommandStatus(HCIEvent(code: .commandStatus, parameters: [0, 1, 6]))
        }
    }

    @Test func truncatedEventsThrow() throws {
        #expect(throws: HCIDecodingError.lengthMismatch(expected: 4, actual: 3)) { try HCIEvent(packet: try bytes("040e04010820")) }
        #expect(throws: HCIDecodingError.self) { try HCIEvent(packet: []) }
        #expect(throws: HCIDecodingError.self) { try HCIEvent(packet: [0x04]) }
        #expect(throws: HCIDecodingError.self) { try HCIEvent(packet: [0x04, 0x0e]) }
        #expect(throws: HCIDecodingError.unexpectedPacketType(0x01)) { try HCIEvent(packet: try bytes("01030c00")) }
        // Command Complete with fewer than 3 parameter bytes.
        #expect(throws: HCIDecodingError.self) { try CommandComplete(HCIEvent(code: .commandComplete, parameters: [1, 0x08])) }
        // Every prefix of a valid event fails cleanly.
        let full = try bytes("040e0c01011000090000090500f1")
        for n in 0..<full.count { #expect(throws: HCIDecodingError.self) { try HCIEvent(packet: Array(full.prefix(n))) } }
    }

    @Test func oversizedEventsThrow() throws {
        #expect(throws: HCIDecodingError.lengthMismatch(expected: 4, actual: 5)) { try HCIEvent(packet: try bytes("040e040108200000")) }
        // A successful answer with the wrong return size is rejected by the table.
        let cc = try CommandComplete(try HCIEvent(packet: try bytes("040e0601082000aabb")))
        #expect(throws: HCIDecodingError.returnParameterLength(opcode: .leSetAdvertisingData, expected: .fixed(1), actual: 3)) { try cc.validated() }
        let version = try CommandComplete(try HCIEvent(packet: try bytes("040e0501011000" + "09")))
        #expect(throws: HCIDecodingError.self) { try version.validated() }
    }

    @Test func failedStatusMayComeAlone() throws {
        // Controllers answer a failed Read Local Version Information with the status byte only.
        let cc = try CommandComplete(try HCIEvent(packet: try bytes("040e04010110" + "0c"))).validated()
        #expect(cc.status == .commandDisallowed)
    }

    @Test func commandPacketsDecode() throws {
        let c = try HCICommand(packet: try bytes("010a200101"))
        #expect(c == .leSetAdvertisingEnable(true))
        #expect(throws: HCIDecodingError.parameterLength(opcode: .leSetAdvertisingEnable, expected: .fixed(1), actual: 2)) {
            try HCICommand(packet: try bytes("010a20020100"))
        }
        #expect(throws: HCIDecodingError.lengthMismatch(expected: 2, actual: 1)) { try HCICommand(packet: try bytes("010a200201")) }
        #expect(throws: HCIDecodingError.self) { try HCICommand(packet: [0x01, 0x0a]) }
    }

    @Test func localVersionInformation() throws {
        let v = try LocalVersionInformation(returnParameters: try bytes("00090000090500f1"  + "00"))
        #expect(v.hciVersion == 9 && v.coreVersion == "5.0")
        #expect(v.companyIdentifier == 0x0005)
        #expect(throws: HCIDecodingError.self) { try LocalVersionInformation(returnParameters: [0, 9]) }
    }

    @Test func advertisingDataParsing() throws {
        let s = try ADStructure.parse(try bytes(Golden.advertisingDataHex))
        #expect(s.count == 2)
        #expect(s[0] == ADStructure(type: .flags, data: [0x06]))
        #expect(s[1].type == .manufacturerSpecificData && s[1].data.count == 25)
        // Zero length ends the significant part (zero padding); non-zero bytes after it and a length past the end throw.
        #expect(try ADStructure.parse([0x02, 0x01, 0x06, 0x00, 0x00, 0x00]) == [ADStructure(type: .flags, data: [0x06])])
        #expect(throws: ADParseError.nonZeroPadding(end: 3, offset: 5, value: 0xFF)) { try ADStructure.parse([0x02, 0x01, 0x06, 0x00, 0x00, 0xFF]) }
        #expect(throws: ADParseError.lengthPastEnd(offset: 3, length: 9, available: 2)) { try ADStructure.parse([0x02, 0x01, 0x06, 0x09, 0x09, 0x41]) }
    }

    @Test func btsnoopStructure() throws {
        let commands: [HCICommand] = [.reset, .leSetAdvertisingEnable(true)]
        let file = BTSnoop.encode(BTSnoop.syntheticCapture(of: commands, startMicroseconds: 1_000_000))
        // Header: magic, version 1, datalink 1002, big-endian.
        #expect(Hex.encode(file.prefix(16)) == "6274736e6f6f700000000001000003ea")
        // First record: lengths 4/4, flags 2 (sent command), drops 0, timestamp 1 s after the epoch + offset.
        #expect(Hex.encode(file[16..<40]) == "00000004" + "00000004" + "00000002" + "00000000" + "00dcddb30f3ec240")
        #expect(Hex.encode(file[40..<44]) == "01030c00")
        let records = try BTSnoop.read(file, .fail).frames.map(BTSnoop.Record.init)
        #expect(records.count == 4)
        #expect(records.map(\.received) == [false, true, false, true])
        #expect(records[1].packet == [0x04, 0x0e, 0x04, 0x01, 0x03, 0x0c, 0x00])
        #expect(records[3].unixMicroseconds == 1_003_000)
        #expect(throws: BTSnoopError.notBTSnoop) { try BTSnoop.read(Array("notsnoop........".utf8), .fail) }
        // A record cut at the end: an error when the file must be whole, a warning otherwise.
        #expect(throws: BTSnoopError.self) { try BTSnoop.read(Array(file.dropLast()), .fail) }
        let cut = try BTSnoop.read(Array(file.dropLast()), .dropWithWarning)
        #expect(cut.frames.count == 3)
        #expect(cut.warning == "record 4 is cut short at the end of the file (truncated packet: needs 7 byte(s), 6 left); read 3 records")
    }
}

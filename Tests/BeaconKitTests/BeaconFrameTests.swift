// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
import Testing

/// AltBeacon and Eddystone (UID, URL, TLM) frames as whole advertising data, against vectors
/// written out field by field from their specifications (issue 44), and parsed back.
@Suite struct BeaconFrameTests {
    /// Hex written field by field.
    func hex(_ fields: String...) -> String { fields.joined() }

    static let id1 = ProximityUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")

    /// AltBeacon: Flags, then `1B FF`, MFG ID 0x0118 little-endian, the code `BE AC`, the 20-byte
    /// beacon ID (id1, id2, id3 big-endian), Ref RSSI -59, MFG RSVD 0: 31 bytes.
    @Test func altBeaconBytesFieldByField() throws {
        let b = AltBeacon(id1: try #require(Self.id1), id2: 1, id3: 2)
        let want = hex("020106", "1bff", "1801", "beac", "e2c56db5dffb48d2b060d0f5a71096e0", "0001", "0002", "c5", "00")
        #expect(Hex.encode(b.advertisingData) == want)
        #expect(b.advertisingData.count == 31)
        #expect(AltBeacon(advertisingData: b.advertisingData) == b)
        var other = b
        other.manufacturer = 0x004C
        other.reserved = 0xA5
        other.referenceRSSI = -70
        #expect(Hex.encode(other.manufacturerData) == hex("4c00", "beac", "e2c56db5dffb48d2b060d0f5a71096e0", "0001", "0002", "ba", "a5"))
        #expect(AltBeacon(manufacturerData: other.manufacturerData) == other)
    }

    @Test func altBeaconParsingRefusesOtherData() throws {
        let b = AltBeacon(id1: try #require(Self.id1), id2: 1, id3: 2)
        var wrongCode = b.manufacturerData
        wrongCode[3] = 0xAD
        #expect(AltBeacon(manufacturerData: wrongCode) == nil)
        #expect(AltBeacon(manufacturerData: Array(b.manufacturerData.dropLast())) == nil)
        #expect(AltBeacon(manufacturerData: b.manufacturerData + [0]) == nil)
        let iBeacon = IBeacon(uuid: try #require(Self.id1), major: 1, minor: 2)
        #expect(AltBeacon(advertisingData: iBeacon.advertisingData) == nil)
        #expect(IBeacon(advertisingData: b.advertisingData) == nil, "an AltBeacon is not an iBeacon")
    }

    /// Eddystone-UID: Flags, `03 03 AA FE`, then `17 16 AA FE`, frame type 0x00, ranging data -20
    /// (0xEC), the namespace, the instance and the two RFU bytes: 31 bytes.
    @Test func eddystoneUIDBytesFieldByField() throws {
        let uid = try #require(Eddystone.UID(namespace: Hex.decode("edd1ebeac04e5defa017") ?? [], instance: Hex.decode("0123456789ab") ?? [], txPower: -20))
        let frame = Eddystone.Frame.uid(uid)
        #expect(Hex.encode(frame.advertisingData) == hex("020106", "0303aafe", "1716aafe", "00", "ec", "edd1ebeac04e5defa017", "0123456789ab", "0000"))
        #expect(frame.advertisingData.count == 31)
        #expect(Eddystone.Frame(advertisingData: frame.advertisingData) == frame)
        // 18 bytes without the RFU bytes are read too; other lengths are not.
        #expect(Eddystone.Frame(serviceData: Array(frame.serviceData.dropLast(2))) == frame)
        #expect(Eddystone.Frame(serviceData: Array(frame.serviceData.dropLast(1))) == nil)
        #expect(Eddystone.UID(namespace: [0, 1], instance: [], txPower: 0) == nil)
    }

    /// Vectors from another parser's test suite (beacontools): its 31-byte UID packet, and its URL
    /// packet without Flags, read here to the values they carry and written back byte for byte.
    @Test func eddystoneVectorsFromBeacontools() throws {
        let uidPacket = try #require(Hex.decode(hex("020106", "0303aafe", "1716aafe", "00e3", "12345678901234678901", "000000000001", "0000")))
        let uid = try #require(Eddystone.UID(namespace: Hex.decode("12345678901234678901") ?? [], instance: Hex.decode("000000000001") ?? [], txPower: -29))
        #expect(Eddystone.Frame(advertisingData: uidPacket) == .uid(uid))
        #expect(Eddystone.Frame.uid(uid).advertisingData == uidPacket)
        let github = Hex.encode(Array("github".utf8)), citruz = Hex.encode(Array("citruz".utf8))
        let urlPacket = try #require(Hex.decode(hex("0303aafe", "1316aafe", "10f803", github, "00", citruz)))
        let url = try Eddystone.URL("https://github.com/citruz", txPower: -8)
        #expect(Eddystone.Frame(advertisingData: urlPacket) == .url(url))
        #expect(Eddystone.Frame.url(url).advertisingData == [0x02, 0x01, 0x06] + urlPacket, "ours adds only the Flags")
    }

    /// Eddystone-URL: the longest scheme prefix and expansions win. "https://www.example.com/" is
    /// scheme 0x01, "example", then 0x00 (".com/"): `0E 16 AA FE 10 EC 01 ...`.
    @Test func eddystoneURLEncodingFieldByField() throws {
        let url = try Eddystone.URL("https://www.example.com/", txPower: -20)
        #expect(url.scheme == 0x01)
        #expect(Hex.encode(url.encoded) == hex("6578616d706c65", "00"))
        #expect(Hex.encode(Eddystone.Frame.url(url).advertisingData) == hex("020106", "0303aafe", "0e16aafe", "10ec01", "6578616d706c6500"))
        #expect(Eddystone.Frame(advertisingData: Eddystone.Frame.url(url).advertisingData) == .url(url))

        let cases: [(String, UInt8, String)] = [
            ("http://www.google.com", 0x00, hex("676f6f676c65", "07")),
            ("https://goo.gl/S6zT6P", 0x03, "676f6f2e676c2f53367a543650"),
            ("http://example.org/a", 0x02, hex("6578616d706c65", "01", "61")),
            ("https://myp.me?A", 0x03, "6d79702e6d653f41"),
            ("https://x.info/y.biz", 0x03, hex("78", "04", "79", "0c")),
        ]
        for (text, scheme, body) in cases {
            let u = try Eddystone.URL(text, txPower: 0)
            #expect(u.scheme == scheme, "\(text)")
            #expect(Hex.encode(u.encoded) == body, "\(text)")
            #expect(Eddystone.Frame(serviceData: Eddystone.Frame.url(u).serviceData) == .url(u), "\(text) decodes to itself")
        }
    }

    @Test func eddystoneURLRefusals() throws {
        #expect(throws: Eddystone.URLError.noScheme) { try Eddystone.URL("ftp://example.com", txPower: 0) }
        #expect(throws: Eddystone.URLError.characterNotAllowed(offset: 12, byte: 0x20)) { try Eddystone.URL("https://a.b/ c", txPower: 0) }
        // 18 bytes after the scheme: one over the limit, named with its length.
        #expect(throws: Eddystone.URLError.tooLong(encodedLength: 18)) { try Eddystone.URL("https://abcdefghijklmnopqr", txPower: 0) }
        #expect((try? Eddystone.URL("https://abcdefghijklmnopq", txPower: 0))?.encoded.count == 17)
        #expect(Eddystone.URLError.tooLong(encodedLength: 18).description.contains("at most 17"))
        // A reserved code (0x0E) or an unknown scheme (0x04) is no URL.
        #expect(Eddystone.Frame(serviceData: [0xAA, 0xFE, 0x10, 0x00, 0x03, 0x61, 0x0E]) == nil)
        #expect(Eddystone.Frame(serviceData: [0xAA, 0xFE, 0x10, 0x00, 0x04, 0x61]) == nil)
    }

    /// Eddystone-TLM, unencrypted: version 0, VBATT 0 (mains), TEMP 0x8000 (not supported),
    /// ADV_CNT and SEC_CNT big-endian: `11 16 AA FE 20 00 ...`, 25 bytes with the Flags and list.
    @Test func eddystoneTLMBytesFieldByField() throws {
        let tlm = Eddystone.TLM(advertisingPDUCount: 0x0102, uptimeTenths: 0x30)
        let frame = Eddystone.Frame.tlm(tlm)
        #expect(Hex.encode(frame.advertisingData) == hex("020106", "0303aafe", "1116aafe", "2000", "0000", "8000", "00000102", "00000030"))
        #expect(frame.advertisingData.count == 25)
        #expect(tlm.celsius == nil)
        #expect(Eddystone.Frame(advertisingData: frame.advertisingData) == frame)
        // 26.5 °C in 8.8 fixed point is 0x1A80; 3.0 V is 0x0BB8 mV.
        let warm = Eddystone.TLM(batteryMillivolts: 3000, temperature: 0x1A80, advertisingPDUCount: 1, uptimeTenths: 2)
        #expect(Hex.encode(warm.frame) == hex("2000", "0bb8", "1a80", "00000001", "00000002"))
        #expect(warm.celsius == 26.5)
        #expect(Eddystone.Frame(serviceData: [0xAA, 0xFE] + Array(warm.frame.dropLast())) == nil)
        var encrypted = warm.frame
        encrypted[1] = 0x01
        #expect(Eddystone.Frame(serviceData: [0xAA, 0xFE] + encrypted) == nil, "version 1 (encrypted TLM) is not read as plain")
    }

    @Test func otherServiceDataIsNoEddystone() {
        #expect(Eddystone.Frame(serviceData: [0x0F, 0x18, 0x00, 0x00]) == nil)
        #expect(Eddystone.Frame(serviceData: [0xAA, 0xFE, 0x30, 0x00]) == nil, "frame type 0x30 (EID) is not built here")
        #expect(Eddystone.Frame(serviceData: [0xAA]) == nil)
        #expect(Eddystone.Frame(advertisingData: [0x02, 0x01]) == nil)
    }
}

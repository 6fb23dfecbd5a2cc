// SPDX-License-Identifier: Apache-2.0
import Testing
import BeaconKit

private func bytes(_ text: String) -> [UInt8] { Hex.decode(text) ?? [] }

/// Public vector: an iBeacon LE Advertising Report as read from a BlueZ HCI socket, quoted in
/// wolfspyre/PyBTSteward `EddyStone.md` (github.com/wolfspyre/PyBTSteward/blob/master/EddyStone.md):
/// ADV_NONCONN_IND, public 0C:F3:EE:00:F8:EC, UUID 8DEEFBB9-F738-4297-8040-96668BB44281,
/// major 5000, minor 3918, measured power −63, RSSI −69.
private let publicIBeaconEvent = bytes("""
    04 3E 2A 02 01 03 00 EC F8 00 EE F3 0C 1E 02 01 04 1A FF 4C 00 02 15 8D EE FB B9 F7 38 42 97 80
    40 96 66 8B B4 42 81 13 88 0F 4E C1 BB
    """)

/// Two legacy reports, one after the other: an iBeacon ADV_NONCONN_IND from random C0:11:22:33:44:55
/// at −60 dBm, then an empty SCAN_RSP from public 00:1A:7D:DA:71:13 with RSSI 127 (not available).
private let twoLegacyReports = bytes("""
    04 3e 34 02 02 03 01 55 44 33 22 11 c0 1e 02 01 06 1a ff 4c 00 02 15 e2 c5 6d b5 df fb 48 d2 b0
    60 d0 f5 a7 10 96 e0 00 01 00 02 c5 c4 04 00 13 71 da 7d 1a 00 00 7f
    """)

/// Extended report re-encoded from the btmon decode quoted in wcbonner/GoveeBTTempLogger issue #43
/// (random 7B:F0:AC:CE:29:32, LE 1M, no secondary PHY, SID 0xff, TX power 127, RSSI −85 (0xab),
/// direct address public 00:00:00:00:00:00, data `02 01 02`); the event type, not shown there, is 0x0013.
private let goveeExtendedReport = bytes("""
    04 3e 1d 0d 01 13 00 01 32 29 ce ac f0 7b 01 00 ff 7f ab 00 00 00 00 00 00 00 00 00 03 02 01 02
    """)

/// Two extended reports: a legacy-PDU iBeacon (0x0010) at −50 dBm, then an extended connectable
/// advertisement with incomplete data (0x0021), LE 1M / LE 2M, SID 3, TX power 9, RSSI −57,
/// periodic interval 0x0050, random direct address C0:FF:EE:00:00:01, data "ABCD" as a local name.
private let twoExtendedReports = bytes("""
    04 3e 56 0d 02 10 00 00 23 00 00 01 aa 00 01 00 ff 7f ce 00 00 00 00 00 00 00 00 00 1e 02 01 06
    1a ff 4c 00 02 15 e2 c5 6d b5 df fb 48 d2 b0 60 d0 f5 a7 10 96 e0 00 01 00 02 c5 21 00 01 c8 84
    01 18 85 34 01 02 03 09 c7 50 00 01 01 00 00 ee ff c0 06 05 09 41 42 43 44
    """)

/// Rewrites plen after a test has cut or grown the parameters.
private func reframed(_ packet: [UInt8]) -> [UInt8] {
    var p = packet
    p[2] = UInt8(p.count - 3)
    return p
}

@Suite("Scanning: LE advertising report decoding")
struct ScanningReportsTests {
    /// Wire order in, most significant byte first out, whatever the length.
    @Test func addressText() {
        #expect(AdvertisingReport.addressText(wireOrder: bytes("ec f8 00 ee f3 0c")) == "0C:F3:EE:00:F8:EC")
        #expect(AdvertisingReport.addressText(wireOrder: bytes("ab cd")[1...]) == "CD")
        #expect(AdvertisingReport.addressText(wireOrder: bytes("01 a2")) == "A2:01")
        #expect(AdvertisingReport.addressText(wireOrder: [UInt8]()) == "")
    }

    @Test func publicIBeaconVector() throws {
        let reports = try #require(try AdvertisingReports.decode(eventPacket: publicIBeaconEvent))
        #expect(reports.count == 1)
        let r = try #require(reports.first)
        #expect(r.eventType == .legacy(.advNonconnInd))
        #expect(r.addressType == .publicDevice)
        #expect(r.address == "0C:F3:EE:00:F8:EC")
        #expect(r.rssi == -69)
        #expect(r.txPower == nil)
        #expect(!r.isExtended)
        #expect(r.data.count == 30)
        let beacon = try #require(IBeacon(advertisingData: r.data))
        #expect(beacon.uuid.description == "8DEEFBB9-F738-4297-8040-96668BB44281")
        #expect(beacon.major == 5000)
        #expect(beacon.minor == 3918)
        #expect(beacon.measuredPower == -63)

        let observation = try #require(BeaconObservation(report: r, timestamp: 12.5))
        #expect(observation.identity.description == "8DEEFBB9-F738-4297-8040-96668BB44281:5000:3918")
        #expect(observation.rssi == -69 && observation.timestamp == 12.5 && observation.address == "0C:F3:EE:00:F8:EC")
    }

    @Test func twoLegacyReportsInOneEvent() throws {
        let reports = try #require(try AdvertisingReports.decode(eventPacket: twoLegacyReports))
        #expect(reports.count == 2)
        #expect(reports[0] == AdvertisingReport(
            eventType: .legacy(.advNonconnInd), addressType: .randomDevice, address: "C0:11:22:33:44:55", rssi: -60,
            data: bytes("02 01 06 1a ff 4c 00 02 15 e2 c5 6d b5 df fb 48 d2 b0 60 d0 f5 a7 10 96 e0 00 01 00 02 c5")))
        #expect(reports[1] == AdvertisingReport(
            eventType: .legacy(.scanRsp), addressType: .publicDevice, address: "00:1A:7D:DA:71:13", rssi: nil, data: []))
        #expect(reports[1].eventType.isScanResponse && !reports[0].eventType.isConnectable)

        let (observations, error) = BeaconObservation.observations(inEventPacket: twoLegacyReports, timestamp: 3)
        #expect(error == nil)
        #expect(observations.map(\.identity.description) == ["E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2"])
        #expect(observations.first?.beacon?.measuredPower == -59)
    }

    @Test func extendedReportFromBtmonDecode() throws {
        let reports = try #require(try AdvertisingReports.decode(eventPacket: goveeExtendedReport))
        let r = try #require(reports.first)
        #expect(reports.count == 1)
        #expect(r.eventType == .extended(AdvertisingReport.ExtendedEventType(rawValue: 0x0013)))
        #expect(r.eventType.description == "0x0013 (legacy ADV_IND)")
        #expect(r.isExtended)
        #expect(r.addressType == .randomDevice && r.address == "7B:F0:AC:CE:29:32")
        #expect(r.rssi == -85)
        #expect(r.txPower == nil)   // 127: not available
        #expect(r.data == [0x02, 0x01, 0x02])
        #expect(r.extended == AdvertisingReport.ExtendedFields(
            primaryPHY: .le1M, secondaryPHY: .none, advertisingSID: nil, periodicAdvertisingInterval: nil,
            directAddressType: .publicDevice, directAddress: "00:00:00:00:00:00"))
    }

    @Test func twoExtendedReportsInOneEvent() throws {
        let reports = try #require(try AdvertisingReports.decode(eventPacket: twoExtendedReports))
        #expect(reports.count == 2)
        let beacon = reports[0]
        #expect(beacon.eventType.description == "0x0010 (legacy ADV_NONCONN_IND)")
        #expect(beacon.address == "00:AA:01:00:00:23" && beacon.addressType == .publicDevice)
        #expect(beacon.rssi == -50)
        #expect(IBeacon(advertisingData: beacon.data)?.minor == 2)

        let other = reports[1]
        guard case let .extended(type) = other.eventType else { Issue.record("not extended"); return }
        #expect(type.contains(.connectable) && !type.contains(.legacyPDU))
        #expect(type.dataStatus == 1 && !type.isComplete)
        #expect(type.description == "0x0021 (connectable, incomplete, more data to come)")
        #expect(other.txPower == 9 && other.rssi == -57)
        #expect(other.address == "34:85:18:01:84:C8" && other.addressType == .randomDevice)
        #expect(other.extended == AdvertisingReport.ExtendedFields(
            primaryPHY: .le1M, secondaryPHY: .le2M, advertisingSID: 3, periodicAdvertisingInterval: 0x0050,
            directAddressType: .randomDevice, directAddress: "C0:FF:EE:00:00:01"))
        #expect(other.data == bytes("05 09 41 42 43 44"))

        let (observations, _) = BeaconObservation.observations(inEventPacket: twoExtendedReports, timestamp: 0)
        #expect(observations.count == 1 && observations.first?.address == "00:AA:01:00:00:23")
    }

    @Test func rssiAndTxPower127AreNotAvailable() throws {
        var packet = twoExtendedReports
        // Report 2's TX_Power: H4 header 3, subevent + Num_Reports 2, report 1 (24 + 30 data), then 12 in.
        let txOffset = 3 + 2 + 54 + 12
        #expect(packet[txOffset] == 0x09 && packet[txOffset + 1] == 0xc7)
        packet[txOffset] = 0x7f
        packet[txOffset + 1] = 0x7f
        let reports = try #require(try AdvertisingReports.decode(eventPacket: packet))
        #expect(reports[1].txPower == nil)
        #expect(reports[1].rssi == nil)
        // −127 is a real reading, not "not available".
        packet[txOffset + 1] = 0x81
        #expect(try AdvertisingReports.decode(eventPacket: packet)?[1].rssi == -127)
    }

    @Test func otherEventsAreNotReports() throws {
        // Command Complete for LE Set Scan Enable, and an LE Connection Complete meta event.
        #expect(try AdvertisingReports.decode(eventPacket: bytes("04 0e 04 01 0c 20 00")) == nil)
        #expect(AdvertisingReports.decodePartial(eventPacket: bytes("04 3e 02 01 00")) == nil)
        #expect(AdvertisingReports.decodePartial(eventPacket: bytes("02 3e 02 02 00")) == nil)   // ACL, not an event
        #expect(AdvertisingReports.decodePartial(eventPacket: []) == nil)
        let (observations, error) = BeaconObservation.observations(inEventPacket: bytes("04 0e 04 01 0c 20 00"), timestamp: 0)
        #expect(observations.isEmpty && error == nil)
    }

    @Test func zeroReports() throws {
        #expect(try AdvertisingReports.decode(eventPacket: bytes("04 3e 02 02 00")) == [])
    }

    @Test func plenMismatchIsAnEventError() {
        var packet = publicIBeaconEvent
        packet.removeLast()
        #expect(throws: AdvertisingReportError.event(.lengthMismatch(expected: 0x2A, actual: 0x29))) {
            try AdvertisingReports.decode(eventPacket: packet)
        }
    }

    @Test func truncatedReportKeepsNothingAndNamesTheField() {
        // Cut inside the address of the only report.
        let packet = reframed(Array(publicIBeaconEvent.prefix(9)))
        let batch = AdvertisingReports.decodePartial(eventPacket: packet)
        #expect(batch?.reports == [])
        #expect(batch?.error == .truncated(report: 0, numReports: 1, .truncated(field: "Address", needed: 6, available: 2)))
    }

    @Test func missingRSSIAfterData() {
        let packet = reframed(Array(publicIBeaconEvent.dropLast()))
        #expect(throws: AdvertisingReportError.truncated(report: 0, numReports: 1, .truncated(field: "RSSI", needed: 1, available: 0))) {
            try AdvertisingReports.decode(eventPacket: packet)
        }
    }

    @Test func dataLengthPastTheEnd() {
        var packet = publicIBeaconEvent
        packet[13] = 0x40   // Data_Length 64, only 31 bytes (30 data + RSSI) follow
        #expect(throws: AdvertisingReportError.dataLengthPastEnd(report: 0, length: 64, available: 31)) {
            try AdvertisingReports.decode(eventPacket: packet)
        }
        var extended = goveeExtendedReport
        extended[extended.count - 4] = 0xff
        #expect(throws: AdvertisingReportError.dataLengthPastEnd(report: 0, length: 255, available: 3)) {
            try AdvertisingReports.decode(eventPacket: extended)
        }
    }

    @Test func oversizedNumReportsGivesPartialResult() throws {
        var packet = twoLegacyReports
        packet[4] = 5
        let batch = try #require(AdvertisingReports.decodePartial(eventPacket: packet))
        #expect(batch.reports.count == 2)
        #expect(batch.reports.map(\.address) == ["C0:11:22:33:44:55", "00:1A:7D:DA:71:13"])
        #expect(batch.error == .truncated(report: 2, numReports: 5, .truncated(field: "Event_Type", needed: 1, available: 0)))
        #expect(batch.error?.description == "advertising report 3 of 5: truncated Event_Type: needs 1 byte(s), 0 left")
        #expect(throws: AdvertisingReportError.self) { try AdvertisingReports.decode(eventPacket: packet) }
        // The lenient path still yields the beacon.
        let (observations, error) = BeaconObservation.observations(inEventPacket: packet, timestamp: 0)
        #expect(observations.count == 1 && error != nil)
    }

    @Test func trailingBytesAfterTheLastReport() throws {
        var packet = twoLegacyReports
        packet[4] = 1
        let batch = try #require(AdvertisingReports.decodePartial(eventPacket: packet))
        #expect(batch.reports.count == 1)
        #expect(batch.error == .trailingBytes(10))
    }

    @Test func zeroLengthADStructureDecodesWithoutBeacon() throws {
        // A report whose data starts with a zero length octet: early termination (Vol 3, Part C, §11).
        let packet = bytes("04 3e 0f 02 01 03 00 01 02 03 04 05 06 03 00 02 01 c8")
        let reports = try #require(try AdvertisingReports.decode(eventPacket: packet))
        #expect(reports.first?.data == [0x00, 0x02, 0x01])
        #expect(reports.first?.rssi == -56)
        #expect(BeaconObservation(report: try #require(reports.first), timestamp: 0) == nil)
        // A report with no data at all.
        let empty = bytes("04 3e 0c 02 01 03 00 01 02 03 04 05 06 00 c8")
        #expect(try AdvertisingReports.decode(eventPacket: empty)?.first?.data == [])
    }

    @Test func descriptionLines() throws {
        let r = try #require(try AdvertisingReports.decode(eventPacket: publicIBeaconEvent)?.first)
        #expect(Array(r.descriptionLines.prefix(5)) == [
            "Event type: ADV_NONCONN_IND (0x03)", "Address type: Public (0x00)", "Address: 0C:F3:EE:00:F8:EC",
            "RSSI: -69 dBm", "Data length: 0x1e",
        ])
        #expect(r.descriptionLines.contains("    Major: 5000"))
    }

    /// Every prefix of every valid event, with plen both as cut and as original: never a trap, and
    /// a cut event is never mistaken for a complete one.
    @Test func everyTruncationIsHandled() {
        for event in [publicIBeaconEvent, twoLegacyReports, goveeExtendedReport, twoExtendedReports] {
            for length in 0..<event.count {
                let prefix = Array(event.prefix(length))
                _ = AdvertisingReports.decodePartial(eventPacket: prefix)
                if length >= 4 {
                    let batch = AdvertisingReports.decodePartial(eventPacket: reframed(prefix))
                    #expect(batch?.error != nil, "prefix \(length) of \(Hex.encode(event))")
                }
            }
        }
    }

    /// Deterministic random mutations (xorshift): decoding must not trap, and a strict decode that
    /// succeeds must agree with the lenient one.
    @Test func mutatedEventsNeverTrap() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return state
        }
        let seeds = [publicIBeaconEvent, twoLegacyReports, goveeExtendedReport, twoExtendedReports]
        var decoded = 0
        for i in 0..<4000 {
            var packet = seeds[i % seeds.count]
            for _ in 0..<(1 + Int(next() % 3)) {
                let index = 3 + Int(next() % UInt64(packet.count - 3))
                packet[index] = UInt8(truncatingIfNeeded: next())
            }
            let batch = AdvertisingReports.decodePartial(eventPacket: packet)
            if let strict = try? AdvertisingReports.decode(eventPacket: packet) {
                #expect(batch?.reports == strict && batch?.error == nil)
                decoded += 1
            }
        }
        #expect(decoded > 0)
    }
}

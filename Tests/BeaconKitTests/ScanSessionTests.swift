// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
import Testing

/// The scan session alone: events and times in, ranging updates, region transitions and
/// advertisements out, whole lists compared.
@Suite struct ScanSessionTests {
    static let uuid = ProximityUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!

    /// LE Advertising Report event: one ADV_NONCONN_IND report from AA:01:00:00:00:00 (public).
    static func reportEvent(_ data: [UInt8], rssi: Int8) -> HCIEvent {
        var p: [UInt8] = [0x02, 0x01, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xAA, UInt8(data.count)]
        p += data
        p.append(UInt8(bitPattern: rssi))
        return HCIEvent(code: .leMeta, parameters: p)
    }

    static func beacon(major: UInt16, minor: UInt16 = 2) -> IBeacon { IBeacon(uuid: uuid, major: major, minor: minor, measuredPower: -59) }

    static func report(_ data: [UInt8], rssi: Int8) -> AdvertisingReport {
        AdvertisingReport(eventType: .legacy(.advNonconnInd), addressType: .publicDevice, address: "AA:01:00:00:00:00", rssi: rssi, data: data)
    }

    static func ranged(_ b: IBeacon, rssi: Int8, smoothed: Double, samples: Int, lastSeen: Double) -> ScanUpdate {
        let config = RangingConfiguration()
        let distance = config.pathLoss.distance(measuredPower: b.measuredPower, rssi: smoothed)
        return .ranged(RangedBeacon(identity: BeaconIdentity(b), frame: .iBeacon(b), measuredPower: b.measuredPower, address: "AA:01:00:00:00:00",
                                    rssi: rssi, smoothedRSSI: smoothed, sampleCount: samples, distance: distance,
                                    proximity: config.thresholds.classify(distance), lastSeen: lastSeen),
                       addressType: .publicDevice)
    }

    /// Kills "the 1 Hz ranging throttle removed": reports 0.3 s apart give one update per second.
    @Test func rangingUpdatesAreThrottledToOncePerSecondPerBeacon() throws {
        let b = Self.beacon(major: 1)
        var s = ScanSession(ScanConfiguration())
        var updates: [ScanUpdate] = []
        for (t, rssi) in [(10.0, -60), (10.3, -62), (10.9, -64), (11.0, -66), (11.5, -60)] as [(Double, Int8)] {
            updates += try s.receive(Self.reportEvent(b.advertisingData, rssi: rssi), at: t)
        }
        #expect(updates == [
            Self.ranged(b, rssi: -60, smoothed: -60, samples: 1, lastSeen: 10),
            Self.ranged(b, rssi: -66, smoothed: -63, samples: 4, lastSeen: 11),
        ])
        // Another beacon has its own throttle.
        let other = Self.beacon(major: 1, minor: 3)
        #expect(try s.receive(Self.reportEvent(other.advertisingData, rssi: -70), at: 11.6)
            == [Self.ranged(other, rssi: -70, smoothed: -70, samples: 1, lastSeen: 11.6)])
        #expect(s.reportCount == 6 && s.beaconCount == 2)
    }

    /// AltBeacon and Eddystone are ranged beside iBeacon, each by its own identity and its power at
    /// 1 m (Eddystone: ranging data less 41 dB); an Eddystone-TLM joins the beacon of its address,
    /// and is no beacon of its own. Kills "TLM ranged as a beacon", "TLM from another address
    /// attached", "Eddystone ranged from its 0 m power".
    @Test func otherTypesAreRangedAndTelemetryJoinsItsAddress() throws {
        let uid = Eddystone.Frame.uid(try #require(Eddystone.UID(namespace: Array(0..<10), instance: Array(0..<6), txPower: -18)))
        let alt = AltBeacon(id1: Self.uuid, id2: 1, id3: 2, referenceRSSI: -61)
        let tlm = Eddystone.TLM(advertisingPDUCount: 1234, uptimeTenths: 567)
        var s = ScanSession(ScanConfiguration())
        // The TLM first: kept for its address, nothing ranged.
        #expect(try s.receive(Self.reportEvent(Eddystone.Frame.tlm(tlm).advertisingData, rssi: -70), at: 1) == [])
        let ranged = try s.receive(Self.reportEvent(uid.advertisingData, rssi: -59), at: 2)
        guard case let .ranged(r, _)? = ranged.first else { Issue.record("not ranged: \(ranged)"); return }
        #expect(r.identity == .eddystoneUID(namespace: Array(0..<10), instance: Array(0..<6)))
        #expect(r.measuredPower == -59 && r.distance == 1 && r.telemetry == tlm)
        #expect(r.identity.text == "eddystone-uid namespace 00010203040506070809 instance 000102030405")
        let a = try s.receive(Self.reportEvent(BeaconFrame.altBeacon(alt).advertisingData, rssi: -61), at: 2)
        guard case let .ranged(ra, _)? = a.first else { Issue.record("not ranged: \(a)"); return }
        #expect(ra.identity == .altBeacon(id1: Self.uuid, id2: 1, id3: 2) && ra.measuredPower == -61 && ra.telemetry == nil)
        #expect(s.beaconCount == 2 && s.reportCount == 3)
        // Another address's TLM is not this beacon's.
        var other = ScanSession(ScanConfiguration())
        var otherAddress = Self.reportEvent(Eddystone.Frame.tlm(tlm).advertisingData, rssi: -70).parameters
        otherAddress[4] = 0x99
        _ = try other.receive(HCIEvent(code: .leMeta, parameters: otherAddress), at: 1)
        guard case let .ranged(r2, _)? = try other.receive(Self.reportEvent(uid.advertisingData, rssi: -59), at: 2).first else {
            Issue.record("not ranged"); return
        }
        #expect(r2.telemetry == nil)
        // An Eddystone region filters by namespace.
        var filtered = ScanSession(ScanConfiguration(regions: [try #require(BeaconRegion(namespace: Array(0..<10)))]))
        #expect(try filtered.receive(Self.reportEvent(BeaconFrame.altBeacon(alt).advertisingData, rssi: -61), at: 1) == [])
        #expect(try filtered.receive(Self.reportEvent(uid.advertisingData, rssi: -59), at: 1).count == 2)   // enter, range
    }

    /// Kills "`--all` dropping beacons outside the region": with `reportAll`, an iBeacon outside every
    /// region is listed as an advertisement; without it, nothing.
    @Test func reportAllListsBeaconsOutsideTheRegions() throws {
        let region = BeaconRegion(uuid: Self.uuid, major: 1)
        let outside = Self.beacon(major: 2)
        let plain: [UInt8] = [0x02, 0x01, 0x06]
        var all = ScanSession(ScanConfiguration(regions: [region], reportAll: true))
        #expect(try all.receive(Self.reportEvent(outside.advertisingData, rssi: -50), at: 1)
            == [.advertisement(Self.report(outside.advertisingData, rssi: -50))])
        #expect(try all.receive(Self.reportEvent(plain, rssi: -40), at: 2) == [.advertisement(Self.report(plain, rssi: -40))])
        var filtered = ScanSession(ScanConfiguration(regions: [region]))
        #expect(try filtered.receive(Self.reportEvent(outside.advertisingData, rssi: -50), at: 1) == [])
        #expect(try filtered.receive(Self.reportEvent(plain, rssi: -40), at: 2) == [])
        #expect(filtered.reportCount == 2 && filtered.beaconCount == 0)
    }

    @Test func regionsEnterRangeAndExitOnTick() throws {
        let region = BeaconRegion(uuid: Self.uuid, major: 1)
        let b = Self.beacon(major: 1)
        var configuration = ScanConfiguration(regions: [region])
        configuration.exitTimeout = 2
        var s = ScanSession(configuration)
        #expect(try s.receive(Self.reportEvent(b.advertisingData, rssi: -65), at: 5)
            == [.region(.enter(region)), Self.ranged(b, rssi: -65, smoothed: -65, samples: 1, lastSeen: 5)])
        #expect(s.nextDeadline == 7)
        #expect(s.tick(at: 6.9) == [])
        #expect(s.tick(at: 7) == [.region(.exit(region))])
        #expect(s.nextDeadline == nil)
    }

    /// Kills "scan ignoring Hardware Error / device down": each ends the session with its fact.
    @Test func controllerFailuresEndTheSession() throws {
        var s = ScanSession(ScanConfiguration(deviceID: 1))
        #expect(throws: ControllerFailure.hardwareError(code: 0x05)) {
            try s.receive(HCIEvent(code: .hardwareError, parameters: [0x05]), at: 1)
        }
        #expect(throws: ControllerFailure.hardwareError(code: 0x07)) {
            try s.receive([0x04, 0x10, 0x01, 0x07], at: 1)
        }
        // EVT_SI_DEVICE: type 0x0001, event HCI_DEV_DOWN (4) / HCI_DEV_UNREG (2), device id.
        #expect(throws: ControllerFailure.deviceDown(deviceID: 1)) {
            try s.receive([0x04, 0xfd, 0x06, 0x01, 0x00, 0x04, 0x00, 0x01, 0x00], at: 1)
        }
        #expect(throws: ControllerFailure.deviceUnregistered(deviceID: 1)) {
            try s.receive([0x04, 0xfd, 0x06, 0x01, 0x00, 0x02, 0x00, 0x01, 0x00], at: 1)
        }
        // Another controller going down, or ours coming up, is not our failure.
        #expect(try s.receive([0x04, 0xfd, 0x06, 0x01, 0x00, 0x04, 0x00, 0x00, 0x00], at: 1) == [])
        #expect(try s.receive([0x04, 0xfd, 0x06, 0x01, 0x00, 0x03, 0x00, 0x01, 0x00], at: 1) == [])
    }

    /// A report event with a defect gives the reports before it and the defect; a packet that is not
    /// an event is ignored; a badly framed report event is reported, not trapped on.
    @Test func malformedReportsAreReportedAndSkipped() throws {
        let b = Self.beacon(major: 1)
        var s = ScanSession(ScanConfiguration())
        var packet = Self.reportEvent(b.advertisingData, rssi: -60).packet
        packet[2] &+= 1   // plen one more than the bytes
        let framing = try #require(AdvertisingReports.decodePartial(eventPacket: packet)?.error)
        #expect(try s.receive(packet, at: 1) == [.malformedReport(framing)])
        #expect(try s.receive([0x02, 0x00, 0x20, 0x00, 0x00], at: 1) == [])
        #expect(s.reportCount == 0)
    }

    /// Memory follows the window: beacons unseen for `forgetAfter` are dropped at the next tick or report.
    @Test func beaconsThatLeaveTheWindowArePruned() throws {
        var s = ScanSession(ScanConfiguration())
        for minor in 0..<500 {
            _ = try s.receive(Self.reportEvent(Self.beacon(major: 1, minor: UInt16(minor)).advertisingData, rssi: -60), at: Double(minor) / 100)
        }
        #expect(s.ranger.count == 500)
        _ = s.tick(at: 12)   // forgetAfter 10 s: the first 201 (t ≤ 2.00) are gone
        #expect(s.ranger.count == 299)
        _ = s.tick(at: 20)
        #expect(s.ranger.count == 0)
        // Seen again after being forgotten: a new beacon in the window, ranged at once.
        let b = Self.beacon(major: 1, minor: 0)
        #expect(try s.receive(Self.reportEvent(b.advertisingData, rssi: -61), at: 21)
            == [Self.ranged(b, rssi: -61, smoothed: -61, samples: 1, lastSeen: 21)])
        #expect(s.beaconCount == 501)
    }
}

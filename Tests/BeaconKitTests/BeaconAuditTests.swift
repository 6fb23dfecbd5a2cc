// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import Testing

/// The listener's audit alone: heard/missing at the window's edge, unexpected beacons of the
/// fleet's UUIDs, rates and medians, and memory bounded by the expected set and the window.
@Suite struct BeaconAuditTests {
    static let fleet = ProximityUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
    static let other = ProximityUUID("B9407F30-F5F8-466E-AFF9-25556B57FE6D")!
    static func id(_ minor: UInt16, _ uuid: ProximityUUID = fleet) -> BeaconIdentity { BeaconIdentity(uuid: uuid, major: 1, minor: minor) }

    static func seen(_ minor: UInt16, at t: Double, rssi: Int8? = -60, uuid: ProximityUUID = fleet) -> BeaconObservation {
        BeaconObservation(beacon: IBeacon(uuid: uuid, major: 1, minor: minor, measuredPower: -59), address: "AA:01:00:00:00:0\(minor % 10)",
                          rssi: rssi, timestamp: t)
    }

    func audit() -> BeaconAudit {
        BeaconAudit(expected: [ExpectedBeacon(Self.id(1), identifier: "entrance"), ExpectedBeacon(Self.id(2), identifier: "hall"),
                               ExpectedBeacon(Self.id(9), identifier: "cellar"), ExpectedBeacon(Self.id(1), identifier: "listed twice")],
                    window: 30, at: 100)
    }

    @Test func heardMissingAndUnexpectedAtTheWindowsEdge() {
        var a = audit()
        #expect(a.expected.map(\.identifier) == ["entrance", "hall", "cellar"], "the second entry of minor 1 is dropped")
        #expect(a.nextDeadline == nil, "nothing heard: no timer")
        var changes: [AuditChange] = []
        changes += a.observe(Self.seen(1, at: 100, rssi: -60))
        changes += a.observe(Self.seen(2, at: 101, rssi: nil))
        changes += a.observe(Self.seen(1, at: 101, rssi: -70))
        changes += a.observe(Self.seen(7, at: 101.5))                      // the fleet's UUID, not expected
        changes += a.observe(Self.seen(5, at: 101.5, uuid: Self.other))   // another organisation's: ignored
        changes += a.observe(Self.seen(1, at: 102, rssi: -65))
        #expect(changes == [.heard(Self.id(1)), .heard(Self.id(2)), .unexpectedHeard(Self.id(7))])
        #expect(a.reportCount == 6)
        #expect(a.nextDeadline == 131, "hall's last report + the window")
        #expect(a.tick(at: 130.9).isEmpty)
        #expect(a.tick(at: 131) == [.missing(Self.id(2))])
        #expect(a.nextDeadline == 131.5)
        let entries = a.expectedEntries(at: 131)
        #expect(entries[0] == AuditEntry(identity: Self.id(1), identifier: "entrance", heard: true, lastSeen: 102, reportsPerSecond: 1.0 / 30,
                                         medianRSSI: -65, address: "AA:01:00:00:00:01", reports: 1), "the window is (101, 131]")
        #expect(entries[1] == AuditEntry(identity: Self.id(2), identifier: "hall", heard: false, lastSeen: 101, reportsPerSecond: 0,
                                         medianRSSI: nil, address: "AA:01:00:00:00:02", reports: 0))
        #expect(entries[2] == AuditEntry(identity: Self.id(9), identifier: "cellar", heard: false, lastSeen: nil, reportsPerSecond: 0,
                                         medianRSSI: nil, address: nil, reports: 0))
        #expect(a.unexpectedEntries(at: 131).map(\.identity) == [Self.id(7)])
        #expect(a.tick(at: 131.5) == [.unexpectedGone(Self.id(7))])
        #expect(a.unexpectedEntries(at: 131.5).isEmpty)
        #expect(a.missing.map(\.identifier) == ["hall", "cellar"])
        // A report after an edge passed without a tick (entrance's, at 132): the missing comes first.
        #expect(a.observe(Self.seen(2, at: 140)) == [.missing(Self.id(1)), .heard(Self.id(2))], "hall heard again")
        #expect(a.observe(Self.seen(2, at: 175)) == [.missing(Self.id(2)), .heard(Self.id(2))])
    }

    @Test func ratesBeforeTheWindowIsFullAndEvenMedians() {
        var a = audit()
        for (i, r) in [-50, -60, -70, -80].enumerated() { _ = a.observe(Self.seen(1, at: 100 + Double(i) * 0.5, rssi: Int8(r))) }
        let e = a.expectedEntries(at: 110)[0]
        #expect(e.reportsPerSecond == 0.4, "4 reports in the 10 s the run has lasted")
        #expect(e.medianRSSI == -65)
        #expect(a.expectedEntries(at: 100.5)[0].reportsPerSecond == 4, "at least 1 s")
    }

    @Test func memoryIsBoundedByTheExpectedSetAndTheWindow() {
        var a = audit()
        a.maximumReportsKept = 100
        a.maximumUnexpected = 3
        for i in 0..<10_000 { _ = a.observe(Self.seen(1, at: 100 + Double(i) * 0.001)) }
        #expect(a.expectedEntries(at: 110)[0].reports == 100, "the newest 100 kept")
        #expect(a.expectedEntries(at: 110)[0].reportsPerSecond == 100, "the kept ones over the time they cover, at least 1 s: a lower bound")
        for minor in UInt16(10)..<UInt16(20) { _ = a.observe(Self.seen(minor, at: 110)) }
        #expect(a.unexpectedEntries(at: 110).count == 3)
        #expect(a.unexpectedDropped == 7)
        // The window passes: everything is pruned; unexpected beacons are forgotten.
        _ = a.tick(at: 200)
        #expect(a.expectedEntries(at: 200)[0].reports == 0)
        #expect(a.unexpectedEntries(at: 200).isEmpty)
    }
}

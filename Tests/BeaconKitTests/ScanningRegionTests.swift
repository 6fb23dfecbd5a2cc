// SPDX-License-Identifier: Apache-2.0
import Testing
import BeaconKit

private let uuidText = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
private let uuid = ProximityUUID(uuidText)!
private let otherUUID = ProximityUUID("8DEEFBB9-F738-4297-8040-96668BB44281")!

private func id(_ major: UInt16, _ minor: UInt16, _ u: ProximityUUID = uuid) -> BeaconIdentity {
    BeaconIdentity(uuid: u, major: major, minor: minor)
}

@Suite("Scanning: beacon regions and monitoring")
struct ScanningRegionTests {
    @Test func parsesTheThreeForms() throws {
        #expect(try BeaconRegion(parsing: uuidText) == BeaconRegion(uuid: uuid))
        #expect(try BeaconRegion(parsing: "e2c56db5dffb48d2b060d0f5a71096e0:1") == BeaconRegion(uuid: uuid, major: 1))
        #expect(try BeaconRegion(parsing: " \(uuidText):0:65535 ") == BeaconRegion(uuid: uuid, major: 0, minor: 65535))
        let region = try BeaconRegion(parsing: "\(uuidText):1:2", identifier: "lobby")
        #expect(region.identifier == "lobby" && region.major == 1 && region.minor == 2)
        #expect(region.description == "\(uuidText):1:2")
        #expect(try BeaconRegion(parsing: region.description) == BeaconRegion(uuid: uuid, major: 1, minor: 2))
    }

    @Test func parseErrorsNameTheFieldAndRange() {
        #expect(throws: BeaconRegionParseError.empty) { try BeaconRegion(parsing: "  ") }
        #expect(throws: BeaconRegionParseError.invalidUUID("E2C56DB5-DFFB")) { try BeaconRegion(parsing: "E2C56DB5-DFFB:1") }
        #expect(throws: BeaconRegionParseError.invalidValue(field: "major", text: "65536")) {
            try BeaconRegion(parsing: "\(uuidText):65536")
        }
        #expect(throws: BeaconRegionParseError.invalidValue(field: "major", text: "")) { try BeaconRegion(parsing: "\(uuidText)::2") }
        #expect(throws: BeaconRegionParseError.invalidValue(field: "minor", text: "-1")) { try BeaconRegion(parsing: "\(uuidText):1:-1") }
        #expect(throws: BeaconRegionParseError.invalidValue(field: "minor", text: "0x10")) { try BeaconRegion(parsing: "\(uuidText):1:0x10") }
        #expect(throws: BeaconRegionParseError.invalidValue(field: "minor", text: "")) { try BeaconRegion(parsing: "\(uuidText):1:") }
        #expect(throws: BeaconRegionParseError.invalidValue(field: "major", text: "000001")) { try BeaconRegion(parsing: "\(uuidText):000001") }
        #expect(throws: BeaconRegionParseError.tooManyFields(text: "\(uuidText):1:2:3", count: 4)) {
            try BeaconRegion(parsing: "\(uuidText):1:2:3")
        }
        #expect(BeaconRegionParseError.invalidValue(field: "minor", text: "70000").description
            == "invalid minor \"70000\": expected a decimal integer 0–65535")
        #expect(BeaconRegionParseError.invalidUUID("xyz").description
            == "'xyz' is not a UUID (accepted: \(ProximityUUID.acceptedForms)) nor an Eddystone namespace (20 hex digits)")
        #expect(BeaconRegionParseError.tooManyFields(text: "a:1:2:3", count: 4).description
            == "region \"a:1:2:3\" has 4 fields: expected UUID[:MAJOR[:MINOR]] or NAMESPACE[:INSTANCE]")
        #expect(throws: BeaconRegionParseError.invalidInstance("0001")) { try BeaconRegion(parsing: "8b0ca750e7a74e14bd99:0001") }
        #expect(throws: BeaconRegionParseError.tooManyFields(text: "8b0ca750e7a74e14bd99:000000000001:1", count: 3)) {
            try BeaconRegion(parsing: "8b0ca750e7a74e14bd99:000000000001:1")
        }
        // 20 characters that decode to fewer than 10 bytes ("0x", separators) are no namespace
        // (fuzz-ad-ibeacon: such a region's description did not parse back).
        for short in ["0x8b0ca750e7a74e14bd", "8b 0c a7 50 e7 a7 4e"] {
            #expect(throws: BeaconRegionParseError.invalidUUID(short)) { try BeaconRegion(parsing: short) }
        }
    }

    /// The UUID form is the Android Beacon Library's Region too: it matches AltBeacons by id1, id2 and
    /// id3. The Eddystone form matches Eddystone-UID by namespace and instance; no region holds a URL.
    @Test func regionsOfTheOtherTypes() throws {
        let namespace: [UInt8] = [0x8b, 0x0c, 0xa7, 0x50, 0xe7, 0xa7, 0x4e, 0x14, 0xbd, 0x99]
        let uid = { (i: UInt8) in BeaconIdentity.eddystoneUID(namespace: namespace, instance: [0, 0, 0, 0, 0, i]) }
        let byNamespace = try BeaconRegion(parsing: "8B0CA750E7A74E14BD99")
        let one = try BeaconRegion(parsing: "8b0ca750e7a74e14bd99:000000000001")
        #expect(byNamespace.description == "8b0ca750e7a74e14bd99" && one.description == "8b0ca750e7a74e14bd99:000000000001")
        #expect(byNamespace.uuid == nil && byNamespace.major == nil)
        #expect(byNamespace.matches(uid(1)) && byNamespace.matches(uid(2)) && one.matches(uid(1)) && !one.matches(uid(2)))
        #expect(!byNamespace.matches(.eddystoneUID(namespace: Array(namespace.reversed()), instance: [0, 0, 0, 0, 0, 1])))
        #expect(!byNamespace.matches(.eddystoneURL("https://example.com/")) && !byNamespace.matches(id(1, 2)))
        let alt = BeaconIdentity.altBeacon(id1: uuid, id2: 1, id3: 2)
        #expect(BeaconRegion(uuid: uuid, major: 1).matches(alt) && !BeaconRegion(uuid: uuid, major: 1, minor: 3).matches(alt))
        #expect(!BeaconRegion(uuid: uuid).matches(.eddystoneURL("https://example.com/")))
    }

    @Test func matching() {
        let any = BeaconRegion(uuid: uuid), major1 = BeaconRegion(uuid: uuid, major: 1), exact = BeaconRegion(uuid: uuid, major: 1, minor: 2)
        #expect(any.matches(id(9, 9)) && !any.matches(id(1, 2, otherUUID)))
        #expect(major1.matches(id(1, 7)) && !major1.matches(id(2, 7)))
        #expect(exact.matches(id(1, 2)) && !exact.matches(id(1, 3)) && !exact.matches(id(2, 2)))
        #expect(exact.matches(IBeacon(uuid: uuid, major: 1, minor: 2)))
    }

    @Test func enterThenExitAfterTimeout() {
        let region = BeaconRegion(uuid: uuid, major: 1)
        var monitor = RegionMonitor(regions: [region])   // default 30 s
        #expect(monitor.exitTimeout == 30)
        #expect(monitor.state(of: region) == .unknown && monitor.nextDeadline == nil)

        #expect(monitor.observe(id(2, 1), at: 0) == [])                  // not in the region
        #expect(monitor.observe(id(1, 5), at: 10) == [.enter(region)])   // first match
        #expect(monitor.state(of: region) == .inside)
        #expect(monitor.nextDeadline == 40)
        #expect(monitor.observe(id(1, 6), at: 25) == [])                 // still inside, deadline moves
        #expect(monitor.nextDeadline == 55)
        #expect(monitor.tick(now: 54.999) == [])
        #expect(monitor.tick(now: 55) == [.exit(region)])                // exactly at the deadline
        #expect(monitor.state(of: region) == .outside && monitor.nextDeadline == nil)
        #expect(monitor.tick(now: 100) == [])                            // exit only once
        #expect(monitor.observe(id(1, 5), at: 101) == [.enter(region)])  // and enter again
    }

    @Test func sightingAfterLongSilenceReadsExitThenEnter() {
        let region = BeaconRegion(uuid: uuid)
        var monitor = RegionMonitor(regions: [region], exitTimeout: 5)
        _ = monitor.observe(id(1, 1), at: 0)
        #expect(monitor.observe(id(1, 1), at: 60) == [.exit(region), .enter(region)])
        #expect(monitor.nextDeadline == 65)
    }

    @Test func severalRegionsWithInjectedClock() {
        let all = BeaconRegion(uuid: uuid, identifier: "all")
        let desk = BeaconRegion(uuid: uuid, major: 1, minor: 2, identifier: "desk")
        let other = BeaconRegion(uuid: otherUUID, identifier: "other")
        var monitor = RegionMonitor(regions: [all, desk, other], exitTimeout: 10)
        var now = 0.0
        var log: [String] = []
        func record(_ events: [RegionEvent]) { log += events.map { "\(now): \($0) (\($0.region.identifier ?? ""))" } }

        now = 1; record(monitor.observe(BeaconObservation(beacon: IBeacon(uuid: uuid, major: 1, minor: 2), address: "x", rssi: -60, timestamp: now)))
        now = 3; record(monitor.observe(id(5, 5), at: now))
        now = 4; record(monitor.observe(id(0, 0, otherUUID), at: now))
        // The caller sleeps until the next deadline each time, as the receive loop would.
        while let deadline = monitor.nextDeadline {
            now = deadline
            record(monitor.tick(now: now))
        }
        #expect(log == [
            "1.0: enter \(uuidText) (all)",
            "1.0: enter \(uuidText):1:2 (desk)",
            "4.0: enter \(otherUUID) (other)",
            "11.0: exit \(uuidText):1:2 (desk)",
            "13.0: exit \(uuidText) (all)",
            "14.0: exit \(otherUUID) (other)",
        ])
        #expect(monitor.state(at: 0) == .outside && monitor.state(at: 2) == .outside && monitor.state(at: 9) == .unknown)
    }

    @Test func timeGoingBackwardsDoesNotShortenThePresence() {
        let region = BeaconRegion(uuid: uuid)
        var monitor = RegionMonitor(regions: [region], exitTimeout: 10)
        _ = monitor.observe(id(1, 1), at: 20)
        _ = monitor.observe(id(1, 1), at: 15)   // a late, out-of-order observation
        #expect(monitor.nextDeadline == 30)
    }
}

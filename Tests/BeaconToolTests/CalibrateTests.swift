// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Testing

/// `scan --calibrate` against a scripted controller: the whole report, the JSON form, RSSI not
/// available (127) and no beacon → 69, two beacons or no region → 64; scanning is always turned off.
@Suite struct CalibrateTests {
    typealias C = Controllers

    func plan() throws -> ScanPlan { try ScanPlan(family: .legacy, options: ScanOptions()) }

    /// A legacy controller that delivers `reports` and then lets the (default 10 s) duration pass.
    func controller(_ reports: [HCIEvent], end: ScriptedController.Step = .receive(.timedOut)) throws -> ScriptedController {
        let p = try plan()
        return ScriptedController(C.probe(hciVersion: 8, extended: false) + C.okSteps(p.start)
                                  + reports.map { .receive(.event($0.packet)) } + [end] + C.okSteps(p.stop))
    }

    /// RSSI -60 -62 -58 -61 -75 -59 -60 -63 -45 -61, and one 127 (not available).
    /// Hand-computed (see CalibrationStatisticsTests): mean -60.4, median -60.5, trimmed mean -60.5 → -61.
    func tenSamples() throws -> [HCIEvent] {
        let beacon = try #require(Golden.beacon)
        let rssi: [Int8] = [-60, -62, -58, -61, -75, 127, -59, -60, -63, -45, -61]
        return rssi.map { ScanTests.legacyReport(beacon.advertisingData, rssi: $0) }
    }

    @Test func printsTheStatisticsAndTheConfigLine() throws {
        let fake = try controller(try tenSamples())
        let clock = TestClock()
        clock.attach(fake)
        let r = tool(["scan", "--calibrate", "--region", Golden.uuidText + ":1:2"], host: FakeHost(devices: [C.device(0)], channels: [0: fake]), clock: clock)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out == """
            beacon: \(Golden.uuidText):1:2
            samples: 10
            mean: -60.4 dBm
            median: -60.5 dBm
            trimmed mean: -60.5 dBm (1 lowest and 1 highest dropped)
            advertised measuredPower: -59
            suggested measuredPower: -61
            config line: "measuredPower": -61

            """)
        #expect(r.err.contains("calibrating \(Golden.uuidText):1:2 on hci0 for 10 s"), "\(r.err)")
        #expect(r.err.contains("1 report(s) with RSSI not available (127) left out"), "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        // The default duration is one blocking wait of 10 s, not polling.
        #expect(fake.requestedTimeouts.contains { (9900...10000).contains($0) }, "\(fake.requestedTimeouts)")
    }

    @Test func json() throws {
        let fake = try controller(try tenSamples())
        let clock = TestClock()
        clock.attach(fake)
        let r = tool(["scan", "--calibrate", "--region", Golden.uuidText, "--duration", "3", "--json"],
                     host: FakeHost(devices: [C.device(0)], channels: [0: fake]), clock: clock)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out == #"{"event":"calibration","region":"\#(Golden.uuidText)","uuid":"\#(Golden.uuidText)","major":1,"minor":2,"samples":10,"rssiNotAvailable":1,"mean":-60.4,"median":-60.5,"trimmedMean":-60.5,"trimmedPerEnd":1,"advertisedMeasuredPower":-59,"measuredPower":-61,"configLine":"\"measuredPower\": -61"}"# + "\n")
        #expect(fake.requestedTimeouts.contains { (2900...3000).contains($0) }, "\(fake.requestedTimeouts)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    /// Ctrl-C ends the collection early; what was collected is still reported.
    @Test func signalEndsEarlyWithTheResult() throws {
        let beacon = try #require(Golden.beacon)
        let fake = try controller([ScanTests.legacyReport(beacon.advertisingData, rssi: -70),
                                   ScanTests.legacyReport(beacon.advertisingData, rssi: -71)], end: .receive(.signal(2)))
        let r = tool(["scan", "--calibrate", "--region", Golden.uuidText + ":1:2", "--json"], host: FakeHost(devices: [C.device(0)], channels: [0: fake]))
        #expect(r.code == 0, "\(r.err)")
        // (-70 + -71) / 2 = -70.5 (mean, median and, below 10 samples, trimmed mean) → -71.
        #expect(r.out == #"{"event":"calibration","region":"\#(Golden.uuidText):1:2","uuid":"\#(Golden.uuidText)","major":1,"minor":2,"samples":2,"rssiNotAvailable":0,"mean":-70.5,"median":-70.5,"trimmedMean":-70.5,"trimmedPerEnd":0,"advertisedMeasuredPower":-59,"measuredPower":-71,"configLine":"\"measuredPower\": -71"}"# + "\n")
        #expect(r.err.contains("signal 2: calibration ended early"), "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func rssiNotAvailableIsUnavailable() throws {
        let beacon = try #require(Golden.beacon)
        let fake = try controller([ScanTests.legacyReport(beacon.advertisingData, rssi: 127),
                                   ScanTests.legacyReport(beacon.advertisingData, rssi: 127)])
        let clock = TestClock()
        clock.attach(fake)
        let r = tool(["scan", "--calibrate", "--region", Golden.uuidText + ":1"], host: FakeHost(devices: [C.device(0)], channels: [0: fake]), clock: clock)
        #expect(r.code == 69)
        #expect(r.out == "")
        #expect(r.err.hasSuffix("beacon-tx scan: hci0 heard \(Golden.uuidText):1:2 2 time(s) but reported its RSSI as not available (127) every time: "
                                + "this controller does not measure signal strength (virtual controllers such as btvirt always report 127); calibrate with a real adapter\n"), "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func noBeaconIsUnavailable() throws {
        let fake = try controller([ScanTests.legacyReport([0x02, 0x01, 0x06], rssi: -40)])
        let clock = TestClock()
        clock.attach(fake)
        let r = tool(["scan", "--calibrate", "--region", Golden.uuidText, "--duration", "2"], host: FakeHost(devices: [C.device(0)], channels: [0: fake]), clock: clock)
        #expect(r.code == 69)
        #expect(r.err.hasSuffix("beacon-tx scan: no iBeacon in region \(Golden.uuidText) heard on hci0 in 2 s (1 other advertising report(s)): "
                                + "is the beacon on, in range, and advertising this UUID/major/minor?\n"), "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    /// The second beacon ends the scan at once (no more receives are scripted), scanning is turned off, exit 64.
    @Test func twoBeaconsAreAUsageError() throws {
        let beacon = try #require(Golden.beacon)
        let other = IBeacon(uuid: beacon.uuid, major: 1, minor: 3)
        let p = try plan()
        let fake = ScriptedController(C.probe(hciVersion: 8, extended: false) + C.okSteps(p.start) + [
            .receive(.event(ScanTests.legacyReport(beacon.advertisingData, rssi: -60).packet)),
            .receive(.event(ScanTests.legacyReport(other.advertisingData, rssi: -70).packet)),
        ] + C.okSteps(p.stop))
        let r = tool(["scan", "--calibrate", "--region", Golden.uuidText + ":1"], host: FakeHost(devices: [C.device(0)], channels: [0: fake]))
        #expect(r.code == 64)
        #expect(r.err.hasSuffix("beacon-tx scan: --calibrate measures one beacon, but region \(Golden.uuidText):1 matched two: "
                                + "\(Golden.uuidText):1:2 and \(Golden.uuidText):1:3; give --region UUID:MAJOR:MINOR of the one held at 1 m, or switch the other off\n"), "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func badCalibrateFlags() {
        for (args, message) in [
            (["scan", "--calibrate"], "--calibrate needs --region UUID[:MAJOR[:MINOR]]: the one beacon held at 1 m"),
            (["scan", "--calibrate", "--region", Golden.uuidText + ":1", "--region", Golden.uuidText + ":2"],
             "--calibrate measures one beacon: give one --region, not 2"),
            (["scan", "--calibrate", "--region", Golden.uuidText, "--all"], "--all does nothing with --calibrate"),
        ] {
            let r = tool(args)
            #expect(r.code == 64, "\(args) \(r.err)")
            #expect(r.err == "beacon-tx scan: \(message)\n", "\(args)")
            #expect(r.out.isEmpty)
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

/// `scan --expect`: a listener audits the museum kiosk's three beacons plus a cellar beacon nobody
/// advertises, against a scripted controller whose reports carry real iBeacon bytes.
@Suite struct ScanExpectTests {
    typealias C = Controllers
    static let fleet = ProximityUUID(Golden.uuidText)!

    static func report(minor: UInt16, rssi: Int8) -> ScriptedController.Step {
        .receive(.event(ScanTests.legacyReport(IBeacon(uuid: fleet, major: 1, minor: minor, measuredPower: -59).advertisingData, rssi: rssi).packet))
    }

    func cellarConfig() throws -> String {
        let path = temporaryDirectory() + "/cellar.json"
        try #"{"beacons": [{"identifier": "cellar", "uuid": "\#(Golden.uuidText)", "major": 1, "minor": 9}]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func plan() throws -> ScanPlan { try ScanPlan(family: .extended, options: ScanOptions()) }

    /// Museum minors 1–3 and a stray minor 7 heard, the cellar (minor 9) not: exit 1 naming it.
    func audit(_ extra: [String]) throws -> (ToolRun, ScriptedController, String) {
        let p = try plan()
        let fake = ScriptedController(C.probe(extended: true) + C.okSteps(p.start) + [
            Self.report(minor: 1, rssi: -60), Self.report(minor: 2, rssi: -62), Self.report(minor: 1, rssi: -64),
            Self.report(minor: 3, rssi: -70), Self.report(minor: 7, rssi: -80),
            .receive(.timedOut),                    // the 5 s pass
        ] + C.okSteps(p.stop))
        let clock = TestClock()
        clock.attach(fake)
        let metrics = temporaryDirectory() + "/listener.prom"
        let r = tool(["scan", "--expect", repoPath("Config/museum.json"), "--expect", try cellarConfig(), "--duration", "5", "--metrics", metrics] + extra,
                     host: FakeHost(devices: [C.device(0)], channels: [0: fake]), clock: clock)
        return (r, fake, (try? String(contentsOfFile: metrics, encoding: .utf8)) ?? "(none)")
    }

    @Test func oneShotAuditTextAndMetrics() throws {
        let (r, fake, metrics) = try audit([])
        #expect(r.code == 1)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        expectSnapshot(r.out, "scan-expect.txt")
        let build = PrometheusText.render([.buildInfo(role: "listener")])   // this build's commit: apart
        #expect(metrics.hasPrefix(build), "\(metrics)")
        expectSnapshot(String(metrics.dropFirst(build.count)), "metrics-listener.prom")
        #expect(metrics.contains(#"beacon_tx_expected_beacon_reports_total{device="hci0",identifier="museum-entrance",uuid="\#(Golden.uuidText)",major="1",minor="1"} 2"#))
        #expect(r.err.hasSuffix("beacon-tx scan: 1 of 4 expected beacon(s) not heard on hci0 within 30 s: cellar (E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:9)\n"), "\(r.err)")
    }

    @Test func oneShotAuditJSON() throws {
        let (r, _, _) = try audit(["--json"])
        #expect(r.code == 1)
        let lines = r.out.split(separator: "\n")
        #expect(lines.count == 1, "one object: \(r.out)")
        let j = try JSON.parse(String(lines[0]))
        #expect(j["event"] == .string("audit"))
        #expect(j["missing"] == .array([.string("cellar (E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:9)")]))
        guard case let .array(expected)? = j["expected"], case let .array(unexpected)? = j["unexpected"] else { Issue.record("lists"); return }
        #expect(expected.map { $0["heard"] } == [.bool(true), .bool(true), .bool(true), .bool(false)])
        #expect(expected[0]["identifier"] == .string("museum-entrance"))
        #expect(expected[0]["reports"] == .number(2))
        #expect(expected[0]["medianRssi"] == .number(-62))
        #expect(expected[3]["lastSeen"] == .null)
        #expect(unexpected.map { $0["minor"] } == [.number(7)])
    }

    /// Without --duration: changes as they happen, and the only timer is the window's edge.
    @Test func continuousChangesAtTheWindowsEdge() throws {
        let p = try plan()
        let fake = ScriptedController(C.probe(extended: true) + C.okSteps(p.start) + [
            Self.report(minor: 2, rssi: -60),
            .receive(.timedOut),                    // the 2 s window passes: missing
            .receive(.signal(15)),
        ] + C.okSteps(p.stop))
        let clock = TestClock()
        clock.attach(fake)
        let r = tool(["scan", "--expect", repoPath("Config/museum.json"), "--window", "2"], host: FakeHost(devices: [C.device(0)], channels: [0: fake]), clock: clock)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.prefix(2) == [
            "08:00:00Z heard museum-hall E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2",
            "08:00:00Z missing museum-hall E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2",
        ])
        #expect(lines.dropFirst(2).first == "hci0: 0 of 3 expected beacon(s) heard within 2 s; missing: museum-entrance (E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:1), museum-hall (E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2), museum-shop (E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:3)")
        // Blocks until a report (nothing heard: no deadline), then sleeps to the edge, then blocks again;
        // before and after: the scan plan's commands, each answered within its 2000 ms timeout.
        let waits = fake.requestedTimeouts
        #expect(Array(waits.suffix(4)) == [-1, 1998, -1, 1999], "\(waits)")
        #expect(waits.dropLast(4).allSatisfy { $0 == 1999 }, "\(waits)")
    }

    @Test func badInput() throws {
        let cellar = try cellarConfig()
        let cases: [([String], Int32, String)] = [
            (["--expect", "/nonexistent/k.json"], 66, "beacon-tx scan: config /nonexistent/k.json: no such file\n"),
            (["--expect", cellar, "--window", "0"], 64, "beacon-tx scan: --window: 0 s is out of range (accepted 1–3600 s)\n"),
            (["--expect", cellar, "--region", Golden.uuidText], 64, "beacon-tx scan: --region does nothing with --expect (the expected beacons come from the configs)\n"),
            (["--window", "5"], 64, "beacon-tx scan: --window only applies with --expect\n"),
            (["--metrics", "/tmp/x.prom"], 64, "beacon-tx scan: --metrics only applies with --expect\n"),
        ]
        for (args, code, err) in cases {
            let r = tool(["scan"] + args)
            #expect(r.code == code, "\(args): \(r.err)")
            #expect(r.err == err, "\(args)")
        }
        let empty = temporaryDirectory() + "/empty.json"
        try #"{"interval": 100}"#.write(toFile: empty, atomically: true, encoding: .utf8)
        let r = tool(["scan", "--expect", empty])
        #expect(r.code == 65)
        #expect(r.err == "beacon-tx scan: --expect \(empty): the config lists no beacon (expected beacons come from its \"beacons\")\n")
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

/// Eddystone-TLM through the CLI (the config's `of` and `thermalZone`, `--eddystone-tlm`, what start
/// refuses, dump-config, the state file, verify, Kotlin), and `scan` and `scan --expect` hearing the
/// other types against a scripted controller.
@Suite struct TelemetryToolTests {
    typealias C = Controllers

    static let uid = #"{ "identifier": "fleet-uid", "type": "eddystone-uid", "namespace": "8b0ca750e7a74e14bd99", "instance": "000000000001" }"#
    static func config(_ tlm: String) -> String { #"{ "rotation": 200, "beacons": [ \#(uid), \#(tlm) ] }"# }
    static let tlmData = "0201060303aafe1116aafe2000000080000000000000000000"

    @Test func theConfigNamesItsBeaconAndDumpConfigWritesItBack() throws {
        let path = kioskFile(Self.config(#"{ "type": "eddystone-tlm", "of": "fleet-uid" }"#))
        let plan = try JSON.parse(tool(["start", "--dry-run", "--config", path, "--format", "json"]).out)
        guard case let .array(beacons)? = plan["beacons"] else { Issue.record("no beacons"); return }
        #expect(beacons[1]["of"] == .string("fleet-uid") && beacons[1]["advertisingData"] == .string(Self.tlmData))
        let dumped = tool(["dump-config", "--config", path])
        #expect(dumped.out.contains(#""of": "fleet-uid""#), "\(dumped.out)")
        #expect(tool(["dump-config", "--config", kioskFile(dumped.out)]).out == dumped.out)
        // From the flags: the UID has no identifier, so `of` is its place.
        let flags = tool(["dump-config", "--eddystone-uid", "8b0ca750e7a74e14bd99:000000000001", "--eddystone-tlm"])
        #expect(flags.code == 0 && flags.out.contains(#""of": 0"#), "\(flags.out)\(flags.err)")
        #expect(tool(["start", "--dry-run", "--config", kioskFile(flags.out)]).out.contains("beacon 2: eddystone-tlm of eddystone-uid namespace 8b0ca750e7a74e14bd99"))
        let text = tool(["start", "--dry-run", "--config", path]).out
        #expect(text.contains("  data:   \(Self.tlmData) (25 bytes)\n          (as at the start: the PDU count and time since start are written live"), "\(text)")
    }

    @Test func startRefusesWhatCannotKeepTheCountsLive() {
        let path = kioskFile(Self.config(#"{ "type": "eddystone-tlm", "of": 0 }"#))
        let detach = tool(["start", "--config", path, "--detach"])
        #expect(detach.code == 64 && detach.err.contains("an eddystone-tlm beacon needs the foreground session (without --detach)"), "\(detach.err)")
        let zone = tool(["start", "--config", kioskFile(Self.config(#"{ "type": "eddystone-tlm", "of": 0, "thermalZone": "/nonexistent/temp" }"#))])
        #expect(zone.code == 66 && zone.err == "beacon-tx start: beacons[1].thermalZone: /nonexistent/temp holds no temperature to read (millidegrees Celsius, as /sys/class/thermal/thermal_zoneN/temp); list the zones with ls /sys/class/thermal, or drop the key (not measured)\n", "\(zone.err)")
        let two = tool(["start", "--dry-run", "--eddystone-uid", "8b0ca750e7a74e14bd99:000000000001", "--eddystone-url", "https://e.co/", "--eddystone-tlm"])
        #expect(two.code == 64 && two.err.contains("--eddystone-tlm accompanies one Eddystone-UID or -URL beacon, but there are 2"))
    }

    @Test func aThermalZoneIsReadAsMillidegrees() {
        #expect(ThermalZone.parse(Array("48312\n".utf8)) == 12367)     // 48.312 °C × 256
        #expect(ThermalZone.parse(Array("-5000".utf8)) == -1280)
        #expect(ThermalZone.parse(Array("-128000".utf8)) == nil, "0x8000 means not supported")
        #expect(ThermalZone.parse(Array("hot".utf8)) == nil && ThermalZone.parse(Array("200000".utf8)) == nil)
    }

    @Test func theStateFileVerifyAndKotlinKnowTheTLM() throws {
        let text = Self.config(#"{ "identifier": "fleet-tlm", "type": "eddystone-tlm", "of": "fleet-uid" }"#)
        var s = Settings()
        _ = try ConfigFile.apply(try JSON.parse(text), into: &s, prefix: "config")
        let state = SessionState(device: "hci0", pid: 42, onAir: true, status: "2 beacons", family: .legacy, rotation: true, beacons: s.beacons, since: 1_800_000_000)
        #expect(try SessionState(json: try JSON.parse(state.json.compact)).beacons == s.beacons)
        #expect(KioskMetrics.beaconLabels(s.beacons[1]).map { "\($0.0)=\($0.1)" }
                == ["identifier=fleet-tlm", "type=eddystone-tlm", "id=of eddystone-uid namespace 8b0ca750e7a74e14bd99 instance 000000000001"])
        // verify: the dry run's capture passes; live counts are not compared, the battery is.
        let path = kioskFile(text)
        let capture = temporaryDirectory() + "/tlm.snoop"
        #expect(tool(["start", "--dry-run", "--config", path, "--controller", "legacy", "--format", "btsnoop", "--output", capture]).code == 0)
        let ok = tool(["verify", capture, "--config", path])
        #expect(ok.code == 0 && ok.out.contains("PASS: 2 beacon(s) configured as expected"), "\(ok.out)")
        let kotlin = tool(["dump-config", "--config", path, "--format", "kotlin"]).out
        #expect(kotlin.contains("BeaconParser().setBeaconLayout(BeaconParser.EDDYSTONE_TLM_LAYOUT)"))
        #expect(kotlin.contains("    // fleet-tlm: Eddystone-TLM of eddystone-uid namespace 8b0ca750e7a74e14bd99 instance 000000000001: read with EDDYSTONE_TLM_LAYOUT as that beacon's extraDataFields"), "\(kotlin)")
    }

    /// scan ranges AltBeacon and Eddystone with their identifiers in JSON, and an Eddystone beacon
    /// carries the TLM of its address; an Eddystone region filters by namespace.
    @Test func scanReportsEachTypeAndItsTelemetry() throws {
        let uid = Eddystone.Frame.uid(try #require(Eddystone.UID(namespace: Hex.decode("8b0ca750e7a74e14bd99")!, instance: Hex.decode("000000000001")!, txPower: -20)))
        let alt = BeaconFrame.altBeacon(AltBeacon(id1: ProximityUUID("2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6")!, id2: 1, id3: 2))
        let tlm = Eddystone.Frame.tlm(Eddystone.TLM(advertisingPDUCount: 4242, uptimeTenths: 1234))
        let p = try ScanPlan(family: .extended, options: ScanOptions())
        func run(_ extra: [String]) throws -> [JSON] {
            let fake = ScriptedController(C.probe(extended: true) + C.okSteps(p.start) + [
                .receive(.event(ScanTests.legacyReport(tlm.advertisingData, rssi: -70).packet)),
                .receive(.event(ScanTests.legacyReport(uid.advertisingData, rssi: -61).packet)),
                .receive(.event(ScanTests.legacyReport(alt.advertisingData, rssi: -59).packet)),
                .receive(.signal(2)),
            ] + C.okSteps(p.stop))
            let clock = TestClock()
            clock.attach(fake)
            let r = tool(["scan", "--json"] + extra, host: FakeHost(devices: [C.device(0)], channels: [0: fake]), clock: clock)
            #expect(r.code == 0 && fake.isFullyConsumed, "\(r.err)")
            return try r.out.split(separator: "\n").map { try JSON.parse(String($0)) }
        }
        let all = try run([])
        #expect(all.count == 2, "the TLM is no beacon of its own")
        #expect(all[0]["type"] == .string("eddystone-uid") && all[0]["namespace"] == .string("8b0ca750e7a74e14bd99")
                && all[0]["instance"] == .string("000000000001") && all[0]["rangingData"] == .number(-20) && all[0]["measuredPower"] == .number(-61))
        #expect(all[0]["distance"] == .number(1))
        #expect(all[0]["telemetry"] == .object([("batteryMillivolts", .number(0)), ("temperature", .null),
                                                ("advertisingPDUCount", .number(4242)), ("uptimeSeconds", .number(123.4))]))
        #expect(all[1]["type"] == .string("altbeacon") && all[1]["id1"] == .string("2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6")
                && all[1]["id2"] == .number(1) && all[1]["id3"] == .number(2) && all[1]["telemetry"] == nil)
        let region = try run(["--region", "8b0ca750e7a74e14bd99"])
        #expect(region.map { $0["event"] } == [.string("enter"), .string("range")])
        #expect(region[0]["namespace"] == .string("8b0ca750e7a74e14bd99") && region[0]["instance"] == .null)
    }

    /// scan --expect hears the types of Config/types.json by identity; the TLM is heard with its UID.
    @Test func scanExpectAuditsEveryType() throws {
        let p = try ScanPlan(family: .extended, options: ScanOptions())
        let plan = try JSON.parse(tool(["start", "--dry-run", "--config", repoPath("Config/types.json"), "--format", "json"]).out)
        guard case let .array(beacons)? = plan["beacons"] else { Issue.record("no beacons"); return }
        let reports: [ScriptedController.Step] = beacons.compactMap {
            guard case let .string(hex)? = $0["advertisingData"], $0["type"] != .string("eddystone-url") else { return nil }
            return .receive(.event(ScanTests.legacyReport(Hex.decode(hex)!, rssi: -60).packet))
        }
        let fake = ScriptedController(C.probe(extended: true) + C.okSteps(p.start) + reports + [.receive(.timedOut)] + C.okSteps(p.stop))
        let clock = TestClock()
        clock.attach(fake)
        let r = tool(["scan", "--expect", repoPath("Config/types.json"), "--duration", "5"], host: FakeHost(devices: [C.device(0)], channels: [0: fake]), clock: clock)
        #expect(r.code == 1, "the URL beacon is missing: \(r.out)\(r.err)")
        #expect(r.out.contains("hci0: 3 of 4 expected beacon(s) heard within 30 s; missing: web (https://example.com/)"), "\(r.out)")
        #expect(r.out.contains("  heard      fleet-uid eddystone-uid namespace 8b0ca750e7a74e14bd99 instance 000000000001: last seen"), "\(r.out)")
        #expect(r.out.contains("  heard      android-app altbeacon id1 2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6 id2 1 id3 2: last seen"), "\(r.out)")
    }
}

/// `verify` of a capture in which the TLM's data is written again with fresh counts: still on air;
/// another frame written on its set takes it off. Kills "the TLM judged by its start bytes".
@Suite struct TelemetryVerifyTests {
    @Test func freshCountsKeepTheTLMOnAirAndOtherDataDoesNot() throws {
        let uid = BeaconFrame.eddystone(.uid(try #require(Eddystone.UID(namespace: Array(0..<10), instance: Array(0..<6), txPower: -18))))
        let config = KioskConfiguration(beacons: [BeaconAdvertisement(frame: uid, options: AdvertisingOptions(interval: .standard)),
                                                  BeaconAdvertisement(frame: .telemetry(Telemetry(of: uid)), options: AdvertisingOptions(interval: .standard))])
        let (started, _) = try CaptureVerifierTests.started(config)
        var m = started
        m.at(3)
        let fresh = Eddystone.Frame.tlm(Eddystone.TLM(advertisingPDUCount: 57, uptimeTenths: 10)).advertisingData
        m.run(0, [PlannedCommand(.leSetExtendedAdvertisingData(handle: 0xEE, data: fresh))], status: { _ in .success })
        let r = CaptureVerifier.verify(try CaptureFile.read(m.bytes, .fail), expected: config, controllerIndex: 0)
        #expect(r.passed, "\(VerifyReport.text(r, file: "tlm.snoop").joined(separator: "\n"))")
        var battery = started
        battery.at(3)
        let other = Eddystone.Frame.tlm(Eddystone.TLM(batteryMillivolts: 3000, advertisingPDUCount: 57, uptimeTenths: 10)).advertisingData
        battery.run(0, [PlannedCommand(.leSetExtendedAdvertisingData(handle: 0xEE, data: other))], status: { _ in .success })
        let bad = CaptureVerifier.verify(try CaptureFile.read(battery.bytes, .fail), expected: config, controllerIndex: 0)
        #expect(!bad.passed)
    }
}

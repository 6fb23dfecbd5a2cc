// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Testing

/// `scan` against a scripted controller: family choice, report decoding, ranging output,
/// enter/exit with a clock that advances as the waits do, and scanning turned off at the end.
@Suite struct ScanTests {
    typealias C = Controllers

    /// LE Meta / LE Advertising Report with one ADV_NONCONN_IND report from AA:01:00:00:00:00 (public).
    static func legacyReport(_ data: [UInt8], rssi: Int8) -> HCIEvent {
        var p: [UInt8] = [0x02, 0x01, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xAA]
        p.append(UInt8(data.count))
        p += data
        p.append(UInt8(bitPattern: rssi))
        return HCIEvent(code: .leMeta, parameters: p)
    }

    /// LE Meta / LE Extended Advertising Report (legacy ADV_NONCONN_IND PDU), RSSI 127 = not available.
    static func extendedReport(_ data: [UInt8]) -> HCIEvent {
        var p: [UInt8] = [0x0D, 0x01, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xAA]
        p += [0x01, 0x00, 0xFF, 0x7F, 0x7F, 0x00, 0x00, 0x00] + [UInt8](repeating: 0, count: 6)
        p.append(UInt8(data.count))
        p += data
        return HCIEvent(code: .leMeta, parameters: p)
    }

    func plan(_ f: ScanFamily) throws -> ScanPlan { try ScanPlan(family: f, options: ScanOptions()) }

    @Test func rangesMonitorsAndStops() throws {
        let beacon = try #require(Golden.beacon)
        let p = try plan(.extended)
        let fake = ScriptedController(C.probe(extended: true) + C.okSteps(p.start) + [
            .receive(.event(Self.legacyReport(beacon.advertisingData, rssi: -65).packet)),
            .receive(.event(Self.legacyReport([0x02, 0x01, 0x06], rssi: -40).packet)),
            .receive(.timedOut),                  // the exit deadline passes
            .receive(.signal(2)),
        ] + C.okSteps(p.stop))
        let clock = TestClock()
        clock.attach(fake)
        let host = FakeHost(devices: [C.device(0)], channels: [0: fake])
        let r = tool(["scan", "--region", Golden.uuidText + ":1", "--exit-timeout", "2", "--json", "--all"], host: host, clock: clock)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(lines)")
        let objects = try lines.map { try JSON.parse($0) }
        #expect(objects.map { $0["event"] } == [.string("enter"), .string("range"), .string("advertisement"), .string("exit")])
        let range = objects[1]
        #expect(range["uuid"] == .string(Golden.uuidText))
        #expect(range["major"] == .number(1) && range["minor"] == .number(2))
        #expect(range["measuredPower"] == .number(-59))
        #expect(range["rssi"] == .number(-65))
        #expect(range["address"] == .string("AA:01:00:00:00:00"))
        #expect(range["addressType"] == .string("public"))
        // 10^((-59 - -65) / 20) = 1.995 m: near.
        #expect(range["distance"] == .number(2))
        #expect(range["proximity"] == .string("near"))
        // The report arrived 1 ms (one test-clock read) before the update was written.
        #expect(range["lastSeen"] == .number(1_799_999_999.999))
        #expect(objects[2]["data"] == .string("020106"))
        #expect(objects[3]["region"] == .string(Golden.uuidText + ":1"))
        #expect(r.err.contains("scanning stopped on hci0: 2 report(s), 1 beacon(s)"))
        // The exit came from one blocking wait sized to the deadline, not from polling.
        #expect(fake.requestedTimeouts.contains { (1900..<2000).contains($0) }, "\(fake.requestedTimeouts)")
    }

    @Test func rssiNotAvailableNeverMakesUpADistance() throws {
        let beacon = try #require(Golden.beacon)
        let p = try plan(.extended)
        let fake = ScriptedController(C.probe(extended: true) + C.okSteps(p.start) + [
            .receive(.event(Self.extendedReport(beacon.advertisingData).packet)), .receive(.signal(15)),
        ] + C.okSteps(p.stop))
        let r = tool(["scan", "--json"], host: FakeHost(devices: [C.device(0)], channels: [0: fake]))
        #expect(r.code == 0, "\(r.err)")
        let range = try JSON.parse(String(try #require(r.out.split(separator: "\n").first)))
        #expect(range["rssi"] == .null)
        #expect(range["distance"] == .null)
        #expect(range["proximity"] == .string("unknown"))
        #expect(fake.isFullyConsumed)
    }

    @Test func nonMatchingRegionFiltersTheBeaconOut() throws {
        let beacon = try #require(Golden.beacon)
        let p = try plan(.legacy)
        let fake = ScriptedController(C.probe(hciVersion: 8, extended: false) + C.okSteps(p.start) + [
            .receive(.event(Self.legacyReport(beacon.advertisingData, rssi: -60).packet)), .receive(.signal(15)),
        ] + C.okSteps(p.stop))
        let r = tool(["scan", "--region", Golden.uuidText + ":2", "--json"], host: FakeHost(devices: [C.device(0)], channels: [0: fake]))
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out == "")
        #expect(r.err.contains("1 report(s), 0 beacon(s)"), "the report arrived and was filtered: \(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func durationEndsTheScan() throws {
        let p = try plan(.legacy)
        let fake = ScriptedController(C.probe(hciVersion: 8, extended: false) + C.okSteps(p.start) + [.receive(.timedOut)] + C.okSteps(p.stop))
        let clock = TestClock()
        clock.attach(fake)
        let r = tool(["scan", "--duration", "1.5"], host: FakeHost(devices: [C.device(0)], channels: [0: fake]), clock: clock)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(fake.requestedTimeouts.contains { $0 > 1400 && $0 <= 1500 }, "\(fake.requestedTimeouts)")
    }

    @Test func extendedRefusedFallsBackToLegacy() throws {
        let ext = try plan(.extended), legacy = try plan(.legacy)
        var steps = C.probe(extended: true)
        steps.append(C.okStep(ext.start[0].command))
        steps.append(.command(ext.start[1].command, replies: [C.fail(ext.start[1].command, .commandDisallowed)]))
        steps += C.okSteps(legacy.start) + [.receive(.signal(15))] + C.okSteps(legacy.stop)
        let fake = ScriptedController(steps)
        let r = tool(["scan"], host: FakeHost(devices: [C.device(0)], channels: [0: fake]))
        #expect(r.code == 0, "\(r.err)")
        #expect(r.err.contains("trying legacy scan commands"))
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func refusedScanParametersLeaveScanningOff() throws {
        let ext = try plan(.extended)
        var steps = C.probe(extended: true)
        steps.append(C.okStep(ext.start[0].command))
        steps.append(.command(ext.start[1].command, replies: [C.fail(ext.start[1].command, .invalidHCICommandParameters)]))
        steps += C.okSteps(ext.stop)
        let fake = ScriptedController(steps)
        let r = tool(["scan"], host: FakeHost(devices: [C.device(0)], channels: [0: fake]))
        #expect(r.code == 69)
        #expect(r.err.contains("LE Set Extended Scan Parameters (0x2041) failed: Invalid HCI Command Parameters (0x12)"))
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    /// Kills "reports received during the start plan dropped": a report that arrives before the last
    /// start command's answer is ranged like any other.
    @Test func reportsDuringTheStartPlanAreRanged() throws {
        let beacon = try #require(Golden.beacon)
        let p = try plan(.legacy)
        var steps = C.probe(hciVersion: 8, extended: false)
        steps += C.okSteps(Array(p.start.dropLast()))
        let last = try #require(p.start.last).command
        steps.append(.command(last, replies: [Self.legacyReport(beacon.advertisingData, rssi: -65), C.ok(last)]))
        steps += [.receive(.signal(15))] + C.okSteps(p.stop)
        let fake = ScriptedController(steps)
        let r = tool(["scan", "--json"], host: FakeHost(devices: [C.device(0)], channels: [0: fake]))
        #expect(r.code == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 1, "\(lines)")
        let range = try JSON.parse(try #require(lines.first))
        #expect(range["event"] == .string("range") && range["uuid"] == .string(Golden.uuidText))
        #expect(range["major"] == .number(1) && range["minor"] == .number(2) && range["rssi"] == .number(-65))
        #expect(r.err.contains("scanning stopped on hci0: 1 report(s), 1 beacon(s)"), "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    /// Kills "scan ignoring Hardware Error / device down": either ends the scan with exit 69 (so
    /// systemd restarts it), and nothing after it is read.
    @Test func controllerFailuresEndTheScan() throws {
        let p = try plan(.legacy)
        let cases: [(HCIEvent, String)] = [
            (HCIEvent(code: .hardwareError, parameters: [0x05]),
             "beacon-tx scan: hci0 reported a Hardware Error (code 0x05) while scanning; the controller must be set up again (restart beacon-tx, or use --reset)\n"),
            (HCIEvent(code: .stackInternal, parameters: [0x01, 0x00, 0x04, 0x00, 0x00, 0x00]),
             "beacon-tx scan: hci0 went down while scanning (powered off, reset or removed by another program); nothing is on air any more\n"),
        ]
        for (event, message) in cases {
            let fake = ScriptedController(C.probe(hciVersion: 8, extended: false) + C.okSteps(p.start) + [.receive(.event(event.packet))])
            // --duration: were the failure ignored, the scan would end (exit 0) instead of waiting forever.
            let clock = TestClock()
            clock.attach(fake)
            let r = tool(["scan", "--duration", "5"], host: FakeHost(devices: [C.device(0)], channels: [0: fake]), clock: clock)
            #expect(r.code == 69)
            #expect(r.err.hasSuffix(message), "\(r.err)")
            #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        }
    }

    @Test func badScanFlags() {
        for (args, mention) in [
            (["scan", "--region", "nope"], "--region: 'nope' is not a UUID (accepted: \(ProximityUUID.acceptedForms))"),
            (["scan", "--region", Golden.uuidText + ":70000"], "70000"),
            (["scan", "--duration", "0"], "--duration"),
            (["scan", "--exit-timeout", "0.5"], "--exit-timeout"),
            (["scan", "--path-loss", "9"], "--path-loss"),
        ] {
            let r = tool(args)
            #expect(r.code == 64, "\(args) \(r.err)")
            #expect(r.err.contains(mention), "\(args): \(r.err)")
            #expect(r.out.isEmpty)
        }
    }

    @Test func serviceUnitRunsUnprivilegedWithTwoCapabilities() throws {
        let unit = try String(contentsOfFile: repoPath("Config/beacon-tx.service"), encoding: .utf8)
        let lines = Set(unit.split(separator: "\n").map(String.init))
        #expect(lines.contains("ExecStart=/usr/local/bin/beacon-tx start --config /etc/beacon-tx/kiosk.json --device-timeout 86400"))
        #expect(lines.contains("AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN"))
        #expect(lines.contains("CapabilityBoundingSet=CAP_NET_RAW CAP_NET_ADMIN"))
        #expect(lines.contains("DynamicUser=yes"))
        #expect(lines.contains("Restart=on-failure"))
        #expect(lines.contains("StandardOutput=journal"))
        #expect(!unit.contains("--detach"))
    }

    /// Both kiosk units: the metrics publisher is started with them and runs once when the process
    /// ends, before the runtime directory goes; nothing outside that directory and the device locks'
    /// directory is writable, and the one extra group is the locks' group.
    @Test(arguments: ["Config/beacon-tx.service", "Config/beacon-tx@.service"])
    func kioskUnitsLeaveMetricsToThePublisher(_ path: String) throws {
        let unit = try String(contentsOfFile: repoPath(path), encoding: .utf8)
        let lines = unit.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
        #expect(lines.contains("Wants=beacon-tx-status.timer"))
        #expect(lines.contains("ExecStopPost=-+/usr/bin/systemctl start beacon-tx-status.service"))
        #expect(!lines.contains { $0.hasPrefix("RuntimeDirectoryPreserve=") }, "a preserved directory of a DynamicUser is /run/private (0700): status would need root")
        #expect(lines.contains("ProtectSystem=strict"))
        #expect(lines.filter { $0.hasPrefix("ReadWritePaths=") } == ["ReadWritePaths=/run/beacon-tx/lock"], "\(path)")
        #expect(lines.filter { $0.hasPrefix("SupplementaryGroups=") } == ["SupplementaryGroups=\(DeviceLock.group)"], "\(path)")
    }
}

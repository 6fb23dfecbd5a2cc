// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

/// The Prometheus textfiles: the format itself, the kiosk's file (`start --metrics`) and the
/// status file (`status --format prometheus` / `--metrics`). `.ci/run` also runs
/// `promtool check metrics` on the snapshots (scripts/check-prometheus).
@Suite struct PrometheusTextTests {
    @Test func escapingValuesAndEmptyFamilies() {
        let text = PrometheusText.render([
            .init("a_total", .counter, "back\\slash and\nnewline", [.init([("l", "q\"uote\\ and\nline")], 3)]),
            .init("b", .gauge, "no samples: not written", []),
            .init("c_seconds", .gauge, "values", [.init([], 0.25), .init([("k", "")], -1), .init([("k", "x")], .infinity), .init([("k", "y")], .nan),
                                                  .init([("k", "z")], 1_800_000_000.5)]),
        ])
        #expect(text == """
            # HELP a_total back\\\\slash and\\nnewline
            # TYPE a_total counter
            a_total{l="q\\"uote\\\\ and\\nline"} 3
            # HELP c_seconds values
            # TYPE c_seconds gauge
            c_seconds 0.25
            c_seconds{k=""} -1
            c_seconds{k="x"} +Inf
            c_seconds{k="y"} NaN
            c_seconds{k="z"} 1800000000.5

            """)
    }

    @Test func namesFollowTheFormat() {
        let kiosk = KioskMetrics(device: "hci0", started: 0, lastChange: 0)
        for f in kiosk.families + [] {
            #expect(PrometheusText.isValidName(f.name), "\(f.name)")
            #expect(f.kind != .counter || f.name.hasSuffix("_total"), "\(f.name)")
            for s in f.samples { for (l, _) in s.labels { #expect(PrometheusText.isValidName(l, label: true), "\(l)") } }
        }
        #expect(!PrometheusText.isValidName("9a") && !PrometheusText.isValidName("a:b", label: true) && !PrometheusText.isValidName("a-b"))
    }
}

@Suite struct KioskMetricsTests {
    typealias C = Controllers
    static let uuid = ProximityUUID(Golden.uuidText)!

    /// The three-beacon museum kiosk on extended sets, re-armed twice (a reset, then a power cycle),
    /// one reload applied and one rejected, one failed re-arm.
    @Test func threeBeaconKioskSnapshot() {
        var m = KioskMetrics(device: "hci0", started: 1_800_000_000, lastChange: 1_800_000_125)
        m.onAir = false
        m.beaconOnAir = [true, false, true]   // another program disabled set 238
        m.family = .extended
        m.sets = [239, 238, 237]
        m.beacons = [
            BeaconEntry(identifier: "museum-entrance", uuid: Self.uuid, major: 1, minor: 1),
            BeaconEntry(identifier: "museum-hall", uuid: Self.uuid, major: 1, minor: 2),
            BeaconEntry(identifier: nil, uuid: Self.uuid, major: 1, minor: 3),
        ]
        m.rearms = [.reset: 1, .deviceUp: 1]
        m.rearmFailures = 1
        m.reloadsApplied = 1
        m.reloadsRejected = 1
        m.lastRearm = 1_800_000_120.25
        expectSnapshot(m.text, "metrics-kiosk.prom")
    }

    /// One beacon of each type in a rotation: an iBeacon keeps its uuid/major/minor labels, the
    /// others are labelled by type and identity (scripts/check-prometheus runs promtool on it).
    @Test func eachTypesBeaconSnapshot() throws {
        var s = Settings()
        _ = try ConfigFile.apply(try JSON.parse(BeaconTypesTests.config), into: &s, prefix: "config")
        var m = KioskMetrics(device: "hci0", started: 1_800_000_000, lastChange: 1_800_000_010)
        m.onAir = true
        m.family = .legacy
        m.rotation = true
        m.beacons = s.beacons
        m.beaconOnAir = [true, false, false, false, false]
        expectSnapshot(m.text, "metrics-types.prom")
        #expect(m.text.contains(#"beacon_tx_beacon_on_air{device="hci0",identifier="android",type="altbeacon",id="id1 2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6 id2 1 id3 2"} 0"#))
    }

    @Test func reasonCategoriesFromTheSessionsTypedCauses() {
        let cases: [(RearmCause, RearmReason)] = [
            (.disruption(.reset), .reset),
            (.disruption(.clearedSets), .disabled),
            (.disruption(.removedSet(239)), .disabled),
            (.disruption(.disabledAllSets), .disabled),
            (.disruption(.disabledLegacy), .disabled),
            (.disruption(.wrote(.leSetExtendedAdvertisingData, set: 239)), .disabled),
            (.deviceUp, .deviceUp),
            (.deviceReturned, .deviceReturned),
            (.hardwareError(code: 1), .hardwareError),
            (.connectionEnded, .connection),
            (.cycleOn(milliseconds: 30_000), .schedule),
            (.reloadFailed, .reloadFailed),
            (.rotationStepFailed, .rotationFailed),
            (.otherOwnerQuiet(milliseconds: 10_000), .other),
            (.instanceRemoved(5), .disabled),
        ]
        for (cause, reason) in cases { #expect(RearmReason(cause) == reason, "\(cause)") }
    }

    func plan() throws -> AdvertisingPlan {
        AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: AdvertisingOptions(interval: .standard, advertisingHandle: 0xEF), family: .extended)
    }

    /// A live session: on air (file written once), another program's HCI Reset (off air, then
    /// re-armed: the reset counter is 1), then SIGTERM: the final state, nothing on air.
    @Test func liveSessionWritesOnEachChangeOnly() throws {
        let dir = temporaryDirectory()
        let file = dir + "/beacon-tx.prom"
        let p = try plan()
        var seen: [String] = []
        func read() -> String { (try? String(contentsOfFile: file, encoding: .utf8)) ?? "(none)" }
        // (the steps in parts: Swift 6.0.3 cannot type-check them as one `+` chain)
        var steps = C.probe(extended: true) + C.okSteps(p.start)
        steps += [
            .receive(.timedOut),                       // idle: look at the file
            .receive(.command(HCICommand.reset.packet)), .receive(.event(C.ok(.reset).packet)),
            .receive(.timedOut),                       // the settle time passes: re-armed
        ] as [ScriptedController.Step]
        steps += C.okSteps(p.start)
        steps += [.receive(.timedOut), .receive(.signal(15))] as [ScriptedController.Step]
        steps += C.okSteps(p.stop)
        let fake = ScriptedController(steps)
        let clock = TestClock()
        fake.onTimeout = { ms in
            seen.append(read())
            clock.milliseconds += Int64(max(0, ms))
        }
        let h = FakeHost(devices: [C.device(0)], channels: [0: fake])
        let r = tool(["start"] + goldenFlags + ["--identifier", "lobby", "--metrics", file], host: h, clock: clock)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(seen.count == 3)
        func value(_ text: String, _ series: String) -> String? {
            text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.map { String($0.dropFirst(series.count + 1)) }
        }
        let beacon = "beacon_tx_beacon_on_air{device=\"hci0\",identifier=\"lobby\",uuid=\"\(Golden.uuidText)\",major=\"1\",minor=\"2\"}"
        let reset = "beacon_tx_rearms_total{device=\"hci0\",reason=\"reset\"}"
        #expect(value(seen[0], beacon) == "1")
        #expect(value(seen[0], reset) == "0")
        #expect(value(seen[1], beacon) == "0", "waiting out the settle time: off air")
        #expect(value(seen[2], beacon) == "1")
        #expect(value(seen[2], reset) == "1")
        let rearmedAt = value(seen[2], "beacon_tx_last_rearm_timestamp_seconds{device=\"hci0\"}").flatMap(Double.init)
        #expect(rearmedAt.map { abs($0 - 1_800_000_000) < 1 } == true, "the wall clock of the re-arm, not of the write: \(String(describing: rearmedAt))")
        let final = read()
        #expect(value(final, beacon) == "0")
        #expect(value(final, "beacon_tx_session_up{device=\"hci0\"}") == "0")
        #expect(value(final, reset) == "1")
        #expect(!FileManager.default.fileExists(atPath: file + ".tmp"))
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? Int) == 0o644)
    }

    /// An unwritable file costs one warning; the session goes on and stops cleanly.
    @Test func anUnwritableFileCostsOneWarning() throws {
        let p = try plan()
        let fake = ScriptedController(C.probe(extended: true) + C.okSteps(p.start) + [.receive(.signal(15))] + C.okSteps(p.stop))
        let h = FakeHost(devices: [C.device(0)], channels: [0: fake])
        let r = tool(["start"] + goldenFlags + ["--metrics", "/proc/beacon-tx-nowhere/x.prom"], host: h)
        #expect(r.code == 0, "\(r.err)")
        let warnings = r.err.split(separator: "\n").filter { $0.contains("metrics file") }
        #expect(warnings == ["beacon-tx: metrics file /proc/beacon-tx-nowhere/x.prom: No such file or directory (--metrics); the fleet will not see this session's changes"])
    }

    /// The packaged default: no `metrics` in the config, and the file is `hciN.prom` in the state
    /// directory (beside `hciN.json`) without a word on stderr; a clean stop removes it, as it
    /// removes the state file.
    @Test func withoutMetricsTheFileIsKeptBesideTheStateFile() throws {
        let p = try plan()
        let state = temporaryDirectory()
        var seen: String?
        let fake = ScriptedController(C.probe(extended: true) + C.okSteps(p.start) + [.receive(.timedOut), .receive(.signal(15))] + C.okSteps(p.stop))
        fake.onTimeout = { _ in seen = try? String(contentsOfFile: state + "/hci0.prom", encoding: .utf8) }
        let h = FakeHost(devices: [C.device(0)], channels: [0: fake])
        let r = tool(["start"] + goldenFlags, host: h, service: service([:], stateDirectory: state))
        #expect(r.code == 0, "\(r.err)")
        #expect(!r.err.contains("metrics"), "\(r.err)")
        #expect(seen?.contains("beacon_tx_session_up{device=\"hci0\"} 1\n") == true, "\(seen ?? "(none)")")
        #expect(seen?.contains("beacon_tx_scheduled_off{device=\"hci0\"} 0\n") == true)
        #expect(!FileManager.default.fileExists(atPath: state + "/hci0.prom"), "a clean stop leaves no file")
    }

    /// An explicit FILE that cannot be written (an old config naming node_exporter's directory
    /// under the packaged unit): kept beside the state file instead, with one note (not a warning);
    /// a failed session's file stays, saying it is down.
    @Test func anUnwritableFileIsKeptInTheStateDirectory() throws {
        let p = try plan()
        let state = temporaryDirectory()
        let fake = ScriptedController(C.probe(extended: true) + C.okSteps(p.start) + [.receive(.signal(15))] + C.okSteps(p.stop))
        let h = FakeHost(devices: [C.device(0)], channels: [0: fake])
        let r = tool(["start"] + goldenFlags + ["--metrics", "/proc/beacon-tx-nowhere/beacon-tx.prom"], host: h, service: service([:], stateDirectory: state))
        #expect(r.code == 0, "\(r.err)")
        let lines = r.err.split(separator: "\n").filter { $0.contains("metrics file") }
        #expect(lines == ["beacon-tx: metrics file /proc/beacon-tx-nowhere/beacon-tx.prom: No such file or directory (--metrics); kept as \(state)/hci0.prom instead, which beacon-tx-status.timer (beacon-tx status --metrics) publishes"])
        #expect(!FileManager.default.fileExists(atPath: state + "/hci0.prom"), "a clean stop leaves no file")
    }

    /// Per beacon: one set taken by another program leaves the others on air; a rotation has only
    /// the turn's beacon on air; every other phase has none.
    @Test func onAirPerBeacon() {
        let sets = BeaconOnAir.Placement.sets([239, 238, 237])
        #expect(BeaconOnAir.states(.onAir, sets, beacons: 3) == [true, true, true])
        #expect(BeaconOnAir.states(.disrupted(.disabledSet(238)), sets, beacons: 3) == [true, false, true])
        #expect(BeaconOnAir.states(.disrupted(.removedSet(237)), sets, beacons: 3) == [true, true, false])
        #expect(BeaconOnAir.states(.disrupted(.wrote(.leSetExtendedAdvertisingData, set: 239)), sets, beacons: 3) == [false, true, true])
        #expect(BeaconOnAir.states(.connected(.set(239)), sets, beacons: 3) == [false, true, true])
        for phase: SessionPhase in [.disrupted(.reset), .disrupted(.clearedSets), .disrupted(.disabledAllSets), .disrupted(.wrote(.leSetAdvertisingData, set: nil)),
                                    .deviceDown, .idle, .stopped, .unplugged, .awaitingReset(hardwareCode: 1),
                                    .retrying(.deviceUp, .plan(.noBeacons)), .offPhase(.init(offMilliseconds: 1000, pair: 1, count: nil))] {
            #expect(BeaconOnAir.states(phase, sets, beacons: 3) == [false, false, false], "\(phase)")
        }
        #expect(BeaconOnAir.states(.onAir, .rotation(turn: 1), beacons: 3) == [false, true, false])
        #expect(BeaconOnAir.states(.onAir, .rotation(turn: 0), beacons: 1) == [true])
        #expect(BeaconOnAir.states(.disrupted(.disabledSet(239)), .rotation(turn: 1), beacons: 3) == [false, false, false])
        #expect(BeaconOnAir.states(.onAir, .kernelRotation, beacons: 2) == [true, true])
        #expect(BeaconOnAir.states(.deviceDown, .kernelRotation, beacons: 2) == [false, false])
        #expect(BeaconOnAir.states(.onAir, .sets([239]), beacons: 2) == [true, false], "a beacon without a set is not on air")
    }

    @Test func configKeyAndBadValues() throws {
        let dir = temporaryDirectory()
        let config = dir + "/k.json"
        try #"{"metrics": "/var/lib/prometheus/node-exporter/beacon-tx.prom", "beacons": [{"uuid": "\#(Golden.uuidText)", "major": 1, "minor": 2}]}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let dump = tool(["dump-config", "--config", config])
        #expect(dump.code == 0, "\(dump.err)")
        #expect(dump.out.contains(#""metrics": "/var/lib/prometheus/node-exporter/beacon-tx.prom""#), "\(dump.out)")
        try #"{"metrics": "", "beacons": [{"uuid": "\#(Golden.uuidText)", "major": 1, "minor": 2}]}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let empty = tool(["start", "--config", config, "--dry-run"])
        #expect(empty.code == 65)
        #expect(empty.err == "beacon-tx start: config \(config): metrics: empty file name (accepted: a file name, or null for none)\n")
        try #"{"metrics": 3, "beacons": [{"uuid": "\#(Golden.uuidText)", "major": 1, "minor": 2}]}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let number = tool(["start", "--config", config, "--dry-run"])
        #expect(number.code == 65)
        #expect(number.err == "beacon-tx start: config \(config): metrics: expected a string, found a number\n")
    }
}

extension StatusCommandTests {
    @Test func prometheusSnapshotAndFile() throws {
        let dir = try sessions()
        let svc = service([:], stateDirectory: dir, alive: [4242, 4243], locks: Self.locks)
        let r = tool(["status", "--format", "prometheus"], service: svc)
        #expect(r.code == 0, "\(r.err)")
        // build_info carries this build's commit (empty in a development build): checked apart
        let build = PrometheusText.render([.buildInfo(role: "status")])
        #expect(r.out.hasPrefix(build), "\(r.out)")
        #expect(build.contains("beacon_tx_build_info{role=\"status\",version=\"\(BeaconTX.version)\",revision=\"") && !build.contains("device="))
        expectSnapshot(String(r.out.dropFirst(build.count)), "metrics-status.prom")
        #expect(PrometheusText.render([.buildInfo(role: "listener", BuildIdentity(version: "0.3.0", stamp: String(repeating: "ab", count: 20)))])
                    .contains(#"beacon_tx_build_info{role="listener",version="0.3.0",revision="\#(String(repeating: "ab", count: 20))"} 1"#))
        let out = temporaryDirectory() + "/beacon-tx-status.prom"
        let f = tool(["status", "--metrics", out, "--device", "hci2"], service: svc)
        #expect(f.code == 0, "written: exit 0 although nothing is on air on hci2")
        #expect(f.out.isEmpty)
        #expect(try String(contentsOfFile: out, encoding: .utf8) == build + """
            # HELP beacon_tx_status_running 1 when the beacon-tx process recorded in the device's state file is alive and holds the device's lock, 0 when it is gone (killed, crashed), does not hold the lock, or the state file is unreadable.
            # TYPE beacon_tx_status_running gauge
            beacon_tx_status_running{device="hci2"} 0
            # HELP beacon_tx_status_on_air 1 when that process is alive and its state file says every beacon is on air.
            # TYPE beacon_tx_status_on_air gauge
            beacon_tx_status_on_air{device="hci2"} 0
            # HELP beacon_tx_status_timestamp_seconds When beacon-tx status wrote this, seconds since the Unix epoch.
            # TYPE beacon_tx_status_timestamp_seconds gauge
            beacon_tx_status_timestamp_seconds 1800000000

            """)
        let both = tool(["status", "--json", "--format", "prometheus"], service: svc)
        #expect(both.code == 64)
        #expect(both.err == "beacon-tx status: --json and --format prometheus exclude each other\n")
        let bad = tool(["status", "--format", "yaml"], service: svc)
        #expect(bad.code == 64)
        #expect(bad.err == "beacon-tx status: --format: 'yaml' is not one of text, json, prometheus\n")
    }
}

/// `status --metrics FILE` publishes the kiosks' files kept in the state directories beside FILE.
@Suite struct MetricsPublisherTests {
    @Test func publishesKeptFilesAndRemovesCopiesWhoseFileHasGone() throws {
        let state = temporaryDirectory()
        let out = temporaryDirectory()
        let fm = FileManager.default
        try fm.createDirectory(atPath: state + "/hci1", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: state + "/hci3", withIntermediateDirectories: true)
        let kiosk = "beacon_tx_session_up{device=\"hci0\"} 1\n"
        let instance = "beacon_tx_session_up{device=\"hci1\"} 1\n"
        try kiosk.write(toFile: state + "/hci0.prom", atomically: true, encoding: .utf8)
        try instance.write(toFile: state + "/hci1/hci1.prom", atomically: true, encoding: .utf8)
        try "secret\n".write(toFile: state + "/hci2.prom", atomically: true, encoding: .utf8)
        try fm.setAttributes([.posixPermissions: 0o600], ofItemAtPath: state + "/hci2.prom")
        try fm.createSymbolicLink(atPath: state + "/hci3/hci3.prom", withDestinationPath: "/etc/hostname")
        try "x 1\n".write(toFile: state + "/other.prom", atomically: true, encoding: .utf8)
        try "{}".write(toFile: state + "/hci0.json.prom.tmp", atomically: true, encoding: .utf8)
        let foreign = "node_apt_upgrades_pending 0\n"
        try foreign.write(toFile: out + "/apt.prom", atomically: true, encoding: .utf8)
        // Running sessions (their state files, live pids) for hci0–hci3; hci4's session was killed
        // (SIGKILL leaves the state file and the metrics file): its file is not published.
        let store = StateStore(candidates: [state])
        for (n, pid) in [(0, 100), (1, 100), (2, 100), (3, 100), (4, 4242)] as [(Int, Int32)] {
            try store.write(SessionState(device: "hci\(n)", pid: pid, onAir: true, status: "on air", family: .extended,
                                         sets: [239], beacons: [], since: 1_800_000_000), into: n == 1 || n == 3 ? state + "/hci\(n)" : state)
        }
        try "beacon_tx_session_up{device=\"hci4\"} 1\n".write(toFile: state + "/hci4.prom", atomically: true, encoding: .utf8)
        let svc = service([:], stateDirectory: state, alive: [100], locks: ["hci0": 100, "hci1": 100, "hci2": 100, "hci3": 100])
        let file = out + "/beacon-tx-status.prom"

        let r = tool(["status", "--metrics", file], service: svc)
        #expect(r.code == 0, "\(r.err)")
        #expect(try String(contentsOfFile: out + "/beacon-tx-hci0.prom", encoding: .utf8)
                == "# beacon-tx status: published from \(state)/hci0.prom\n" + kiosk)
        #expect(try String(contentsOfFile: out + "/beacon-tx-hci1.prom", encoding: .utf8)
                == "# beacon-tx status: published from \(state)/hci1/hci1.prom\n" + instance)
        #expect(!fm.fileExists(atPath: out + "/beacon-tx-hci2.prom") && !fm.fileExists(atPath: out + "/beacon-tx-hci3.prom"))
        #expect(!fm.fileExists(atPath: out + "/beacon-tx-hci4.prom"), "a killed session's file is not published")
        #expect(!fm.fileExists(atPath: out + "/other.prom") && !fm.fileExists(atPath: out + "/beacon-tx-other.prom"), "only the sessions' files")
        #expect(r.err == """
            beacon-tx: metrics file \(state)/hci2.prom not published: not readable by everyone (mode 600)
            beacon-tx: metrics file \(state)/hci3/hci3.prom not published: a symbolic link

            """)
        #expect(try String(contentsOfFile: out + "/beacon-tx-status.prom", encoding: .utf8).contains("beacon_tx_status_timestamp_seconds"))
        let mode = try fm.attributesOfItem(atPath: out + "/beacon-tx-hci0.prom")[.posixPermissions] as? Int
        #expect(mode == 0o644)

        // the kiosk stopped: its file went (or systemd removed its runtime directory); its copy goes, other files stay
        try fm.removeItem(atPath: state + "/hci0.prom")
        let again = tool(["status", "--metrics", file], service: svc)
        #expect(again.code == 0)
        #expect(!fm.fileExists(atPath: out + "/beacon-tx-hci0.prom"))
        #expect(fm.fileExists(atPath: out + "/beacon-tx-hci1.prom"))
        #expect(try String(contentsOfFile: out + "/apt.prom", encoding: .utf8) == foreign)
        #expect(fm.fileExists(atPath: file))
    }

    /// Down stays down: a device the previous run reported down (its unit's runtime directory, with
    /// the dead pid's state file, is gone since) is still down until it has a session again; a
    /// device that was up and has no state file now stopped cleanly.
    @Test func downStaysDownUntilTheDeviceRunsAgain() throws {
        let state = temporaryDirectory()
        let file = temporaryDirectory() + "/beacon-tx-status.prom"
        try """
            beacon_tx_status_running{device="hci0"} 0
            beacon_tx_status_running{device="hci1"} 1
            beacon_tx_status_running{device="hci2"} 0

            """.write(toFile: file, atomically: true, encoding: .utf8)
        try StateStore(candidates: [state]).write(SessionState(device: "hci2", pid: 4242, onAir: true, status: "on air", family: .extended,
                                                               sets: [239], beacons: [], since: 1_800_000_000), into: state)
        let svc = service([:], stateDirectory: state, alive: [4242], locks: ["hci2": 4242])
        #expect(tool(["status", "--metrics", file], service: svc).code == 0)
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("beacon_tx_status_running") }
        #expect(lines == [#"beacon_tx_status_running{device="hci0"} 0"#, #"beacon_tx_status_running{device="hci2"} 1"#])
        // stdout is not a memory
        let out = tool(["status", "--format", "prometheus"], service: svc).out
        #expect(!out.contains(#"device="hci0""#))
    }

    /// A state directory that is the textfile directory itself is not copied onto itself.
    @Test func nothingIsPublishedIntoItsOwnDirectory() throws {
        let dir = temporaryDirectory()
        let kiosk = "beacon_tx_session_up{device=\"hci0\"} 1\n"
        try kiosk.write(toFile: dir + "/hci0.prom", atomically: true, encoding: .utf8)
        let r = tool(["status", "--metrics", dir + "/beacon-tx-status.prom"], service: service([:], stateDirectory: dir, alive: []))
        #expect(r.code == 0 && r.err.isEmpty, "\(r.err)")
        #expect(try String(contentsOfFile: dir + "/hci0.prom", encoding: .utf8) == kiosk)
        #expect(!FileManager.default.fileExists(atPath: dir + "/beacon-tx-hci0.prom"))
    }
}

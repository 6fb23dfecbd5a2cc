// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Glibc
import Testing

/// A state file as a test plants it: `state` as JSON, in `dir` (created), named after its device
/// unless `name` says otherwise.
func plantState(_ state: SessionState, in dir: String, as name: String? = nil) throws {
    #expect(mkdir(dir, 0o755) == 0 || errno == EEXIST)
    try (state.json.pretty + "\n").write(toFile: dir + "/" + (name ?? state.device + ".json"), atomically: false, encoding: .utf8)
}

func sessionState(_ device: String, pid: Int32, onAir: Bool = true, status: String? = nil) -> SessionState {
    SessionState(device: device, pid: pid, onAir: onAir, status: status ?? "1 beacon on air on \(device) (extended set 239)", family: .extended,
                 sets: [239], beacons: [BeaconEntry(identifier: "lobby", uuid: ProximityUUID(Golden.uuidText)!, major: 1, minor: 2, measuredPower: -59)],
                 since: 1_800_000_000)
}

/// Whether `s` holds a character a terminal would act on (C0 but the line feed, DEL, C1).
func hasControlCharacters(_ s: String) -> Bool {
    s.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) }
}

/// State files are written by other users (the units' dynamic users, a user's own session) and
/// read by root (`status`, `doctor`, the status timer): a file is believed only where it belongs,
/// and only while its pid holds its device's lock.
@Suite struct StateTrustTests {
    @Test func onlyCanonicalNamesAreDevices() throws {
        for name in ["hci0", "hci1", "hci12", "hci65535"] { #expect(StateStore.deviceNumber(name) != nil, "\(name)") }
        for name in ["hci00", "hci+0", "hci-0", "hci0007", "hci", "hci 1", "hci65536", "hci1x", "HCI0", "hci٣", "hci123456"] {
            #expect(StateStore.deviceNumber(name) == nil, "\(name)")
        }
        let base = temporaryDirectory()
        for device in ["hci00", "hci+0", "hci0007"] {
            try plantState(sessionState(device, pid: 4242), in: base)
            try plantState(sessionState(device, pid: 4242), in: base + "/" + device)
            try "beacon_tx_session_up{device=\"\(device)\"} 1\n".write(toFile: base + "/\(device).prom", atomically: false, encoding: .utf8)
        }
        #expect(StateStore(candidates: [base]).readAll().isEmpty)
        let svc = service([:], stateDirectory: base, locks: ["hci00": 4242, "hci+0": 4242, "hci0007": 4242, "hci0": 4242])
        let r = tool(["status"], service: svc)
        #expect(r.code == 3)
        #expect(r.out == "nothing on air: no beacon-tx session (state files looked for in \(base))\n")
        let out = temporaryDirectory()
        let m = tool(["status", "--metrics", out + "/beacon-tx-status.prom"], service: svc)
        #expect(m.code == 0 && m.err.isEmpty, "\(m.err)")
        #expect(StateStore.listing(out) == ["beacon-tx-status.prom"], "nothing published")
    }

    /// The template unit's user (`hci1/`) writes `hci0.json` naming a live pid while the kiosk on
    /// hci0 is dead: the kiosk's death shows, whatever the reading order.
    @Test func aForgedFileDoesNotShadowTheDeadKiosk() throws {
        let base = temporaryDirectory()
        try plantState(sessionState("hci0", pid: 500), in: base + "/kiosk")   // the kiosk, killed
        try plantState(sessionState("hci0", pid: 4242), in: base + "/hci1")   // forged: a live pid
        try plantState(sessionState("hci1", pid: 4243, onAir: false, status: "hci1 down; waiting to re-arm"), in: base + "/hci1")
        let svc = service([:], stateDirectory: base, alive: [4242, 4243], locks: ["hci1": 4243])
        #expect(StateStore(candidates: [base]).readAll().map(\.path) == [base + "/kiosk/hci0.json", base + "/hci1/hci1.json"])
        let r = tool(["status", "--device", "hci0"], service: svc)
        #expect(r.code == 3)
        #expect(r.out == "hci0: nothing on air (beacon-tx pid 500 is not running; stale state from 2027-01-15 08:00:00 UTC in \(base)/kiosk/hci0.json)\n")
        let p = tool(["status", "--format", "prometheus"], service: svc)
        #expect(p.out.contains("beacon_tx_status_running{device=\"hci0\"} 0\nbeacon_tx_status_running{device=\"hci1\"} 1\n"), "\(p.out)")

        // In hci0/, where hci0.json may be, a file whose live pid does not hold the lock runs nothing.
        try plantState(sessionState("hci0", pid: 4242), in: base + "/hci0")
        let again = tool(["status", "--device", "hci0"], service: svc)
        #expect(again.code == 3)
        #expect(again.out.hasPrefix("hci0: nothing on air (beacon-tx pid 500 is not running"), "the first in reading order: \(again.out)")
        let alone = temporaryDirectory()
        try plantState(sessionState("hci0", pid: 4242), in: alone + "/hci0")
        let forged = tool(["status", "--device", "hci0", "--json"], service: service([:], stateDirectory: alone, alive: [4242]))
        #expect(forged.code == 3)
        guard case let .array(rows) = try JSON.parse(forged.out) else { Issue.record("not a list"); return }
        #expect(rows[0]["running"] == .bool(false))
        #expect(rows[0]["status"] == .string("pid 4242 does not hold hci0's device lock: the state file is not believed"))
    }

    /// Two places may hold a device's file (the kiosk's directory and `hciN/`): the one whose pid
    /// holds the lock is the session, before or after the other in reading order.
    @Test func theFileWhosePidHoldsTheLockWins() throws {
        for (real, forged) in [("hci0", "kiosk"), ("kiosk", "hci0")] {
            let base = temporaryDirectory()
            try plantState(sessionState("hci0", pid: 4242, status: "the real one"), in: base + "/" + real)
            try plantState(sessionState("hci0", pid: 4243, status: "the forged one"), in: base + "/" + forged)
            let svc = service([:], stateDirectory: base, alive: [4242, 4243], locks: ["hci0": 4242])
            let r = tool(["status"], service: svc)
            #expect(r.code == 0)
            #expect(r.out.hasPrefix("hci0: on air since 2027-01-15 08:00:00 UTC, pid 4242: the real one\n"), "\(real): \(r.out)")
            // Nobody holds it: nothing runs, whichever file is shown.
            #expect(tool(["status"], service: service([:], stateDirectory: base, alive: [4242, 4243])).code == 3)
            // The lock cannot be asked (not root): not verified, not running.
            var unknown = service([:], stateDirectory: base, alive: [4242, 4243])
            unknown.lockHolder = { _ in .unknown("/run/beacon-tx/lock: Permission denied") }
            let u = tool(["status", "--device", "hci0"], service: unknown)
            #expect(u.code == 3)
            #expect(u.out.contains("hci0's device lock could not be read: /run/beacon-tx/lock: Permission denied; run beacon-tx status as root)"), "\(u.out)")
        }
    }

    /// The status text of a state file, a beacon's name and a re-arm reason carry escape sequences
    /// (a window title, a fake green "ALL GOOD", a C1 CSI, a forged second line): printed escaped.
    @Test func escapeSequencesInAStateFileArePrintedSanitised() throws {
        let base = temporaryDirectory()
        let hostile = "\u{1b}]0;root@kiosk: all fine\u{07}\u{1b}[1;32mALL GOOD\u{1b}[0m"
        var s = sessionState("hci0", pid: 4242, status: hostile)
        s.beacons[0].identifier = "lobby\u{1b}[2J"
        s.lastRearm = .init(at: 1_800_000_000, reason: "reset\nhci1: on air, pid 1: ALL GOOD\u{9b}31m")
        try plantState(s, in: base)
        let svc = service([:], stateDirectory: base, locks: ["hci0": 4242])
        let r = tool(["status"], service: svc)
        #expect(r.code == 0)
        #expect(r.out == #"""
            hci0: on air since 2027-01-15 08:00:00 UTC, pid 4242: \u{1b}]0;root@kiosk: all fine\u{7}\u{1b}[1;32mALL GOOD\u{1b}[0m
              lobby\u{1b}[2J E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2 power -59 dBm
              last re-arm 2027-01-15 08:00:00 UTC: reset\nhci1: on air, pid 1: ALL GOOD\u{9b}31m

            """#)
        #expect(!hasControlCharacters(r.out))
        let j = tool(["status", "--json"], service: svc)
        #expect(!hasControlCharacters(j.out))
        #expect(j.out.contains(#""status": "\u001b]0;root@kiosk: all fine\u0007\u001b[1;32mALL GOOD\u001b[0m""#), "\(j.out)")
        guard case let .array(rows) = try JSON.parse(j.out) else { Issue.record("not a list"); return }
        #expect(rows[0]["status"] == .string(hostile), "the JSON says exactly what the file says")
        // Not running: the stale line quotes the path and nothing else; the unreadable one its error.
        let stale = tool(["status"], service: service([:], stateDirectory: base, alive: []))
        #expect(!hasControlCharacters(stale.out))
    }

    @Test func aLinkInPlaceOfAStateFileIsNotFollowedAndLeaksNothing() throws {
        let base = temporaryDirectory()
        let secret = temporaryDirectory() + "/shadow"
        try "SECRET:$6$root-only\n".write(toFile: secret, atomically: false, encoding: .utf8)
        #expect(chmod(secret, 0o600) == 0)
        #expect(symlink(secret, base + "/hci0.json") == 0)
        // An instance directory that is a link is not followed either.
        let elsewhere = temporaryDirectory()
        try plantState(sessionState("hci1", pid: 4242), in: elsewhere)
        #expect(symlink(elsewhere, base + "/hci1") == 0)
        #expect(StateStore(candidates: [base]).readAll().isEmpty)
        let svc = service([:], stateDirectory: base, locks: ["hci0": 4242, "hci1": 4242])
        for args in [["status"], ["status", "--json"], ["status", "--device", "hci0"]] {
            let r = tool(args, service: svc)
            #expect(r.code == 3)
            #expect(!r.out.contains("SECRET") && !r.out.contains("'S'") && !r.err.contains("SECRET"), "\(args): \(r.out)\(r.err)")
        }
        #expect(tool(["status"], service: svc).out == "nothing on air: no beacon-tx session (state files looked for in \(base))\n")
        #expect(StateStore.read(base + "/hci0.json") == .failure(StateFileError("not read: not where it belongs")))
    }

    /// A unit may write only its own directory: a file there that is not its own (root's, hard
    /// linked or chowned), or its own file in root's directory, is not a state file.
    @Test(.enabled(if: getuid() == 0, "chown needs root"))
    func aFileOfAnotherOwnerThanItsDirectoryIsIgnored() throws {
        let base = temporaryDirectory()   // root's
        try plantState(sessionState("hci0", pid: 4242), in: base)
        #expect(chown(base + "/hci0.json", 65534, 65534) == 0)
        let svc = service([:], stateDirectory: base, locks: ["hci0": 4242, "hci1": 4243])
        #expect(StateStore(candidates: [base]).readAll().isEmpty)
        #expect(tool(["status", "--device", "hci0"], service: svc).out == "hci0: nothing on air (no beacon-tx session)\n")
        // nobody's directory (a unit's): root's file in it is ignored, nobody's own is read
        let unit = base + "/kiosk"
        try plantState(sessionState("hci1", pid: 4243), in: unit)
        #expect(chown(unit, 65534, 65534) == 0)
        #expect(StateStore(candidates: [base]).readAll().isEmpty)
        #expect(chown(unit + "/hci1.json", 65534, 65534) == 0)
        #expect(StateStore(candidates: [base]).readAll().map(\.path) == [unit + "/hci1.json"])
        #expect(tool(["status", "--device", "hci1"], service: svc).code == 0)
    }
}

/// `status --metrics`: what root copies from the sessions' directories is bounded and checked.
@Suite struct PublisherBoundsTests {
    /// A state directory with running sessions (pid 100 holds every device's lock) on `devices`,
    /// and the service context that sees them.
    func running(_ devices: [String], in state: String) throws -> ServiceContext {
        for device in devices { try plantState(sessionState(device, pid: 100), in: state) }
        return service([:], stateDirectory: state, alive: [100], locks: Dictionary(uniqueKeysWithValues: devices.map { ($0, 100) }))
    }

    /// Lines of `device`'s own series, `count` of them (each about 60 bytes).
    func series(_ device: String, count: Int) -> String {
        (0..<count).map { "beacon_tx_beacon_on_air{device=\"\(device)\",identifier=\"b\($0)\"} 1\n" }.joined()
    }

    func published(_ out: String) -> [String] { StateStore.listing(out).filter { $0 != "beacon-tx-status.prom" }.sorted() }

    func bytes(in out: String) -> Int {
        StateStore.listing(out).reduce(0) { sum, name in
            var st = stat()
            return sum + (stat(out + "/" + name, &st) == 0 ? Int(st.st_size) : 0)
        }
    }

    @Test func oneFileHardLinkedAHundredTimesIsNotCopied() throws {
        let state = temporaryDirectory(), out = temporaryDirectory()
        let devices = (0..<100).map { "hci\($0)" }
        let svc = try running(devices, in: state)
        try series("hci0", count: 1000).write(toFile: state + "/hci0.prom", atomically: false, encoding: .utf8)   // 60 KiB
        for device in devices.dropFirst() { #expect(link(state + "/hci0.prom", state + "/\(device).prom") == 0) }
        let file = out + "/beacon-tx-status.prom"
        let r = tool(["status", "--metrics", file], service: svc)
        #expect(r.code == 0)
        #expect(published(out).isEmpty, "no copy of a hard link: \(published(out))")
        // Only the status file (with 9 counters for each of the 100 devices), not 100 copies of 60 KiB.
        #expect(bytes(in: out) < 128 << 10, "\(bytes(in: out))")
        let warnings = r.err.split(separator: "\n")
        #expect(warnings.count == 100)
        #expect(warnings.first == "beacon-tx: metrics file \(state)/hci0.prom not published: 100 links to one file (a hard link): only a file with one link is read")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains("beacon_tx_publish_refused_total{device=\"hci0\",reason=\"hard_link\"} 1\n"))
        #expect(text.contains("beacon_tx_publish_refused_total{device=\"hci99\",reason=\"hard_link\"} 1\n"))
        // Once the links are gone, the file is published (once).
        for device in devices.dropFirst() { #expect(unlink(state + "/\(device).prom") == 0) }
        let again = tool(["status", "--metrics", file], service: svc)
        #expect(again.code == 0 && again.err.isEmpty, "\(again.err)")
        #expect(published(out) == ["beacon-tx-hci0.prom"])
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains("beacon_tx_publish_refused_total{device=\"hci0\",reason=\"hard_link\"} 1\n"),
                "a counter: the refusal stays counted")
    }

    @Test func eachFileAndAllFilesTogetherAreCapped() throws {
        let state = temporaryDirectory(), out = temporaryDirectory()
        let devices = (0..<21).map { "hci\($0)" }
        let svc = try running(devices, in: state)
        try series("hci0", count: 20_000).write(toFile: state + "/hci0.prom", atomically: false, encoding: .utf8)   // 1.2 MB
        for device in devices.dropFirst() {   // about 60 KiB each: 17 fit in 1 MiB
            try series(device, count: 1000).write(toFile: state + "/\(device).prom", atomically: false, encoding: .utf8)
        }
        let r = tool(["status", "--metrics", out + "/beacon-tx-status.prom"], service: svc)
        #expect(r.code == 0)
        #expect(r.err.hasPrefix("beacon-tx: metrics file \(state)/hci0.prom not published: larger than 64 KiB\n"), "\(r.err)")
        #expect(r.err.contains("beacon-tx: metrics file \(state)/hci18.prom not published: the files before it already hold"), "\(r.err)")
        #expect(published(out) == (1...17).map { "beacon-tx-hci\($0).prom" }.sorted())
        #expect(bytes(in: out) <= (1 << 20) + (64 << 10), "\(bytes(in: out))")
        let text = try String(contentsOfFile: out + "/beacon-tx-status.prom", encoding: .utf8)
        #expect(text.contains("beacon_tx_publish_refused_total{device=\"hci0\",reason=\"size\"} 1\n"))
        #expect(text.contains("beacon_tx_publish_refused_total{device=\"hci20\",reason=\"total_size\"} 1\n"))
    }

    /// A session's file carries another program's series, another device's, the status series the
    /// timer writes itself, a timestamp and a terminal escape: only its own `beacon_tx_*` series are
    /// copied; the rest is counted and logged.
    @Test func onlyTheDevicesOwnBeaconTxSeriesAreRepublished() throws {
        let state = temporaryDirectory(), out = temporaryDirectory()
        let svc = try running(["hci0"], in: state)
        try """
            # HELP node_systemd_unit_state Forged.
            # TYPE node_systemd_unit_state gauge
            node_systemd_unit_state{name="sshd.service",state="active",type="simple"} 1
            # HELP beacon_tx_session_up 1 while the session runs.
            # TYPE beacon_tx_session_up gauge
            beacon_tx_session_up{device="hci0"} 1
            beacon_tx_session_up{device="hci1"} 1
            beacon_tx_session_up{device="hci0",device="hci1"} 1
            beacon_tx_session_up 1
            beacon_tx_session_on_air{device="hci0"} 1 1800000000
            beacon_tx_status_running{device="hci0"} 1
            beacon_tx_yields_total{device="hci0"} 0\u{1b}[2J
            # HELP beacon_tx_beacon_on_air 1 when this beacon is on air.
            # TYPE beacon_tx_beacon_on_air gauge
            beacon_tx_beacon_on_air{device="hci0",identifier="a \\"quoted\\" name",uuid="E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"} 1

            """.write(toFile: state + "/hci0.prom", atomically: false, encoding: .utf8)
        let file = out + "/beacon-tx-status.prom"
        let r = tool(["status", "--metrics", file], service: svc)
        #expect(r.code == 0)
        #expect(r.err == "beacon-tx: metrics file \(state)/hci0.prom: 9 lines left out (only beacon_tx_* series of hci0 are published)\n")
        #expect(try String(contentsOfFile: out + "/beacon-tx-hci0.prom", encoding: .utf8) == """
            # beacon-tx status: published from \(state)/hci0.prom
            # HELP beacon_tx_session_up 1 while the session runs.
            # TYPE beacon_tx_session_up gauge
            beacon_tx_session_up{device="hci0"} 1
            # HELP beacon_tx_beacon_on_air 1 when this beacon is on air.
            # TYPE beacon_tx_beacon_on_air gauge
            beacon_tx_beacon_on_air{device="hci0",identifier="a \\"quoted\\" name",uuid="E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"} 1

            """)
        // Counted per run: the second run adds one.
        #expect(tool(["status", "--metrics", file], service: svc).code == 0)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let build = PrometheusText.render([.buildInfo(role: "status")])
        #expect(text.hasPrefix(build))
        expectSnapshot(String(text.dropFirst(build.count)), "metrics-status-refused.prom")
    }

    /// What a session writes passes whole.
    @Test func aKiosksOwnFileIsRepublishedWhole() throws {
        let kiosk = try String(contentsOfFile: repoPath("Tests/BeaconToolTests/Snapshots/metrics-kiosk.prom"), encoding: .utf8)
        let kept = MetricsPublisher.filter(Array(kiosk.utf8), device: "hci0")
        #expect(kept.dropped == 0)
        #expect(String(decoding: kept.bytes, as: UTF8.self) == kiosk)
        let other = MetricsPublisher.filter(Array(kiosk.utf8), device: "hci1")
        #expect(other.bytes.isEmpty, "another device's file: nothing of it")
        #expect(other.dropped == kiosk.split(separator: "\n").filter { !$0.hasPrefix("#") }.count)
    }

    @Test(.enabled(if: getuid() == 0, "chown needs root"))
    func aMetricsFileOfAnotherOwnerThanItsDirectoryIsRefused() throws {
        let base = temporaryDirectory(), out = temporaryDirectory()
        let unit = base + "/kiosk"   // a unit's directory: nobody's
        try plantState(sessionState("hci0", pid: 100), in: unit)
        try series("hci0", count: 3).write(toFile: unit + "/hci0.prom", atomically: false, encoding: .utf8)
        #expect(chown(unit, 65534, 65534) == 0 && chown(unit + "/hci0.json", 65534, 65534) == 0)
        let svc = service([:], stateDirectory: base, alive: [100], locks: ["hci0": 100])
        let r = tool(["status", "--metrics", out + "/beacon-tx-status.prom"], service: svc)
        #expect(r.code == 0)
        #expect(r.err == "beacon-tx: metrics file \(unit)/hci0.prom not published: owned by uid 0, not by the directory's owner (uid 65534)\n")
        #expect(published(out).isEmpty)
        #expect(chown(unit + "/hci0.prom", 65534, 65534) == 0)
        #expect(tool(["status", "--metrics", out + "/beacon-tx-status.prom"], service: svc).err.isEmpty)
        #expect(published(out) == ["beacon-tx-hci0.prom"])
    }
}

/// Files written or read on another user's behalf: no symbolic link is written through, no
/// planted file is truncated, a capture that is a link is refused.
@Suite struct PlantedLinkTests {
    @Test func outputIsNeverWrittenThroughAPlantedLinkOrHardLink() throws {
        let dir = temporaryDirectory()
        let victim = dir + "/victim"
        try "precious\n".write(toFile: victim, atomically: false, encoding: .utf8)
        #expect(symlink(victim, dir + "/plan.txt") == 0)
        let r = tool(["start"] + goldenFlags + ["--dry-run", "--format", "hex", "--output", dir + "/plan.txt"])
        #expect(r.code == 73)
        #expect(r.err == "beacon-tx start: --output \(dir)/plan.txt: is a symbolic link; beacon-tx neither writes through it nor replaces it (remove it, or name the file itself)\n")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
        var st = stat()
        #expect(lstat(dir + "/plan.txt", &st) == 0 && st.st_mode & S_IFMT == S_IFLNK, "the link stays")
        // A hard link at the path: the path gets a new file, the other name keeps its bytes.
        #expect(link(victim, dir + "/hard.txt") == 0)
        let h = tool(["start"] + goldenFlags + ["--dry-run", "--format", "hex", "--output", dir + "/hard.txt"])
        #expect(h.code == 0, "\(h.err)")
        #expect(try String(contentsOfFile: dir + "/hard.txt", encoding: .utf8).hasPrefix("# start:\n"))
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
        #expect(StateStore.listing(dir).sorted() == ["hard.txt", "plan.txt", "victim"], "no temporary file left")
    }

    @Test func theMetricsFileAndItsTemporaryAreNeverWrittenThrough() throws {
        let dir = temporaryDirectory()
        let victim = dir + "/victim"
        try "precious\n".write(toFile: victim, atomically: false, encoding: .utf8)
        let file = dir + "/beacon-tx-status.prom"
        // A hard link planted at FILE.tmp is never opened: each temporary file is new (O_EXCL).
        #expect(link(victim, file + ".tmp") == 0)
        let r = tool(["status", "--metrics", file], service: service([:], stateDirectory: temporaryDirectory()))
        #expect(r.code == 0, "\(r.err)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains("beacon_tx_status_timestamp_seconds"))
        #expect(unlink(file) == 0 && symlink(victim, file) == 0)
        let l = tool(["status", "--metrics", file], service: service([:], stateDirectory: temporaryDirectory()))
        #expect(l.code == 73)
        #expect(l.err == "beacon-tx status: metrics file \(file): is a symbolic link; beacon-tx neither writes through it nor replaces it (remove it, or name the file itself)\n")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
    }

    @Test func aCaptureThatIsALinkIsRefusedAndAConfigLinkIsFollowed() throws {
        let dir = temporaryDirectory()
        let secret = dir + "/root-only.snoop"
        try "SECRET capture bytes".write(toFile: secret, atomically: false, encoding: .utf8)
        #expect(chmod(secret, 0o600) == 0)
        #expect(symlink(secret, dir + "/capture.snoop") == 0)
        let v = tool(["verify", dir + "/capture.snoop"] + goldenFlags)
        #expect(v.code == 66)
        #expect(v.err == "beacon-tx verify: CAPTURE \(dir)/capture.snoop: is a symbolic link, which is not followed here; name the file itself\n")
        #expect(!v.out.contains("SECRET") && !v.err.contains("SECRET"))
        // --config names a file the invoking user chose; /etc configs are often links.
        try #"{"beacons": [{"uuid": "\#(Golden.uuidText)", "major": 1, "minor": 2}]}"#.write(toFile: dir + "/real.json", atomically: false, encoding: .utf8)
        #expect(symlink(dir + "/real.json", dir + "/kiosk.json") == 0)
        let c = tool(["start", "--config", dir + "/kiosk.json", "--dry-run", "--format", "hex"])
        #expect(c.code == 0, "\(c.err)")
    }
}

extension DoctorTests {
    /// doctor names the session by the same rule as status, and prints what a state file says
    /// sanitised.
    @Test func theSessionFindingBelievesOnlyTheLockHolderAndPrintsSanitised() throws {
        let base = temporaryDirectory()
        try plantState(sessionState("hci0", pid: 4242, status: "\u{1b}]0;pwned\u{07}\u{1b}[32mALL GOOD\u{1b}[0m"), in: base + "/kiosk")
        try plantState(sessionState("hci0", pid: 500), in: base + "/hci1")   // not its place: never read
        let held = service([:], stateDirectory: base, alive: [4242], locks: ["hci0": 4242])
        let r = tool(["doctor"], host: Self.host().0, service: held, system: Self.machine())
        #expect(!hasControlCharacters(r.out))
        let line = r.out.split(separator: "\n").first { $0.split(separator: " ").dropFirst().first == "session" }.map(String.init) ?? ""
        #expect(line.hasSuffix(#"pid 4242: on air since 2027-01-15 08:00:00 UTC: \u{1b}]0;pwned\u{7}\u{1b}[32mALL GOOD\u{1b}[0m"#), "\(line)")
        // A live pid that does not hold the lock: not believed.
        let free = tool(["doctor", "--json"], host: Self.host().0, service: service([:], stateDirectory: base, alive: [4242]), system: Self.machine())
        #expect(!hasControlCharacters(free.out))
        let session = try finding(free, "session")
        #expect(session["verdict"] == .string("warn"))
        #expect(session["summary"]?.string?.hasPrefix("state file not believed: pid 4242 does not hold hci0's device lock") == true, "\(session)")
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Glibc
import Testing

/// A real AF_UNIX SOCK_DGRAM socket standing in for systemd's `$NOTIFY_SOCKET`.
final class NotifyListener {
    let fd: Int32
    /// What to put into `NOTIFY_SOCKET`: a path, or `@name` for the abstract namespace.
    let name: String
    private let path: String?

    init(abstract: Bool = false) throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let unique = "beacon-tx-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        if abstract {
            name = "@" + unique
            path = nil
        } else {
            path = NSTemporaryDirectory() + unique + ".sock"
            name = path ?? ""
        }
        let bound = ServiceNotifier.withAddress(name) { bind(fd, $0, $1) }
        guard bound == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    deinit {
        close(fd)
        if let path { unlink(path) }
    }

    /// Every datagram already queued, in order.
    func drain() -> [String] {
        var out: [String] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard n >= 0 else { return out }
            out.append(String(decoding: buffer[0..<n], as: UTF8.self))
        }
    }
}

/// A fresh directory under the temporary directory.
func temporaryDirectory() -> String {
    let dir = NSTemporaryDirectory() + "beacon-tx-state-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    mkdir(dir, 0o700)
    return dir
}

/// The service context of a test: `alive` are the pids that exist; `locks` says which pid holds
/// which device's lock (the kernel's answer, `ServiceContext.lockHolder`; every other device's
/// lock is free). A state file is a running session only when its pid holds its device's lock.
func service(_ env: [String: String], stateDirectory: String? = nil, journal: Bool = false, alive: Set<Int32> = [4242],
             locks: [String: Int32] = [:]) -> ServiceContext {
    var svc = ServiceContext(notifier: ServiceNotifier(environment: { env[$0] }, pid: 4242, monotonicMicroseconds: { 123_456_789 }),
                             stderrIsJournal: journal, stateDirectories: stateDirectory.map { [$0] } ?? [], pid: 4242,
                             isProcessAlive: { alive.contains($0) })
    svc.lockHolder = { device in locks[device].map { .process($0) } ?? .free }
    return svc
}

@Suite struct ServiceNotifierTests {
    @Test func eachMessageIsOneDatagramOnARealSocket() throws {
        for abstract in [false, true] {
            let listener = try NotifyListener(abstract: abstract)
            let n = ServiceNotifier(environment: { $0 == "NOTIFY_SOCKET" ? listener.name : nil }, pid: 1, monotonicMicroseconds: { 987_654_321 })
            #expect(n.isEnabled)
            n.ready(status: "1 beacon on air on hci0 (extended set 0)")
            n.status("1 beacon on air on hci0 (extended set 0)")   // unchanged: not sent
            n.status("hci0 down; waiting to re-arm")
            n.reloading(status: "reloading the configuration")
            n.ready()
            n.watchdog()
            n.stopping(status: "stopping: advertising off on hci0")
            #expect(listener.drain() == [
                "READY=1\nSTATUS=1 beacon on air on hci0 (extended set 0)",
                "STATUS=hci0 down; waiting to re-arm",
                "RELOADING=1\nMONOTONIC_USEC=987654321\nSTATUS=reloading the configuration",
                "READY=1",
                "WATCHDOG=1",
                "STOPPING=1\nSTATUS=stopping: advertising off on hci0",
            ], "abstract: \(abstract)")
            #expect(n.sendFailures == 0)
        }
    }

    @Test func withoutNotifySocketNothingIsSentAndNoTimerIsArmed() throws {
        let n = ServiceNotifier(environment: { _ in nil }, pid: 1)
        #expect(!n.isEnabled)
        #expect(n.watchdogIntervalMilliseconds == nil)
        n.ready(status: "x")
        n.watchdog()
        #expect(n.sendFailures == 0)
        let empty = ServiceNotifier(environment: { $0 == "NOTIFY_SOCKET" ? "" : nil }, pid: 1)
        #expect(!empty.isEnabled)
    }

    @Test func aListenerThatIsGoneCostsNothingButACount() throws {
        let n = ServiceNotifier(environment: { $0 == "NOTIFY_SOCKET" ? "/nonexistent/beacon-tx-notify" : nil }, pid: 1)
        n.ready()
        #expect(n.sendFailures == 1)
        let tooLong = ServiceNotifier(environment: { $0 == "NOTIFY_SOCKET" ? "/" + String(repeating: "x", count: 200) : nil }, pid: 1)
        tooLong.ready()
        #expect(tooLong.sendFailures == 1)
    }

    @Test func watchdogIntervalIsAQuarterOfWatchdogUsecForThisProcess() {
        let cases: [(String?, String?, Int?)] = [
            ("20000000", nil, 5_000),       // 20 s → every 5 s
            ("20000000", "4242", 5_000),    // WATCHDOG_PID is us
            ("20000000", "", 5_000),
            ("20000000", "1", nil),         // meant for another process
            ("20000000", "x", nil),
            ("1000", nil, 1),               // 1 ms → at least 1 ms
            ("0", nil, nil),
            ("-5", nil, nil),
            ("soon", nil, nil),
            (nil, "4242", nil),
        ]
        for (usec, pid, want) in cases {
            #expect(ServiceNotifier.watchdogInterval(usec: usec, pid: pid, ourPID: 4242) == want, "\(String(describing: usec)) \(String(describing: pid))")
        }
    }

    @Test func watchdogTimerBeatsWhenDueAndSaysHowLongToWait() {
        var clock: Int64 = 0
        var beats: [Int64] = []
        var timer = WatchdogTimer(intervalMilliseconds: 1000, now: { clock }, beat: { beats.append(clock) })
        var timeouts: [Int] = []
        for t: Int64 in [0, 400, 1000, 1700, 1999, 2000, 3500] {
            clock = t
            timeouts.append(timer.pollTimeout())
        }
        #expect(beats == [0, 1000, 2000, 3500])
        #expect(timeouts == [1000, 600, 1000, 300, 1, 1000, 1000])
    }
}

@Suite struct JournalTests {
    @Test func journalStreamMustMatchTheDescriptorsDeviceAndInode() throws {
        let path = NSTemporaryDirectory() + "beacon-tx-journal-\(getpid())"
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0)
        defer { close(fd); unlink(path) }
        var st = stat()
        #expect(fstat(fd, &st) == 0)
        #expect(Journal.isJournalStream(fd, journalStream: "\(st.st_dev):\(st.st_ino)"))
        #expect(!Journal.isJournalStream(fd, journalStream: "\(st.st_dev):\(st.st_ino + 1)"))
        #expect(!Journal.isJournalStream(fd, journalStream: "\(st.st_dev)"))
        #expect(!Journal.isJournalStream(fd, journalStream: "x:y"))
        #expect(!Journal.isJournalStream(fd, journalStream: nil))
        #expect(!Journal.isJournalStream(-1, journalStream: "\(st.st_dev):\(st.st_ino)"))
    }

    @Test func everyStderrLineCarriesItsPriorityWhenStderrIsTheJournal() throws {
        let interval = try #require(AdvertisingInterval(milliseconds: 101))
        let p = AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: AdvertisingOptions(interval: interval, advertisingHandle: 0xEF), family: .extended)
        let fake = ScriptedController(Controllers.probe(extended: true) + Controllers.okSteps(p.start) + [
            .receive(.event(HCIEvent(code: .hardwareError, parameters: [0x07]).packet)),
            .receiveFails(.system(call: "read", device: "hci0", errno: 32, message: "Broken pipe")),
        ])
        let h = FakeHost(devices: [Controllers.device(0, up: false)], channels: [0: fake])
        let r = tool(["start"] + goldenFlags + ["--interval", "101"], host: h, service: service([:], journal: true))
        #expect(r.code == 69)
        #expect(r.err == """
            <6>beacon-tx: interval 101 ms rounded to 101.250 msec (0x00a2) (units of 0.625 ms)
            <6>beacon-tx: hci0 is down; bringing it up (HCIDEVUP)
            <6>beacon-tx: advertising E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2 power -59 dBm on hci0 (extended commands, set 239, 101.250 msec (0x00a2), non-connectable)
            <4>beacon-tx: hci0 reported a Hardware Error; waiting for the kernel to reset it
            <3>beacon-tx start: read on hci0: Broken pipe (errno 32); nothing is on air any more

            """)
        let usage = tool(["start", "--major", "70000"], service: service([:], journal: true))
        #expect(usage.err == "<3>beacon-tx start: --major: 70000 is out of range (accepted 0–65535)\n")
        // On a terminal (no journal), the same lines are unchanged.
        let plain = tool(["start", "--major", "70000"])
        #expect(plain.err == "beacon-tx start: --major: 70000 is out of range (accepted 0–65535)\n")
        #expect(Journal.prefixed("a\nb", .warning) == "<4>a\n<4>b")
        // The --verbose trace is debug (<7>), every line of it.
        let probe = ScriptedController(Controllers.probe(extended: true))
        let verbose = tool(["devices", "--verbose"], host: FakeHost(devices: [Controllers.device(0)], channels: [0: probe]), service: service([:], journal: true))
        #expect(verbose.code == 0)
        let traced = verbose.err.split(separator: "\n")
        #expect(traced.count == 7, "\(verbose.err)")
        #expect(traced.allSatisfy { $0.hasPrefix("<7>") }, "\(verbose.err)")
        #expect(probe.isFullyConsumed)
    }
}

@Suite struct StateFileTests {
    let entry = BeaconEntry(identifier: "lobby", uuid: ProximityUUID(Golden.uuidText)!, major: 1, minor: 2, measuredPower: -59)

    @Test func writtenAtomicallyReadableByOthersAndReadBack() throws {
        let dir = temporaryDirectory()
        let store = StateStore(candidates: [dir + "/beacon-tx"])
        let target = try #require(store.writableDirectory())
        #expect(target == dir + "/beacon-tx")
        let state = SessionState(device: "hci0", pid: 4242, onAir: true, status: "1 beacon on air on hci0 (extended set 3)",
                                 family: .extended, sets: [3], beacons: [entry], since: 1_800_000_000,
                                 lastRearm: .init(at: 1_800_000_100.5, reason: "hci0 was reset"))
        let old = umask(0o077)
        defer { umask(old) }
        try store.write(state, into: target)
        var st = stat()
        #expect(stat(target + "/hci0.json", &st) == 0)
        #expect(st.st_mode & 0o777 == 0o644)
        #expect(stat(target, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o755)
        #expect(StateStore.listing(target) == ["hci0.json"], "no temporary file left")
        let text = try String(contentsOfFile: target + "/hci0.json", encoding: .utf8)
        #expect(text == """
            {
              "device": "hci0",
              "pid": 4242,
              "onAir": true,
              "status": "1 beacon on air on hci0 (extended set 3)",
              "family": "extended",
              "sets": [
                3
              ],
              "rotation": false,
              "beacons": [
                {
                  "identifier": "lobby",
                  "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0",
                  "major": 1,
                  "minor": 2,
                  "measuredPower": -59
                }
              ],
              "since": 1800000000,
              "lastRearm": {
                "at": 1800000100.5,
                "reason": "hci0 was reset"
              }
            }

            """)
        let all = store.readAll()
        #expect(all.count == 1)
        #expect(try all[0].state.get() == state)
        store.remove(device: "hci0", from: target)
        #expect(store.readAll().isEmpty)
    }

    /// Each unit has its own runtime directory below /run/beacon-tx (`kiosk/`, `hciN/`): status
    /// finds every device in them, whatever device the kiosk's config names, and removing one unit's
    /// directory (systemd does on its stop) leaves the others' state.
    @Test func everyUnitsOwnDirectoryIsRead() throws {
        let base = temporaryDirectory() + "/beacon-tx"
        for (sub, device) in [("kiosk", "hci2"), ("hci1", "hci1")] {
            let dir = base + "/" + sub
            #expect(mkdir(base, 0o755) == 0 || errno == EEXIST)
            #expect(mkdir(dir, 0o755) == 0)
            try StateStore(candidates: [dir]).write(SessionState(device: device, pid: 4242, onAir: true, status: "on air", family: .extended,
                                                                 sets: [3], beacons: [entry], since: 1_800_000_000), into: dir)
        }
        let store = StateStore(candidates: [base])
        #expect(store.readAll().map(\.device) == ["hci1", "hci2"])
        #expect(store.readAll().map(\.path) == [base + "/hci1/hci1.json", base + "/kiosk/hci2.json"])
        store.remove(device: "hci2", from: base + "/kiosk")
        #expect(rmdir(base + "/kiosk") == 0)
        #expect(store.readAll().map(\.device) == ["hci1"], "the kiosk's stop leaves hci1's state")
    }

    @Test func badStateFilesNameTheField() throws {
        let good = SessionState(device: "hci1", pid: 7, onAir: false, status: "x", family: nil, since: 0).json
        func without(_ key: String, _ replacement: JSON? = nil) -> JSON {
            guard case let .object(pairs) = good else { return good }
            return .object(pairs.compactMap { $0.0 == key ? replacement.map { (key, $0) } : $0 })
        }
        let cases: [(JSON, String)] = [
            (without("device"), "field 'device' missing"),
            (without("pid", .number(0)), "field 'pid' must be a number in 1–2147483647"),
            (without("onAir", .string("yes")), "field 'onAir' must be true or false"),
            (without("family", .string("classic")), "field 'family' must be legacy, extended or null"),
            (without("sets", .array([.number(240)])), "field 'sets' must be a number in 0–239"),
            (without("beacons", .array([.object([("uuid", .string("nope"))])])), "field 'beacons' holds an entry without a valid 'uuid'"),
            (without("lastRearm", .object([("at", .number(1))])), "field 'lastRearm' must hold 'at' and 'reason'"),
            (.array([]), "not a JSON object"),
        ]
        for (json, message) in cases {
            #expect(throws: StateFileError(message)) { try SessionState(json: json) }
        }
        #expect(try SessionState(json: good) == SessionState(device: "hci1", pid: 7, onAir: false, status: "x", family: nil, since: 0))
    }

    @Test func statusTextAndUTCTimes() {
        #expect(SessionState.onAirText(device: "hci0", count: 3, family: .extended, sets: [5, 3, 4], rotation: false) == "3 beacons on air on hci0 (extended sets 3–5)")
        #expect(SessionState.onAirText(device: "hci1", count: 2, family: .extended, sets: [0, 7], rotation: false) == "2 beacons on air on hci1 (extended sets 0, 7)")
        #expect(SessionState.onAirText(device: "hci0", count: 1, family: .legacy, sets: [], rotation: false) == "1 beacon on air on hci0 (legacy)")
        #expect(SessionState.onAirText(device: "hci0", count: 2, family: .legacy, sets: [], rotation: true) == "2 beacons on air on hci0 (legacy, in rotation)")
        #expect(UTCTime.text(0) == "1970-01-01 00:00:00 UTC")
        #expect(UTCTime.text(951_782_400) == "2000-02-29 00:00:00 UTC")
        #expect(UTCTime.text(1_800_000_000) == "2027-01-15 08:00:00 UTC")
        #expect(UTCTime.text(4_107_542_399.9) == "2100-02-28 23:59:59 UTC")
        #expect(UTCTime.text(-1) == "1969-12-31 23:59:59 UTC")
        #expect(UTCTime.iso(1_800_000_000) == "2027-01-15T08:00:00Z")
    }

    @Test func candidatesFromTheEnvironment() {
        let env = ["RUNTIME_DIRECTORY": "/run/beacon-tx:/run/other", "XDG_RUNTIME_DIR": "/run/user/1000/"]
        #expect(StateStore.fromEnvironment { env[$0] }.candidates == ["/run/beacon-tx", "/run/user/1000/beacon-tx"])
        #expect(StateStore.fromEnvironment { _ in nil }.candidates == ["/run/beacon-tx"])
        #expect(StateStore.fromEnvironment { $0 == "RUNTIME_DIRECTORY" ? "/tmp/rt" : nil }.candidates == ["/tmp/rt", "/run/beacon-tx"])
    }
}

/// `start` under a supervisor: notify datagrams, the state file while on air, the watchdog.
@Suite struct ServiceStartTests {
    typealias C = Controllers

    func plan(_ family: AdvertisingFamily) throws -> AdvertisingPlan {
        AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: AdvertisingOptions(interval: .standard, advertisingHandle: 2), family: family)
    }

    @Test func readyWithTheStateFileOnAirThenStoppingAndTheFileRemoved() throws {
        let listener = try NotifyListener()
        let dir = temporaryDirectory()
        let p = try plan(.extended)
        let fake = ScriptedController(C.probe(extended: true) + C.okSteps(p.start) + [.receive(.timedOut), .receive(.signal(15))] + C.okSteps(p.stop))
        var whileOnAir: [String] = []
        var notifiedWhileOnAir: [String] = []
        var waits: [Int] = []
        fake.onTimeout = { timeout in
            waits.append(timeout)
            whileOnAir = StateStore.listing(dir)
            notifiedWhileOnAir = listener.drain()
        }
        let h = FakeHost(devices: [C.device(0)], channels: [0: fake])
        let r = tool(["start"] + goldenFlags + ["--advertising-set", "2"], host: h, service: service(["NOTIFY_SOCKET": listener.name], stateDirectory: dir))
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(waits == [-1], "no watchdog: no timer")
        #expect(whileOnAir.sorted() == ["hci0.json", "hci0.prom"], "the state file and the metrics file beside it")
        #expect(notifiedWhileOnAir == ["READY=1\nSTATUS=1 beacon on air on hci0 (extended set 2)"])
        #expect(listener.drain() == ["STOPPING=1\nSTATUS=stopping: advertising off on hci0"])
        #expect(StateStore.listing(dir).isEmpty, "removed on a clean stop")
    }

    @Test func stateFileWhileOnAirIsWhatStatusShows() throws {
        let dir = temporaryDirectory()
        let p = try plan(.legacy)
        let fake = ScriptedController(C.probe(extended: false) + C.okSteps(p.start) + [.receive(.timedOut), .receive(.signal(2))] + C.okSteps(p.stop))
        var status: ToolRun?
        let svc = service([:], stateDirectory: dir, locks: ["hci0": 4242])
        fake.onTimeout = { _ in status = tool(["status"], service: svc) }
        let h = FakeHost(devices: [C.device(0)], channels: [0: fake])
        let r = tool(["start", "--config", repoPath("Config/kiosk.json"), "--device", "hci0", "--controller", "legacy"], host: h, service: svc)
        #expect(r.code == 0, "\(r.err)")
        let s = try #require(status)
        #expect(s.code == 0)
        #expect(s.out == """
            hci0: on air since 2027-01-15 08:00:00 UTC, pid 4242 (controller 00:AA:01:00:00:00): 1 beacon on air on hci0 (legacy)
              kiosk-lobby E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2 power -59 dBm

            """)
        #expect(tool(["status"], service: svc).code == 3, "nothing on air after the stop")
    }

    @Test func aFailureLeavesTheReasonInTheStateFileAndStatus() throws {
        let listener = try NotifyListener()
        let dir = temporaryDirectory()
        let p = try plan(.extended)
        // The channel fails (a Hardware Error or a reset is re-armed instead; see LiveTests).
        let fake = ScriptedController(C.probe(extended: true) + C.okSteps(p.start)
                                      + [.receiveFails(.system(call: "read", device: "hci0", errno: 32, message: "Broken pipe"))])
        let h = FakeHost(devices: [C.device(0)], channels: [0: fake])
        let r = tool(["start"] + goldenFlags + ["--advertising-set", "2"], host: h, service: service(["NOTIFY_SOCKET": listener.name], stateDirectory: dir))
        #expect(r.code == 69)
        let reason = "read on hci0: Broken pipe (errno 32); nothing is on air any more"
        #expect(r.err.contains("beacon-tx start: " + reason), "\(r.err)")
        #expect(listener.drain() == ["READY=1\nSTATUS=1 beacon on air on hci0 (extended set 2)", "STATUS=" + reason])
        let state = try StateStore.read(dir + "/hci0.json").get()
        #expect(state.onAir == false)
        #expect(state.status == reason)
        #expect(state.family == .extended)
        #expect(state.sets == [2])
    }

    @Test func watchdogBeatsFromTheWaitAtAQuarterOfTheInterval() throws {
        let listener = try NotifyListener()
        let p = try plan(.extended)
        let clock = TestClock()
        let fake = ScriptedController(C.probe(extended: true) + C.okSteps(p.start) + [.receive(.timedOut), .receive(.timedOut), .receive(.signal(15))] + C.okSteps(p.stop))
        var waits: [Int] = []
        fake.onTimeout = { timeout in
            waits.append(timeout)
            clock.milliseconds += Int64(timeout)
        }
        let h = FakeHost(devices: [C.device(0)], channels: [0: fake])
        let env = ["NOTIFY_SOCKET": listener.name, "WATCHDOG_USEC": "6000000", "WATCHDOG_PID": "4242"]
        let r = tool(["start"] + goldenFlags + ["--advertising-set", "2"], host: h, clock: clock, service: service(env))
        #expect(r.code == 0, "\(r.err)")
        // Three waits: the first beats at once; each timed-out wait (the clock moves 1500 ms) beats again.
        #expect(waits == [1500, 1500])
        #expect(listener.drain() == [
            "READY=1\nSTATUS=1 beacon on air on hci0 (extended set 2)",
            "WATCHDOG=1", "WATCHDOG=1", "WATCHDOG=1",
            "STOPPING=1\nSTATUS=stopping: advertising off on hci0",
        ])
    }
}

/// Waiting for an adapter that is late or missing is not hanging: the wait feeds systemd's watchdog
/// (`WatchdogSec=` in the units) until the device timeout, then exits 69.
@Suite struct WatchdogWhileWaitingTests {
    @Test func aMissingAdapterIsWaitedForWithTheWatchdogFed() throws {
        let listener = try NotifyListener()
        let clock = TestClock()
        let h = FakeHost(devices: [], channels: [:])
        h.onWaitTimeout = { clock.milliseconds += Int64($0) }
        let env = ["NOTIFY_SOCKET": listener.name, "WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "4242"]
        let r = tool(["start"] + goldenFlags + ["--device", "hci0", "--device-timeout", "5"], host: h, clock: clock, service: service(env))
        #expect(r.code == 69, "\(r.err)")
        // the 5 s wait in slices of the beat interval (a quarter of WATCHDOG_USEC); the last one is
        // what is left (the test clock also moves a little on its own)
        #expect(h.log.count == 7 && h.log.prefix(6).allSatisfy { $0 == "wait for hci0 750 ms" }, "\(h.log)")
        let last = h.log.last.flatMap { Int($0.dropFirst("wait for hci0 ".count).dropLast(" ms".count)) } ?? 0
        #expect(last > 400 && last <= 500, "\(h.log)")
        let messages = listener.drain()
        #expect(messages.filter { $0 == "WATCHDOG=1" }.count == 7, "one beat before each slice: \(messages)")
        #expect(messages.first?.hasPrefix("READY=1\nSTATUS=waiting for hci0") == true, "\(messages)")
    }

    @Test func withoutAWatchdogTheWaitIsOneCall() {
        let clock = TestClock()
        let h = FakeHost(devices: [], channels: [:])
        h.onWaitTimeout = { clock.milliseconds += Int64($0) }
        let r = tool(["start"] + goldenFlags + ["--device", "hci0", "--device-timeout", "5"], host: h, clock: clock)
        #expect(r.code == 69, "\(r.err)")
        #expect(h.log == ["wait for hci0 5000 ms"])
    }
}

@Suite struct StatusCommandTests {
    let entry = BeaconEntry(identifier: "lobby", uuid: ProximityUUID(Golden.uuidText)!, major: 1, minor: 2, measuredPower: -59)

    /// The running sessions of `sessions()`: whose pid holds which device's lock.
    static let locks: [String: Int32] = ["hci0": 4242, "hci1": 4243, "hci4": 4242]

    /// hci0 on air (3 sets, re-armed once), hci1 waiting to re-arm, hci2 stale (pid gone),
    /// hci3 unreadable, hci4 in an instance's own directory, plus a file that is not a device.
    func sessions() throws -> String {
        let dir = temporaryDirectory()
        let store = StateStore(candidates: [dir])
        let three = [entry, BeaconEntry(identifier: nil, uuid: try #require(entry.iBeacon).uuid, major: 1, minor: 3, measuredPower: -59),
                     BeaconEntry(identifier: "exit", uuid: try #require(entry.iBeacon).uuid, major: 1, minor: 4, measuredPower: -65)]
        try store.write(SessionState(device: "hci0", pid: 4242, onAir: true, status: "3 beacons on air on hci0 (extended sets 3–5)",
                                     family: .extended, sets: [3, 4, 5], beacons: three, since: 1_800_000_000,
                                     lastRearm: .init(at: 1_800_000_000, reason: "hci0 went down (powered off, reset or removed by another program)")), into: dir)
        try store.write(SessionState(device: "hci1", pid: 4243, onAir: false, status: "hci1 down; waiting to re-arm",
                                     family: .legacy, beacons: [entry], since: 1_800_000_060), into: dir)
        try store.write(SessionState(device: "hci2", pid: 9999, onAir: true, status: "1 beacon on air on hci2 (legacy)",
                                     family: .legacy, beacons: [entry], since: 1_799_990_000), into: dir)
        try FileIO.write(Array("{\"device\": \"hci3\"".utf8), to: dir + "/hci3.json", what: "test")
        // beacon-tx@hci4: the instance's own runtime directory.
        mkdir(dir + "/hci4", 0o755)
        try store.write(SessionState(device: "hci4", pid: 4242, onAir: true, status: "1 beacon on air on hci4 (legacy)",
                                     family: .legacy, beacons: [entry], since: 1_800_000_000), into: dir + "/hci4")
        mkdir(dir + "/hci5", 0o755)   // an instance directory without a state file: no session
        try FileIO.write(Array("{}".utf8), to: dir + "/notes.json", what: "test")
        return dir
    }

    @Test func textSnapshotAndExitCodes() throws {
        let dir = try sessions()
        let svc = service([:], stateDirectory: dir, alive: [4242, 4243], locks: Self.locks)
        let all = tool(["status"], service: svc)
        #expect(all.code == 0)
        #expect(all.err.isEmpty)
        expectSnapshot(all.out.replacingOccurrences(of: dir, with: "$STATE"), "status.txt")
        for (device, code) in [("hci0", 0), ("hci1", 3), ("hci2", 3), ("hci3", 3), ("hci4", 0), ("hci5", 3), ("hci9", 3)] {
            let one = tool(["status", "--device", device], service: svc)
            #expect(one.code == Int32(code), "\(device): \(one.out)")
            #expect(one.out.hasPrefix(device + ": "), "\(device): \(one.out)")
        }
        #expect(tool(["status", "--device", "hci9"], service: svc).out == "hci9: nothing on air (no beacon-tx session)\n")
        let bad = tool(["status", "--device", "usb0"], service: svc)
        #expect(bad.code == 64)
        #expect(bad.err == "beacon-tx status: --device: 'usb0' is not a device name (accepted hci0–hci65534, or a controller's address AA:BB:CC:DD:EE:FF)\n")
    }

    @Test func jsonSnapshot() throws {
        let dir = try sessions()
        let r = tool(["status", "--json"], service: service([:], stateDirectory: dir, alive: [4242, 4243], locks: Self.locks))
        #expect(r.code == 0)
        expectSnapshot(r.out.replacingOccurrences(of: dir, with: "$STATE"), "status.json")
        let one = tool(["status", "--json", "--device", "hci1"], service: service([:], stateDirectory: dir, alive: [4242, 4243], locks: Self.locks))
        #expect(one.code == 3)
        let parsed = try JSON.parse(one.out)
        guard case let .array(rows) = parsed else { Issue.record("not a list"); return }
        #expect(rows.count == 1)
        #expect(rows[0]["onAir"] == .bool(false))
        #expect(rows[0]["status"] == .string("hci1 down; waiting to re-arm"))
    }

    @Test func noSessionAtAll() {
        let dir = temporaryDirectory()
        let r = tool(["status"], service: service([:], stateDirectory: dir))
        #expect(r.code == 3)
        #expect(r.out == "nothing on air: no beacon-tx session (state files looked for in \(dir))\n")
        let j = tool(["status", "--json"], service: service([:], stateDirectory: dir))
        #expect(j.code == 3)
        #expect(j.out == "[]\n")
    }
}

@Suite struct ServiceUnitTests {
    func lines(_ path: String) throws -> Set<String> {
        Set(try String(contentsOfFile: repoPath(path), encoding: .utf8).split(separator: "\n").map(String.init))
    }

    /// What systemd needs from both units (scripts/check-units verifies them and scores their hardening).
    @Test func bothUnitsAreNotifyServicesThatDoNotLoopOnConfigErrors() throws {
        let common = [
            "Type=notify", "NotifyAccess=main", "ExecReload=kill -HUP $MAINPID",
            "Restart=on-failure", "RestartSec=3", "RestartPreventExitStatus=64 65 66 77 78 203 216 217 218 226 228 232",
            "Documentation=man:beacon-tx(1)",
            "After=bluetooth.service",
            // issue 31: the watchdog shipped, a stop plan that fits, the exit-69 back-off (systemd 254+)
            "WatchdogSec=30s", "TimeoutStopSec=90s", "RestartSteps=8", "RestartMaxDelaySec=5min",
            "DynamicUser=yes", "AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN", "CapabilityBoundingSet=CAP_NET_RAW CAP_NET_ADMIN",
            "RestrictAddressFamilies=AF_BLUETOOTH AF_UNIX", "RuntimeDirectoryMode=0755", "StandardError=journal",
        ]
        let kiosk = try lines("Config/beacon-tx.service")
        let template = try lines("Config/beacon-tx@.service")
        for line in common {
            #expect(kiosk.contains(line), "beacon-tx.service lacks \(line)")
            #expect(template.contains(line), "beacon-tx@.service lacks \(line)")
        }
        #expect(kiosk.contains("ExecStart=/usr/local/bin/beacon-tx start --config /etc/beacon-tx/kiosk.json --device-timeout 86400"))
        // each unit its own runtime directory: stopping one never removes another's state
        #expect(kiosk.contains("RuntimeDirectory=beacon-tx/kiosk"))
        #expect(template.contains("ExecStart=/usr/local/bin/beacon-tx start --device %i --config /etc/beacon-tx/%i.json --device-timeout 86400"))
        #expect(template.contains("RuntimeDirectory=beacon-tx/%i"))
        // A late or missing adapter must not hold boot back: beacon-tx waits for it itself.
        #expect(!template.contains { $0.contains("sys-subsystem-bluetooth-devices") && !$0.hasPrefix("#") })
        for unit in [kiosk, template] {
            #expect(!unit.contains { $0.hasPrefix("Type=simple") || $0.hasPrefix("PrivateNetwork=yes") || $0.hasPrefix("PrivateUsers=yes") })
            #expect(!unit.contains { $0.hasPrefix("Wants=bluetooth.service") }, "beacon-tx needs no bluetoothd: After= only")
            #expect(!unit.contains { $0.hasPrefix("RuntimeDirectory=beacon-tx") && !$0.hasPrefix("RuntimeDirectory=beacon-tx/") },
                    "/run/beacon-tx itself is no unit's: its stop would remove the other units' directories")
            #expect(!unit.contains { $0.contains("--detach") })
        }
    }
}

/// The session loop's API: one call per change, datagrams and the state file from it.
@Suite struct ServiceReporterTests {
    let lobby = BeaconEntry(identifier: "lobby", uuid: ProximityUUID(Golden.uuidText)!, major: 1, minor: 2, measuredPower: -59)

    @Test func aSessionThroughRearmReloadAndStop() throws {
        let listener = try NotifyListener()
        let dir = temporaryDirectory()
        var wall = 1_800_000_000.0
        var mono: Int64 = 50_000
        var ctx = ToolContext(stdout: { _ in }, stderr: { _ in }, stdoutBytes: { _ in }, stdoutIsTerminal: false,
                              makeHost: { () throws(TransportError) -> HCIHost in throw .bluetoothUnsupported },
                              monotonicMilliseconds: { mono }, wallClockSeconds: { wall })
        ctx.service = service(["NOTIFY_SOCKET": listener.name], stateDirectory: dir)
        let r = ServiceReporter(ctx, device: "hci0")
        func state() throws -> SessionState { try StateStore.read(dir + "/hci0.json").get() }

        func sets(_ numbers: [UInt8], _ beacons: [BeaconEntry], rearmedAt: Int64? = nil) -> OnAirSnapshot {
            OnAirSnapshot(family: .extended, placement: .sets(numbers), numbers: numbers, beacons: beacons,
                          lastRearm: rearmedAt.map { (.deviceUp, $0) })
        }
        r.onAir(sets([3, 4], [lobby, lobby]))
        #expect(listener.drain() == ["READY=1\nSTATUS=2 beacons on air on hci0 (extended sets 3, 4)"])
        #expect(try state() == SessionState(device: "hci0", pid: 4242, onAir: true, status: "2 beacons on air on hci0 (extended sets 3, 4)",
                                            family: .extended, sets: [3, 4], beacons: [lobby, lobby], since: 1_800_000_000))

        wall += 60; mono += 60_000
        r.offAir("hci0 down; waiting to re-arm")
        #expect(listener.drain() == ["STATUS=hci0 down; waiting to re-arm"])
        #expect(try state().onAir == false)
        #expect(try state().since == 1_800_000_060)
        #expect(try state().beacons == [lobby, lobby], "what is to come back stays listed")
        r.offAir("a central connected; re-enabling after the disconnection")
        #expect(listener.drain() == ["STATUS=hci0: a central connected; re-enabling after the disconnection"])
        #expect(try state().since == 1_800_000_060, "still off air since then")

        // Re-armed 2 s ago (monotonic 108 000), reported now.
        wall += 5; mono += 5_000
        r.onAir(sets([3, 4], [lobby, lobby], rearmedAt: 113_000))
        #expect(listener.drain() == ["STATUS=2 beacons on air on hci0 (extended sets 3, 4)"], "no second READY=1")
        #expect(try state().lastRearm == .init(at: 1_800_000_063, reason: "hci0 up again"))
        #expect(try state().since == 1_800_000_065)

        // SIGHUP: RELOADING, then READY with the new set of beacons; the old re-arm is not re-dated.
        wall += 10; mono += 10_000
        r.reloading()
        r.onAir(sets([3], [lobby], rearmedAt: 113_000))
        #expect(listener.drain() == [
            "RELOADING=1\nMONOTONIC_USEC=123456789\nSTATUS=reloading the configuration",
            "READY=1\nSTATUS=1 beacon on air on hci0 (extended set 3)",
        ])
        #expect(try state().lastRearm == .init(at: 1_800_000_063, reason: "hci0 up again"))
        #expect(try state().beacons == [lobby])
        #expect(try state().since == 1_800_000_065, "on air without a gap since the re-arm")

        // Nothing changed: no datagram, no write.
        r.onAir(sets([3], [lobby], rearmedAt: 113_000))
        #expect(listener.drain().isEmpty)

        r.stopping()
        r.stopped()
        #expect(listener.drain() == ["STOPPING=1\nSTATUS=stopping: advertising off on hci0"])
        #expect(StateStore.listing(dir).isEmpty)
    }

    @Test func anUnwritableRuntimeDirectoryCostsOneWarning() throws {
        var warnings: [String] = []
        var ctx = ToolContext(stdout: { _ in }, stderr: { warnings.append($0) }, stdoutBytes: { _ in }, stdoutIsTerminal: false,
                              makeHost: { () throws(TransportError) -> HCIHost in throw .bluetoothUnsupported },
                              monotonicMilliseconds: { 0 }, wallClockSeconds: { 0 })
        ctx.service = service([:], stateDirectory: "/proc/beacon-tx-nowhere", journal: true)
        let r = ServiceReporter(ctx, device: "hci0")
        r.onAir(OnAirSnapshot(family: .legacy, placement: .rotation(turn: 0), beacons: [lobby]))
        r.offAir("hci0 down; waiting to re-arm")
        #expect(warnings == ["<4>beacon-tx: no writable runtime directory for the state file (tried /proc/beacon-tx-nowhere); 'beacon-tx status' will not see hci0"])
    }
}

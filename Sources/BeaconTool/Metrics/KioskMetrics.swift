// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import BeaconKit

/// Why the session re-armed, as the `reason` label of `beacon_tx_rearms_total`: a small fixed set
/// (every value is exported from the start at 0, so `increase()` sees the first re-arm), one per
/// kind of the session's typed `RearmCause`.
enum RearmReason: String, CaseIterable {
    /// Another program's HCI Reset (HCIDEVRESET, `btmgmt`, bluetoothd).
    case reset
    /// Another program disabled, removed or cleared our advertising (`btmgmt advertising off`, `clr-adv`).
    case disabled
    /// The device came back up (power off/on, `hciconfig hciN reset` or down/up, rfkill, bluetoothd restart).
    case deviceUp = "device_up"
    /// The controller was unregistered (unplugged) and came back.
    case deviceReturned = "device_returned"
    case hardwareError = "hardware_error"
    /// A central's connection to a connectable beacon ended.
    case connection
    /// `--cycle`: an on phase began (not a disruption; the storm rule leaves it out).
    case schedule
    /// A reload failed and the previous beacons were put back.
    case reloadFailed = "reload_failed"
    /// A rotation step failed and the whole plan ran again.
    case rotationFailed = "rotation_failed"
    /// Writing an Eddystone-TLM's fresh counts failed and the whole plan ran again.
    case telemetryFailed = "telemetry_failed"
    case other

    init(_ cause: RearmCause) {
        switch cause {
        case .disruption(.reset): self = .reset
        case .disruption, .instanceRemoved: self = .disabled
        case .deviceUp: self = .deviceUp
        case .deviceReturned: self = .deviceReturned
        case .hardwareError: self = .hardwareError
        case .connectionEnded: self = .connection
        case .cycleOn: self = .schedule
        case .reloadFailed: self = .reloadFailed
        case .rotationStepFailed: self = .rotationFailed
        case .telemetryRefreshFailed: self = .telemetryFailed
        case .otherOwnerQuiet: self = .other
        }
    }
}

extension PrometheusFamily {
    /// One series per program writing a textfile on a host: `role` status (`beacon-tx status
    /// --metrics`, the installed binary, beside the sessions it publishes) or listener; the version
    /// and the commit it was built from (`revision`, empty for a development build). No device: a
    /// build is not per device.
    static func buildInfo(role: String, _ build: BuildIdentity = .current) -> PrometheusFamily {
        .init("beacon_tx_build_info", .gauge,
              "beacon-tx build (version, revision: the commit, empty for a development build) of the program writing a textfile (role status or listener); the value is always 1.",
              [.init([("role", role), ("version", build.version), ("revision", build.commit.map { $0 + (build.modified ? "+modified" : "") } ?? "")], 1)])
    }
}

/// What a foreground session's metrics file (`start --metrics FILE`) says: the kiosk's own account
/// of its beacons, for node_exporter's textfile collector. Pure data; `text` is the whole file.
struct KioskMetrics: Equatable {
    var device: String
    /// The session runs (on air or waiting to re-arm); false after a clean stop or a failure.
    var running = true
    /// Every beacon on air as the plan wants it (the on-air phase; in a rotation: the rotation runs).
    var onAir = false
    /// Per beacon, in `beacons` order (`BeaconOnAir`); missing entries are off air.
    var beaconOnAir: [Bool] = []
    /// In a planned off phase of `--cycle`.
    var scheduledOff = false
    var family: AdvertisingFamily?
    var sets: [UInt8] = []
    var rotation = false
    var beacons: [BeaconEntry] = []
    var rearms: [RearmReason: Int] = [:]
    var rearmFailures = 0
    var yields = 0
    var reloadsApplied = 0
    var reloadsRejected = 0
    /// Wall-clock seconds: when the session started, when what is on air last changed, the last re-arm.
    var started: Double
    var lastChange: Double
    var lastRearm: Double?

    /// The part whose change is a "change" (counters and times follow it).
    var onAirShape: [String] {
        let head: [String] = ["\(running)", "\(onAir)", family?.rawValue ?? "", sets.map(String.init).joined(separator: ","), "\(rotation)"]
        let labels: [String] = beacons.map { b in Self.beaconLabels(b).map(\.1).joined(separator: "|") }
        return head + labels + beaconOnAir.map { "\($0)" }
    }

    /// A beacon's labels: an iBeacon's `identifier`, `uuid`, `major` and `minor`; another type's
    /// `identifier`, `type` and `id` (its identity: `id1 … id2 1 id3 2`, `namespace … instance …`,
    /// the URL, the data's hex).
    static func beaconLabels(_ b: BeaconEntry) -> [(String, String)] {
        let identifier = ("identifier", b.identifier ?? "")
        guard case let .iBeacon(i) = b.frame else {
            let kind = b.frame.kind.rawValue, text = b.frame.identityText
            let id = text.hasPrefix(kind + " ") ? String(text.dropFirst(kind.count + 1)) : text
            return [identifier, ("type", kind), ("id", id)]
        }
        return [identifier, ("uuid", i.uuid.description), ("major", String(i.major)), ("minor", String(i.minor))]
    }

    var families: [PrometheusFamily] {
        let d = [("device", device)]
        let layout = family == nil ? "none" : (family == .legacy || rotation ? (rotation ? "rotation" : "single") : "sets")
        return [
            .init("beacon_tx_session_up", .gauge,
                  "1 while the beacon-tx session runs on this device (on air or waiting to re-arm), 0 after it stopped or failed. A killed process cannot write 0: see beacon_tx_status_running.",
                  [.init(d, running ? 1 : 0)]),
            .init("beacon_tx_session_on_air", .gauge, "1 when every configured beacon is on air as planned (in a rotation: the rotation runs), by the session's own account.",
                  [.init(d, running && onAir ? 1 : 0)]),
            .init("beacon_tx_scheduled_off", .gauge, "1 during a planned off phase of --cycle (nothing is on air by plan), else 0.",
                  [.init(d, running && scheduledOff ? 1 : 0)]),
            .init("beacon_tx_session_info", .gauge,
                  "The session's advertising family (extended, legacy, none before the first start) and layout (sets: one extended set per beacon; rotation: beacons take turns on one instance; single: one legacy beacon); the value is always 1.",
                  [.init(d + [("family", family?.rawValue ?? "none"), ("layout", layout)], 1)]),
            .init("beacon_tx_advertising_sets", .gauge, "Extended advertising sets (handles) the session uses; 0 for legacy advertising.",
                  [.init(d, Double(sets.count))]),
            .init("beacon_tx_beacon_on_air", .gauge,
                  "1 when this beacon is on air now, by the session's own account: in a rotation only the beacon whose turn it is; 0 while its set is taken by another program or failed.",
                  beacons.indices.map { i in
                      .init(d + Self.beaconLabels(beacons[i]),
                                   running && beaconOnAir.indices.contains(i) && beaconOnAir[i] ? 1 : 0)
                  }),
            .init("beacon_tx_rearms_total", .counter, "Re-arms: the session put its beacons back on air after another program or the kernel took them off, by reason.",
                  RearmReason.allCases.map { .init(d + [("reason", $0.rawValue)], Double(rearms[$0] ?? 0)) }),
            .init("beacon_tx_rearm_failures_total", .counter, "Re-arm attempts that failed (each is retried a second later).",
                  [.init(d, Double(rearmFailures))]),
            .init("beacon_tx_yields_total", .counter, "Times the session stopped fighting another owner of its advertising instance (the fight budget) and waited for it to be quiet.",
                  [.init(d, Double(yields))]),
            .init("beacon_tx_reloads_total", .counter, "SIGHUP reloads of the config: applied, or rejected (a bad file; the previous beacons stayed).",
                  [.init(d + [("result", "applied")], Double(reloadsApplied)), .init(d + [("result", "rejected")], Double(reloadsRejected))]),
            .init("beacon_tx_session_start_timestamp_seconds", .gauge, "When the session started, seconds since the Unix epoch.",
                  [.init(d, started)]),
            .init("beacon_tx_last_change_timestamp_seconds", .gauge,
                  "When what is on air last changed (on/off air, beacons, sets), seconds since the Unix epoch.", [.init(d, lastChange)]),
            .init("beacon_tx_last_rearm_timestamp_seconds", .gauge, "When the session last re-armed, seconds since the Unix epoch (absent before the first re-arm).",
                  lastRearm.map { [.init(d, $0)] } ?? []),
        ]
    }

    var text: String { PrometheusText.render(families) }
}

/// Keeps the session's metrics file up to date: the session loop calls `update` on every state
/// change (and on a rotation's turn) and after a reload, `ended` when the session ends; the file is
/// rewritten (atomically) only when its content changes, so an idle kiosk writes nothing and sets
/// no timer.
///
/// Where the file goes:
/// - with `metrics` (`--metrics FILE`): FILE;
/// - without, and when FILE cannot be written (the packaged units run as a transient user, and
///   Debian's `/var/lib/prometheus/node-exporter` is root's): `hciN.prom` in the session's state
///   directory, beside `hciN.json` (`StateStore.metricsPath`). `beacon-tx status --metrics` (root,
///   `beacon-tx-status.timer`) publishes it into its own file's directory (`MetricsPublisher`).
///   That is the packaged default, so it costs no warning: an unwritable FILE is one note; only
///   without a state directory either does a warning say the fleet will not see the session.
/// A session that stops cleanly removes its state-directory file (as it does its state file), so a
/// stopped kiosk has no series; FILE keeps the final state.
final class KioskMetricsFile {
    /// Where the file goes now: FILE, or the state directory's file.
    private(set) var path: FilePath
    let requested: FilePath?
    let ctx: ToolContext
    private(set) var metrics: KioskMetrics
    private var seenRearms = 0
    private var written: String?
    private var warned = false

    init?(path: FilePath?, device: String, _ ctx: ToolContext) {
        requested = path
        self.ctx = ctx
        let now = ctx.wallClockSeconds()
        metrics = KioskMetrics(device: device, started: now, lastChange: now)
        guard let target = path ?? Self.spoolPath(device, ctx) else { return nil }
        self.path = target
        // With a FILE of its own, the state directory's file for this device can only be a killed
        // session's (one session per device): gone, so that status does not publish it as ours.
        if path != nil, let spool = Self.spoolPath(device, ctx), spool != target { unlink(spool.display) }
    }

    /// FILE; without one, the state directory's file; nil when there is neither.
    static func make(_ path: FilePath?, device: String, _ ctx: ToolContext) -> KioskMetricsFile? {
        KioskMetricsFile(path: path, device: device, ctx)
    }

    /// The session as it is now (`snapshot`, the one account `STATUS=` and the state file read too):
    /// running until stopped, on air in the on-air phase.
    func update(_ snapshot: OnAirSnapshot) {
        var next = metrics
        next.running = snapshot.phase != .stopped
        next.onAir = snapshot.onAir
        if case .offPhase = snapshot.phase { next.scheduledOff = true } else { next.scheduledOff = false }
        if let family = snapshot.family {
            next.family = family
            next.sets = snapshot.sets
            next.rotation = snapshot.rotation
        }
        next.beacons = snapshot.beacons
        next.beaconOnAir = snapshot.beaconOnAir
        if snapshot.rearmCount > seenRearms, let last = snapshot.lastRearm {
            next.rearms[RearmReason(last.cause), default: 0] += snapshot.rearmCount - seenRearms
            let ago = Double(max(0, ctx.monotonicMilliseconds() - last.at)) / 1000
            next.lastRearm = ctx.wallClockSeconds() - ago
        }
        seenRearms = snapshot.rearmCount
        next.rearmFailures = snapshot.failedRearmCount
        next.yields = snapshot.yieldCount
        save(next)
    }

    func reloaded(applied: Bool) {
        var next = metrics
        if applied { next.reloadsApplied += 1 } else { next.reloadsRejected += 1 }
        save(next)
    }

    /// The session ends (the process exits; nothing is on air any more). After a clean stop (the
    /// machine stopped) the state directory's file goes, like the state file; after a failure it
    /// stays, saying the session is down.
    func ended() {
        let clean = !metrics.running
        var next = metrics
        next.running = false
        next.onAir = false
        next.scheduledOff = false
        if clean, path != requested {
            unlink(path.display)
            written = nil
            metrics = next
            return
        }
        save(next)
    }

    /// The session's metrics move elsewhere (a reload changed `metrics`): the file written here goes.
    func remove() {
        guard written != nil else { return }
        unlink(path.display)
        written = nil
    }

    private func save(_ next: KioskMetrics) {
        var next = next
        if next.onAirShape != metrics.onAirShape { next.lastChange = ctx.wallClockSeconds() }
        metrics = next
        let text = next.text
        guard text != written else { return }
        do {
            try AtomicFile.write(Array(text.utf8), to: path, what: "metrics file")
            written = text
        } catch {
            if path == requested, let spool = Self.spoolPath(metrics.device, ctx), spool != requested,
               (try? AtomicFile.write(Array(text.utf8), to: spool, what: "metrics file")) != nil {
                path = spool
                written = text
                ctx.note(error.message + " (--metrics); kept as \(spool.display) instead, which beacon-tx-status.timer (beacon-tx status --metrics) publishes")
                return
            }
            guard !warned else { return }
            warned = true
            ctx.warn(error.message + " (--metrics); the fleet will not see this session's changes")
        }
    }

    /// `hciN.prom` in the session's state directory; nil when there is none.
    static func spoolPath(_ device: String, _ ctx: ToolContext) -> FilePath? {
        ctx.service.stateStore.writableDirectory().map { FilePath(StateStore.metricsPath(device: device, in: $0)) }
    }
}

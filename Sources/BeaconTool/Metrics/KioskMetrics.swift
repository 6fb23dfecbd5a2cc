// SPDX-License-Identifier: Apache-2.0
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
        case .otherOwnerQuiet: self = .other
        }
    }
}

extension PrometheusFamily {
    /// The same family in every file beacon-tx writes (node_exporter merges the files: one HELP, one
    /// label set), one series per writer: `role` kiosk or listener, on `device`.
    static func buildInfo(device: String, role: String, version: String = BeaconTX.version) -> PrometheusFamily {
        .init("beacon_tx_build_info", .gauge, "beacon-tx build, per program writing a textfile (role kiosk or listener, on device); the value is always 1.",
              [.init([("device", device), ("role", role), ("version", version)], 1)])
    }
}

/// What a foreground session's metrics file (`start --metrics FILE`) says: the kiosk's own account
/// of its beacons, for node_exporter's textfile collector. Pure data; `text` is the whole file.
struct KioskMetrics: Equatable {
    var device: String
    var version = BeaconTX.version
    /// The session runs (on air or waiting to re-arm); false after a clean stop or a failure.
    var running = true
    var onAir = false
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
        ["\(running)", "\(onAir)", family?.rawValue ?? "", sets.map(String.init).joined(separator: ","), "\(rotation)"]
            + beacons.map { "\($0.identifier ?? "")|\($0.uuid)|\($0.major)|\($0.minor)" }
    }

    var families: [PrometheusFamily] {
        let d = [("device", device)]
        let layout = family == nil ? "none" : (family == .legacy || rotation ? (rotation ? "rotation" : "single") : "sets")
        return [
            .buildInfo(device: device, role: "kiosk", version: version),
            .init("beacon_tx_session_up", .gauge,
                  "1 while the beacon-tx session runs on this device (on air or waiting to re-arm), 0 after it stopped or failed. A killed process cannot write 0: see beacon_tx_status_running.",
                  [.init(d, running ? 1 : 0)]),
            .init("beacon_tx_session_on_air", .gauge, "1 when every configured beacon is on air, by the session's own account.",
                  [.init(d, running && onAir ? 1 : 0)]),
            .init("beacon_tx_session_info", .gauge,
                  "The session's advertising family (extended, legacy, none before the first start) and layout (sets: one extended set per beacon; rotation: beacons take turns on one instance; single: one legacy beacon); the value is always 1.",
                  [.init(d + [("family", family?.rawValue ?? "none"), ("layout", layout)], 1)]),
            .init("beacon_tx_advertising_sets", .gauge, "Extended advertising sets (handles) the session uses; 0 for legacy advertising.",
                  [.init(d, Double(sets.count))]),
            .init("beacon_tx_beacon_on_air", .gauge,
                  "1 when this beacon is on air, by the session's own account (in a rotation: its turn comes every cycle).",
                  beacons.map { b in
                      .init(d + [("identifier", b.identifier ?? ""), ("uuid", b.uuid.description), ("major", String(b.major)), ("minor", String(b.minor))],
                            running && onAir ? 1 : 0)
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

/// Keeps `start --metrics FILE` up to date: the session loop calls `update` on every state change
/// and after a reload, `ended` when the session ends; the file is rewritten (atomically) only when
/// its content changes, so an idle kiosk writes nothing and sets no timer.
///
/// A FILE that cannot be written (the packaged units run as a transient user, and Debian's
/// `/var/lib/prometheus/node-exporter` is root's) is kept instead under the same name in the
/// session's state directory (`/run/beacon-tx/beacon-tx.prom`, beside `hciN.json`), from the
/// first failure on: `beacon-tx status --metrics` (root, `beacon-tx-status.timer`) publishes such
/// files into its own file's directory (`StatusCommand.publish`). One warning says so; without a
/// state directory the warning says the fleet will not see the session, and the session goes on.
final class KioskMetricsFile {
    /// Where the file goes now: FILE, or its copy in the state directory after FILE failed.
    private(set) var path: FilePath
    let requested: FilePath
    let ctx: ToolContext
    private(set) var metrics: KioskMetrics
    private var seenRearms = 0
    private var written: String?
    private var warned = false

    init(path: FilePath, device: String, _ ctx: ToolContext) {
        self.path = path
        requested = path
        self.ctx = ctx
        let now = ctx.wallClockSeconds()
        metrics = KioskMetrics(device: device, started: now, lastChange: now)
    }

    /// Nil without a path.
    static func make(_ path: FilePath?, device: String, _ ctx: ToolContext) -> KioskMetricsFile? {
        path.map { KioskMetricsFile(path: $0, device: device, ctx) }
    }

    /// The session as it is now, with the settings on air.
    func update(_ kiosk: AdvertisingSession, _ s: Settings) {
        let plan = kiosk.plan
        update(kiosk.machine, family: plan?.family, sets: plan.map { $0.family == .extended ? $0.handles : [] } ?? [],
               rotation: (plan?.layout.isRotation ?? false) && s.beacons.count > 1, beacons: s.beacons)
    }

    /// The sharing mode's session: our kernel instances (on an extended controller the kernel gives
    /// each the advertising set of its number), rotated by the kernel on a legacy one.
    func update(_ shared: SharedAdvertisingSession, family: AdvertisingFamily, _ s: Settings) {
        update(shared.machine, family: family, sets: family == .extended ? shared.plan.instances : [],
               rotation: family == .legacy && s.beacons.count > 1, beacons: s.beacons)
    }

    /// Either mode, by its machine's account: running until stopped, on air in the on-air phase.
    private func update(_ machine: SessionMachine, family: AdvertisingFamily?, sets: [UInt8], rotation: Bool, beacons: [BeaconEntry]) {
        var next = metrics
        next.running = machine.phase != .stopped
        next.onAir = machine.phase == .onAir
        if let family {
            next.family = family
            next.sets = sets
            next.rotation = rotation
        }
        next.beacons = beacons
        let count = machine.rearmCount
        if count > seenRearms, let last = machine.lastRearm {
            next.rearms[RearmReason(last.cause), default: 0] += count - seenRearms
            let ago = Double(max(0, ctx.monotonicMilliseconds() - last.at)) / 1000
            next.lastRearm = ctx.wallClockSeconds() - ago
        }
        seenRearms = count
        next.rearmFailures = machine.failedRearmCount
        next.yields = machine.yieldCount
        save(next)
    }

    func reloaded(applied: Bool) {
        var next = metrics
        if applied { next.reloadsApplied += 1 } else { next.reloadsRejected += 1 }
        save(next)
    }

    /// The session ends with an error (the process exits; nothing is on air any more).
    func ended() {
        var next = metrics
        next.running = false
        next.onAir = false
        save(next)
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
            if path == requested, let spool = spoolPath(), spool != requested,
               (try? AtomicFile.write(Array(text.utf8), to: spool, what: "metrics file")) != nil {
                path = spool
                written = text
                ctx.warn(error.message + " (--metrics); kept as \(spool.display) instead, which beacon-tx-status.timer (beacon-tx status --metrics) publishes")
                return
            }
            guard !warned else { return }
            warned = true
            ctx.warn(error.message + " (--metrics); the fleet will not see this session's changes")
        }
    }

    /// FILE's name in the session's state directory; nil when there is none.
    private func spoolPath() -> FilePath? {
        guard let dir = ctx.service.stateStore.writableDirectory() else { return nil }
        let name = requested.bytes.split(separator: 0x2F, omittingEmptySubsequences: false).last.map(Array.init) ?? []
        guard !name.isEmpty else { return nil }
        return FilePath(Array(dir.utf8) + [0x2F] + name)
    }
}

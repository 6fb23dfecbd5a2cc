// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// `beacon-tx status`: what the foreground sessions have on air, per device, from their state
/// files (see `StateStore`); opens no Bluetooth socket. A state file is believed to be the running
/// session only while its pid holds the device's lock (`StateStore.sessions`); asking the lock
/// needs no privilege (where the lock file cannot be opened, the holder comes from /proc/locks);
/// where neither works, a session is reported as not verified.
/// Every string taken from a state file is printed sanitised (`Quote.sanitized`; JSON escapes
/// control characters itself), so a file cannot write escape sequences to the terminal.
///
/// Exit codes, for monitoring scripts: 0 = a beacon is on air (on `--device`, when given);
/// 3 = nothing on air (no session, a session waiting to re-arm, a stale state file whose process
/// is gone, or one that is not believed or verified); 64 = bad flags. With `--metrics FILE` the
/// answer is in the file: exit 0 once it is written (73/74 when it cannot be).
///
/// `--format prometheus` / `--metrics FILE` is how a killed kiosk becomes visible to the fleet
/// without a timer in the kiosk: `beacon-tx-status.timer` runs it every 15 s into node_exporter's
/// textfile directory, and `beacon_tx_status_running` turns 0 when the recorded pid no longer
/// holds the device's lock (it is gone). It also publishes there the running sessions' metrics
/// files that the packaged units keep in their runtime directory (`MetricsPublisher`), and counts
/// what it refused (`beacon_tx_publish_refused_total`).
enum StatusCommand: Subcommand {
    static let name = "status"
    static let summary = "what is on air now, per device (exit 0 on air, 3 nothing on air)"
    static let usage = "beacon-tx status [--device hciN] [--json | --format FORMAT] [--metrics FILE]"
    static let options: [OptionSpec] = [
        .value("--device", "hciN", "only this controller, hciN or its address"),
        .flag("--json", "print a JSON list (the same as --format json)"),
        .value("--format", "FORMAT", "text, json or prometheus (the text exposition format; default text)", choices: ["text", "json", "prometheus"]),
        .path("--metrics", "FILE", "write the prometheus format to FILE atomically (node_exporter's textfile directory) instead of stdout, and publish beside it the sessions' metrics files kept in the state directories; exit 0 once written"),
    ]
    static let examples = [
        "beacon-tx status",
        "beacon-tx status --device hci1 --json",
        "beacon-tx status --device hci0 >/dev/null || echo 'hci0: nothing on air'",
        "beacon-tx status --metrics /var/lib/prometheus/node-exporter/beacon-tx-status.prom   # what beacon-tx-status.timer runs",
    ]

    struct Row {
        var device: String
        var path: String?
        /// The directory of the state file (its metrics file is beside it).
        var directory: String? = nil
        var state: SessionState?
        /// How far the state file is believed; `.running` only while its pid holds the device's lock.
        var standing: StateStore.Standing = .stale
        /// Whether the file's pid exists at all (for the wording of a file that is not believed).
        var alive = false
        var problem: String?
        /// The device's rfkill switch (sysfs), nil when it has none.
        var rfkill: RFKillBlock? = nil

        var running: Bool { standing == .running }
        var onAir: Bool { running && state?.onAir == true }

        /// Why a state file is not the running session, for the JSON `status` field.
        func notRunning(_ s: SessionState) -> String {
            switch standing {
            case .running: return s.status
            case .stale where !alive: return "beacon-tx (pid \(s.pid)) is not running"
            case .stale: return "pid \(s.pid) does not hold \(device)'s device lock: the state file is not believed"
            case let .unverified(why): return "not verified: \(device)'s device lock could not be read (\(why))"
            }
        }

        var json: JSON {
            var pairs: [(String, JSON)] = [("device", .string(device)), ("onAir", .bool(onAir)), ("running", .bool(running))]
            if let s = state {
                pairs += [
                    ("pid", .number(Double(s.pid))),
                    ("status", .string(notRunning(s))),
                    ("family", s.family.map { .string($0.rawValue) } ?? .null),
                    ("sets", .array(s.sets.map { .number(Double($0)) })),
                    ("rotation", .bool(s.rotation)),
                    ("beacons", .array(s.beacons.map(\.json))),
                    ("since", .string(UTCTime.iso(s.since))),
                    ("lastRearm", s.lastRearm.map { .object([("at", .string(UTCTime.iso($0.at))), ("reason", .string($0.reason))]) } ?? .null),
                    ("address", s.address.map(JSON.string) ?? .null),
                ]
            }
            pairs.append(("rfkill", DevicesCommand.rfkillJSON(rfkill)))
            if let path { pairs.append(("stateFile", .string(path))) }
            if let problem { pairs.append(("error", .string(problem))) }
            return .object(pairs)
        }

        var text: [String] {
            let lines = sessionText
            guard let block = rfkill, block.isBlocked else { return lines }
            return lines + ["  \(device) is blocked by rfkill (\(block.text)): \(block.remedy)"]
        }

        var sessionText: [String] {
            guard let s = state else {
                return ["\(device): nothing on air (\(problem ?? "no beacon-tx session"))"]
            }
            switch standing {
            case .running: break
            case .stale where !alive:
                return ["\(device): nothing on air (beacon-tx pid \(s.pid) is not running; stale state from \(UTCTime.text(s.since)) in \(path ?? "?"))"]
            case .stale:
                return ["\(device): nothing on air (pid \(s.pid) does not hold \(device)'s device lock: the state from \(UTCTime.text(s.since)) in \(path ?? "?") is not believed)"]
            case let .unverified(why):
                return ["\(device): not verified (\(path ?? "?") names pid \(s.pid), but \(device)'s device lock could not be read: \(why); run beacon-tx status as root)"]
            }
            var lines = ["\(device): \(s.onAir ? "on air" : "nothing on air") since \(UTCTime.text(s.since)), pid \(s.pid)\(s.address.map { " (controller \($0))" } ?? ""): \(s.status)"]
            if s.onAir {
                for b in s.beacons {
                    lines.append("  " + b.summary)
                }
            }
            if let r = s.lastRearm { lines.append("  last re-arm \(UTCTime.text(r.at)): \(r.reason)") }
            return lines
        }
    }

    /// The state files are named by hciN: a controller named by its address is looked up in the
    /// kernel's device list (where it is now).
    static func deviceName(_ selector: DeviceSelector, _ ctx: ToolContext) throws(CLIError) -> String {
        guard case .address = selector else { return selector.description }
        do { return try selector.find(in: ctx.makeHost().devices()).name } catch { throw CLIError(error) }
    }

    static func run(_ a: ParsedArguments, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        let only = try a.value("--device").map { (t: String) throws(CLIError) in try deviceName(try Validate.device("--device", t), ctx) }
        let store = ctx.service.stateStore
        var rows: [Row] = store.sessions(only: only, lockHolder: ctx.service.lockHolder).map { session in
            let entry = session.entry
            switch entry.state {
            case let .success(s):
                return Row(device: entry.device, path: entry.path, directory: entry.directory, state: s, standing: session.standing,
                           alive: ctx.service.isProcessAlive(s.pid))
            case let .failure(e):
                return Row(device: entry.device, path: entry.path, directory: entry.directory, problem: "unreadable state file \(entry.path): \(e.message)")
            }
        }
        if let only, rows.isEmpty { rows = [Row(device: only)] }
        for i in rows.indices {
            if let id = HCIDeviceInfo.id(fromName: rows[i].device) { rows[i].rfkill = ctx.system.rfkill(id) }
        }
        // A blocked adapter without a session is listed too: the block is why nothing is on air there.
        for name in ctx.system.listDirectory("/sys/class/bluetooth") where only == nil && !rows.contains(where: { $0.device == name }) {
            guard let id = HCIDeviceInfo.id(fromName: name), name.hasPrefix("hci"), let block = ctx.system.rfkill(id), block.isBlocked else { continue }
            rows.append(Row(device: name, rfkill: block))
        }
        rows.sort { (StateStore.deviceNumber($0.device) ?? 0) < (StateStore.deviceNumber($1.device) ?? 0) }
        var format = try a.value("--format").map { (t: String) throws(CLIError) in try Validate.choice("--format", t, [("text", "text"), ("json", "json"), ("prometheus", "prometheus")]) } ?? "text"
        if a.has("--json") {
            guard a.value("--format") == nil || format == "json" else { throw .usage("--json and --format \(format) exclude each other") }
            format = "json"
        }
        if let file = a.path("--metrics") {
            guard a.value("--format") == nil || format == "prometheus", !a.has("--json") else {
                throw .usage("--metrics writes the prometheus format; drop --json/--format \(format)")
            }
            let previous = try? MetricsPublisher.readPublic(String(decoding: file.bytes, as: UTF8.self)).get()
            rows += latchedDown(in: previous, besides: rows)
            rows.sort { (StateStore.deviceNumber($0.device) ?? 0) < (StateStore.deviceNumber($1.device) ?? 0) }
            let sources = rows.compactMap { r in r.running ? r.directory.map { MetricsPublisher.Source(device: r.device, directory: $0) } : nil }
            let published = MetricsPublisher.publish(sources, besides: file)
            let refused = MetricsPublisher.refusedCounts(previous: previous, now: published.refusals, devices: sources.map(\.device))
            try AtomicFile.write(Array(prometheus(rows, now: ctx.wallClockSeconds(), refused: refused).utf8), to: file, what: "metrics file")
            published.warnings.forEach(ctx.warn)
            return .success
        }
        if format == "prometheus" {
            ctx.stdoutBytes(Array(prometheus(rows, now: ctx.wallClockSeconds()).utf8))
        } else if format == "json" {
            ctx.stdout(JSON.array(rows.map(\.json)).pretty)
        } else if rows.isEmpty {
            ctx.stdout(Quote.sanitized("nothing on air: no beacon-tx session (state files looked for in \(store.candidates.joined(separator: ", ")))"))
        } else {
            // State files are written by other users: no control character reaches the terminal.
            rows.flatMap(\.text).map(Quote.sanitized).forEach(ctx.stdout)
        }
        return rows.contains(where: \.onAir) ? .success : .nothingOnAir
    }

    /// The devices that FILE (the previous run's output) reported down and that have no state file
    /// now: still down. A unit's runtime directory, with the dead pid's state file, goes when the
    /// unit stops (its ExecStopPost ran this once before); down stays down until the device has
    /// a session again (or FILE is removed). A clean stop removes the state file first: never down.
    static func latchedDown(in previous: [UInt8]?, besides rows: [Row]) -> [Row] {
        guard let bytes = previous else { return [] }
        let prefix = "beacon_tx_status_running{device=\""
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line -> Row? in
            guard line.hasPrefix(prefix), line.hasSuffix("\"} 0") else { return nil }
            let device = String(line.dropFirst(prefix.count).dropLast(4))
            guard StateStore.deviceNumber(device) != nil, !rows.contains(where: { $0.device == device }) else { return nil }
            return Row(device: device, path: "", problem: "the process recorded there is gone")
        }
    }

    /// The status as Prometheus series: per device with a state file, whether its recorded process
    /// runs the device (holds its lock) and whether it is on air; with `--metrics`, what the
    /// publisher refused (`refused`); and when this ran (a stopped timer shows as an old time).
    /// A device whose session stopped cleanly has no state file, so no series: stopped is not down.
    static func prometheus(_ rows: [Row], now: Double, refused: [PrometheusFamily.Sample] = []) -> String {
        let withState = rows.filter { $0.path != nil }
        func d(_ r: Row) -> [(String, String)] { [("device", r.device)] }
        return PrometheusText.render([
            .buildInfo(role: "status"),
            .init("beacon_tx_status_running", .gauge,
                  "1 when the beacon-tx process recorded in the device's state file is alive and holds the device's lock, 0 when it is gone (killed, crashed), does not hold the lock, or the state file is unreadable.",
                  withState.map { .init(d($0), $0.running ? 1 : 0) }),
            .init("beacon_tx_status_on_air", .gauge,
                  "1 when that process is alive and its state file says every beacon is on air.",
                  withState.map { .init(d($0), $0.onAir ? 1 : 0) }),
            .init("beacon_tx_publish_refused_total", .counter, MetricsPublisher.refusedHelp, refused),
            .init("beacon_tx_status_timestamp_seconds", .gauge,
                  "When beacon-tx status wrote this, seconds since the Unix epoch.", [.init([], now)]),
        ])
    }
}

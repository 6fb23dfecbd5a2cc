import BeaconKit

/// `beacon-tx status`: what the foreground sessions have on air, per device, from their state
/// files (see `StateStore`); opens no Bluetooth socket and needs no privileges.
///
/// Exit codes, for monitoring scripts: 0 = a beacon is on air (on `--device`, when given);
/// 3 = nothing on air (no session, a session waiting to re-arm, or a stale state file whose
/// process is gone); 64 = bad flags.
enum StatusCommand: Subcommand {
    static let name = "status"
    static let summary = "what is on air now, per device (exit 0 on air, 3 nothing on air)"
    static let usage = "beacon-tx status [--device hciN] [--json]"
    static let options: [OptionSpec] = [
        .value("--device", "hciN", "only this controller"),
        .flag("--json", "print a JSON list"),
    ]
    static let examples = [
        "beacon-tx status",
        "beacon-tx status --device hci1 --json",
        "beacon-tx status --device hci0 >/dev/null || echo 'hci0: nothing on air'",
    ]

    struct Row {
        var device: String
        var path: String?
        var state: SessionState?
        var running = false
        var problem: String?

        var onAir: Bool { running && state?.onAir == true }

        var json: JSON {
            var pairs: [(String, JSON)] = [("device", .string(device)), ("onAir", .bool(onAir)), ("running", .bool(running))]
            if let s = state {
                pairs += [
                    ("pid", .number(Double(s.pid))),
                    ("status", .string(running ? s.status : "beacon-tx (pid \(s.pid)) is not running")),
                    ("family", s.family.map { .string($0.rawValue) } ?? .null),
                    ("sets", .array(s.sets.map { .number(Double($0)) })),
                    ("rotation", .bool(s.rotation)),
                    ("beacons", .array(s.beacons.map(\.json))),
                    ("since", .string(UTCTime.iso(s.since))),
                    ("lastRearm", s.lastRearm.map { .object([("at", .string(UTCTime.iso($0.at))), ("reason", .string($0.reason))]) } ?? .null),
                ]
            }
            if let path { pairs.append(("stateFile", .string(path))) }
            if let problem { pairs.append(("error", .string(problem))) }
            return .object(pairs)
        }

        var text: [String] {
            guard let s = state else {
                return ["\(device): nothing on air (\(problem ?? "no beacon-tx session"))"]
            }
            guard running else {
                return ["\(device): nothing on air (beacon-tx pid \(s.pid) is not running; stale state from \(UTCTime.text(s.since)) in \(path ?? "?"))"]
            }
            var lines = ["\(device): \(s.onAir ? "on air" : "nothing on air") since \(UTCTime.text(s.since)), pid \(s.pid): \(s.status)"]
            if s.onAir {
                for b in s.beacons {
                    lines.append("  " + (b.identifier.map { "\($0) " } ?? "") + "\(b.uuid) major \(b.major) minor \(b.minor) power \(b.measuredPower) dBm")
                }
            }
            if let r = s.lastRearm { lines.append("  last re-arm \(UTCTime.text(r.at)): \(r.reason)") }
            return lines
        }
    }

    static func run(_ a: ParsedArguments, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        let only = try a.value("--device").map { (t: String) throws(CLIError) in HCIDeviceInfo.name(of: try Validate.device("--device", t)) }
        let store = ctx.service.stateStore
        var rows: [Row] = store.readAll().compactMap { entry in
            if let only, entry.device != only { return nil }
            switch entry.state {
            case let .success(s):
                return Row(device: entry.device, path: entry.path, state: s, running: ctx.service.isProcessAlive(s.pid))
            case let .failure(e):
                return Row(device: entry.device, path: entry.path, problem: "unreadable state file \(entry.path): \(e.message)")
            }
        }
        if let only, rows.isEmpty { rows = [Row(device: only)] }
        if a.has("--json") {
            ctx.stdout(JSON.array(rows.map(\.json)).pretty)
        } else if rows.isEmpty {
            ctx.stdout("nothing on air: no beacon-tx session (state files looked for in \(store.candidates.joined(separator: ", ")))")
        } else {
            rows.flatMap(\.text).forEach(ctx.stdout)
        }
        return rows.contains(where: \.onAir) ? .success : .nothingOnAir
    }
}

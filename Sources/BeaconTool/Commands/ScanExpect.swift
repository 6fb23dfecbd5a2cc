// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// `beacon-tx scan --expect CONFIG...`: a listener's audit of a fleet. The kiosks' own config files
/// name the beacons to expect; for each, heard or missing within `--window`, last seen, reports per
/// second and median RSSI, plus the beacons that use the fleet's UUIDs without being expected.
///
/// - With `--duration S`: one audit, printed at the end; exit 0 when every expected beacon was heard
///   within the last window, 1 naming the missing ones.
/// - Without: runs until SIGINT/SIGTERM, printing each change (heard, missing, unexpected) and
///   rewriting `--metrics FILE` on each. The only timer is the next window edge
///   (`BeaconAudit.nextDeadline`): a beacon that stays heard costs no wake-up but its reports.
enum ScanExpect {
    static let defaultWindow = 30.0
    static let windowRange = 1.0...3600

    struct Setup {
        var configs: [(path: FilePath, beacons: [BeaconEntry])] = []
        var window = defaultWindow
        var metrics: FilePath?
    }

    static func parse(_ a: ParsedArguments) throws(CLIError) -> Setup {
        var s = Setup()
        for other in ["--region", "--calibrate", "--all", "--exit-timeout", "--path-loss"] where a.has(other) {
            throw .usage("\(other) does nothing with --expect (the expected beacons come from the configs)")
        }
        for path in a.allPaths("--expect") {
            var settings = Settings()
            _ = try ConfigFile.load(path, into: &settings)
            guard !settings.beacons.isEmpty else {
                throw .data("--expect \(path.display): the config lists no beacon (expected beacons come from its \"beacons\")")
            }
            if let i = settings.beacons.firstIndex(where: { $0.frame.kind == .data }) {
                throw .data("--expect \(path.display): beacons[\(i)] is data: scan --expect hears beacons by their identity, and raw data has none (verify checks its bytes in a capture)")
            }
            s.configs.append((path, settings.beacons))
        }
        if let t = a.value("--window") { s.window = try Validate.number("--window", t, windowRange, unit: "s") }
        s.metrics = a.path("--metrics")
        return s
    }

    static func run(_ a: ParsedArguments, _ setup: ScanCommand.Setup, _ opened: OpenedDevice, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        let expect = try parse(a)
        func seconds() -> Double { Double(ctx.monotonicMilliseconds()) / 1000 }
        // An Eddystone-TLM beacon names no beacon of its own: it is heard with its UID or URL beacon.
        let expected = expect.configs.flatMap(\.beacons).compactMap { e in
            BeaconIdentity(e.frame).map { ExpectedBeacon($0, identifier: e.identifier) }
        }
        var audit = BeaconAudit(expected: expected, window: expect.window, at: seconds())
        let report = Report(device: opened.name, json: setup.json, metrics: expect.metrics, ctx: ctx)
        // Reports heard per expected beacon since the start (the counters of the metrics file).
        var heardTotals: [BeaconIdentity: Int] = [:]
        var countedSinceWrite = false
        report.write(audit, running: true, totals: heardTotals)
        let plan = try ScanCommand.startScanning(opened, setup, ctx)
        ctx.note("listening on \(opened.name) for \(audit.expected.count) expected beacon(s) from \(expect.configs.count) config(s), window \(JSON.format(expect.window)) s"
                 + (setup.duration.map { "; audit of \(JSON.format($0)) s" } ?? "; until Ctrl-C / SIGTERM"))
        let oneShot = setup.duration != nil
        let end = setup.duration.map { ctx.monotonicMilliseconds() + Int64($0 * 1000) }
        var signal = opened.runner.pendingSignal
        func apply(_ changes: [AuditChange]) {
            if !changes.isEmpty, !oneShot { report.show(changes, audit) }
            // the counters are written with each change, and while they count at most every `refresh` s
            guard !changes.isEmpty || (countedSinceWrite && report.due) else { return }
            countedSinceWrite = false
            report.write(audit, running: true, totals: heardTotals)
        }
        func feed(_ event: HCIEvent) throws(CLIError) {
            if let failure = ControllerFailure(event, deviceID: opened.info.id) {
                report.write(audit, running: false, totals: heardTotals)
                throw CLIError(failure, device: opened.name, while: "scanning")
            }
            guard let batch = AdvertisingReports.decodePartial(event: event) else { return }
            if let defect = batch.error { ctx.warn("malformed advertising report skipped: \(defect)") }
            let now = seconds()
            var changes: [AuditChange] = []
            for r in batch.reports {
                guard let o = BeaconObservation(report: r, timestamp: now) else { continue }
                changes += audit.observe(o)
                if audit.expected.contains(where: { $0.identity == o.identity }) {
                    heardTotals[o.identity, default: 0] += 1
                    countedSinceWrite = true
                }
            }
            apply(changes)
        }
        for event in opened.runner.takeUnrelatedEvents() { try feed(event) }
        while signal == nil {
            let now = ctx.monotonicMilliseconds()
            var wait: Int64 = -1
            if let end { wait = max(0, end - now) }
            if let deadline = audit.nextDeadline {
                let ms = max(0, Int64((deadline * 1000).rounded(.up)) - now)
                wait = wait < 0 ? ms : min(wait, ms)
            }
            let received: HCIReceive
            do { received = try opened.runner.receive(timeoutMilliseconds: Int(clamping: wait)) } catch {
                report.write(audit, running: false, totals: heardTotals)
                throw CLIError(error)
            }
            switch received {
            case let .signal(n): signal = n
            case let .event(bytes):
                if let e = try? HCIEvent(packet: bytes) { try feed(e) }
            case .timedOut, .command: break
            }
            apply(audit.tick(at: seconds()))
            if let end, ctx.monotonicMilliseconds() >= end { break }
            if ctx.stdoutError() != nil { break }
        }
        do {
            for step in plan.stop { try opened.runner.run(step) }
        } catch { throw CLIError(error) }
        apply(audit.tick(at: seconds()))
        report.write(audit, running: false, totals: heardTotals)
        if ctx.stdoutError() != nil { return .success }
        report.summary(audit)
        if let signal { ctx.note("signal \(signal): listening stopped on \(opened.name)") }
        let missing = audit.missing
        guard oneShot, !missing.isEmpty else { return .success }
        ctx.log(.error, "beacon-tx scan: \(missing.count) of \(audit.expected.count) expected beacon(s) not heard on \(opened.name) within \(JSON.format(expect.window)) s: "
                + missing.map(Report.name).joined(separator: ", "))
        return .differs
    }

    /// What the listener prints and writes.
    struct Report {
        let device: String
        let json: Bool
        let metrics: FilePath?
        let ctx: ToolContext
        let warned = Flag()
        /// When the file was last written (monotonic ms).
        let lastWrite = Stamp()
        /// The counters alone are rewritten at most this often (ms): a scrape interval.
        static let refreshMilliseconds: Int64 = 15_000

        final class Flag { var value = false }
        final class Stamp { var milliseconds: Int64? }

        /// Whether counting alone justifies a write now.
        var due: Bool {
            guard let last = lastWrite.milliseconds else { return true }
            return ctx.monotonicMilliseconds() - last >= Self.refreshMilliseconds
        }

        /// `hall (E2C5…:1:2)`, or the identity alone.
        static func name(_ e: ExpectedBeacon) -> String {
            e.identifier.map { "\($0) (\(e.identity))" } ?? e.identity.description
        }

        /// Wall-clock seconds of a monotonic time.
        func wall(_ t: Double) -> Double {
            ctx.wallClockSeconds() - max(0, Double(ctx.monotonicMilliseconds()) / 1000 - t)
        }

        var now: Double { Double(ctx.monotonicMilliseconds()) / 1000 }

        func identifier(_ id: BeaconIdentity, _ audit: BeaconAudit) -> String? {
            audit.expected.first { $0.identity == id }?.identifier
        }

        func show(_ changes: [AuditChange], _ audit: BeaconAudit) {
            let wallNow = ctx.wallClockSeconds()
            for c in changes {
                let (kind, id): (String, BeaconIdentity)
                switch c {
                case let .heard(i): (kind, id) = ("heard", i)
                case let .missing(i): (kind, id) = ("missing", i)
                case let .unexpectedHeard(i): (kind, id) = ("unexpected", i)
                case let .unexpectedGone(i): (kind, id) = ("unexpected-gone", i)
                }
                let name = identifier(id, audit)
                if json {
                    let head: [(String, JSON)] = [("event", .string(kind)), ("time", .number(ScanCommand.rounded(wallNow, 3))), ("device", .string(device)),
                                                  ("identifier", name.map(JSON.string) ?? .null)]
                    ctx.stdout(JSON.object(head + ScanCommand.identityJSON(id)).compact)
                } else {
                    let clock = ScanCommand.Output(setup: .init(), ctx: ctx).clock(wallNow)
                    ctx.stdout("\(clock) \(kind) " + (name.map { "\($0) " } ?? "") + id.text)
                }
            }
        }

        func entryJSON(_ e: AuditEntry) -> JSON {
            let head: [(String, JSON)] = [("identifier", e.identifier.map(JSON.string) ?? .null)] + ScanCommand.identityJSON(e.identity)
            return .object(head + [
                ("heard", .bool(e.heard)), ("lastSeen", e.lastSeen.map { .number(ScanCommand.rounded(wall($0), 3)) } ?? .null),
                ("reports", .number(Double(e.reports))), ("reportsPerSecond", .number(ScanCommand.rounded(e.reportsPerSecond, 2))),
                ("medianRssi", e.medianRSSI.map { .number($0) } ?? .null), ("address", e.address.map(JSON.string) ?? .null),
            ])
        }

        func entryText(_ e: AuditEntry, _ status: String) -> String {
            let seen = e.lastSeen.map { "last seen \(UTCTime.text(wall($0)))" } ?? "never heard"
            let rssi = e.medianRSSI.map { "median RSSI \(JSON.format($0)) dBm" } ?? "RSSI n/a"
            let name = e.identifier.map { "\($0) " } ?? ""
            let rate = JSON.format(ScanCommand.rounded(e.reportsPerSecond, 2))
            let heard = e.lastSeen == nil ? "" : ", \(rate) reports/s, \(rssi)" + (e.address.map { ", \($0)" } ?? "")
            return "  \(status) " + name + e.identity.text + ": " + seen + heard
        }

        func summary(_ audit: BeaconAudit) {
            let t = now
            let expected = audit.expectedEntries(at: t), unexpected = audit.unexpectedEntries(at: t)
            let heard = expected.filter(\.heard).count
            if json {
                ctx.stdout(JSON.object([
                    ("event", .string("audit")), ("time", .number(ScanCommand.rounded(ctx.wallClockSeconds(), 3))), ("device", .string(device)),
                    ("window", .number(audit.window)), ("heard", .number(Double(heard))), ("expectedCount", .number(Double(expected.count))),
                    ("expected", .array(expected.map(entryJSON))), ("unexpected", .array(unexpected.map(entryJSON))),
                    ("missing", .array(audit.missing.map { .string(Self.name($0)) })),
                ]).compact)
                return
            }
            ctx.stdout("\(device): \(heard) of \(expected.count) expected beacon(s) heard within \(JSON.format(audit.window)) s"
                       + (audit.missing.isEmpty ? "" : "; missing: " + audit.missing.map(Self.name).joined(separator: ", ")))
            for e in expected { ctx.stdout(entryText(e, e.heard ? "heard     " : "MISSING   ")) }
            if !unexpected.isEmpty {
                ctx.stdout("not expected, with the fleet's UUIDs (misconfigured or rogue):")
                for e in unexpected { ctx.stdout(entryText(e, "unexpected")) }
            }
            if audit.unexpectedDropped > 0 {
                ctx.stdout("(\(audit.unexpectedDropped) report(s) of further unexpected beacons not tracked: more than \(audit.maximumUnexpected))")
            }
        }

        /// The listener's textfile: written at start, on each change and at the end (`running` false).
        func write(_ audit: BeaconAudit, running: Bool, totals: [BeaconIdentity: Int]) {
            guard let metrics else { return }
            lastWrite.milliseconds = ctx.monotonicMilliseconds()
            let text = Self.text(audit, device: device, at: now, running: running, totals: totals, wall: wall)
            do { try AtomicFile.write(Array(text.utf8), to: metrics, what: "metrics file") } catch {
                guard !warned.value else { return }
                warned.value = true
                ctx.warn(error.message + " (--metrics); the fleet will not see what this listener hears")
            }
        }

        static func text(_ audit: BeaconAudit, device: String, at now: Double, running: Bool, totals: [BeaconIdentity: Int],
                         wall: (Double) -> Double) -> String {
            let expected = audit.expectedEntries(at: now), unexpected = audit.unexpectedEntries(at: now)
            func labels(_ e: AuditEntry) -> [(String, String)] {
                [("device", device), ("identifier", e.identifier ?? "")] + ScanCommand.identityLabels(e.identity)
            }
            let d = [("device", device)]
            return PrometheusText.render([
                .buildInfo(role: "listener"),
                .init("beacon_tx_listener_up", .gauge, "1 while beacon-tx scan --expect listens on this device, 0 once it stopped.",
                      [.init(d, running ? 1 : 0)]),
                .init("beacon_tx_listener_window_seconds", .gauge, "The window within which a beacon counts as heard (--window).",
                      [.init(d, audit.window)]),
                .init("beacon_tx_expected_beacon_heard", .gauge, "1 when this expected beacon was heard within the window, by this listener's ears.",
                      expected.map { .init(labels($0), $0.heard ? 1 : 0) }),
                .init("beacon_tx_expected_beacon_last_seen_timestamp_seconds", .gauge,
                      "When this listener last heard the beacon, seconds since the Unix epoch (absent: never; as of the last change written).",
                      expected.compactMap { e in e.lastSeen.map { .init(labels(e), ScanCommand.rounded(wall($0), 3)) } }),
                .init("beacon_tx_expected_beacon_rssi_dbm", .gauge,
                      "Median RSSI of the beacon's reports within the window (absent: none carried one), as of the last change written.",
                      expected.compactMap { e in e.medianRSSI.map { .init(labels(e), $0) } }),
                .init("beacon_tx_expected_beacon_reports_total", .counter,
                      "Advertising reports of this expected beacon heard by this listener since it started (rewritten with each change and at most every 15 s while it counts): rate() is its reports per second.",
                      expected.map { .init(labels($0), Double(totals[$0.identity] ?? 0)) }),
                .init("beacon_tx_unexpected_beacon_heard", .gauge,
                      "A beacon with one of the fleet's UUIDs that no --expect config lists (misconfigured or rogue), heard within the window.",
                      unexpected.map { .init(labels($0).filter { $0.0 != "identifier" }, 1) }),
            ])
        }
    }
}

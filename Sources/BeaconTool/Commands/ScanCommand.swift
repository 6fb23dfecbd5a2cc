// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// `beacon-tx scan`: ranging and region monitoring with CoreLocation's semantics.
enum ScanCommand: Subcommand {
    static let name = "scan"
    static let summary = "range and monitor beacons like CoreLocation (iBeacon, AltBeacon, Eddystone; enter/exit, proximity, distance)"
    static let usage = "beacon-tx scan [--device hciN] [--region UUID[:MAJOR[:MINOR]] | --region NAMESPACE[:INSTANCE]]... [options]\n       beacon-tx scan --calibrate --region UUID[:MAJOR[:MINOR]] [--duration s] [--json]\n       beacon-tx scan --expect CONFIG... [--window s] [--duration s] [--json] [--metrics FILE]"
    /// The settings of the `Setting` table it takes (and no other).
    static let settings: [Setting] = [.device, .timeout]
    static let options: [OptionSpec] = [
        Setting.device.option(help: "controller (default: the first LE controller)"),
        .value("--region", "UUID[:MAJOR[:MINOR]]", "monitor and range this region (repeatable; default: range every beacon): iBeacons by UUID, major, minor and AltBeacons by id1, id2, id3; NAMESPACE[:INSTANCE] (20 and 12 hex digits): Eddystone-UID beacons", repeatable: true),
        .value("--duration", "s", "stop after this many seconds, 0.1–86400 (default: until Ctrl-C / SIGTERM)"),
        .value("--exit-timeout", "s", "report exit after this long without a matching beacon, 1–3600 (default 30)"),
        .value("--path-loss", "n", "path-loss exponent for distance, 1–6 (default 2: free space; 2–4 indoors)"),
        .path("--expect", "CONFIG", "audit a fleet: expect the beacons of this kiosk config (repeatable); reports heard/missing per beacon and unexpected ones with the fleet's UUIDs; with --duration exit 1 naming the missing", repeatable: true),
        .value("--window", "s", "with --expect: a beacon counts as heard when heard within the last s seconds, 1–3600 (default 30)"),
        .path("--metrics", "FILE", "with --expect: keep a Prometheus textfile (heard, last seen, RSSI per expected beacon), rewritten atomically on each change"),
        .flag("--calibrate", "measure one beacon held at 1 m (exactly one --region) and suggest its measuredPower; --duration defaults to 10"),
        .flag("--json", "JSON Lines: one object per ranging update or region event (with --calibrate: one object)"),
        .flag("--all", "also list advertisements that are no beacon (Eddystone-TLM among them: ranged Eddystone beacons carry their address's TLM anyway)"),
        .flag("--active", "active scanning (send scan requests)"),
        Setting.timeout.option,
        .flag("--verbose", "log every HCI command and event (btmon style) on stderr"),
    ]
    static let examples = [
        "sudo beacon-tx scan",
        "sudo beacon-tx scan --region E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1 --json",
        "sudo beacon-tx scan --device hci1 --duration 10 --all --json | jq -c 'select(.event == \"range\")'",
        "sudo beacon-tx scan --calibrate --region E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2 --duration 20",
        "sudo beacon-tx scan --expect /etc/beacon-tx/fleet/kiosk17.json --expect /etc/beacon-tx/fleet/kiosk18.json --duration 60   # exit 1 names the missing",
        "sudo beacon-tx scan --device hci1 --expect kiosk17.json --metrics /var/lib/prometheus/node-exporter/beacon-tx-listener.prom",
    ]

    struct Setup {
        var regions: [BeaconRegion] = []
        var duration: Double?
        var exitTimeout = RegionMonitor.defaultExitTimeout
        var pathLoss = PathLossModel.freeSpace
        var json = false
        var all = false
        var active = false
        var calibrate = false
        /// Legacy and extended scan plans, checked before any socket is opened.
        var plans: [ScanPlan] = []
    }

    static func parse(_ a: ParsedArguments) throws(CLIError) -> Setup {
        var s = Setup()
        for text in a.all("--region") {
            do { s.regions.append(try BeaconRegion(parsing: text)) } catch {
                // One UUID message everywhere: the same words as --uuid and the config's uuid key.
                // Messages quote the user's text bounded and escaped (BeaconKit's descriptions quote it whole).
                switch error {
                case let .invalidUUID(u): _ = try Validate.uuid("--region", u)
                case .empty: break
                case let .tooManyFields(_, count):
                    throw .usage("--region \(Quote.user(text)): \(count) fields; expected \(BeaconRegionParseError.accepted)")
                case let .invalidInstance(value):
                    throw .usage("--region \(Quote.user(text)): instance \(Quote.user(value)) is not 12 hex digits (an Eddystone instance is 6 bytes)")
                case let .invalidValue(field, value):
                    throw .usage("--region \(Quote.user(text)): \(field) \(Quote.user(value)) is not an integer (accepted 0–65535)")
                }
                throw .usage("--region \(Quote.user(text)): \(error)")
            }
        }
        if let t = a.value("--duration") { s.duration = try Validate.number("--duration", t, 0.1...86400, unit: "s") }
        if let t = a.value("--exit-timeout") { s.exitTimeout = try Validate.number("--exit-timeout", t, 1...3600, unit: "s") }
        if let t = a.value("--path-loss") {
            let n = try Validate.number("--path-loss", t, PathLossModel.exponentRange, unit: "")
            s.pathLoss = PathLossModel(exponent: n) ?? .freeSpace
        }
        s.json = a.has("--json")
        s.all = a.has("--all")
        s.active = a.has("--active")
        s.calibrate = a.has("--calibrate")
        if !a.has("--expect") {
            for only in ["--window", "--metrics"] where a.has(only) { throw .usage("\(only) only applies with --expect") }
        } else {
            if s.calibrate { throw .usage("--calibrate and --expect exclude each other") }
            _ = try ScanExpect.parse(a)   // bad configs and flags before any socket is opened
        }
        if s.calibrate {
            guard s.regions.count == 1 else {
                throw .usage(s.regions.isEmpty
                    ? "--calibrate needs --region UUID[:MAJOR[:MINOR]]: the one beacon held at 1 m"
                    : "--calibrate measures one beacon: give one --region, not \(s.regions.count)")
            }
            if s.regions[0].uuid == nil {
                throw .usage("--calibrate measures an iBeacon's measuredPower: give its UUID[:MAJOR[:MINOR]], not an Eddystone namespace")
            }
            for other in ["--all", "--exit-timeout", "--path-loss"] where a.has(other) {
                throw .usage("\(other) does nothing with --calibrate")
            }
            if s.duration == nil { s.duration = Calibrate.defaultDuration }
        }
        do {
            s.plans = try [ScanFamily.legacy, .extended].map { try ScanPlan(family: $0, options: ScanOptions(active: s.active)) }
        } catch {
            throw CLIError(.software, "scan options: \(error)")
        }
        return s
    }

    static func run(_ a: ParsedArguments, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        let setup = try parse(a)
        var s = Settings()
        try s.apply(settings, from: a)
        // Before the first HCI socket: the scan needs only the HCI device ioctls and the terminal query.
        ctx.confineIoctls(verbose: a.has("--verbose"))
        let opened = try OpenedDevice.open(.init(device: s.device, timeoutMilliseconds: s.timeoutMilliseconds, verbose: a.has("--verbose"), watchSignals: true), ctx)
        if setup.calibrate { return try Calibrate.run(opened, setup, ctx) }
        if a.has("--expect") { return try ScanExpect.run(a, setup, opened, ctx) }
        let output = Output(setup: setup, ctx: ctx)
        var configuration = ScanConfiguration(regions: setup.regions, reportAll: setup.all, deviceID: opened.info.id)
        configuration.exitTimeout = setup.exitTimeout
        configuration.ranging.pathLoss = setup.pathLoss
        var scan = ScanSession(configuration)
        let plan = try startScanning(opened, setup, ctx)
        ctx.note("scanning on \(opened.name) (\(plan.family) commands\(setup.active ? ", active" : ", passive"))"
                 + (setup.regions.isEmpty ? "" : "; regions: " + setup.regions.map(\.description).joined(separator: ", ")))
        let end = setup.duration.map { ctx.monotonicMilliseconds() + Int64($0 * 1000) }
        var signal = opened.runner.pendingSignal
        func seconds() -> Double { Double(ctx.monotonicMilliseconds()) / 1000 }
        /// Hands one event to the session and shows what it reports; a controller failure ends the scan.
        func feed(_ receive: (Double) throws(ControllerFailure) -> [ScanUpdate]) throws(CLIError) {
            let now = seconds()
            do { output.show(try receive(now)) } catch { throw CLIError(error, device: opened.name, while: "scanning") }
        }
        // Reports that arrived while the start plan ran.
        for event in opened.runner.takeUnrelatedEvents() {
            try feed { now throws(ControllerFailure) in try scan.receive(event, at: now) }
        }
        while signal == nil {
            let now = ctx.monotonicMilliseconds()
            var wait: Int64 = -1
            if let end { wait = max(0, end - now) }
            if let deadline = scan.nextDeadline {
                let ms = max(0, Int64((deadline * 1000).rounded(.up)) - now)
                wait = wait < 0 ? ms : min(wait, ms)
            }
            let received: HCIReceive
            do { received = try opened.runner.receive(timeoutMilliseconds: Int(clamping: wait)) } catch { throw CLIError(error) }
            switch received {
            case let .signal(n): signal = n
            case let .event(bytes): try feed { now throws(ControllerFailure) in try scan.receive(bytes, at: now) }
            case .timedOut, .command: break
            }
            try feed { now in scan.tick(at: now) }
            if let end, ctx.monotonicMilliseconds() >= end { break }
            if ctx.stdoutError() != nil { break }   // output is lost: stop scanning; exit 74 says why
        }
        do {
            for step in plan.stop { try opened.runner.run(step) }
        } catch { throw CLIError(error) }
        if ctx.stdoutError() != nil { return .success }
        ctx.note((signal.map { "signal \($0): " } ?? "") + "scanning stopped on \(opened.name): \(scan.reportCount) report(s), \(scan.beaconCount) beacon(s)")
        return .success
    }

    /// Runs the scan plan of the family the controller supports; on Command Disallowed (the
    /// controller is locked to the other family) switches once, as `start` does.
    static func startScanning(_ opened: OpenedDevice, _ setup: Setup, _ ctx: ToolContext) throws(CLIError) -> ScanPlan {
        let extended = opened.caps.supportsExtendedScanning
        let (legacyPlan, extendedPlan) = (setup.plans[0], setup.plans[1])
        do {
            return try Advertiser.startSwitchingOnce(opened.runner, extended ? extendedPlan : legacyPlan,
                                                     fallback: extended ? legacyPlan : nil) { error in
                ctx.warn("\(opened.name): \(error); trying legacy scan commands")
            }
        } catch {
            switch error {
            case let .refused(e): throw CLIError(e)
            case let .bothDisallowed(first, second):
                throw CLIError(.unavailable, "\(opened.name) refused both scan families (\(first); \(second)): another program holds the controller in the other family; retry, or stop it")
            }
        }
    }

    /// What the scan session reports, written as text or JSON Lines.
    struct Output {
        let setup: Setup
        let ctx: ToolContext

        func show(_ updates: [ScanUpdate]) {
            for update in updates {
                switch update {
                case let .region(e): emit(e)
                case let .ranged(r, addressType): emit(r, addressType: addressType)
                case let .advertisement(report): emit(advertisement: report)
                case let .malformedReport(error): ctx.warn("malformed advertising report skipped: \(error)")
                }
            }
        }

        /// `lastSeen` on the wall clock: now on the wall, less how long ago (monotonic) the beacon was seen.
        func emit(_ r: RangedBeacon, addressType: AdvertisingReport.AddressType) {
            let wall = ctx.wallClockSeconds()
            let now = Double(ctx.monotonicMilliseconds()) / 1000
            let lastSeen = wall - max(0, now - r.lastSeen)
            if setup.json {
                var fields: [(String, JSON)] = [("event", .string("range"))]
                fields.append(("time", .number(rounded(wall, 3))))
                fields.append(("lastSeen", .number(rounded(lastSeen, 3))))
                fields += identityJSON(r.identity)
                fields.append(("measuredPower", .number(Double(r.measuredPower))))
                if let ranging = r.frame.eddystoneRangingData { fields.append(("rangingData", .number(Double(ranging)))) }
                // One append each: Swift 6.0.3 (the aarch64 toolchain) gives up on one literal of them all.
                let rssi: JSON = r.rssi.map { .number(Double($0)) } ?? .null
                let smoothed: JSON = r.smoothedRSSI.map { .number(rounded($0, 1)) } ?? .null
                let distance: JSON = r.distance.map { .number(rounded($0, 2)) } ?? .null
                fields.append(("address", .string(r.address)))
                fields.append(("addressType", .string(addressTypeName(addressType))))
                fields.append(("rssi", rssi))
                fields.append(("smoothedRssi", smoothed))
                fields.append(("samples", .number(Double(r.sampleCount))))
                fields.append(("distance", distance))
                fields.append(("proximity", .string(r.proximity.description)))
                if let t = r.telemetry { fields.append(("telemetry", telemetryJSON(t))) }
                ctx.stdout(JSON.object(fields).compact)
            } else {
                let rssi = r.rssi.map { "rssi \($0) dBm (avg \(r.smoothedRSSI.map { String(rounded($0, 1)) } ?? "?"))" } ?? "rssi n/a"
                let distance = r.distance.map { "~\(rounded($0, 2)) m" } ?? "distance unknown"
                let tlm = r.telemetry.map { "  tlm \(telemetryText($0))" } ?? ""
                ctx.stdout("\(clock(wall)) range \(r.identity.text)  \(rssi)  power \(r.measuredPower)  \(distance)  \(r.proximity)  \(r.address)\(tlm)")
            }
        }

        func emit(_ e: RegionEvent) {
            let wall = ctx.wallClockSeconds()
            let kind: String
            switch e { case .enter: kind = "enter"; case .exit: kind = "exit" }
            let region = e.region
            if setup.json {
                ctx.stdout(JSON.object([
                    ("event", .string(kind)), ("time", .number(rounded(wall, 3))), ("region", .string(region.description)),
                ] + regionJSON(region)).compact)
            } else {
                ctx.stdout("\(clock(wall)) \(kind) \(region)")
            }
        }

        func emit(advertisement r: AdvertisingReport) {
            let wall = ctx.wallClockSeconds()
            if setup.json {
                ctx.stdout(JSON.object([
                    ("event", .string("advertisement")), ("time", .number(rounded(wall, 3))), ("address", .string(r.address)),
                    ("addressType", .string(addressTypeName(r.addressType))), ("rssi", r.rssi.map { .number(Double($0)) } ?? .null),
                    ("extended", .bool(r.isExtended)), ("data", .string(Hex.encode(r.data))),
                ]).compact)
            } else {
                ctx.stdout("\(clock(wall)) adv \(r.address) rssi \(r.rssi.map(String.init) ?? "n/a") \(Hex.encode(r.data))")
            }
        }

        /// `HH:MM:SSZ`: UTC, and says so (ISO 8601's zone designator).
        func clock(_ wall: Double) -> String {
            let s = Int(wall) % 86400
            func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
            return "\(two(s / 3600)):\(two(s / 60 % 60)):\(two(s % 60))Z"
        }
    }

    /// A beacon's `type` and identifiers: `"type": "ibeacon", "uuid": …, "major": 1, "minor": 2`;
    /// `"type": "altbeacon", "id1": …, "id2": …, "id3": …`; `"type": "eddystone-uid", "namespace": …,
    /// "instance": …`; `"type": "eddystone-url", "url": …`.
    static func identityJSON(_ id: BeaconIdentity) -> [(String, JSON)] {
        [("type", .string(id.kind.rawValue))] + id.fields.map { field in
            switch field.value {
            case let .text(t): return (field.name, .string(t))
            case let .number(n): return (field.name, .number(Double(n)))
            }
        }
    }

    /// A beacon's metric labels: an iBeacon's `uuid`, `major` and `minor`; another type's `type` and
    /// `id` (`id1 … id2 1 id3 2`, `namespace … instance …`, the URL), as `start`'s metrics label them.
    static func identityLabels(_ id: BeaconIdentity) -> [(String, String)] {
        if case let .iBeacon(uuid, major, minor) = id { return [("uuid", uuid.description), ("major", String(major)), ("minor", String(minor))] }
        let kind = id.kind.rawValue
        return [("type", kind), ("id", String(id.text.dropFirst(kind.count + 1)))]
    }

    /// A region's identifiers: `uuid`, `major`, `minor` (null: any), or `namespace`, `instance`.
    static func regionJSON(_ region: BeaconRegion) -> [(String, JSON)] {
        switch region.identifiers {
        case let .uuid(uuid, major, minor):
            return [("uuid", .string(uuid.description)), ("major", major.map { .number(Double($0)) } ?? .null),
                    ("minor", minor.map { .number(Double($0)) } ?? .null)]
        case let .eddystone(namespace, instance):
            return [("namespace", .string(Hex.encode(namespace))), ("instance", instance.map { .string(Hex.encode($0)) } ?? .null)]
        }
    }

    /// Eddystone-TLM's values: battery (mV, 0: mains powered), temperature (°C, null: not measured),
    /// advertising PDUs and seconds since the beacon's start.
    static func telemetryJSON(_ t: Eddystone.TLM) -> JSON {
        .object([("batteryMillivolts", .number(Double(t.batteryMillivolts))), ("temperature", t.celsius.map { .number($0) } ?? .null),
                 ("advertisingPDUCount", .number(Double(t.advertisingPDUCount))), ("uptimeSeconds", .number(Double(t.uptimeTenths) / 10))])
    }

    /// `battery 0 mV, temperature n/a, 1234 PDUs, up 56.7 s`.
    static func telemetryText(_ t: Eddystone.TLM) -> String {
        "battery \(t.batteryMillivolts) mV, temperature \(t.celsius.map { "\($0) °C" } ?? "n/a"), \(t.advertisingPDUCount) PDUs, up \(JSON.format(Double(t.uptimeTenths) / 10)) s"
    }

    /// JSON names of address types.
    static func addressTypeName(_ t: AdvertisingReport.AddressType) -> String {
        switch t {
        case .publicDevice: return "public"
        case .randomDevice: return "random"
        case .publicIdentity: return "publicIdentity"
        case .randomIdentity: return "randomIdentity"
        case .anonymous: return "anonymous"
        default: return "0x" + Hex.encode([t.rawValue])
        }
    }

    static func rounded(_ v: Double, _ places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (v * scale).rounded() / scale
    }
}

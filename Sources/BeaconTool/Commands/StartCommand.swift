import BeaconKit

/// `beacon-tx start`: advertise one iBeacon, or print the plan with `--dry-run`.
enum StartCommand: Subcommand {
    static let name = "start"
    static let summary = "advertise an iBeacon (or print the exact HCI commands with --dry-run)"
    static let usage = "beacon-tx start (--uuid UUID --major N --minor N | --config FILE) [options]"
    static let options: [OptionSpec] = [
        .value("--uuid", "UUID", "proximity UUID, with or without dashes, any case"),
        .value("--major", "N", "major, 0–65535"),
        .value("--minor", "N", "minor, 0–65535"),
        .value("--power", "dBm", "measured power (RSSI at 1 m), -127–20 (default -59)"),
        .value("--identifier", "NAME", "region identifier (shown in output, not advertised)"),
        .value("--interval", "ms", "advertising interval, 20–10240 ms, rounded to 0.625 ms (default 100)"),
        .flag("--connectable", "advertise ADV_IND instead of ADV_NONCONN_IND"),
        .flag("--non-connectable", "advertise ADV_NONCONN_IND (overrides the config file)"),
        .value("--tx-power", "dBm", "requested tx power, -127–20 (extended advertising only; default: no preference)"),
        .value("--device", "hciN", "controller (default: the first LE controller; hci0 in dry runs)"),
        .path("--config", "FILE", "JSON config file (- reads stdin); flags override its values"),
        .value("--controller", "FAMILY", "auto, legacy or extended (default auto: extended when supported)",
               choices: ["auto", "legacy", "extended"]),
        .value("--advertising-set", "N", "extended advertising set (handle) to use, 0–239 (default 0)"),
        .flag("--dry-run", "print the plan, open no socket"),
        .value("--format", "FORMAT", "dry-run output: text, hex, hcitool or btsnoop (default text)",
               choices: ["text", "hex", "hcitool", "btsnoop"]),
        .path("--output", "FILE", "write the dry-run output to FILE, a regular file (- is stdout)"),
        .flag("--detach", "exit once advertising is on, leave the controller advertising"),
        .flag("--reset", "reset the controller (HCIDEVRESET) before starting"),
        .value("--timeout", "ms", "wait this long for each controller answer, 100–60000 (default 2000)"),
        .flag("--verbose", "log every HCI command and event (btmon style) on stderr"),
    ]
    static let examples = [
        "beacon-tx start --uuid E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 --major 1 --minor 2 --dry-run",
        "beacon-tx start --config Config/kiosk.json --dry-run --format hcitool",
        "beacon-tx start --config Config/kiosk.json --dry-run --format btsnoop --output plan.btsnoop && btmon -r plan.btsnoop",
        "sudo beacon-tx start --config Config/kiosk.json            # foreground; Ctrl-C stops advertising",
        "sudo beacon-tx start --uuid e2c56db5dffb48d2b060d0f5a71096e0 --major 7 --minor 42 --detach",
    ]

    enum Format: String { case text, hex, hcitool, btsnoop }

    static func run(_ a: ParsedArguments, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        let settings = try settings(from: a, ctx)
        guard let entry = settings.beacon else {
            throw .usage("no beacon: give --uuid, --major and --minor, or --config FILE with one beacon")
        }
        if a.has("--dry-run") {
            return try dryRun(entry, settings, a, ctx)
        }
        for dryOnly in ["--format", "--output"] where a.has(dryOnly) {
            throw .usage("\(dryOnly) only applies with --dry-run")
        }
        return try live(entry, settings, detach: a.has("--detach"), reset: a.has("--reset"), verbose: a.has("--verbose"), ctx)
    }

    /// defaults < config file < flags.
    static func settings(from a: ParsedArguments, _ ctx: ToolContext) throws(CLIError) -> Settings {
        var s = Settings()
        var requestedInterval: Double?
        if let path = a.path("--config") {
            requestedInterval = try ConfigFile.load(path, into: &s)
        }
        try s.applyDeviceFlags(a)
        if let t = a.value("--interval") {
            let ms = try Validate.number("--interval", t, AdvertisingInterval.minimumMilliseconds...AdvertisingInterval.maximumMilliseconds, unit: "ms")
            s.interval = AdvertisingInterval(milliseconds: ms) ?? s.interval
            requestedInterval = ms
        }
        if a.has("--connectable") && a.has("--non-connectable") { throw .usage("--connectable and --non-connectable exclude each other") }
        if a.has("--connectable") { s.connectable = true }
        if a.has("--non-connectable") { s.connectable = false }
        if let t = a.value("--tx-power") { s.txPower = Int8(try Validate.integer("--tx-power", t, AdvertisingOptions.txPowerRange)) }
        if let c = a.value("--controller") {
            s.controller = try Validate.choice("--controller", c, [("auto", nil), ("legacy", .legacy), ("extended", .extended)] as [(String, AdvertisingFamily?)])
        }

        let uuid = try a.value("--uuid").map { (t: String) throws(CLIError) in try Validate.uuid("--uuid", t) }
        let major = try a.value("--major").map { (t: String) throws(CLIError) in UInt16(try Validate.integer("--major", t, 0...65535)) }
        let minor = try a.value("--minor").map { (t: String) throws(CLIError) in UInt16(try Validate.integer("--minor", t, 0...65535)) }
        let identifier = try a.value("--identifier").map { (t: String) throws(CLIError) in try Validate.identifier("--identifier", t) }
        let power = try a.value("--power").map { (t: String) throws(CLIError) in Int8(try Validate.integer("--power", t, Settings.measuredPowerRange)) }
        if var b = s.beacon {
            b.uuid = uuid ?? b.uuid
            b.major = major ?? b.major
            b.minor = minor ?? b.minor
            b.measuredPower = power ?? b.measuredPower
            b.identifier = identifier ?? b.identifier
            s.beacon = b
        } else if uuid != nil || major != nil || minor != nil {
            guard let uuid else { throw .usage("--uuid is required with --major/--minor (or use --config FILE)") }
            guard let major else { throw .usage("--major is required (0–65535)") }
            guard let minor else { throw .usage("--minor is required (0–65535)") }
            s.beacon = BeaconEntry(identifier: identifier, uuid: uuid, major: major, minor: minor,
                                   measuredPower: power ?? Settings.defaultMeasuredPower)
        } else if power != nil || a.has("--identifier") {
            throw .usage("--power/--identifier need a beacon: give --uuid, --major and --minor, or --config FILE")
        }
        if let ms = requestedInterval, ms != s.interval.milliseconds {
            ctx.note("interval \(JSON.format(ms)) ms rounded to \(s.interval.text) (units of 0.625 ms)")
        }
        return s
    }

    // MARK: dry run

    static func dryRun(_ entry: BeaconEntry, _ s: Settings, _ a: ParsedArguments, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        for liveOnly in ["--detach", "--reset", "--verbose"] where a.has(liveOnly) {
            throw .usage("\(liveOnly) does nothing with --dry-run")
        }
        let format = try Validate.choice("--format", a.value("--format") ?? "text",
                                         [("text", Format.text), ("hex", .hex), ("hcitool", .hcitool), ("btsnoop", .btsnoop)])
        let family = s.controller ?? .legacy
        let plan = AdvertisingPlan(beacon: entry.beacon, options: s.advertisingOptions, family: family)
        let device = s.deviceName ?? "hci0"
        let output: [UInt8]
        switch format {
        case .text: output = Array(DryRun.text(entry, s, plan, device: device).utf8)
        case .hex: output = Array(DryRun.hex(plan).utf8)
        case .hcitool: output = Array(DryRun.hcitool(entry, plan, device: device).utf8)
        case .btsnoop: output = DryRun.btsnoop(plan)
        }
        if let path = a.path("--output"), !FileIO.isStdout(path) {
            try FileIO.write(output, to: path, what: "--output")
            ctx.note("wrote \(format.rawValue) plan (\(plan.start.count) commands) to \(path.display)")
        } else if format == .btsnoop && ctx.stdoutIsTerminal {
            throw .usage("--format btsnoop writes binary: add --output FILE or redirect stdout")
        } else {
            ctx.stdoutBytes(output)
        }
        return .success
    }

    // MARK: live

    static func live(_ entry: BeaconEntry, _ s: Settings, detach: Bool, reset: Bool, verbose: Bool, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        let session = try DeviceSession.open(
            .init(device: s.device, reset: reset, timeoutMilliseconds: s.timeoutMilliseconds, verbose: verbose, watchSignals: !detach), ctx)
        if let signal = session.runner.pendingSignal {
            ctx.note("signal \(signal) before advertising started on \(session.name); nothing was changed")
            return .success
        }
        let family: AdvertisingFamily
        do { family = try Advertiser.chooseFamily(s.controller, session.caps, device: session.name) } catch { throw CLIError(error) }
        if family == .legacy, let tx = s.txPower {
            ctx.note("--tx-power \(tx) dBm is ignored: legacy advertising commands carry no tx power")
        }
        if family == .legacy, !s.connectable, s.interval.units < AdvertisingInterval.standard.units, session.caps.version.hciVersion < 9 {
            ctx.note("\(session.name) is Bluetooth \(session.caps.version.coreVersion): before 5.0, non-connectable advertising needs an interval of at least 100 ms; the controller may refuse \(s.interval.text)")
        }
        let beacon = entry.beacon
        let plan: AdvertisingPlan
        do {
            plan = try Advertiser.start(session.runner, plan: { AdvertisingPlan(beacon: beacon, options: s.advertisingOptions, family: $0) },
                                        family: family, caps: session.caps, device: session.name, log: ctx.note)
        } catch { throw CLIError(error) }
        let name = entry.identifier.map { "\($0) " } ?? ""
        ctx.note("advertising \(name)\(beacon.uuid) major \(beacon.major) minor \(beacon.minor) power \(beacon.measuredPower) dBm on \(session.name) (\(plan.family) commands, \(s.interval.text), \(s.connectable ? "connectable" : "non-connectable"))")
        if detach {
            let set = plan.family == .extended && s.advertisingSet != 0 ? " --advertising-set \(s.advertisingSet)" : ""
            ctx.note("detached; the controller keeps advertising until 'beacon-tx stop --device \(session.name)\(set)'")
            return .success
        }
        ctx.note("press Ctrl-C (or send SIGTERM) to stop")
        let service = ServiceReporter(ctx, device: session.name)
        service.onAir(family: plan.family, beacons: [entry], sets: plan.family == .extended ? [s.advertisingSet] : [])
        let signal: Int32
        do { signal = try session.waitForSignal(watchdog: service.watchdog) } catch { service.failed(error.message); throw error }
        service.stopping()
        defer { service.stopped() }
        do {
            for step in plan.stop { try session.runner.run(step) }
        } catch { throw CLIError(error) }
        ctx.note("signal \(signal): advertising stopped on \(session.name)")
        return .success
    }
}

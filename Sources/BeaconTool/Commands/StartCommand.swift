// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// `beacon-tx start`: advertise one or many beacons (iBeacon, AltBeacon, Eddystone-UID/-URL, raw
/// data), or print the plan with `--dry-run`.
enum StartCommand: Subcommand {
    static let name = "start"
    static let summary = "advertise iBeacons (or AltBeacon, Eddystone, raw data) and keep them on air (or print the exact HCI commands with --dry-run)"
    static let usage = "beacon-tx start (--uuid UUID --major N --minor N | --beacon UUID:MAJOR:MINOR[:POWER]... | --altbeacon/--eddystone-uid/--eddystone-url/--data ... [--eddystone-tlm] | --config FILE) [options]"
    /// The settings `start` takes as flags (the same table as the config keys).
    static let settings: [Setting] = Setting.topLevel
    /// The options that make the effective configuration: the beacons, the config file and the
    /// settings. `dump-config` takes exactly these (and its own `--format`).
    static let configurationOptions: [OptionSpec] = [
        .value("--uuid", "UUID", "proximity UUID, with or without dashes, any case"),
        .value("--major", "N", "major, 0–65535"),
        .value("--minor", "N", "minor, 0–65535"),
        .value("--power", "dBm", "measured power (RSSI at 1 m), -127–20 (default -59)"),
        .value("--identifier", "NAME", "region identifier (shown in output, not advertised)"),
        .value("--beacon", "UUID:MAJOR:MINOR[:POWER]", "one iBeacon of many (repeatable); replaces the config's beacons", repeatable: true),
        .value("--altbeacon", "ID1:ID2:ID3[:RSSI]", "one AltBeacon (id1 a UUID, reference RSSI default -59; repeatable, mixes with --beacon)", repeatable: true),
        .value("--eddystone-uid", "NS:INSTANCE[:RANGING]", "one Eddystone-UID (namespace and instance: 10 and 6 bytes as hex, ranging data at 0 m default -18; repeatable)", repeatable: true),
        .value("--eddystone-url", "URL[:RANGING]", "one Eddystone-URL (at most 17 bytes encoded; a last :N, -100–20, is the ranging data; repeatable)", repeatable: true),
        .value("--data", "HEX", "one beacon of raw advertising data, AD structures of 1–31 bytes, sent as given (repeatable)", repeatable: true),
        .flag("--eddystone-tlm", "add the Eddystone-TLM of the one Eddystone-UID or -URL beacon: its PDU count and time since start, live, from its address"),
        .path("--config", "FILE", "JSON config file (- reads stdin); flags override its values; SIGHUP re-reads it"),
    ] + settings.flatMap(\.options)
    static let options: [OptionSpec] = configurationOptions + [
        .flag("--dry-run", "print the plan, open no socket"),
        .value("--format", "FORMAT", "dry-run output: \(DryRun.Format.names.dropLast().joined(separator: ", ")) or \(DryRun.Format.names.last ?? "") (default text)",
               choices: DryRun.Format.names),
        .path("--output", "FILE", "write the dry-run output to FILE, a regular file (- is stdout)"),
        .path("--check", "GOLDEN", "compare the plan with GOLDEN (a hex, hcitool, json or btsnoop dry run): exit 0 when equal, 1 naming each differing command and field"),
        .flag("--detach", "exit once advertising is on (no re-arm, no reload: nothing watches the beacons)"),
        .flag("--reset", "reset the controller (HCIDEVRESET) before starting"),
        .flag("--verbose", "log every HCI command and event (btmon style) on stderr"),
    ]
    static let examples = [
        "beacon-tx start --uuid E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 --major 1 --minor 2 --dry-run",
        "beacon-tx start --config Config/kiosk.json --dry-run --format hcitool",
        "beacon-tx start --beacon E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:1 --beacon E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2 --dry-run",
        "beacon-tx start --altbeacon 2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6:1:2 --eddystone-url https://example.com/ --dry-run",
        "sudo beacon-tx start --eddystone-uid 8b0ca750e7a74e14bd99:000000000001 --eddystone-tlm",
        "beacon-tx start --config Config/kiosk.json --dry-run --format btsnoop --output plan.btsnoop && btmon -r plan.btsnoop",
        "beacon-tx start --config Config/kiosk.json --dry-run --format json | jq '.start[].name'",
        "beacon-tx start --config Config/kiosk.json --dry-run --check kiosk.golden.hex   # CI: exit 1 names the field that changed",
        "sudo beacon-tx start --config /etc/beacon-tx/kiosk.json   # foreground: re-arms after resets; SIGHUP reloads; Ctrl-C stops",
        "sudo beacon-tx start --uuid e2c56db5dffb48d2b060d0f5a71096e0 --major 7 --minor 42 --detach",
        "sudo beacon-tx start --config Config/kiosk.json --duration 60            # on air for a minute, then exit 0",
        "sudo beacon-tx start --config Config/kiosk.json --cycle 30:60:5          # didEnterRegion/didExitRegion 5 times",
    ]

    typealias Format = DryRun.Format

    static func run(_ a: ParsedArguments, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        let s = try settings(from: a, ctx)
        guard !s.beacons.isEmpty else {
            throw .usage("no beacon: give --uuid, --major and --minor, --beacon UUID:MAJOR:MINOR, or --config FILE")
        }
        if a.has("--dry-run") {
            return try dryRun(s, a, ctx)
        }
        for dryOnly in ["--format", "--output", "--check"] where a.has(dryOnly) {
            throw .usage("\(dryOnly) only applies with --dry-run")
        }
        return try live(s, a, ctx)
    }

    /// defaults < config file < flags.
    static func settings(from a: ParsedArguments, _ ctx: ToolContext) throws(CLIError) -> Settings {
        var s = Settings()
        var requestedInterval: Double?
        if let path = a.path("--config") {
            requestedInterval = try ConfigFile.load(path, into: &s)
        }
        try s.apply(settings, from: a)
        if let t = a.value(Setting.interval) { requestedInterval = Double(t.trimmingCharacters()) }
        try applyBeaconFlags(a, to: &s)
        try applyTelemetryFlag(a, to: &s)
        if let e = ShareOptions.commandsRefusal(s) { throw e }
        if let ms = requestedInterval, ms != s.interval.milliseconds {
            ctx.note("interval \(JSON.format(ms)) ms rounded to \(s.interval.text) (units of 0.625 ms)")
        }
        return s
    }

    /// The flags that each give one beacon of the list, in command-line order.
    static let beaconListFlags = ["--beacon", "--altbeacon", "--eddystone-uid", "--eddystone-url", "--data"]

    /// `--beacon` (and the other types' list flags) replace the list; `--uuid/--major/--minor/--power/--identifier` make or change the one beacon.
    static func applyBeaconFlags(_ a: ParsedArguments, to s: inout Settings) throws(CLIError) {
        let list = a.declares("--altbeacon") ? a.all(of: beaconListFlags) : a.all("--beacon").map { (name: "--beacon", value: $0) }
        if !list.isEmpty {
            for single in ["--uuid", "--major", "--minor", "--power", "--identifier"] where a.has(single) {
                throw .usage("\(single) and \(list[0].name) exclude each other (give the power as --beacon UUID:MAJOR:MINOR:POWER)")
            }
            var entries: [BeaconEntry] = []
            for (flag, text) in list { entries.append(try beaconFlag(flag, text)) }
            if let (first, second) = ConfigFile.firstDuplicate(entries) {
                throw .usage("\(list[second].name) \(list[second].value) (the \(ordinal(second + 1))) repeats the \(ordinal(first + 1)) (\(ConfigFile.identity(entries[second]))): "
                             + "each beacon needs its own \(ConfigFile.identityKeys(entries[second].frame.kind))")
            }
            s.beacons = entries
            s.origin.flag("beacons")
            return
        }
        let uuid = try a.value("--uuid").map { (t: String) throws(CLIError) in try Validate.uuid("--uuid", t) }
        let major = try a.value("--major").map { (t: String) throws(CLIError) in UInt16(try Validate.integer("--major", t, 0...65535)) }
        let minor = try a.value("--minor").map { (t: String) throws(CLIError) in UInt16(try Validate.integer("--minor", t, 0...65535)) }
        let power = try a.value("--power").map { (t: String) throws(CLIError) in Int8(try Validate.integer("--power", t, Setting.measuredPowerRange)) }
        let identifier = try a.value("--identifier").map { (t: String) throws(CLIError) in try Validate.identifier("--identifier", t) }
        let anyBeaconFlag = uuid != nil || major != nil || minor != nil || power != nil || a.has("--identifier")
        if s.beacons.count > 1, anyBeaconFlag {
            throw .usage("--uuid/--major/--minor/--power/--identifier change the one beacon, but the config lists \(s.beacons.count); use --beacon to replace the list")
        }
        if anyBeaconFlag, var b = s.beacons.first {
            if case var .iBeacon(i) = b.frame {
                i.uuid = uuid ?? i.uuid
                i.major = major ?? i.major
                i.minor = minor ?? i.minor
                i.measuredPower = power ?? i.measuredPower
                i.identifier = identifier ?? b.identifier
                b.frame = .iBeacon(i)
            } else if uuid != nil || major != nil || minor != nil || power != nil {
                throw .usage("--uuid/--major/--minor/--power change an iBeacon, but the config's beacon is \(b.frame.kind.rawValue); use --beacon to replace it")
            }
            b.identifier = identifier ?? b.identifier
            s.beacons = [b]
            s.origin.flag("beacons")
        } else if uuid != nil || major != nil || minor != nil {
            guard let uuid else { throw .usage("--uuid is required with --major/--minor (or use --config FILE)") }
            guard let major else { throw .usage("--major is required (0–65535)") }
            guard let minor else { throw .usage("--minor is required (0–65535)") }
            s.beacons = [BeaconEntry(identifier: identifier, uuid: uuid, major: major, minor: minor,
                                     measuredPower: power ?? Settings.defaultMeasuredPower)]
            s.origin.flag("beacons")
        } else if anyBeaconFlag {
            throw .usage("--power/--identifier need a beacon: give --uuid, --major and --minor, or --config FILE")
        }
    }

    /// `--eddystone-tlm`: an Eddystone-TLM beacon for the one Eddystone-UID or -URL beacon (from the
    /// flags or the config), after it.
    static func applyTelemetryFlag(_ a: ParsedArguments, to s: inout Settings) throws(CLIError) {
        guard a.declares("--eddystone-tlm"), a.has("--eddystone-tlm") else { return }
        let eddystone = s.beacons.indices.filter { [.eddystoneUID, .eddystoneURL].contains(s.beacons[$0].frame.kind) }
        guard eddystone.count == 1, let i = eddystone.first else {
            throw .usage("--eddystone-tlm accompanies one Eddystone-UID or -URL beacon, but there are \(eddystone.count)"
                         + (eddystone.isEmpty ? " (add --eddystone-uid or --eddystone-url)" : "; give each its own in a config: type eddystone-tlm with \"of\""))
        }
        let tlm = BeaconFrame.telemetry(Telemetry(of: s.beacons[i].frame))
        guard !s.beacons.contains(where: { $0.frame.identity == tlm.identity }) else {
            throw .usage("--eddystone-tlm: beacons[\(i)] has its Eddystone-TLM in the config already")
        }
        s.beacons.insert(BeaconEntry(frame: tlm), at: i + 1)
        s.origin.flag("beacons")
    }

    /// 1st, 2nd, 3rd, 4th, … 11th, 12th, 13th, 21st.
    static func ordinal(_ n: Int) -> String {
        let suffix = (11...13).contains(n % 100) ? "th" : [1: "st", 2: "nd", 3: "rd"][n % 10] ?? "th"
        return "\(n)\(suffix)"
    }

    /// One beacon of a list flag: `--beacon`, `--altbeacon`, `--eddystone-uid`, `--eddystone-url`, `--data`.
    static func beaconFlag(_ flag: String, _ text: String) throws(CLIError) -> BeaconEntry {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        switch flag {
        case "--altbeacon":
            guard parts.count == 3 || parts.count == 4 else { throw .usage("--altbeacon: \(Quote.user(text)) is not ID1:ID2:ID3 or ID1:ID2:ID3:RSSI") }
            let rssi = parts.count == 4 ? Int8(try Validate.integer("--altbeacon RSSI", parts[3], Setting.measuredPowerRange)) : Settings.defaultMeasuredPower
            return BeaconEntry(frame: .altBeacon(AltBeacon(id1: try Validate.uuid("--altbeacon ID1", parts[0]),
                                                           id2: UInt16(try Validate.integer("--altbeacon ID2", parts[1], 0...65535)),
                                                           id3: UInt16(try Validate.integer("--altbeacon ID3", parts[2], 0...65535)), referenceRSSI: rssi)))
        case "--eddystone-uid":
            guard parts.count == 2 || parts.count == 3 else {
                throw .usage("--eddystone-uid: \(Quote.user(text)) is not NAMESPACE:INSTANCE or NAMESPACE:INSTANCE:RANGING")
            }
            let namespace = try Validate.hex("--eddystone-uid NAMESPACE", parts[0], bytes: Eddystone.UID.namespaceLength...Eddystone.UID.namespaceLength)
            let instance = try Validate.hex("--eddystone-uid INSTANCE", parts[1], bytes: Eddystone.UID.instanceLength...Eddystone.UID.instanceLength)
            let ranging = parts.count == 3 ? Int8(try Validate.integer("--eddystone-uid RANGING", parts[2], ConfigFile.rangingDataRange)) : ConfigFile.defaultRangingData
            guard let uid = Eddystone.UID(namespace: namespace, instance: instance, txPower: ranging) else {
                throw .usage("--eddystone-uid: NAMESPACE and INSTANCE must be 10 and 6 bytes")
            }
            return BeaconEntry(frame: .eddystone(.uid(uid)))
        case "--eddystone-url":
            var url = text, ranging = ConfigFile.defaultRangingData
            // A colon after the scheme's "://" (http:// is 7 characters) ends the URL when a number follows.
            if let colon = text.lastIndex(of: ":"), text.distance(from: text.startIndex, to: colon) > 7,
               let n = Int(text[text.index(after: colon)...]) {
                guard ConfigFile.rangingDataRange.contains(n) else {
                    throw .usage("--eddystone-url RANGING: \(n) is out of range (accepted \(Validate.rangeText(ConfigFile.rangingDataRange)); a port needs a path after it: http://host:8080/)")
                }
                url = String(text[..<colon])
                ranging = Int8(n)
            }
            return BeaconEntry(frame: .eddystone(.url(try Validate.eddystoneURL("--eddystone-url", url, rangingData: ranging))))
        case "--data":
            return BeaconEntry(frame: try Validate.advertisingData("--data", text))
        default:
            return try beaconFlag(text)
        }
    }

    /// `UUID:MAJOR:MINOR[:POWER]`.
    static func beaconFlag(_ text: String) throws(CLIError) -> BeaconEntry {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 || parts.count == 4 else {
            throw .usage("--beacon: '\(text)' is not UUID:MAJOR:MINOR or UUID:MAJOR:MINOR:POWER")
        }
        let uuid = try Validate.uuid("--beacon UUID", parts[0])
        let major = UInt16(try Validate.integer("--beacon MAJOR", parts[1], 0...65535))
        let minor = UInt16(try Validate.integer("--beacon MINOR", parts[2], 0...65535))
        let power = parts.count == 4 ? Int8(try Validate.integer("--beacon POWER", parts[3], Setting.measuredPowerRange)) : Settings.defaultMeasuredPower
        return BeaconEntry(uuid: uuid, major: major, minor: minor, measuredPower: power)
    }

    // MARK: dry run

    static func dryRun(_ s: Settings, _ a: ParsedArguments, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        for liveOnly in ["--detach", "--reset", "--verbose"] where a.has(liveOnly) {
            throw .usage("\(liveOnly) does nothing with --dry-run")
        }
        let format = try Validate.choice("--format", a.value("--format") ?? "text", Format.allCases.map { ($0.rawValue, $0) })
        let device = s.deviceName ?? "hci0"
        if s.share == .always { return try shareDryRun(s, a, format, device: device, ctx) }
        let plan: KioskPlan
        do { plan = try KioskPlan(s.kiosk, family: s.controller ?? .legacy) } catch { throw s.planError(error) }
        if let golden = a.path("--check") {
            for other in ["--format", "--output"] where a.has(other) {
                throw .usage("--check compares in the golden file's own format and prints only differences; drop \(other)")
            }
            return try check(plan, golden: golden, ctx)
        }
        let output = format.render(s, plan, device: device)
        if let path = a.path("--output"), !FileIO.isStdout(path) {
            try FileIO.write(output, to: path, what: "--output")
            ctx.note("wrote \(format.rawValue) plan (\(plan.commandCount) commands) to \(path.display)")
        } else if format.isBinary && ctx.stdoutIsTerminal {
            throw .usage("--format btsnoop writes binary: add --output FILE or redirect stdout")
        } else {
            ctx.stdoutBytes(output)
        }
        return .success
    }

    /// `--share always --dry-run`: the MGMT plan, as text or JSON.
    static func shareDryRun(_ s: Settings, _ a: ParsedArguments, _ format: Format, device: String, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        if a.has("--check") { throw .usage("--check compares HCI plans; the --share always plan is MGMT commands (compare its --format json)") }
        if case let .address(address)? = s.device {
            throw .usage("--device \(address): the --share always plan carries the controller's index; give --device hciN for its dry run")
        }
        if let e = ShareOptions.refusal(s, mode: .always) { throw e }
        let plan = ShareDryRun.plan(s)
        guard let output = format.render(s, plan, device: device) else {
            let mgmt = Format.allCases.filter { $0.render(s, plan, device: device) != nil }.map(\.rawValue)
            throw .usage("--format \(format.rawValue) shows HCI commands; the --share always plan is MGMT commands: --format \(mgmt.joined(separator: " or "))")
        }
        if let path = a.path("--output"), !FileIO.isStdout(path) {
            try FileIO.write(output, to: path, what: "--output")
            ctx.note("wrote \(format.rawValue) plan (\(plan.start.count + plan.stop.count) MGMT commands) to \(path.display)")
        } else {
            ctx.stdoutBytes(output)
        }
        return .success
    }

    /// `--check GOLDEN`: exit 0 with one line when the plan equals the golden file; exit 1 with one
    /// line per difference otherwise.
    static func check(_ plan: KioskPlan, golden path: FilePath, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        let golden = try PlanCheck.parse(try FileIO.read(path, what: "--check"), name: path.display)
        let differences = PlanCheck.differences(golden, plan)
        guard !differences.isEmpty else {
            ctx.stdout("plan matches \(path.display) (\(golden.format), \(plan.commandCount) commands)")
            return .success
        }
        ctx.stdout("plan differs from \(path.display) (\(golden.format)) in \(differences.count) place\(differences.count == 1 ? "" : "s") (golden ≠ plan):")
        for line in differences { ctx.stdout("  " + line) }
        return .differs
    }

    // MARK: live

    static func live(_ initial: Settings, _ a: ParsedArguments, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        switch try prepare(initial, a, ctx) {
        case let .done(code): return code
        case let .loop(loop): return try loop.run()
        }
    }

    /// A live start up to its session loop: the device opened (or waited for), the mode chosen, the
    /// beacons on air. `.done` when nothing is left to run (a signal first, `--detach`).
    enum LiveStart {
        case done(ExitCode)
        case loop(SessionLoop)
    }

    static func prepare(_ initial: Settings, _ a: ParsedArguments, _ ctx: ToolContext) throws(CLIError) -> LiveStart {
        var s = initial
        let detach = a.has("--detach")
        if detach, s.share == .always {
            throw .usage("--share always needs the foreground session (without --detach): it re-adds the kernel instances the kernel forgets and removes them at stop")
        }
        if s.share == .always, let e = ShareOptions.refusal(s, mode: .always) { throw e }
        if detach, !s.schedule.isEmpty {
            throw .usage("--duration/--cycle need the foreground session (without --detach): nothing would switch the beacons off")
        }
        if detach, s.kiosk.hasTelemetry {
            throw .usage("an eddystone-tlm beacon needs the foreground session (without --detach): its PDU count and time since start are written once a second")
        }
        if let (i, path) = ThermalZone.unreadable(s).first {
            throw CLIError(.noInput, "beacons[\(i)].thermalZone: \(path) holds no temperature to read (millidegrees Celsius, as /sys/class/thermal/thermal_zoneN/temp); list the zones with ls /sys/class/thermal, or drop the key (not measured)")
        }
        // From here on the process needs only the HCI device ioctls and the terminal query: interface
        // ioctls, which CAP_NET_ADMIN would allow, fail with EPERM.
        ctx.confineIoctls(verbose: a.has("--verbose"))
        // A device that is not there yet is waited for (and said so to systemd: READY=1 with STATUS=),
        // up to --device-timeout; the device is claimed for this process before its first command.
        var waited: ServiceReporter?
        let open: OpenedDevice?
        do throws(CLIError) {
            open = try OpenedDevice.openWaiting(
                .init(device: s.device, reset: a.has("--reset"), timeoutMilliseconds: s.timeoutMilliseconds, verbose: a.has("--verbose"),
                      watchSignals: !detach, claim: true, configuration: s.kiosk),
                waitSeconds: s.deviceTimeoutSeconds,
                waiting: { text in
                    let reporter = ServiceReporter(ctx, device: s.deviceName ?? "hci0")
                    reporter.waiting(text)
                    waited = reporter
                },
                hangup: {
                    do throws(CLIError) {
                        s = try settings(from: a, ctx)
                        ctx.note("SIGHUP: re-read the configuration while waiting for the device")
                    } catch {
                        ctx.log(.error, "beacon-tx: reload: \(error.message); keeping the previous configuration")
                    }
                }, ctx)
        } catch {
            waited?.failed(error.message)
            throw error
        }
        guard let opened = open else {
            waited?.stopped()
            return .done(.success)
        }
        let service: ServiceReporter
        if let waited, waited.device == opened.name {
            service = waited
            service.address = opened.info.address
        } else {
            waited?.stopped()
            service = ServiceReporter(ctx, device: opened.name, address: opened.info.address)
        }
        if let signal = opened.runner.pendingSignal {
            ctx.note("signal \(signal) before advertising started on \(opened.name); nothing was changed")
            return .done(.success)
        }
        let family: AdvertisingFamily
        do { family = try Advertiser.chooseFamily(s.controller, opened.caps, device: opened.name) } catch { throw CLIError(error) }
        var caps = opened.caps
        if !detach, try MGMTObserver.decide(s, family: family, opened, caps, ctx) {
            let loop = SessionLoop(observer: try MGMTObserver(opened: opened, settings: s, arguments: a, ctx: ctx), settings: s,
                                   arguments: a, ctx: ctx, service: service)
            return .loop(loop)
        }
        notes(s, family: family, opened, ctx)
        if family == .extended, s.beacons.count > 1 {
            // The number of sets decides between one set per beacon and rotation (an extended command:
            // sent only once the extended family is chosen).
            do { try Advertiser.readAdvertisingSetLimits(opened.runner, into: &caps) } catch { throw CLIError(error) }
            for bad in caps.implausible { ctx.warn("\(opened.name): \(bad.text)") }
        }
        // Never AdvA 00:00:00:00:00:00: a controller without a public address advertises from a
        // random static one.
        let own = OwnAddress.choose(opened.info, s.kiosk, ctx.system)
        if let own { ctx.note(own.note(device: opened.name)) }
        // The session chooses the family again from the same settings (auto stays auto, so a
        // re-arm may switch family once on Command Disallowed).
        let kiosk = AdvertisingSession(configuration: s.kiosk, caps: caps, device: opened.name, deviceID: opened.info.id,
                                       ownRandomAddress: own?.address,
                                       runner: opened.runner, now: ctx.monotonicMilliseconds, log: { _ in })
        kiosk.log = { [ctx, unowned kiosk] in ctx.note($0.text(device: kiosk.device, beacons: kiosk.configuration.beacons.count)) }
        kiosk.policy.schedule = s.schedule
        kiosk.readTemperature = ThermalZone.read
        kiosk.kernelInstances = KernelInstanceHandBack.kernelInstances(opened, family: family, timeout: s.timeoutMilliseconds,
                                                                       verbose: a.has("--verbose"), ctx)
        do { try kiosk.start() } catch {
            if case let .plan(p) = error { throw s.planError(p) }
            throw CLIError(error, device: opened.name)
        }
        ctx.note(onAirText(kiosk, s))
        planNotes(kiosk, s, ctx)
        if detach {
            if let m = s.metrics { ctx.warn("metrics \(m.display) is not written with --detach (no session watches detached beacons)") }
            if let k = kiosk.kernelInstances, ShareMode.shares(s.share, singleInstance: true, kernelInstances: k.count) {
                // --share auto would have shared the instance in the foreground; detached, it cannot.
                ctx.note("--share \(s.share.rawValue) does not share with --detach (sharing needs the foreground session: it re-adds the "
                         + "instances the kernel drops and removes ours at stop): the detached beacon holds the instance until the kernel next writes its own")
            }
            let setHint = kiosk.plan.map { $0.family == .extended && s.advertisingSet != nil ? " --advertising-set \(s.advertisingSet ?? 0)" : "" } ?? ""
            ctx.note("detached; the controller keeps advertising until 'beacon-tx stop --device \(opened.name)\(setHint)' (nothing re-arms or reloads detached beacons)")
            return .done(.success)
        }
        let loop = SessionLoop(observer: try RawHCIObserver(opened: opened, kiosk: kiosk, settings: s, arguments: a, ctx: ctx), settings: s,
                               arguments: a, ctx: ctx, service: service)
        return .loop(loop)
    }

    /// The notes of a live start that do not depend on the plan.
    static func notes(_ s: Settings, family: AdvertisingFamily, _ opened: OpenedDevice, _ ctx: ToolContext) {
        if family == .legacy, s.beacons.contains(where: { (($0.txPower ?? s.txPower) != nil) }) {
            ctx.warn("--tx-power is ignored: legacy advertising commands carry no tx power")
        }
        // Before 5.0, a non-connectable legacy interval below 100 ms is refused by the session before
        // anything is sent (Advertiser.intervalFloorViolation, exit 78).
    }

    /// The warnings of the plan that went on air (the dry-run text prints the same lines).
    static func planNotes(_ kiosk: AdvertisingSession, _ s: Settings, _ ctx: ToolContext) {
        guard let plan = kiosk.plan else { return }
        for warning in DryRun.rotationWarnings(plan, s) { ctx.warn(warning) }
    }

    /// `advertising kiosk-lobby E2C5… major 1 minor 2 power -59 dBm on hci0 (extended commands, set 239, …)`.
    static func onAirText(_ kiosk: AdvertisingSession, _ s: Settings) -> String {
        guard let plan = kiosk.plan else { return "nothing on air" }
        let placement: String
        switch plan.layout {
        case let .sets(handles):
            placement = handles.count == 1 ? "set \(handles[0])" : "sets " + handles.map(String.init).joined(separator: ", ")
        case let .rotation(handle):
            placement = s.beacons.count > 1
                ? "rotating every \(s.rotationMilliseconds) ms" + (plan.family == .extended ? " on set \(handle)" : "")
                    + ", each beacon every \(plan.configuration.rotationCycleMilliseconds) ms"
                : (plan.family == .extended ? "set \(handle)" : "legacy")
        }
        let what = s.beacons.count == 1 ? s.beacons[0].summary : "\(s.beacons.count) beacons"
        let o = plan.instanceOptions ?? AdvertisingOptions(interval: s.interval, connectable: s.connectable)
        return "advertising \(what) on \(kiosk.device) (\(plan.family) commands, \(placement), \(o.interval.text), \(o.connectable ? "connectable" : "non-connectable"))"
    }
}

extension KioskPlan {
    /// Start, rotation and stop commands together: what every machine-readable dry run holds.
    var commandCount: Int { start.count + rotationSteps.count + stop.count }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// `beacon-tx doctor`: what stands between this machine and a beacon on air, as one report. It
/// changes nothing (no device is brought up, no command that writes is sent) and runs as any user,
/// saying per finding what it could not see without privileges. Exit 0 when nothing fails, 1 when
/// something does.
enum DoctorCommand: Subcommand {
    static let name = "doctor"
    static let summary = "what stands between this machine and a beacon on air: one report, a verdict and a remedy per finding"
    static let usage = "beacon-tx doctor [--device hciN] [--config FILE] [--json]"
    static let defaultConfig = "/etc/beacon-tx/kiosk.json"
    static let options: [OptionSpec] = [
        .value("--device", "hciN", "only this controller, hciN or its address (default: every controller)"),
        .path("--config", "FILE", "check this config and the plan it makes (default: \(defaultConfig) when it exists)"),
        .flag("--json", "print the report as JSON (schema: Docs/doctor.schema.json; see the man page)"),
    ]
    static let examples = [
        "beacon-tx doctor",
        "sudo beacon-tx doctor --device hci0 --config /etc/beacon-tx/kiosk.json",
        "beacon-tx doctor --json | jq '.findings[] | select(.verdict != \"ok\")'",
    ]

    /// The MGMT timeout: the kernel answers at once or not at all.
    static let timeout = 2000

    static func run(_ a: ParsedArguments, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        let only = try a.value("--device").map { (t: String) throws(CLIError) in try Validate.device("--device", t) }
        let report = DoctorReport(findings: gather(only: only, config: a.path("--config"), ctx))
        if a.has("--json") {
            ctx.stdout(report.json.pretty)
        } else {
            report.text.forEach(ctx.stdout)
        }
        return report.failed ? .differs : .success
    }

    /// What `gather` learnt of one adapter, for the config's plan.
    struct Adapter {
        var info: HCIDeviceInfo
        var caps: ControllerCapabilities?
    }

    static func gather(only: DeviceSelector?, config: FilePath?, _ ctx: ToolContext) -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        let sys = ctx.system
        let uid = sys.effectiveUID()
        let capEff = sys.text("/proc/self/status").flatMap(DoctorRules.effectiveCapabilities)
        let privileges = DoctorRules.privileges(uid: uid, capEff: capEff)
        let bluetoothd = bluetoothdPids(sys)

        // The kernel and its adapters.
        var devices: [HCIDeviceInfo] = []
        var host: HCIHost?
        do {
            let h = try ctx.makeHost()
            devices = try h.devices().sorted { $0.id < $1.id }
            host = h
            findings.append(DoctorFinding(id: "kernel-bluetooth", verdict: .ok, summary: "the kernel has Bluetooth (AF_BLUETOOTH sockets open)"))
        } catch .bluetoothUnsupported {
            findings.append(DoctorFinding(id: "kernel-bluetooth", verdict: .fail, summary: "this kernel has no Bluetooth support: socket(AF_BLUETOOTH) fails with EAFNOSUPPORT",
                                          remedy: "load the module (modprobe bluetooth), or use a kernel built with CONFIG_BT"))
        } catch {
            findings.append(DoctorFinding(id: "kernel-bluetooth", verdict: .fail, summary: "the controllers could not be listed: \(error)",
                                          remedy: CLIError(error).message))
        }
        let wanted = only.map { selector in devices.filter(selector.matches) } ?? devices
        if host != nil {
            if devices.isEmpty {
                findings.append(DoctorFinding(id: "adapters", verdict: .fail, summary: "no Bluetooth controller is registered",
                                              detail: "the kernel's device list (HCIGETDEVLIST) is empty",
                                              remedy: "plug the adapter in or attach it (hciattach/btattach for UART controllers); dmesg shows why the driver did not register it"))
            } else if let only, wanted.isEmpty {
                findings.append(DoctorFinding(id: "adapters", verdict: .fail, summary: "no such device \(only)",
                                              detail: "controllers: " + devices.map(\.name).joined(separator: ", "), remedy: "use --device with one of them"))
            } else {
                findings.append(DoctorFinding(id: "adapters", verdict: .ok, summary: "\(devices.count) controller\(devices.count == 1 ? "" : "s"): " + devices.map(\.name).joined(separator: ", ")))
            }
        }
        findings += DoctorRules.firmware(log: sys.kernelLog(), devices: only == nil ? nil : wanted.map(\.name))
        var adapters: [Adapter] = []
        var perDevice: [DoctorFinding] = []
        // The config start would advertise, read once: the config finding checks it, and its first
        // beacon names the static address a remedy suggests.
        let loaded = loadConfig(config, ctx)
        let kiosk = try? loaded?.settings.get().kiosk
        for info in wanted {
            guard let host else { break }
            let (finding, caps) = adapterFinding(info, host, kiosk: kiosk, ctx)
            adapters.append(Adapter(info: info, caps: caps))
            perDevice.append(finding)
            perDevice.append(DoctorRules.rfkill(info.name, info.rfkill))
            perDevice.append(powerFinding(info, host, bluetoothd: !bluetoothd.isEmpty, kiosk: kiosk, ctx))
            let features = KernelAdvertising.read(host, index: info.id, timeout: timeout, verbose: false, ctx)
            perDevice.append(instancesFinding(info, caps, features, bluetoothd: !bluetoothd.isEmpty, ctx))
            perDevice.append(shareFinding(info, caps, features))
            perDevice += ownerFindings(info.name, ctx)
        }
        // Per device, then the machine-wide findings in the order a reader follows them.
        findings += perDevice.filter { $0.id == "adapter" }
        for kind in ["rfkill", "power"] { findings += perDevice.filter { $0.id == kind } }
        findings.append(privileges)
        findings.append(unitCapabilities(sys))
        findings.append(DoctorRules.bluetoothd(pids: bluetoothd))
        for kind in ["kernel-instances", "share-auto", "owner", "session"] { findings += perDevice.filter { $0.id == kind } }
        findings.append(configFinding(loaded, adapters, only: only))
        let pid1 = sys.text("/proc/1/comm")?.trimmingCharacters()
        findings.append(DoctorRules.units(pid1: pid1, show: pid1 == "systemd" ? systemctlShow(sys) : nil))
        return findings
    }

    // MARK: per adapter

    static func adapterFinding(_ info: HCIDeviceInfo, _ host: HCIHost, kiosk: KioskConfiguration? = nil, _ ctx: ToolContext) -> (DoctorFinding, ControllerCapabilities?) {
        let place = "\(info.bus), \(info.address)"
        guard info.isUp else {
            return (DoctorFinding(id: "adapter", device: info.name, verdict: .warn, summary: "\(place): down, its capabilities were not read",
                                  detail: "HCI version, LE and advertising support are read from an up controller; doctor does not bring it up (see power)",
                                  remedy: info.isBlocked ? "unblock it first (see rfkill)" : "bring it up (hciconfig \(info.name) up, or bluetoothctl power on) and run doctor again"), nil)
        }
        let caps: ControllerCapabilities
        do { caps = try DevicesCommand.capabilities(info, host, timeout: timeout, verbose: false, ctx) } catch {
            if error.code == .noPermission {
                return (DoctorFinding(id: "adapter", device: info.name, verdict: .warn, summary: "\(place): up; HCI version, LE and advertising support not seen",
                                      detail: "reading them from the controller needs CAP_NET_RAW (a raw HCI socket)", remedy: "run as root to see them"), nil)
            }
            return (DoctorFinding(id: "adapter", device: info.name, verdict: .fail, summary: "\(place): the controller did not answer the probe: \(error.message)",
                                  remedy: "hciconfig \(info.name) reset, or replug the adapter; btmon shows the conversation"), nil)
        }
        var text = "\(place), HCI \(caps.version.coreVersion), LE \(caps.supportsLE ? "yes" : "no")"
        text += ", legacy adv \(caps.supportsLegacyAdvertising ? "yes" : "no"), extended adv "
            + (caps.supportsExtendedAdvertising
                ? "yes (\(caps.shown(\.numberOfSupportedAdvertisingSets)) sets, max data \(caps.shown(\.maximumAdvertisingDataLength)) bytes)"
                : "no")
        guard caps.preferredAdvertisingFamily != nil else {
            return (DoctorFinding(id: "adapter", device: info.name, verdict: .fail, summary: text + ": no LE advertising",
                                  remedy: "use a Bluetooth 4.0 (LE) controller or later"), caps)
        }
        var notes = caps.implausible.map(\.text)
        if StaticRandomAddress.isMissingPublicAddress(info.address) {
            let kernel = OwnAddress.kernelStaticAddress(info.name, ctx.system)
            let derived = kiosk.flatMap(StaticRandomAddress.derived(for:)).map { " (\(StaticRandomAddress.text($0)) for this config)" } ?? ""
            notes.append("no public address: start advertises from a random static address, "
                         + (kernel.map { "the kernel's \(StaticRandomAddress.text($0))" }
                            ?? "one derived from the config's first beacon\(derived) (the kernel's static address, if any, is readable by root only)"))
        }
        guard notes.isEmpty else {
            return (DoctorFinding(id: "adapter", device: info.name, verdict: .warn, summary: text, detail: notes.joined(separator: "; "),
                                  remedy: caps.implausible.isEmpty ? "" : "none: beacon-tx trusts none of these values (a controller firmware update may correct them)"), caps)
        }
        return (DoctorFinding(id: "adapter", device: info.name, verdict: .ok, summary: text), caps)
    }

    static func powerFinding(_ info: HCIDeviceInfo, _ host: HCIHost, bluetoothd: Bool, kiosk: KioskConfiguration? = nil, _ ctx: ToolContext) -> DoctorFinding {
        let mgmt = KernelAdvertising.query(host, timeout: timeout, ctx) { runner throws(MGMTError) in
            try runner.readControllerInformation(index: info.id)
        }
        var seen = "up/down from the kernel's device list"
        var powered: Bool?
        switch mgmt {
        case let .success(i):
            powered = i.currentSettings.contains(.powered)
            seen = "MGMT Read Controller Information: current settings \(i.currentSettings.contains(.powered) ? "include" : "lack") Powered"
        case let .failure(e):
            seen += "; MGMT Read Controller Information failed (\(e))" + (isPermission(e) ? ": run as root to see the MGMT settings" : "")
        }
        if info.isUp, powered != false {
            return DoctorFinding(id: "power", device: info.name, verdict: .ok, summary: "up" + (powered == true ? " and powered" : ""), detail: seen)
        }
        if info.isBlocked {
            return DoctorFinding(id: "power", device: info.name, verdict: .warn, summary: "down: rfkill keeps it down", detail: seen, remedy: "see rfkill")
        }
        if StaticRandomAddress.isMissingPublicAddress(info.address), OwnAddress.kernelStaticAddress(info.name, ctx.system) == nil {
            // The kernel refuses to bring up an LE-only controller with neither a public nor a static
            // address (HCIDEVUP and MGMT Set Powered: EADDRNOTAVAIL); start cannot either.
            return DoctorFinding(id: "power", device: info.name, verdict: .fail,
                                 summary: "down, with no public address (00:00:00:00:00:00) and no static address: the kernel cannot bring it up, and start exits 69",
                                 detail: seen + "; the kernel's static address is read from " + OwnAddress.kernelStaticAddressPath(info.name) + " (root)",
                                 remedy: OwnAddress.staticAddressRemedy(device: info.name, id: info.id, kiosk))
        }
        if bluetoothd {
            return DoctorFinding(id: "power", device: info.name, verdict: .warn,
                                 summary: "down and not powered while bluetoothd runs: an administrator powered it off (bluetoothctl power off), or bluetoothd does not power it (AutoEnable=false)",
                                 detail: seen + "; start brings it up itself (HCIDEVUP), and bluetoothd may power it off again",
                                 remedy: "bluetoothctl power on (or btmgmt --index \(info.id) power on)")
        }
        return DoctorFinding(id: "power", device: info.name, verdict: .warn, summary: "down (nobody powered it; no bluetoothd runs): start brings it up itself (HCIDEVUP)",
                             detail: seen, remedy: "nothing needed for start; hciconfig \(info.name) up brings it up now")
    }

    static func isPermission(_ e: MGMTError) -> Bool {
        switch e {
        case let .commandFailed(_, _, status): return status == .permissionDenied
        case .transport(.permissionDenied): return true
        default: return false
        }
    }

    static func instancesFinding(_ info: HCIDeviceInfo, _ caps: ControllerCapabilities?, _ features: Result<MGMTAdvertisingFeatures, MGMTError>,
                                 bluetoothd: Bool, _ ctx: ToolContext) -> DoctorFinding {
        let f: MGMTAdvertisingFeatures
        switch features {
        case let .success(v): f = v
        case let .failure(e):
            return DoctorFinding(id: "kernel-instances", device: info.name, verdict: .warn, summary: "the kernel's advertising instances were not seen",
                                 detail: "MGMT Read Advertising Features failed: \(e)" + (isPermission(e) ? " (MGMT needs CAP_NET_ADMIN for it)" : ""),
                                 remedy: isPermission(e) ? "run as root to see the instances" : "")
        }
        guard !f.instances.isEmpty else {
            return DoctorFinding(id: "kernel-instances", device: info.name, verdict: .ok, summary: "no kernel advertising instances (up to \(f.maxInstances))")
        }
        let list = f.instances.sorted().map(String.init).joined(separator: ", ")
        var owners: [String] = []
        if let session = runningSession(info.name, ctx), !Set(session.sets).isDisjoint(with: Set(f.instances)) {
            owners.append("beacon-tx pid \(session.pid) (--share)")
        }
        if bluetoothd { owners.append("bluetoothd's clients (bluetoothctl advertise, apps over D-Bus)") }
        owners.append("btmgmt add-adv")
        let single = caps.map { $0.preferredAdvertisingFamily == .legacy || $0.numberOfSupportedAdvertisingSets == 1 }
        let summary = "kernel instances \(list) in use (of \(f.maxInstances)); owners: \(owners.joined(separator: " or ")) (MGMT does not say which program added one)"
        if single == true {
            return DoctorFinding(id: "kernel-instances", device: info.name, verdict: .warn, summary: summary,
                                 detail: "this controller has one advertising instance: a raw-HCI start takes it over and the kernel's advertising stops meanwhile (and can replace ours when it re-arms)",
                                 remedy: "--share auto (the default) shares the instance: see share-auto; or remove them (btmgmt rm-adv, bluetoothctl advertise off)")
        }
        return DoctorFinding(id: "kernel-instances", device: info.name, verdict: .ok, summary: summary,
                             detail: single == nil ? "whether the controller has one instance is not known (see adapter)" : "the controller has several advertising sets: ours and the kernel's coexist")
    }

    static func shareFinding(_ info: HCIDeviceInfo, _ caps: ControllerCapabilities?, _ features: Result<MGMTAdvertisingFeatures, MGMTError>) -> DoctorFinding {
        guard let caps, let family = try? Advertiser.chooseFamily(nil, caps, device: info.name) else {
            return DoctorFinding(id: "share-auto", device: info.name, verdict: .warn, summary: "not known: the controller's capabilities were not read (see adapter)")
        }
        guard case let .success(f) = features else {
            return DoctorFinding(id: "share-auto", device: info.name, verdict: .warn, summary: "not known: the kernel's instances were not seen (see kernel-instances)")
        }
        let single = MGMTObserver.singleInstance(family: family, caps)
        if ShareMode.shares(.auto, singleInstance: single, kernelInstances: f.instances.count) {
            return DoctorFinding(id: "share-auto", device: info.name, verdict: .ok,
                                 summary: "--share auto would share: the one advertising instance carries kernel instances, so our beacons become kernel instances that take turns with them (MGMT)",
                                 detail: "foreground start only; with --detach (or --share never) start takes the instance over instead")
        }
        return DoctorFinding(id: "share-auto", device: info.name, verdict: .ok,
                             summary: "--share auto would not share: " + (single ? "no kernel instances to share with" : "\(family) advertising with several sets")
                                + "; start advertises over raw HCI (\(family) commands)")
    }

    /// The running session on `device`: the state file whose pid holds the device's lock (the same
    /// rule as `status`, `StateStore.sessions`).
    static func runningSession(_ device: String, _ ctx: ToolContext) -> SessionState? {
        guard let session = ctx.service.stateStore.sessions(only: device, lockHolder: ctx.service.lockHolder).first, session.running,
              case let .success(s) = session.entry.state else { return nil }
        return s
    }

    /// `owner` (the device lock) and `session` (the state file).
    static func ownerFindings(_ device: String, _ ctx: ToolContext) -> [DoctorFinding] {
        var out: [DoctorFinding] = []
        switch ctx.service.lockHolder(device) {
        case .free:
            out.append(DoctorFinding(id: "owner", device: device, verdict: .ok, summary: "no beacon-tx session owns \(device)"))
        case let .process(pid):
            let unit = ctx.system.text("/proc/\(pid)/cgroup").flatMap(DoctorRules.unitName)
            let who = "pid \(pid)" + (unit.map { ", \($0)" } ?? "")
            out.append(DoctorFinding(id: "owner", device: device, verdict: .warn, summary: "another beacon-tx owns \(device) (\(who)): a second start on it exits 75",
                                     detail: "the device lock \(DeviceLock.path(device: device)) is held by pid \(pid) (the kernel's record lock, F_GETLK)",
                                     remedy: unit.map { $0.hasSuffix(".service") ? "systemctl stop \($0)" : "beacon-tx stop --device \(device)" } ?? "beacon-tx stop --device \(device)"))
        case let .unknown(why):
            out.append(DoctorFinding(id: "owner", device: device, verdict: .warn, summary: "the device lock could not be read: \(why)",
                                     remedy: "run doctor as root to see who owns \(device)"))
        }
        guard let session = ctx.service.stateStore.sessions(only: device, lockHolder: ctx.service.lockHolder).first else {
            out.append(DoctorFinding(id: "session", device: device, verdict: .ok, summary: "no session state (nothing started by beacon-tx runs on \(device))",
                                     detail: ctx.service.stateDirectories.isEmpty ? "" : "state files looked for in " + ctx.service.stateDirectories.joined(separator: ", ")))
            return out
        }
        let entry = session.entry
        switch (entry.state, session.standing) {
        case let (.failure(e), _):
            out.append(DoctorFinding(id: "session", device: device, verdict: .warn, summary: "unreadable state file \(entry.path): \(e.message)",
                                     remedy: "remove it if no beacon-tx runs on \(device)"))
        case let (.success(s), .stale) where !ctx.service.isProcessAlive(s.pid):
            out.append(DoctorFinding(id: "session", device: device, verdict: .warn,
                                     summary: "stale state: pid \(s.pid) is gone (\(entry.path) says \(s.onAir ? "on air" : "off air"): \(s.status))",
                                     detail: "a killed session (SIGKILL) or a detached one leaves its beacons on the controller until the next start or stop",
                                     remedy: "beacon-tx stop --device \(device) (as root) clears them"))
        case let (.success(s), .stale):
            out.append(DoctorFinding(id: "session", device: device, verdict: .warn,
                                     summary: "state file not believed: pid \(s.pid) does not hold \(device)'s device lock (\(entry.path) says \(s.onAir ? "on air" : "off air"): \(s.status))",
                                     detail: "only the process that holds the lock runs \(device); a session waiting for an unplugged adapter to return holds none, and any other file is left over or forged",
                                     remedy: "remove \(entry.path) if no beacon-tx runs on \(device)"))
        case let (.success(s), .unverified(why)):
            out.append(DoctorFinding(id: "session", device: device, verdict: .warn,
                                     summary: "not verified: \(entry.path) names pid \(s.pid), but \(device)'s device lock could not be read (\(why))",
                                     remedy: "run doctor as root to see whether a session runs on \(device)"))
        case let (.success(s), .running):
            out.append(DoctorFinding(id: "session", device: device, verdict: s.onAir ? .ok : .warn,
                                     summary: "pid \(s.pid): \(s.onAir ? "on air" : "nothing on air") since \(UTCTime.text(s.since)): \(s.status)",
                                     detail: s.lastRearm.map { "last re-arm \(UTCTime.text($0.at)): \($0.reason)" } ?? "",
                                     remedy: s.onAir ? "" : "see the findings above for \(device); beacon-tx status --device \(device) follows it"))
        }
        return out
    }

    // MARK: machine

    static func bluetoothdPids(_ sys: SystemProbe) -> [Int32] {
        sys.listDirectory("/proc").compactMap { name -> Int32? in
            guard let pid = Int32(name), sys.text("/proc/\(name)/comm")?.trimmingCharacters() == "bluetoothd" else { return nil }
            return pid
        }.sorted()
    }

    static func unitCapabilities(_ sys: SystemProbe) -> DoctorFinding {
        for dir in DoctorRules.unitDirectories {
            let path = dir + "/beacon-tx.service"
            if let unit = sys.text(path) { return DoctorRules.unitCapabilities(path: path, unit: unit) }
        }
        return DoctorRules.unitCapabilities(path: nil, unit: nil)
    }

    /// `systemctl show` of the packaged units; called only where systemd is PID 1.
    static func systemctlShow(_ sys: SystemProbe) -> (status: Int32, output: String)? {
        for systemctl in ["/usr/bin/systemctl", "/bin/systemctl"] {
            if let r = sys.run([systemctl, "show", "beacon-tx.service", "beacon-tx@*.service", "--no-pager",
                                "-p", "Id,LoadState,UnitFileState,ActiveState,Result,ExecMainStatus"]) { return r }
        }
        return nil
    }

    /// The config doctor checks (`--config`, else the packaged kiosk's when it exists), as read.
    struct LoadedConfig {
        var path: FilePath
        var settings: Result<Settings, CLIError>
    }

    static func loadConfig(_ given: FilePath?, _ ctx: ToolContext) -> LoadedConfig? {
        guard let path = given ?? (ctx.system.readFile(defaultConfig) != nil ? FilePath(defaultConfig) : nil) else { return nil }
        var s = Settings()
        do { _ = try ConfigFile.load(path, into: &s) } catch { return LoadedConfig(path: path, settings: .failure(error)) }
        return LoadedConfig(path: path, settings: .success(s))
    }

    static func configFinding(_ loaded: LoadedConfig?, _ adapters: [Adapter], only: DeviceSelector?) -> DoctorFinding {
        guard let loaded else {
            return DoctorFinding(id: "config", verdict: .ok, summary: "no config checked (none given with --config; \(defaultConfig) is absent)")
        }
        let path = loaded.path
        let s: Settings
        switch loaded.settings {
        case let .success(settings): s = settings
        case let .failure(error):
            return DoctorFinding(id: "config", verdict: .fail, summary: "\(path.display) is not valid: \(error.message)",
                                 detail: "start and the service exit \(error.code.rawValue) on it",
                                 remedy: "fix the field it names (beacon-tx dump-config --config \(path.display) shows the effective settings once valid)")
        }
        guard !s.beacons.isEmpty else {
            return DoctorFinding(id: "config", verdict: .fail, summary: "\(path.display) has no beacon", remedy: "add a uuid, major and minor, or a beacons list")
        }
        // The adapter the config's start would use: its device, --device, or the first with capabilities.
        let device = s.device ?? only
        let adapter = adapters.first { device?.matches($0.info) ?? true }
        let caps = adapter?.caps
        let family = s.controller ?? caps?.preferredAdvertisingFamily ?? .legacy
        let plan: KioskPlan
        do { plan = try KioskPlan(s.kiosk, family: family) } catch {
            return DoctorFinding(id: "config", verdict: .fail, summary: "\(path.display) makes no plan: \(error)", remedy: "beacon-tx start --config \(path.display) --dry-run names the setting")
        }
        var warnings = DryRun.rotationWarnings(plan, s)
        if let caps, let name = adapter?.info.name,
           let floor = Advertiser.intervalFloorViolation(plan.family, AdvertisingOptions(interval: s.interval, connectable: s.connectable), caps, device: name) {
            warnings.append(CLIError(floor).message)
        }
        let layout: String
        switch plan.layout {
        case let .sets(handles): layout = handles.count == 1 ? "one \(plan.family == .extended ? "set (\(handles[0]))" : "instance")" : "sets " + handles.map(String.init).joined(separator: ", ")
        case .rotation: layout = s.beacons.count > 1 ? "one instance rotated every \(s.rotationMilliseconds) ms, each beacon every \(plan.configuration.rotationCycleMilliseconds) ms" : "one instance"
        }
        // The types, when not all are iBeacons: `(2 ibeacon, 1 eddystone-url)`.
        let kinds = BeaconFrame.Kind.allCases.compactMap { k -> String? in
            let n = s.beacons.filter { $0.frame.kind == k }.count
            return n == 0 ? nil : "\(n) \(k.rawValue)"
        }
        let types = s.beacons.allSatisfy { $0.frame.kind == .iBeacon } ? "" : " (" + kinds.joined(separator: ", ") + ")"
        let summary = "\(path.display) is valid: \(s.beacons.count) beacon\(s.beacons.count == 1 ? "" : "s")\(types), \(plan.family) commands"
            + (caps == nil ? " (assumed: the adapter's capabilities were not read)" : "") + ", \(layout), \(s.interval.text)"
        return DoctorFinding(id: "config", verdict: warnings.isEmpty ? .ok : .warn, summary: summary,
                             detail: warnings.joined(separator: "; "),
                             remedy: warnings.isEmpty ? "" : "beacon-tx start --config \(path.display) --dry-run prints the plan and these warnings")
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// One beacon as configured: what it advertises (its type's frame), CoreLocation's identifier, and
/// per-beacon overrides of the top-level interval, connectability and tx power (nil = the top-level value).
struct BeaconEntry: Equatable, Sendable {
    var identifier: String?
    var frame: BeaconFrame
    var interval: AdvertisingInterval?
    var connectable: Bool?
    var txPower: Int8?

    init(identifier: String? = nil, frame: BeaconFrame, interval: AdvertisingInterval? = nil, connectable: Bool? = nil, txPower: Int8? = nil) {
        self.identifier = identifier
        self.frame = frame
        self.interval = interval
        self.connectable = connectable
        self.txPower = txPower
    }

    /// An iBeacon.
    init(identifier: String? = nil, uuid: ProximityUUID, major: UInt16, minor: UInt16, measuredPower: Int8 = Settings.defaultMeasuredPower,
         interval: AdvertisingInterval? = nil, connectable: Bool? = nil, txPower: Int8? = nil) {
        self.init(identifier: identifier, frame: .iBeacon(IBeacon(uuid: uuid, major: major, minor: minor, measuredPower: measuredPower, identifier: identifier)),
                  interval: interval, connectable: connectable, txPower: txPower)
    }

    /// The iBeacon, nil for another type.
    var iBeacon: IBeacon? { frame.iBeacon }

    /// `E2C56DB5-… major 1 minor 2 power -59 dBm` (or another type's identity and power), with the
    /// identifier first when there is one.
    var summary: String { (identifier.map { $0 + " " } ?? "") + frame.summary }

    var json: JSON {
        var pairs: [(String, JSON)] = []
        if let identifier { pairs.append(("identifier", .string(identifier))) }
        pairs += frame.configJSONFields
        for o in ConfigFile.beaconOverrides { if let value = o.json(self) { pairs.append((o.setting.key, value)) } }
        return .object(pairs)
    }
}

extension BeaconFrame {
    /// The beacon's own keys as a config file writes them: an iBeacon's `uuid`, `major`, `minor`
    /// and `measuredPower` (no `type`: the default); another type's `type` first, then its keys.
    var configJSONFields: [(String, JSON)] {
        switch self {
        case let .iBeacon(b): return b.jsonFields
        case let .altBeacon(b): return [("type", .string(kind.rawValue))] + b.jsonFields
        case let .eddystone(.uid(f)):
            return [("type", .string(kind.rawValue)), ("namespace", .string(Hex.encode(f.namespace))), ("instance", .string(Hex.encode(f.instance))),
                    ("rangingData", .number(Double(f.txPower)))]
        case let .eddystone(.url(f)): return [("type", .string(kind.rawValue)), ("url", .string(f.url)), ("rangingData", .number(Double(f.txPower)))]
        case let .eddystone(.tlm(f)): return [("type", .string(kind.rawValue))] + Eddystone.Frame.tlm(f).jsonFields
        case let .telemetry(t):
            // `of` as text here; a list of beacons (`Settings.beaconsJSON`) names the beacon instead.
            return [("type", .string(kind.rawValue)), ("of", .string(t.of.identityText))]
                + (t.temperatureSource.map { [("thermalZone", .string($0))] } ?? [])
        case let .data(d): return [("type", .string(kind.rawValue)), ("data", .string(Hex.encode(d)))]
        }
    }
}

/// The effective settings of `start`: defaults, then the config file, then flags.
struct Settings: Equatable, Sendable {
    static let defaultMeasuredPower: Int8 = -59
    static let defaultTimeoutMilliseconds = 2000

    var device: DeviceSelector?
    var interval = AdvertisingInterval.standard
    var connectable = false
    var txPower: Int8?
    /// nil = auto (probe).
    var controller: AdvertisingFamily?
    /// `--share`: kernel advertising instances (MGMT) instead of raw HCI.
    var share = ShareMode.auto
    /// `--share-commands add-advertising`: MGMT Add Advertising only; nil = auto (the extended pair,
    /// Add Advertising where the kernel refuses it). Only with `share` always.
    var shareCommands: SharePlan.Method?
    var timeoutMilliseconds = defaultTimeoutMilliseconds
    /// The first extended advertising set (handle) beacon-tx owns; nil = picked by beacon-tx (0xEF
    /// downwards, clear of the kernel's handle 0 and mgmt instances 1…).
    var advertisingSet: UInt8?
    /// Extended sets: each set advertises from its own random static address.
    var randomAddressPerSet = false
    /// Dwell per beacon when several beacons share one advertising instance.
    var rotationMilliseconds = KioskConfiguration.defaultRotationMilliseconds
    /// How long a foreground kiosk waits for an unregistered (unplugged) controller to return.
    var deviceTimeoutSeconds = Settings.defaultDeviceTimeoutSeconds
    static let defaultDeviceTimeoutSeconds = 60
    /// `--duration` in seconds; nil = until stopped.
    var durationSeconds: Int?
    /// `--cycle ON:OFF[:COUNT]`, parsed once; nil = always on.
    var cycle: CycleSetting?
    /// `--metrics FILE`: the Prometheus textfile a foreground session keeps up to date; nil = none.
    var metrics: FilePath?
    var beacons: [BeaconEntry] = []
    /// Which values came from the config file and which from flags (for checks across settings).
    var origin = SettingOrigin()

    /// Duration and cycle in the session's terms.
    var schedule: AdvertisingSchedule {
        AdvertisingSchedule(durationMilliseconds: durationSeconds.map { Int64($0) * 1000 }, cycle: cycle?.cycle)
    }

    /// `hci0`, or the address the config or `--device` names the controller by.
    var deviceName: String? { device?.description }

    /// Beacon `entry` with the top-level values where it has no override.
    func advertisement(_ entry: BeaconEntry) -> BeaconAdvertisement {
        BeaconAdvertisement(frame: entry.frame, options: AdvertisingOptions(
            interval: entry.interval ?? interval, connectable: entry.connectable ?? connectable, txPower: entry.txPower ?? txPower))
    }

    var kiosk: KioskConfiguration {
        var k = KioskConfiguration(beacons: beacons.map(advertisement), family: controller, firstHandle: advertisingSet,
                                   rotationMilliseconds: rotationMilliseconds,
                                   commonOptions: AdvertisingOptions(interval: interval, connectable: connectable, txPower: txPower))
        k.addressPerSet = randomAddressPerSet
        return k
    }

    var json: JSON {
        .object(Setting.topLevel.map { ($0.key, $0.read(self)) } + [("beacons", Self.beaconsJSON(beacons))])
    }

    /// The beacons as a config file lists them: an Eddystone-TLM's `of` names its beacon by its
    /// identifier, or by its place in the list when it has none.
    static func beaconsJSON(_ beacons: [BeaconEntry]) -> JSON {
        .array(beacons.map { entry in
            guard case let .object(pairs) = entry.json else { return entry.json }
            return .object(naming(pairs, entry, in: beacons))
        })
    }

    /// `pairs` of `entry` with an Eddystone-TLM's `of` as the config names its beacon: the
    /// identifier, or the 0-based place in `beacons` when it has none.
    static func naming(_ pairs: [(String, JSON)], _ entry: BeaconEntry, in beacons: [BeaconEntry]) -> [(String, JSON)] {
        guard case let .telemetry(t) = entry.frame, let j = beacons.firstIndex(where: { $0.frame == t.of }) else { return pairs }
        let of: JSON = beacons[j].identifier.map(JSON.string) ?? .number(Double(j))
        return pairs.map { $0.0 == "of" ? ("of", of) : $0 }
    }

    /// Applies the flags of `settings` that `a` carries (flags over file).
    mutating func apply(_ settings: [Setting], from a: ParsedArguments) throws(CLIError) {
        for s in settings where a.declares(s.flag) {
            if a.has(s.flag) || (s.negativeFlag.map { a.declares($0) && a.has($0) } ?? false) { origin.flag(s.key) }
            if case .path = s.kind {
                // File names stay bytes (never required to be UTF-8).
                if let p = a.path(s.flag) { try s.apply(&self, p.bytes == Array("default".utf8) ? .byDefault : .path(p)) }
                continue
            }
            if let text = a.value(s) { try s.apply(&self, try s.value(flag: text)) }
            if let negative = s.negativeFlag, a.declares(negative), a.has(negative) {
                if a.has(s.flag) { throw .usage("\(s.flag) and \(negative) exclude each other") }
                try s.apply(&self, .bool(false))
            }
        }
    }
}

/// Where the effective settings came from: the config keys the file set (and no flag replaced), and
/// the keys flags set. A check across several settings reports bad data in the file (exit 65, naming
/// the file and the key) when no flag took part, and a usage error (64) otherwise.
struct SettingOrigin: Equatable, Sendable {
    /// `config FILE`, as messages name it; nil = no config file.
    var file: String?
    private(set) var fileKeys: Set<String> = []
    private(set) var flagKeys: Set<String> = []

    mutating func file(_ key: String) { fileKeys.insert(key) }
    /// The key was set, by the file or a flag.
    func has(_ key: String) -> Bool { fileKeys.contains(key) || flagKeys.contains(key) }
    mutating func flag(_ key: String) {
        fileKeys.remove(key)
        flagKeys.insert(key)
    }

    /// The error of a check across `keys` (the one to change first leading): the file's message for
    /// its first key when the file set one of them and no flag did, else `flagMessage`.
    func error(_ keys: [String], file fileMessage: (String) -> String, flags flagMessage: String) -> CLIError {
        guard let file, !keys.contains(where: flagKeys.contains), let key = keys.first(where: fileKeys.contains) else {
            return .usage(flagMessage)
        }
        return .data("\(file): \(key): \(fileMessage(key))")
    }
}

extension Settings {
    /// A plan the settings cannot make (a rotation shorter than the interval, too many beacons for
    /// the handles): bad data in the config file, or a usage error when flags asked for it.
    func planError(_ e: KioskPlan.PlanError) -> CLIError {
        switch e {
        case .noBeacons:
            return origin.error(["beacons"], file: { _ in "no beacon to advertise" }, flags: e.description)
        case let .rotationShorterThanInterval(rotation, interval):
            let ms = JSON.format(interval)
            let why = "a beacon would be replaced before it is sent"
            return origin.error([Setting.rotation.key, Setting.interval.key, "beacons"], file: { key in
                switch key {
                case Setting.rotation.key:
                    return "\(rotation) ms is shorter than the advertising interval \(ms) ms: \(why) "
                        + "(accepted \(ms)–\(KioskConfiguration.rotationRange.upperBound) ms with this interval)"
                case Setting.interval.key:
                    return "\(ms) ms is longer than the rotation \(rotation) ms: \(why) (accepted 20–\(rotation) ms with this rotation)"
                default:
                    return "the rotated beacons' interval \(ms) ms is longer than the rotation \(rotation) ms: \(why) (give rotation \(ms) or more)"
                }
            }, flags: e.description)
        case .handlesExhausted:
            return origin.error([Setting.advertisingSet.key, "beacons"], file: { _ in e.description }, flags: e.description)
        }
    }
}

/// `--cycle ON:OFF[:COUNT]` (config key `cycle`), in seconds, checked once; `text` is how
/// dump-config writes it back.
struct CycleSetting: Equatable, Sendable {
    var onSeconds: Int
    var offSeconds: Int
    /// On/off pairs; nil = forever.
    var count: Int?

    var text: String { "\(onSeconds):\(offSeconds)" + (count.map { ":\($0)" } ?? "") }

    var cycle: AdvertisingSchedule.Cycle {
        AdvertisingSchedule.Cycle(onMilliseconds: Int64(onSeconds) * 1000, offMilliseconds: Int64(offSeconds) * 1000, count: count)
    }
}

/// A setting's value, read from a flag or a config key and already checked against its range.
enum SettingValue: Equatable, Sendable {
    case integer(Int)
    case number(Double)
    case bool(Bool)
    case text(String)
    case path(FilePath)
    case cycle(CycleSetting)
    /// JSON `null` or the flag value `default`: back to the built-in default.
    case byDefault
}

/// One setting, declared once: its config key, its flag, its value type and range, its help text,
/// how it applies and how `dump-config` reads it back. The flag parser, the config reader, `--help`
/// and `dump-config` all read this table.
struct Setting: Sendable {
    enum Kind: Sendable {
        case integer(ClosedRange<Int>, unit: String)
        /// Milliseconds or dBm with a fraction allowed.
        case number(ClosedRange<Double>, unit: String)
        case bool
        case choice([String])
        case device
        /// `ON:OFF[:COUNT]` seconds.
        case cycle
        /// A file name (bytes on the command line, a string in a config file).
        case path
    }

    let key: String
    let flag: String
    /// `--non-connectable` for `--connectable`.
    var negativeFlag: String?
    let placeholder: String
    let help: String
    let kind: Kind
    /// What JSON `null` (the flag value `default`) means for this key, for beacon-tx.json(5).
    var nullMeans = "the default"
    let apply: @Sendable (inout Settings, SettingValue) throws(CLIError) -> Void
    let read: @Sendable (Settings) -> JSON

    /// `100–60000 ms`.
    var rangeText: String {
        switch kind {
        case let .integer(r, unit): return Validate.rangeText(r) + (unit.isEmpty ? "" : " " + unit)
        case let .number(r, unit): return Validate.rangeText(r, unit)
        case .bool: return "true or false"
        case let .choice(c): return c.joined(separator: ", ")
        case .device: return Validate.deviceRange
        case .cycle: return "ON:OFF[:COUNT], seconds 1–86400, COUNT 1–100000"
        case .path: return "a file name"
        }
    }

    func value(flag text: String) throws(CLIError) -> SettingValue {
        if text == "default" { return .byDefault }
        switch kind {
        case let .integer(r, _): return .integer(try Validate.integer(flag, text, r))
        case let .number(r, unit): return .number(try Validate.number(flag, text, r, unit: unit))
        case .bool: return .bool(true)
        case let .choice(c): return .text(try Validate.choice(flag, text, c.map { ($0, $0) }))
        case .device: return .text(try Validate.device(flag, text).description)
        case .cycle: return .cycle(try Self.cycle(flag, text, code: .usage))
        case .path: return .path(FilePath(text))
        }
    }

    func value(json: JSON, field: String) throws(CLIError) -> SettingValue {
        switch (kind, json) {
        case (_, .null): return .byDefault
        case let (.integer(r, _), .number(n)): return .integer(try Validate.integer(field, n, r))
        case let (.number(r, unit), .number(n)): return .number(try Validate.number(field, n, r, unit: unit))
        case let (.bool, .bool(b)): return .bool(b)
        case let (.choice(c), .string(s)): return .text(try Validate.choice(field, s, c.map { ($0, $0) }, code: .dataError))
        case let (.device, .string(s)): return .text(try Validate.device(field, s, code: .dataError).description)
        case let (.cycle, .string(s)): return .cycle(try Self.cycle(field, s, code: .dataError))
        case let (.path, .string(s)):
            guard !s.isEmpty, !s.utf8.contains(0) else { throw .data("\(field): empty file name (accepted: a file name, or null for none)") }
            return .path(FilePath(s))
        case (.integer, _), (.number, _): throw .data("\(field): expected a number, found \(json.kind)")
        case (.bool, _): throw .data("\(field): expected true or false, found \(json.kind)")
        case (.choice, _), (.device, _), (.cycle, _), (.path, _): throw .data("\(field): expected a string, found \(json.kind)")
        }
    }

    /// Parses `ON:OFF[:COUNT]` (the one place it is read).
    static func cycle(_ field: String, _ text: String, code: ExitCode) throws(CLIError) -> CycleSetting {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 || parts.count == 3 else {
            throw CLIError(code, "\(field): '\(Quote.escaped(text))' is not ON:OFF or ON:OFF:COUNT (seconds, e.g. 30:60:3)")
        }
        return CycleSetting(onSeconds: try Validate.integer("\(field) ON", parts[0], 1...86400, code: code),
                            offSeconds: try Validate.integer("\(field) OFF", parts[1], 1...86400, code: code),
                            count: parts.count == 3 ? try Validate.integer("\(field) COUNT", parts[2], 1...100_000, code: code) : nil)
    }

    var option: OptionSpec { option(help: help) }

    /// The same option with a command's own help text (`stop --device`: no dry runs there).
    func option(help: String) -> OptionSpec {
        switch kind {
        case .bool: return .flag(flag, help)
        case let .choice(c): return .value(flag, placeholder, help, choices: c)
        case .path: return .path(flag, placeholder, help)
        default: return .value(flag, placeholder, help)
        }
    }

    var options: [OptionSpec] {
        [option] + (negativeFlag.map { [.flag($0, "the opposite of \(flag) (overrides the config file)")] } ?? [])
    }
}

extension Setting {
    static let timeoutRange = 100...60000
    static let advertisingSetRange = 0...Int(KioskConfiguration.maximumHandle)
    static let intervalRange = AdvertisingInterval.minimumMilliseconds...AdvertisingInterval.maximumMilliseconds
    static let measuredPowerRange = -127...20

    static let device = Setting(
        key: "device", flag: "--device", placeholder: "hciN", help: "controller: hciN, or its address AA:BB:CC:DD:EE:FF (default: the first LE controller; hci0 in dry runs)",
        kind: .device, nullMeans: "the first LE controller (hci0 in dry runs)", apply: { s, v in s.device = v.text.flatMap(DeviceSelector.init) }, read: { s in s.deviceName.map(JSON.string) ?? .null })

    static let interval = Setting(
        key: "interval", flag: "--interval", placeholder: "ms",
        help: "advertising interval, 20–10240 ms, rounded to 0.625 ms (default 100)",
        kind: .number(intervalRange, unit: "ms"),
        apply: { s, v in s.interval = v.double.flatMap(AdvertisingInterval.init(milliseconds:)) ?? .standard },
        read: { s in .number(s.interval.milliseconds) })

    static let connectable = Setting(
        key: "connectable", flag: "--connectable", negativeFlag: "--non-connectable", placeholder: "",
        help: "advertise ADV_IND instead of ADV_NONCONN_IND", kind: .bool,
        apply: { s, v in s.connectable = v.bool ?? false }, read: { s in .bool(s.connectable) })

    static let txPower = Setting(
        key: "txPower", flag: "--tx-power", placeholder: "dBm",
        help: "requested tx power, -127–20, or 'default' for no preference (extended advertising only)",
        kind: .integer(AdvertisingOptions.txPowerRange, unit: "dBm"), nullMeans: "no preference (the controller chooses)",
        apply: { s, v in s.txPower = v.int.map { Int8(clamping: $0) } }, read: { s in s.txPower.map { .number(Double($0)) } ?? .null })

    static let controller = Setting(
        key: "controller", flag: "--controller", placeholder: "FAMILY",
        help: "auto, legacy or extended (default auto: extended when supported)", kind: .choice(["auto", "legacy", "extended"]), nullMeans: "auto",
        apply: { s, v in s.controller = v.text.flatMap(AdvertisingFamily.init(rawValue:)) },
        read: { s in .string(s.controller?.rawValue ?? "auto") })

    static let share = Setting(
        key: "share", flag: "--share", placeholder: "MODE",
        help: "never, always or auto: make the beacons kernel advertising instances (MGMT), rotated by the kernel with bluetoothd's and other programs' (default auto: share when the controller has one advertising instance and the kernel already has instances on it)",
        kind: .choice(ShareMode.allCases.map(\.rawValue)), nullMeans: "auto",
        apply: { s, v in s.share = v.text.flatMap(ShareMode.init(rawValue:)) ?? .auto },
        read: { s in .string(s.share.rawValue) })

    static let shareCommands = Setting(
        key: "shareCommands", flag: "--share-commands", placeholder: "COMMANDS",
        help: "with --share always, the MGMT commands that add our instances: auto (Add Extended Advertising Parameters and Data; Add Advertising where the kernel refuses those) or add-advertising (Add Advertising only: the kernel's interval and tx power, for a kernel whose extended commands misbehave)",
        kind: .choice(["auto", "add-advertising"]), nullMeans: "auto",
        apply: { s, v in s.shareCommands = v.text == "add-advertising" ? .addAdvertising : nil },
        read: { s in .string(s.shareCommands == .addAdvertising ? "add-advertising" : "auto") })

    static let timeout = Setting(
        key: "timeout", flag: "--timeout", placeholder: "ms",
        help: "wait this long for each controller answer, 100–60000 (default 2000)", kind: .integer(timeoutRange, unit: "ms"),
        apply: { s, v in s.timeoutMilliseconds = v.int ?? Settings.defaultTimeoutMilliseconds },
        read: { s in .number(Double(s.timeoutMilliseconds)) })

    static let advertisingSet = Setting(
        key: "advertisingSet", flag: "--advertising-set", placeholder: "N",
        help: "first extended advertising set (handle) to use, 0–239; beacon i gets N+i (default: 239 downwards)",
        kind: .integer(advertisingSetRange, unit: ""), nullMeans: "beacon-tx picks sets 239, 238, … (clear of the kernel's handle 0 and its MGMT instances)",
        apply: { s, v in s.advertisingSet = v.int.map { UInt8(clamping: $0) } },
        read: { s in s.advertisingSet.map { .number(Double($0)) } ?? .null })

    static let randomAddressPerSet = Setting(
        key: "randomAddressPerSet", flag: "--random-address-per-set", negativeFlag: "--no-random-address-per-set", placeholder: "",
        help: "extended sets only: each beacon's set advertises from its own random static address, derived from its region (LE Set Advertising Set Random Address)",
        kind: .bool,
        apply: { s, v in s.randomAddressPerSet = v.bool ?? false }, read: { s in .bool(s.randomAddressPerSet) })

    static let rotation = Setting(
        key: "rotation", flag: "--rotation", placeholder: "ms",
        help: "dwell per beacon when beacons share one advertising instance, 20–10000 ms (default 200)",
        kind: .integer(KioskConfiguration.rotationRange, unit: "ms"),
        apply: { s, v in s.rotationMilliseconds = v.int ?? KioskConfiguration.defaultRotationMilliseconds },
        read: { s in .number(Double(s.rotationMilliseconds)) })

    static let deviceTimeout = Setting(
        key: "deviceTimeout", flag: "--device-timeout", placeholder: "s",
        help: "wait this long for the device to appear (at start) or for an unplugged controller with the same address to return, 0–86400 s (default 60), then exit 69",
        kind: .integer(0...86400, unit: "s"),
        apply: { s, v in s.deviceTimeoutSeconds = v.int ?? Settings.defaultDeviceTimeoutSeconds },
        read: { s in .number(Double(s.deviceTimeoutSeconds)) })

    static let duration = Setting(
        key: "duration", flag: "--duration", placeholder: "s",
        help: "advertise for this long, then stop cleanly and exit 0, 1–31536000 s (default: until stopped)",
        kind: .integer(1...31_536_000, unit: "s"), nullMeans: "until stopped",
        apply: { s, v in s.durationSeconds = v.int }, read: { s in s.durationSeconds.map { .number(Double($0)) } ?? .null })

    static let cycle = Setting(
        key: "cycle", flag: "--cycle", placeholder: "ON:OFF[:COUNT]",
        help: "on for ON s, off (disabled on the controller) for OFF s, COUNT times or forever, then exit 0",
        kind: .cycle, nullMeans: "always on",
        apply: { s, v in if case let .cycle(c) = v { s.cycle = c } else { s.cycle = nil } },
        read: { s in s.cycle.map { .string($0.text) } ?? .null })

    static let metrics = Setting(
        key: "metrics", flag: "--metrics", placeholder: "FILE",
        help: "keep the Prometheus textfile of what is on air in FILE (rewritten atomically on each change, never periodically) instead of hciN.prom beside the state file, which beacon-tx-status.timer publishes; the packaged units need none",
        kind: .path, nullMeans: "no metrics file",
        apply: { s, v in if case let .path(p) = v { s.metrics = p } else { s.metrics = nil } },
        read: { s in s.metrics.map { .string(String(decoding: $0.bytes, as: UTF8.self)) } ?? .null })

    /// Top-level keys, in `dump-config` order (then `beacons`).
    static let topLevel: [Setting] = [device, interval, connectable, txPower, controller, share, shareCommands, timeout, advertisingSet, randomAddressPerSet, rotation, deviceTimeout, duration, cycle, metrics]
}

extension SettingValue {
    var int: Int? { if case let .integer(n) = self { return n } else { return nil } }
    var double: Double? {
        switch self {
        case let .number(n): return n
        case let .integer(n): return Double(n)
        default: return nil
        }
    }
    var bool: Bool? { if case let .bool(b) = self { return b } else { return nil } }
    var text: String? { if case let .text(t) = self { return t } else { return nil } }
}

extension ParsedArguments {
    /// The last value of a setting's flag.
    func value(_ setting: Setting) -> String? { value(setting.flag) }
}

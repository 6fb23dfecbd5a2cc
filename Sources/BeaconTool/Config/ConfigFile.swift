// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// Config files: JSON with comments allowed. The top-level keys are the `Setting.topLevel` table
/// (its keys are listed by `dump-config`, in that order) plus `beacons`: a list of 1 to N {identifier, uuid, major, minor, measuredPower}, each
/// optionally overriding the top-level settings of `beaconOverrides`. `null` means "the default" for every
/// optional key (for a beacon's override: the top-level value). `"$schema"` (a string: the JSON
/// Schema an editor validates the file with) is accepted and ignored, and dump-config drops it.
enum ConfigFile {
    /// The editor's schema reference: not a setting, read and ignored.
    static let schemaKey = "$schema"
    static var topLevelKeys: [String] { Setting.topLevel.map(\.key) + ["beacons"] }
    /// The keys a config's top level accepts, as messages list them.
    static var acceptedTopLevelKeys: [String] { topLevelKeys + [schemaKey] }
    /// A top-level setting a beacon may override: the `BeaconEntry` field it sets (nil = the
    /// top-level value) and how dump-config writes it back.
    struct BeaconOverride {
        let setting: Setting
        let apply: (inout BeaconEntry, SettingValue) -> Void
        let json: (BeaconEntry) -> JSON?

        init<T>(_ setting: Setting, _ field: WritableKeyPath<BeaconEntry, T?>, _ value: @escaping (SettingValue) -> T?, _ write: @escaping (T) -> JSON) {
            self.setting = setting
            apply = { entry, v in entry[keyPath: field] = value(v) }
            json = { entry in entry[keyPath: field].map(write) }
        }
    }

    /// The per-beacon overrides, in dump-config order.
    static var beaconOverrides: [BeaconOverride] {
        [
            BeaconOverride(.interval, \.interval, { $0.double.flatMap(AdvertisingInterval.init(milliseconds:)) }, { .number($0.milliseconds) }),
            BeaconOverride(.connectable, \.connectable, \.bool, { .bool($0) }),
            BeaconOverride(.txPower, \.txPower, { $0.int.map { Int8(clamping: $0) } }, { .number(Double($0)) }),
        ]
    }
    /// A beacon's own keys (before the overrides), as the reference and the schema describe them.
    struct BeaconField {
        enum FieldType { case integer(ClosedRange<Int>), uuid, text(maximumLength: Int) }
        let key: String
        let type: FieldType
        let required: Bool
        let defaultValue: JSON?
        let meaning: String
    }

    static let beaconFields: [BeaconField] = [
        BeaconField(key: "identifier", type: .text(maximumLength: Validate.identifierLength), required: false, defaultValue: nil,
                    meaning: "the region's identifier (CoreLocation's CLBeaconRegion identifier), printable text: shown in output, logs and metrics, never advertised; null: none"),
        BeaconField(key: "uuid", type: .uuid, required: true, defaultValue: nil,
                    meaning: "the proximity UUID: \(ProximityUUID.acceptedForms)"),
        BeaconField(key: "major", type: .integer(0...65535), required: true, defaultValue: nil,
                    meaning: "the major (e.g. a site), 0–65535"),
        BeaconField(key: "minor", type: .integer(0...65535), required: true, defaultValue: nil,
                    meaning: "the minor (e.g. a device or room), 0–65535"),
        BeaconField(key: "measuredPower", type: .integer(Setting.measuredPowerRange), required: false,
                    defaultValue: .number(Double(Settings.defaultMeasuredPower)),
                    meaning: "the RSSI a phone measures at 1 m, in dBm, -127–20 (calibrate per device with scan --calibrate); null: -59"),
    ]

    static var beaconKeys: [String] { beaconFields.map(\.key) + beaconOverrides.map(\.setting.key) }

    /// Reads `path` and applies its values over `settings` (file over defaults).
    /// Returns the requested interval in ms when the file set one.
    static func load(_ path: FilePath, into settings: inout Settings) throws(CLIError) -> Double? {
        let bytes = try FileIO.read(path, what: "config")
        let prefix = "config \(path.display)"
        settings.origin.file = prefix
        let json: JSON
        do { json = try JSON.parse(bytes: bytes) } catch {
            throw .data("\(prefix): \(error)")
        }
        return try apply(json, into: &settings, prefix: prefix)
    }

    static func apply(_ json: JSON, into s: inout Settings, prefix: String) throws(CLIError) -> Double? {
        guard case let .object(pairs) = json else { throw .data("\(prefix): the top level must be an object, found \(json.kind)") }
        var requestedInterval: Double?
        for (key, value) in pairs {
            if key == schemaKey {
                guard case .string = value else { throw .data("\(prefix): \(schemaKey): expected a string (the schema's URL or file name), found \(value.kind)") }
                continue
            }
            if key == "beacons" {
                guard case let .array(items) = value else { throw .data("\(prefix): beacons: expected a list of beacons, found \(value.kind)") }
                guard !items.isEmpty else { throw .data("\(prefix): beacons: the list is empty (list 1 or more beacons)") }
                var entries: [BeaconEntry] = []
                for (i, item) in items.enumerated() { entries.append(try beacon(item, prefix: "\(prefix): beacons[\(i)]")) }
                if let (first, second) = firstDuplicate(entries) {
                    throw .data("\(prefix): beacons[\(second)]: the same beacon as beacons[\(first)] (\(identity(entries[second]))): "
                                + "each beacon needs its own uuid, major and minor")
                }
                s.beacons = entries
                s.origin.file("beacons")
                continue
            }
            guard let setting = Setting.topLevel.first(where: { $0.key == key }) else {
                throw .data("\(prefix): \(unknownKey(key, acceptedTopLevelKeys, beaconKeys: beaconKeys))")
            }
            let v = try setting.value(json: value, field: "\(prefix): \(key)")
            if setting.key == Setting.interval.key { requestedInterval = v.double }
            try setting.apply(&s, v)
            s.origin.file(key)
        }
        return requestedInterval
    }

    static func beacon(_ json: JSON, prefix: String) throws(CLIError) -> BeaconEntry {
        guard case let .object(pairs) = json else { throw .data("\(prefix): expected an object, found \(json.kind)") }
        for (key, _) in pairs where !beaconKeys.contains(key) {
            throw .data("\(prefix): \(unknownKey(key, beaconKeys))")
        }
        func required(_ key: String) throws(CLIError) -> JSON {
            guard let v = json[key], v != .null else { throw .data("\(prefix).\(key): missing (required)") }
            return v
        }
        var identifier: String?
        if let v = json["identifier"], v != .null {
            identifier = try Validate.identifier("\(prefix).identifier", try string(v, "\(prefix).identifier"), code: .dataError)
        }
        let uuid = try Validate.uuid("\(prefix).uuid", try string(try required("uuid"), "\(prefix).uuid"), code: .dataError)
        let major = try Validate.integer("\(prefix).major", try number(try required("major"), "\(prefix).major"), 0...65535)
        let minor = try Validate.integer("\(prefix).minor", try number(try required("minor"), "\(prefix).minor"), 0...65535)
        var power = Int(Settings.defaultMeasuredPower)
        if let v = json["measuredPower"], v != .null {
            power = try Validate.integer("\(prefix).measuredPower", try number(v, "\(prefix).measuredPower"), Setting.measuredPowerRange)
        }
        var entry = BeaconEntry(identifier: identifier, uuid: uuid, major: UInt16(major), minor: UInt16(minor), measuredPower: Int8(power))
        for o in beaconOverrides {
            guard let v = json[o.setting.key] else { continue }
            o.apply(&entry, try o.setting.value(json: v, field: "\(prefix).\(o.setting.key)"))
        }
        return entry
    }

    /// `unknown key "measuredpwr" (accepted: …; did you mean measuredPower?)`; at the top level, a
    /// beacon's key says where it belongs.
    static func unknownKey(_ key: String, _ accepted: [String], beaconKeys: [String] = []) -> String {
        var hint = KeySuggestion.nearest(key, in: accepted).map { "; did you mean \($0)?" }
        if hint == nil, let inner = KeySuggestion.nearest(key, in: beaconKeys) { hint = "; \(inner) is a key of each beacon in \"beacons\"" }
        return "unknown key \"\(Quote.escaped(key))\" (accepted: \(accepted.joined(separator: ", "))\(hint ?? ""))"
    }

    /// The first beacon that repeats an earlier one's uuid, major and minor: (earlier, later) indexes.
    static func firstDuplicate(_ entries: [BeaconEntry]) -> (Int, Int)? {
        struct Identity: Hashable { let uuid: ProximityUUID, major: UInt16, minor: UInt16 }
        var seen: [Identity: Int] = [:]
        for (i, e) in entries.enumerated() {
            let id = Identity(uuid: e.uuid, major: e.major, minor: e.minor)
            if let first = seen[id] { return (first, i) }
            seen[id] = i
        }
        return nil
    }

    static func identity(_ e: BeaconEntry) -> String { "\(e.uuid) major \(e.major) minor \(e.minor)" }

    private static func string(_ v: JSON, _ field: String) throws(CLIError) -> String {
        guard case let .string(s) = v else { throw .data("\(field): expected a string, found \(v.kind)") }
        return s
    }

    private static func number(_ v: JSON, _ field: String) throws(CLIError) -> Double {
        guard case let .number(n) = v else { throw .data("\(field): expected a number, found \(v.kind)") }
        return n
    }
}

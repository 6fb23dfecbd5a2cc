// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// Config files: JSON with comments allowed. The top-level keys are the `Setting.topLevel` table
/// (its keys are listed by `dump-config`, in that order) plus `beacons`: a list of 1 to N {identifier, uuid, major, minor, measuredPower}, each
/// optionally overriding the top-level settings of `beaconOverrides`. `null` means "the default" for every
/// optional key (for a beacon's override: the top-level value).
enum ConfigFile {
    static var topLevelKeys: [String] { Setting.topLevel.map(\.key) + ["beacons"] }
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
    static var beaconKeys: [String] { ["identifier", "uuid", "major", "minor", "measuredPower"] + beaconOverrides.map(\.setting.key) }

    /// Reads `path` and applies its values over `settings` (file over defaults).
    /// Returns the requested interval in ms when the file set one.
    static func load(_ path: FilePath, into settings: inout Settings) throws(CLIError) -> Double? {
        let bytes = try FileIO.read(path, what: "config")
        let prefix = "config \(path.display)"
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
            if key == "beacons" {
                guard case let .array(items) = value else { throw .data("\(prefix): beacons: expected a list of beacons, found \(value.kind)") }
                guard !items.isEmpty else { throw .data("\(prefix): beacons: the list is empty (list 1 or more beacons)") }
                var entries: [BeaconEntry] = []
                for (i, item) in items.enumerated() { entries.append(try beacon(item, prefix: "\(prefix): beacons[\(i)]")) }
                s.beacons = entries
                continue
            }
            guard let setting = Setting.topLevel.first(where: { $0.key == key }) else {
                throw .data("\(prefix): unknown key \"\(Quote.escaped(key))\" (accepted: \(topLevelKeys.joined(separator: ", ")))")
            }
            let v = try setting.value(json: value, field: "\(prefix): \(key)")
            if setting.key == Setting.interval.key { requestedInterval = v.double }
            try setting.apply(&s, v)
        }
        return requestedInterval
    }

    static func beacon(_ json: JSON, prefix: String) throws(CLIError) -> BeaconEntry {
        guard case let .object(pairs) = json else { throw .data("\(prefix): expected an object, found \(json.kind)") }
        for (key, _) in pairs where !beaconKeys.contains(key) {
            throw .data("\(prefix): unknown key \"\(Quote.escaped(key))\" (accepted: \(beaconKeys.joined(separator: ", ")))")
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

    private static func string(_ v: JSON, _ field: String) throws(CLIError) -> String {
        guard case let .string(s) = v else { throw .data("\(field): expected a string, found \(v.kind)") }
        return s
    }

    private static func number(_ v: JSON, _ field: String) throws(CLIError) -> Double {
        guard case let .number(n) = v else { throw .data("\(field): expected a number, found \(v.kind)") }
        return n
    }
}

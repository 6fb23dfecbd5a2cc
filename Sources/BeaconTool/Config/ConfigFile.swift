import BeaconKit

/// Config files: JSON with comments allowed. Keys (all optional):
/// `device`, `interval` (ms), `connectable`, `txPower` (dBm or null), `controller`
/// (auto|legacy|extended), `timeout` (ms), `advertisingSet` (0–239), `beacons` (a list of exactly one
/// {identifier, uuid, major, minor, measuredPower}).
enum ConfigFile {
    static let topLevelKeys = ["device", "interval", "connectable", "txPower", "controller", "timeout", "advertisingSet", "beacons"]
    static let beaconKeys = ["identifier", "uuid", "major", "minor", "measuredPower"]

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
        func fail(_ key: String, _ message: String) -> CLIError { .data("\(prefix): \(key): \(message)") }
        var requestedInterval: Double?
        for (key, value) in pairs {
            switch key {
            case "device":
                s.device = try Validate.device("\(prefix): device", try string(value, key, prefix), code: .dataError)
            case "interval":
                let ms = try Validate.number("\(prefix): interval", try number(value, key, prefix),
                                             AdvertisingInterval.minimumMilliseconds...AdvertisingInterval.maximumMilliseconds, unit: "ms")
                s.interval = AdvertisingInterval(milliseconds: ms) ?? s.interval
                requestedInterval = ms
            case "connectable":
                guard case let .bool(b) = value else { throw fail(key, "expected true or false, found \(value.kind)") }
                s.connectable = b
            case "txPower":
                if value == .null { s.txPower = nil; continue }
                s.txPower = Int8(try Validate.integer("\(prefix): txPower", try number(value, key, prefix), AdvertisingOptions.txPowerRange))
            case "controller":
                s.controller = try Validate.choice("\(prefix): controller", try string(value, key, prefix),
                                                   [("auto", nil), ("legacy", .legacy), ("extended", .extended)] as [(String, AdvertisingFamily?)],
                                                   code: .dataError)
            case "timeout":
                s.timeoutMilliseconds = try Validate.integer("\(prefix): timeout", try number(value, key, prefix), Settings.timeoutRange)
            case "advertisingSet":
                s.advertisingSet = UInt8(try Validate.integer("\(prefix): advertisingSet", try number(value, key, prefix), Settings.advertisingSetRange))
            case "beacons":
                guard case let .array(items) = value else { throw fail(key, "expected a list of beacons, found \(value.kind)") }
                guard items.count == 1 else {
                    throw fail(key, "\(items.count) beacons listed; this version advertises exactly one beacon (list one)")
                }
                s.beacon = try beacon(items[0], prefix: "\(prefix): beacons[0]")
            default:
                throw .data("\(prefix): unknown key \"\(Quote.escaped(key))\" (accepted: \(topLevelKeys.joined(separator: ", ")))")
            }
        }
        return requestedInterval
    }

    static func beacon(_ json: JSON, prefix: String) throws(CLIError) -> BeaconEntry {
        guard case let .object(pairs) = json else { throw .data("\(prefix): expected an object, found \(json.kind)") }
        for (key, _) in pairs where !beaconKeys.contains(key) {
            throw .data("\(prefix): unknown key \"\(Quote.escaped(key))\" (accepted: \(beaconKeys.joined(separator: ", ")))")
        }
        func required(_ key: String) throws(CLIError) -> JSON {
            guard let v = json[key] else { throw .data("\(prefix).\(key): missing (required)") }
            return v
        }
        var identifier: String?
        if let v = json["identifier"], v != .null {
            identifier = try Validate.identifier("\(prefix).identifier", try string(v, "identifier", prefix + "."), code: .dataError)
        }
        let uuid = try Validate.uuid("\(prefix).uuid", try string(try required("uuid"), "uuid", prefix + "."), code: .dataError)
        let major = try Validate.integer("\(prefix).major", try number(try required("major"), "major", prefix + "."), 0...65535)
        let minor = try Validate.integer("\(prefix).minor", try number(try required("minor"), "minor", prefix + "."), 0...65535)
        var power = Int(Settings.defaultMeasuredPower)
        if let v = json["measuredPower"] {
            power = try Validate.integer("\(prefix).measuredPower", try number(v, "measuredPower", prefix + "."), Settings.measuredPowerRange)
        }
        return BeaconEntry(identifier: identifier, uuid: uuid, major: UInt16(major), minor: UInt16(minor), measuredPower: Int8(power))
    }

    private static func string(_ v: JSON, _ key: String, _ prefix: String) throws(CLIError) -> String {
        guard case let .string(s) = v else { throw .data("\(join(prefix, key)): expected a string, found \(v.kind)") }
        return s
    }

    private static func number(_ v: JSON, _ key: String, _ prefix: String) throws(CLIError) -> Double {
        guard case let .number(n) = v else { throw .data("\(join(prefix, key)): expected a number, found \(v.kind)") }
        return n
    }

    private static func join(_ prefix: String, _ key: String) -> String {
        prefix.hasSuffix(".") ? prefix + key : "\(prefix): \(key)"
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// What a foreground `beacon-tx start` has on air on one device, as kept in its state file
/// (`<runtime directory>/hciN.json`, see `StateStore`) and read by `beacon-tx status`.
///
/// File format (JSON, one object; times are seconds since the Unix epoch, UTC):
/// ```
/// {"device": "hci0", "pid": 812, "onAir": true, "status": "1 beacon on air on hci0 (extended set 239)",
///  "family": "extended", "sets": [239], "rotation": false,
///  "beacons": [{"identifier": "lobby", "uuid": "…", "major": 1, "minor": 2, "measuredPower": -59}],
///  "since": 1800000000, "lastRearm": {"at": 1800000100, "reason": "hci0 was reset"}}
/// ```
/// `family` is null while nothing was armed yet; `sets` lists the extended advertising sets
/// (handles) in use, empty for legacy; `rotation` is true when several beacons take turns on one
/// advertising instance (legacy, or one extended set when sets run short); `since` is when `onAir` last changed; `lastRearm` is null until the
/// session re-arms the controller; `address` is the controller's BD_ADDR (absent while the session
/// waits for its controller, and in the files of older versions).
struct SessionState: Equatable {
    struct Rearm: Equatable {
        var at: Double
        var reason: String
    }

    var device: String
    var pid: Int32
    var onAir: Bool
    var status: String
    var family: AdvertisingFamily?
    var sets: [UInt8] = []
    var rotation = false
    var beacons: [BeaconEntry] = []
    var since: Double
    var lastRearm: Rearm?
    /// The controller's BD_ADDR (it stays when a replugged dongle comes back as another hciN); absent
    /// in the files of older versions and while the session waits for its controller.
    var address: String?

    var json: JSON {
        var pairs: [(String, JSON)] = [
            ("device", .string(device)),
            ("pid", .number(Double(pid))),
            ("onAir", .bool(onAir)),
            ("status", .string(status)),
            ("family", family.map { .string($0.rawValue) } ?? .null),
            ("sets", .array(sets.map { .number(Double($0)) })),
            ("rotation", .bool(rotation)),
            ("beacons", Settings.beaconsJSON(beacons)),
            ("since", .number(since)),
            ("lastRearm", lastRearm.map { .object([("at", .number($0.at)), ("reason", .string($0.reason))]) } ?? .null),
        ]
        if let address { pairs.append(("address", .string(address))) }
        return .object(pairs)
    }

    /// Parses a state file; the error names the field that is wrong.
    init(json j: JSON) throws(StateFileError) {
        func field(_ key: String) throws(StateFileError) -> JSON {
            guard let v = j[key] else { throw StateFileError("field '\(key)' missing") }
            return v
        }
        func string(_ key: String) throws(StateFileError) -> String {
            guard case let .string(s) = try field(key) else { throw StateFileError("field '\(key)' must be a string") }
            return s
        }
        func number(_ key: String, in v: JSON? = nil, _ range: ClosedRange<Double>) throws(StateFileError) -> Double {
            let value: JSON
            if let v { value = v } else { value = try field(key) }
            guard case let .number(n) = value, range.contains(n) else {
                throw StateFileError("field '\(key)' must be a number in \(JSON.format(range.lowerBound))–\(JSON.format(range.upperBound))")
            }
            return n
        }
        func bool(_ key: String) throws(StateFileError) -> Bool {
            guard case let .bool(b) = try field(key) else { throw StateFileError("field '\(key)' must be true or false") }
            return b
        }
        guard case .object = j else { throw StateFileError("not a JSON object") }
        device = try string("device")
        pid = Int32(try number("pid", 1...Double(Int32.max)))
        onAir = try bool("onAir")
        status = try string("status")
        switch try field("family") {
        case .null: family = nil
        case let .string(s):
            guard let f = AdvertisingFamily(rawValue: s) else { throw StateFileError("field 'family' must be legacy, extended or null") }
            family = f
        default: throw StateFileError("field 'family' must be legacy, extended or null")
        }
        guard case let .array(setValues) = try field("sets") else { throw StateFileError("field 'sets' must be a list") }
        var sets: [UInt8] = []
        for v in setValues { sets.append(UInt8(try number("sets", in: v, 0...0xEF))) }
        self.sets = sets
        rotation = try bool("rotation")
        guard case let .array(beaconValues) = try field("beacons") else { throw StateFileError("field 'beacons' must be a list") }
        var beacons: [BeaconEntry] = []
        for (i, v) in beaconValues.enumerated() {
            if let type = v["type"], type != .null {
                // Another type than iBeacon: written as a config file's beacon, read the same way.
                do { beacons.append(try ConfigFile.beacon(v, prefix: "beacons[\(i)]")) } catch {
                    throw StateFileError("field 'beacons' holds an entry that is no beacon: \(error.message)")
                }
                continue
            }
            guard case .object = v, case let .string(u)? = v["uuid"], let uuid = ProximityUUID(u) else {
                throw StateFileError("field 'beacons' holds an entry without a valid 'uuid'")
            }
            let identifier: String?
            if case let .string(s)? = v["identifier"] { identifier = s } else { identifier = nil }
            beacons.append(BeaconEntry(identifier: identifier, uuid: uuid,
                                       major: UInt16(try number("major", in: v["major"] ?? .null, 0...65535)),
                                       minor: UInt16(try number("minor", in: v["minor"] ?? .null, 0...65535)),
                                       measuredPower: Int8(try number("measuredPower", in: v["measuredPower"] ?? .null, -128...127))))
        }
        do { try ConfigFile.resolveTelemetry(&beacons, items: beaconValues, prefix: "beacons") } catch {
            throw StateFileError("field 'beacons' holds an entry that is no beacon: \(error.message)")
        }
        self.beacons = beacons
        since = try number("since", 0...1e12)
        switch try field("lastRearm") {
        case .null: lastRearm = nil
        case let r:
            guard case let .string(reason)? = r["reason"] else { throw StateFileError("field 'lastRearm' must hold 'at' and 'reason'") }
            lastRearm = Rearm(at: try number("lastRearm.at", in: r["at"] ?? .null, 0...1e12), reason: reason)
        }
        switch j["address"] {
        case nil, .null?: address = nil
        case let .string(a)? where StaticRandomAddress.parse(a) != nil: address = a
        default: throw StateFileError("field 'address' must be a BD_ADDR (AA:BB:CC:DD:EE:FF)")
        }
    }

    init(device: String, pid: Int32, onAir: Bool, status: String, family: AdvertisingFamily?, sets: [UInt8] = [],
         rotation: Bool = false, beacons: [BeaconEntry] = [], since: Double, lastRearm: Rearm? = nil) {
        self.device = device
        self.pid = pid
        self.onAir = onAir
        self.status = status
        self.family = family
        self.sets = sets
        self.rotation = rotation
        self.beacons = beacons
        self.since = since
        self.lastRearm = lastRearm
    }

    /// The `STATUS=` line for beacons on air: "3 beacons on air on hci0 (extended sets 3–5)".
    static func onAirText(device: String, count: Int, family: AdvertisingFamily, sets: [UInt8], rotation: Bool) -> String {
        let what = count == 1 ? "1 beacon" : "\(count) beacons"
        let how: String
        switch family {
        case .extended: how = sets.count == 1 ? "extended set \(sets[0])" : "extended sets \(setList(sets))"
        case .legacy: how = rotation ? "legacy, in rotation" : "legacy"
        }
        return "\(what) on air on \(device) (\(how))"
    }

    /// "3–5" for a run, "0, 2, 7" otherwise.
    static func setList(_ sets: [UInt8]) -> String {
        let sorted = sets.sorted()
        if let first = sorted.first, let last = sorted.last, sorted.count > 2,
           Int(last) - Int(first) == sorted.count - 1 {
            return "\(first)–\(last)"
        }
        return sorted.map(String.init).joined(separator: ", ")
    }
}

struct StateFileError: Error, Equatable {
    let message: String
    init(_ message: String) { self.message = message }
}

/// UTC wall-clock text, "2027-01-15 08:00:00 UTC", without Foundation.
enum UTCTime {
    static func text(_ seconds: Double) -> String {
        let total = Int64(seconds.rounded(.down))
        var days = total / 86400
        var rest = total % 86400
        if rest < 0 { rest += 86400; days -= 1 }
        let (y, m, d) = civil(days)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(y)-\(two(m))-\(two(d)) \(two(rest / 3600)):\(two(rest % 3600 / 60)):\(two(rest % 60)) UTC"
    }

    /// ISO 8601, "2027-01-15T08:00:00Z".
    static func iso(_ seconds: Double) -> String {
        let t = text(seconds)   // "YYYY-MM-DD hh:mm:ss UTC"
        return String(t.prefix(10)) + "T" + String(t.dropFirst(11).prefix(8)) + "Z"
    }

    /// Days since 1970-01-01 → proleptic Gregorian (year, month, day), counting in 400-year eras
    /// of 146097 days that start on 1 March, so the leap day is the last day of an era-year.
    static func civil(_ days: Int64) -> (Int64, Int64, Int64) {
        let shifted = days + 719_468                    // days since 0000-03-01
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097           // 0...146096
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153   // 0 = March … 11 = February
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}

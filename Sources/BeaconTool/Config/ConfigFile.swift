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
        enum FieldType { case integer(ClosedRange<Int>), uuid, text(maximumLength: Int), hex(bytes: ClosedRange<Int>), url, type, reference, thermalZone }
        let key: String
        let type: FieldType
        /// The beacon types that take the key; empty: every type.
        let kinds: [BeaconFrame.Kind]
        /// Required for those types.
        let required: Bool
        let defaultValue: JSON?
        let meaning: String

        init(key: String, type: FieldType, kinds: [BeaconFrame.Kind] = [], required: Bool, defaultValue: JSON?, meaning: String) {
            self.key = key
            self.type = type
            self.kinds = kinds
            self.required = required
            self.defaultValue = defaultValue
            self.meaning = meaning
        }

        func takes(_ kind: BeaconFrame.Kind) -> Bool { kinds.isEmpty || kinds.contains(kind) }
    }

    /// The types a config names in `type`.
    static let configurableKinds: [BeaconFrame.Kind] = [.iBeacon, .altBeacon, .eddystoneUID, .eddystoneURL, .eddystoneTLM, .data]
    /// Eddystone's ranging data when none is given: the power at 0 m, 41 dB above -59 dBm at 1 m
    /// (the Eddystone specification's rule of thumb).
    static let defaultRangingData: Int8 = -18
    static let rangingDataRange = -100...20

    static let beaconFields: [BeaconField] = [
        BeaconField(key: "identifier", type: .text(maximumLength: Validate.identifierLength), required: false, defaultValue: nil,
                    meaning: "the region's identifier (CoreLocation's CLBeaconRegion identifier), printable text: shown in output, logs and metrics, never advertised; null: none"),
        BeaconField(key: "type", type: .type, required: false, defaultValue: .string(BeaconFrame.Kind.iBeacon.rawValue),
                    meaning: "what the beacon advertises: " + configurableKinds.map(\.rawValue).joined(separator: ", ") + "; null: ibeacon"),
        BeaconField(key: "uuid", type: .uuid, kinds: [.iBeacon], required: true, defaultValue: nil,
                    meaning: "ibeacon: the proximity UUID: \(ProximityUUID.acceptedForms)"),
        BeaconField(key: "major", type: .integer(0...65535), kinds: [.iBeacon], required: true, defaultValue: nil,
                    meaning: "ibeacon: the major (e.g. a site), 0–65535"),
        BeaconField(key: "minor", type: .integer(0...65535), kinds: [.iBeacon], required: true, defaultValue: nil,
                    meaning: "ibeacon: the minor (e.g. a device or room), 0–65535"),
        BeaconField(key: "measuredPower", type: .integer(Setting.measuredPowerRange), kinds: [.iBeacon], required: false,
                    defaultValue: .number(Double(Settings.defaultMeasuredPower)),
                    meaning: "ibeacon: the RSSI a phone measures at 1 m, in dBm, -127–20 (calibrate per device with scan --calibrate); null: -59"),
        BeaconField(key: "id1", type: .uuid, kinds: [.altBeacon], required: true, defaultValue: nil,
                    meaning: "altbeacon: the first identifier, 16 bytes in UUID form: \(ProximityUUID.acceptedForms)"),
        BeaconField(key: "id2", type: .integer(0...65535), kinds: [.altBeacon], required: true, defaultValue: nil,
                    meaning: "altbeacon: the second identifier, 0–65535"),
        BeaconField(key: "id3", type: .integer(0...65535), kinds: [.altBeacon], required: true, defaultValue: nil,
                    meaning: "altbeacon: the third identifier, 0–65535"),
        BeaconField(key: "referenceRSSI", type: .integer(Setting.measuredPowerRange), kinds: [.altBeacon], required: false,
                    defaultValue: .number(Double(Settings.defaultMeasuredPower)),
                    meaning: "altbeacon: the average RSSI at 1 m, in dBm, -127–20; null: -59"),
        BeaconField(key: "manufacturer", type: .integer(0...65535), kinds: [.altBeacon], required: false,
                    defaultValue: .number(Double(AltBeacon.radiusNetworks)),
                    meaning: "altbeacon: the beacon maker's company identifier, 0–65535; null: 280 (0x0118, Radius Networks)"),
        BeaconField(key: "reserved", type: .integer(0...255), kinds: [.altBeacon], required: false, defaultValue: .number(0),
                    meaning: "altbeacon: the manufacturer's reserved byte, 0–255; null: 0"),
        BeaconField(key: "namespace", type: .hex(bytes: 10...10), kinds: [.eddystoneUID], required: true, defaultValue: nil,
                    meaning: "eddystone-uid: the namespace, 10 bytes as 20 hex digits"),
        BeaconField(key: "instance", type: .hex(bytes: 6...6), kinds: [.eddystoneUID], required: true, defaultValue: nil,
                    meaning: "eddystone-uid: the instance, 6 bytes as 12 hex digits"),
        BeaconField(key: "url", type: .url, kinds: [.eddystoneURL], required: true, defaultValue: nil,
                    meaning: "eddystone-url: the URL, http:// or https:// (with or without www.), at most \(Eddystone.URL.maximumEncodedLength) bytes once encoded with the specification's expansion codes"),
        BeaconField(key: "rangingData", type: .integer(rangingDataRange), kinds: [.eddystoneUID, .eddystoneURL], required: false,
                    defaultValue: .number(Double(defaultRangingData)),
                    meaning: "eddystone-uid, eddystone-url: the ranging data (Eddystone's Tx power), the RSSI at 0 m in dBm, -100–20; null: -18"),
        BeaconField(key: "of", type: .reference, kinds: [.eddystoneTLM], required: true, defaultValue: nil,
                    meaning: "eddystone-tlm: the eddystone-uid or eddystone-url beacon whose telemetry this is, by its identifier (or its 0-based place in beacons); sent from that beacon's address, its advertising PDU count and time since start are live"),
        BeaconField(key: "thermalZone", type: .thermalZone, kinds: [.eddystoneTLM], required: false, defaultValue: nil,
                    meaning: "eddystone-tlm: where the temperature is read, a thermal zone's name (thermal_zone0: /sys/class/thermal/thermal_zone0/temp) or an absolute path to a file in millidegrees Celsius; null: not measured (0x8000)"),
        BeaconField(key: "data", type: .hex(bytes: 1...BeaconFrame.maximumDataLength), kinds: [.data], required: true, defaultValue: nil,
                    meaning: "data: the advertising data as hex, sent as it is: AD structures (length, type, data), 1–31 bytes"),
    ]

    static var beaconKeys: [String] { beaconFields.map(\.key) + beaconOverrides.map(\.setting.key) }
    /// The keys a beacon of `kind` takes.
    static func beaconKeys(_ kind: BeaconFrame.Kind) -> [String] {
        beaconFields.filter { $0.takes(kind) }.map(\.key) + beaconOverrides.map(\.setting.key)
    }

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
                try resolveTelemetry(&entries, items: items, prefix: "\(prefix): beacons")
                if let (first, second) = firstDuplicate(entries) {
                    throw .data("\(prefix): beacons[\(second)]: the same beacon as beacons[\(first)] (\(identity(entries[second]))): "
                                + "each beacon needs its own \(identityKeys(entries[second].frame.kind))")
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
        var kind = BeaconFrame.Kind.iBeacon
        if let v = json["type"], v != .null {
            kind = try Validate.choice("\(prefix).type", try string(v, "\(prefix).type"), configurableKinds.map { ($0.rawValue, $0) }, code: .dataError)
        }
        for (key, _) in pairs where !beaconKeys.contains(key) {
            throw .data("\(prefix): \(unknownKey(key, beaconKeys(kind)))")
        }
        for (key, value) in pairs where value != .null {
            if let f = beaconFields.first(where: { $0.key == key }), !f.takes(kind) {
                throw .data("\(prefix).\(key): a key of \(f.kinds.map(\.rawValue).joined(separator: " and ")) beacons, not of this \(kind.rawValue) beacon"
                            + " (type \(kind.rawValue) takes \(beaconFields.filter { $0.takes(kind) && !$0.kinds.isEmpty }.map(\.key).joined(separator: ", ")))")
            }
        }
        var identifier: String?
        if let v = json["identifier"], v != .null {
            identifier = try Validate.identifier("\(prefix).identifier", try string(v, "\(prefix).identifier"), code: .dataError)
        }
        let fields = BeaconFields(json: json, prefix: prefix)
        let frame: BeaconFrame
        switch kind {
        case .iBeacon:
            frame = .iBeacon(IBeacon(uuid: try fields.uuid("uuid"), major: UInt16(try fields.integer("major", 0...65535)),
                                     minor: UInt16(try fields.integer("minor", 0...65535)),
                                     measuredPower: Int8(try fields.integer("measuredPower", Setting.measuredPowerRange, default: Int(Settings.defaultMeasuredPower))),
                                     identifier: identifier))
        case .altBeacon:
            frame = .altBeacon(AltBeacon(id1: try fields.uuid("id1"), id2: UInt16(try fields.integer("id2", 0...65535)),
                                         id3: UInt16(try fields.integer("id3", 0...65535)),
                                         referenceRSSI: Int8(try fields.integer("referenceRSSI", Setting.measuredPowerRange, default: Int(Settings.defaultMeasuredPower))),
                                         manufacturer: UInt16(try fields.integer("manufacturer", 0...65535, default: Int(AltBeacon.radiusNetworks))),
                                         reserved: UInt8(try fields.integer("reserved", 0...255, default: 0))))
        case .eddystoneUID:
            let namespace = try fields.hex("namespace", bytes: Eddystone.UID.namespaceLength)
            let instance = try fields.hex("instance", bytes: Eddystone.UID.instanceLength)
            let ranging = Int8(try fields.integer("rangingData", rangingDataRange, default: Int(defaultRangingData)))
            guard let uid = Eddystone.UID(namespace: namespace, instance: instance, txPower: ranging) else {
                throw .data("\(prefix): namespace and instance must be \(Eddystone.UID.namespaceLength) and \(Eddystone.UID.instanceLength) bytes")
            }
            frame = .eddystone(.uid(uid))
        case .eddystoneURL:
            let ranging = Int8(try fields.integer("rangingData", rangingDataRange, default: Int(defaultRangingData)))
            frame = .eddystone(.url(try Validate.eddystoneURL("\(prefix).url", try fields.text("url"), rangingData: ranging, code: .dataError)))
        case .data:
            frame = try Validate.advertisingData("\(prefix).data", try fields.text("data"), code: .dataError)
        case .eddystoneTLM:
            // `of` is resolved once every beacon is read (`resolveTelemetry`).
            var source: String?
            if let v = json["thermalZone"], v != .null { source = try thermalZone(try fields.text("thermalZone"), field: "\(prefix).thermalZone") }
            frame = .telemetry(Telemetry(of: .data([]), temperatureSource: source))
        }
        var entry = BeaconEntry(identifier: identifier, frame: frame)
        for o in beaconOverrides {
            guard let v = json[o.setting.key] else { continue }
            o.apply(&entry, try o.setting.value(json: v, field: "\(prefix).\(o.setting.key)"))
        }
        return entry
    }

    /// Points each Eddystone-TLM beacon of `entries` (read from `items`) at the beacon its `of`
    /// names: an identifier, or a 0-based place in the list; that beacon must be an Eddystone-UID
    /// or -URL. Errors name `prefix[i].of`.
    static func resolveTelemetry(_ entries: inout [BeaconEntry], items: [JSON], prefix: String) throws(CLIError) {
        for i in entries.indices {
            guard case var .telemetry(t) = entries[i].frame else { continue }
            let field = "\(prefix)[\(i)].of"
            let target: Int
            switch items.indices.contains(i) ? items[i]["of"] : nil {
            case let .string(name)?:
                guard let j = entries.firstIndex(where: { $0.identifier == name && $0.frame.kind != .eddystoneTLM }) else {
                    let names = entries.compactMap(\.identifier).map { "\"\($0)\"" }
                    throw .data("\(field): no beacon has the identifier \(Quote.user(name)) (identifiers: \(names.isEmpty ? "none" : names.joined(separator: ", ")))")
                }
                target = j
            case let .number(n)?:
                guard let j = Int(exactly: n), entries.indices.contains(j) else {
                    throw .data("\(field): \(JSON.format(n)) is no place in beacons (accepted 0–\(entries.count - 1))")
                }
                target = j
            case nil, .null?:
                throw .data("\(field): missing (required): the identifier of the eddystone-uid or eddystone-url beacon this is the telemetry of")
            case let other?:
                throw .data("\(field): expected an identifier (a string) or a place in beacons (an integer), found \(other.kind)")
            }
            let kind = entries[target].frame.kind
            guard kind == .eddystoneUID || kind == .eddystoneURL else {
                throw .data("\(field): beacons[\(target)] is \(kind.rawValue); Eddystone-TLM accompanies an eddystone-uid or eddystone-url beacon")
            }
            t.of = entries[target].frame
            entries[i].frame = .telemetry(t)
        }
    }

    /// `thermal_zone0` → `/sys/class/thermal/thermal_zone0/temp`; an absolute path as it is.
    static func thermalZone(_ text: String, field: String) throws(CLIError) -> String {
        if text.hasPrefix("/") { return text }
        guard !text.isEmpty, text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F }) else {
            throw .data("\(field): \(Quote.user(text)) is neither a thermal zone's name (thermal_zone0) nor an absolute path")
        }
        return "/sys/class/thermal/\(text)/temp"
    }

    /// A beacon object's typed fields, each error naming `prefix.key`.
    struct BeaconFields {
        let json: JSON
        let prefix: String

        func required(_ key: String) throws(CLIError) -> JSON {
            guard let v = json[key], v != .null else { throw .data("\(prefix).\(key): missing (required)") }
            return v
        }
        func text(_ key: String) throws(CLIError) -> String { try ConfigFile.string(try required(key), "\(prefix).\(key)") }
        func uuid(_ key: String) throws(CLIError) -> ProximityUUID { try Validate.uuid("\(prefix).\(key)", try text(key), code: .dataError) }
        func integer(_ key: String, _ range: ClosedRange<Int>, default d: Int? = nil) throws(CLIError) -> Int {
            if let d, json[key] == nil || json[key] == .null { return d }
            return try Validate.integer("\(prefix).\(key)", try ConfigFile.number(try required(key), "\(prefix).\(key)"), range)
        }
        func hex(_ key: String, bytes: Int) throws(CLIError) -> [UInt8] {
            try Validate.hex("\(prefix).\(key)", try text(key), bytes: bytes...bytes, code: .dataError)
        }
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
        var seen: [[UInt8]: Int] = [:]
        for (i, e) in entries.enumerated() {
            let id = e.frame.identity
            if let first = seen[id] { return (first, i) }
            seen[id] = i
        }
        return nil
    }

    static func identity(_ e: BeaconEntry) -> String { e.frame.identityText }

    /// What makes a beacon of `kind` another beacon, for the duplicate message.
    static func identityKeys(_ kind: BeaconFrame.Kind) -> String {
        switch kind {
        case .iBeacon: return "uuid, major and minor"
        case .altBeacon: return "id1, id2 and id3"
        case .eddystoneUID: return "namespace and instance"
        case .eddystoneURL: return "url"
        case .eddystoneTLM: return "of (one Eddystone-TLM per eddystone-uid or eddystone-url beacon)"
        case .data: return "data"
        }
    }

    static func string(_ v: JSON, _ field: String) throws(CLIError) -> String {
        guard case let .string(s) = v else { throw .data("\(field): expected a string, found \(v.kind)") }
        return s
    }

    static func number(_ v: JSON, _ field: String) throws(CLIError) -> Double {
        guard case let .number(n) = v else { throw .data("\(field): expected a number, found \(v.kind)") }
        return n
    }
}

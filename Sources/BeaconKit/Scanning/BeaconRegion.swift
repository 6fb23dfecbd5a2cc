// SPDX-License-Identifier: Apache-2.0
/// A beacon region as CoreLocation defines it (`CLBeaconRegion`): a proximity UUID, optionally a major,
/// and — only with a major — optionally a minor. A missing value matches any. As the Android Beacon
/// Library's `Region` does, the UUID form also matches AltBeacons by id1, id2 and id3. The Eddystone
/// form is a namespace and optionally an instance; an Eddystone-URL is in no region.
public struct BeaconRegion: Hashable, Sendable, CustomStringConvertible {
    /// What the region names.
    public enum Identifiers: Hashable, Sendable {
        case uuid(ProximityUUID, major: UInt16?, minor: UInt16?)
        case eddystone(namespace: [UInt8], instance: [UInt8]?)
    }
    public let identifiers: Identifiers
    /// Optional human name (CoreLocation's region identifier).
    public var identifier: String?

    /// Every beacon with this UUID.
    public init(uuid: ProximityUUID, identifier: String? = nil) {
        identifiers = .uuid(uuid, major: nil, minor: nil)
        self.identifier = identifier
    }

    /// Every beacon with this UUID and major.
    public init(uuid: ProximityUUID, major: UInt16, identifier: String? = nil) {
        identifiers = .uuid(uuid, major: major, minor: nil)
        self.identifier = identifier
    }

    /// Exactly one beacon.
    public init(uuid: ProximityUUID, major: UInt16, minor: UInt16, identifier: String? = nil) {
        identifiers = .uuid(uuid, major: major, minor: minor)
        self.identifier = identifier
    }

    private init(identifiers: Identifiers, identifier: String?) {
        self.identifiers = identifiers
        self.identifier = identifier
    }

    /// Every Eddystone-UID beacon with this namespace (10 bytes), or only the one with `instance` (6 bytes).
    public init?(namespace: [UInt8], instance: [UInt8]? = nil, identifier: String? = nil) {
        guard namespace.count == Eddystone.UID.namespaceLength, instance.map({ $0.count == Eddystone.UID.instanceLength }) ?? true else { return nil }
        identifiers = .eddystone(namespace: namespace, instance: instance)
        self.identifier = identifier
    }

    /// The UUID (iBeacon) or id1 (AltBeacon); nil for an Eddystone region.
    public var uuid: ProximityUUID? {
        if case let .uuid(u, _, _) = identifiers { return u }
        return nil
    }
    public var major: UInt16? {
        if case let .uuid(_, major, _) = identifiers { return major }
        return nil
    }
    public var minor: UInt16? {
        if case let .uuid(_, _, minor) = identifiers { return minor }
        return nil
    }

    /// Parses `UUID`, `UUID:MAJOR` or `UUID:MAJOR:MINOR` (major and minor decimal 0–65535), or
    /// `NAMESPACE` or `NAMESPACE:INSTANCE` (20 and 12 hex digits: an Eddystone-UID region).
    public init(parsing text: String, identifier: String? = nil) throws(BeaconRegionParseError) {
        let t = text.trimmingWhitespace()
        guard !t.isEmpty else { throw .empty }
        let fields = t.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        if fields[0].utf8.count == 2 * Eddystone.UID.namespaceLength, let namespace = Hex.decode(fields[0]),
           namespace.count == Eddystone.UID.namespaceLength {   // "0x" or separators among 20 characters give fewer bytes
            guard fields.count <= 2 else { throw .tooManyFields(text: t, count: fields.count) }
            var instance: [UInt8]?
            if fields.count == 2 {
                guard let i = Hex.decode(fields[1]), i.count == Eddystone.UID.instanceLength else { throw .invalidInstance(fields[1]) }
                instance = i
            }
            self.init(identifiers: .eddystone(namespace: namespace, instance: instance), identifier: identifier)
            return
        }
        guard fields.count <= 3 else { throw .tooManyFields(text: t, count: fields.count) }
        guard let uuid = ProximityUUID(fields[0]) else { throw .invalidUUID(fields[0]) }
        switch fields.count {
        case 1:
            self.init(uuid: uuid, identifier: identifier)
        case 2:
            self.init(uuid: uuid, major: try Self.parseField("major", fields[1]), identifier: identifier)
        default:
            self.init(uuid: uuid, major: try Self.parseField("major", fields[1]),
                      minor: try Self.parseField("minor", fields[2]), identifier: identifier)
        }
    }

    /// Decimal digits only (no sign, no hex), at most 65535.
    static func parseField(_ field: String, _ text: String) throws(BeaconRegionParseError) -> UInt16 {
        let t = text.trimmingWhitespace()
        var value = 0
        guard !t.isEmpty, t.unicodeScalars.count <= 5 else { throw .invalidValue(field: field, text: text) }
        for s in t.unicodeScalars {
            guard s.value >= 0x30, s.value <= 0x39 else { throw .invalidValue(field: field, text: text) }
            value = value * 10 + Int(s.value - 0x30)
        }
        guard let v = UInt16(exactly: value) else { throw .invalidValue(field: field, text: text) }
        return v
    }

    public func matches(_ identity: BeaconIdentity) -> Bool {
        switch (identifiers, identity) {
        case let (.uuid(uuid, major, minor), .iBeacon(u, a, b)), let (.uuid(uuid, major, minor), .altBeacon(u, a, b)):
            return u == uuid && (major.map { $0 == a } ?? true) && (minor.map { $0 == b } ?? true)
        case let (.eddystone(namespace, instance), .eddystoneUID(n, i)):
            return n == namespace && (instance.map { $0 == i } ?? true)
        default:
            return false
        }
    }

    public func matches(_ beacon: IBeacon) -> Bool { matches(BeaconIdentity(beacon)) }

    /// `UUID`, `UUID:MAJOR`, `UUID:MAJOR:MINOR`, `NAMESPACE` or `NAMESPACE:INSTANCE`: the text
    /// `init(parsing:)` reads back.
    public var description: String {
        switch identifiers {
        case let .uuid(uuid, major, minor):
            var text = uuid.description
            if let major { text += ":\(major)" }
            if let minor { text += ":\(minor)" }
            return text
        case let .eddystone(namespace, instance):
            return Hex.encode(namespace) + (instance.map { ":" + Hex.encode($0) } ?? "")
        }
    }
}

/// Why a region text did not parse; each case names the field and what it accepts.
public enum BeaconRegionParseError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case tooManyFields(text: String, count: Int)
    case invalidUUID(String)
    /// `field` is "major" or "minor".
    case invalidValue(field: String, text: String)
    /// An Eddystone region's instance that is not 12 hex digits.
    case invalidInstance(String)

    public static let accepted = "UUID[:MAJOR[:MINOR]] or NAMESPACE[:INSTANCE]"

    public var description: String {
        switch self {
        case .empty:
            return "empty region: expected \(Self.accepted)"
        case let .tooManyFields(text, count):
            return "region \"\(text)\" has \(count) fields: expected \(Self.accepted)"
        case let .invalidUUID(text):
            return "'\(text)' is not a UUID (accepted: \(ProximityUUID.acceptedForms)) nor an Eddystone namespace (20 hex digits)"
        case let .invalidValue(field, text):
            return "invalid \(field) \"\(text)\": expected a decimal integer 0–65535"
        case let .invalidInstance(text):
            return "invalid Eddystone instance \"\(text)\": expected 12 hex digits (6 bytes)"
        }
    }
}

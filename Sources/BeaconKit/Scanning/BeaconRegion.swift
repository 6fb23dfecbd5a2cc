// SPDX-License-Identifier: Apache-2.0
/// A beacon region as CoreLocation defines it (`CLBeaconRegion`): a proximity UUID, optionally a major,
/// and — only with a major — optionally a minor. A missing value matches any.
public struct BeaconRegion: Hashable, Sendable, CustomStringConvertible {
    public let uuid: ProximityUUID
    public let major: UInt16?
    public let minor: UInt16?
    /// Optional human name (CoreLocation's region identifier).
    public var identifier: String?

    /// Every beacon with this UUID.
    public init(uuid: ProximityUUID, identifier: String? = nil) {
        self.uuid = uuid
        major = nil
        minor = nil
        self.identifier = identifier
    }

    /// Every beacon with this UUID and major.
    public init(uuid: ProximityUUID, major: UInt16, identifier: String? = nil) {
        self.uuid = uuid
        self.major = major
        minor = nil
        self.identifier = identifier
    }

    /// Exactly one beacon.
    public init(uuid: ProximityUUID, major: UInt16, minor: UInt16, identifier: String? = nil) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.identifier = identifier
    }

    /// Parses `UUID`, `UUID:MAJOR` or `UUID:MAJOR:MINOR`; major and minor are decimal 0–65535.
    public init(parsing text: String, identifier: String? = nil) throws(BeaconRegionParseError) {
        let t = text.trimmingWhitespace()
        guard !t.isEmpty else { throw .empty }
        let fields = t.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
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
        identity.uuid == uuid && (major.map { $0 == identity.major } ?? true) && (minor.map { $0 == identity.minor } ?? true)
    }

    public func matches(_ beacon: IBeacon) -> Bool { matches(BeaconIdentity(beacon)) }

    /// `UUID`, `UUID:MAJOR` or `UUID:MAJOR:MINOR`: the text `init(parsing:)` reads back.
    public var description: String {
        var text = uuid.description
        if let major { text += ":\(major)" }
        if let minor { text += ":\(minor)" }
        return text
    }
}

/// Why a region text did not parse; each case names the field and what it accepts.
public enum BeaconRegionParseError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case tooManyFields(text: String, count: Int)
    case invalidUUID(String)
    /// `field` is "major" or "minor".
    case invalidValue(field: String, text: String)

    public var description: String {
        switch self {
        case .empty:
            return "empty region: expected UUID[:MAJOR[:MINOR]]"
        case let .tooManyFields(text, count):
            return "region \"\(text)\" has \(count) fields: expected UUID[:MAJOR[:MINOR]]"
        case let .invalidUUID(text):
            return "'\(text)' is not a UUID (accepted: \(ProximityUUID.acceptedForms))"
        case let .invalidValue(field, text):
            return "invalid \(field) \"\(text)\": expected a decimal integer 0–65535"
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
/// What identifies one beacon a scan ranges: an iBeacon's proximity UUID, major and minor (Apple
/// Proximity Beacon Specification); an AltBeacon's id1, id2 and id3; an Eddystone-UID's namespace
/// and instance; an Eddystone-URL's URL. Eddystone-TLM carries no identity: a scanner pairs it with
/// the UID or URL frame from the same address.
public enum BeaconIdentity: Hashable, Sendable, Comparable, CustomStringConvertible {
    case iBeacon(uuid: ProximityUUID, major: UInt16, minor: UInt16)
    case altBeacon(id1: ProximityUUID, id2: UInt16, id3: UInt16)
    case eddystoneUID(namespace: [UInt8], instance: [UInt8])
    case eddystoneURL(String)

    public init(uuid: ProximityUUID, major: UInt16, minor: UInt16) {
        self = .iBeacon(uuid: uuid, major: major, minor: minor)
    }

    public init(_ beacon: IBeacon) {
        self.init(uuid: beacon.uuid, major: beacon.major, minor: beacon.minor)
    }

    /// The identity of an identifying frame; nil for Eddystone-TLM and raw data.
    public init?(_ frame: BeaconFrame) {
        switch frame {
        case let .iBeacon(b): self.init(b)
        case let .altBeacon(b): self = .altBeacon(id1: b.id1, id2: b.id2, id3: b.id3)
        case let .eddystone(.uid(f)): self = .eddystoneUID(namespace: f.namespace, instance: f.instance)
        case let .eddystone(.url(f)): self = .eddystoneURL(f.url)
        case .eddystone(.tlm), .telemetry, .data: return nil
        }
    }

    public var kind: BeaconFrame.Kind {
        switch self {
        case .iBeacon: return .iBeacon
        case .altBeacon: return .altBeacon
        case .eddystoneUID: return .eddystoneUID
        case .eddystoneURL: return .eddystoneURL
        }
    }

    /// The identifier a fleet shares (the first one): an iBeacon's UUID, an AltBeacon's id1, an
    /// Eddystone-UID's namespace, an Eddystone-URL's URL. `scan --expect` calls a beacon that shares
    /// it with an expected one, but is not expected, unexpected.
    public var group: String {
        switch self {
        case let .iBeacon(uuid, _, _): return uuid.description
        case let .altBeacon(id1, _, _): return id1.description
        case let .eddystoneUID(namespace, _): return Hex.encode(namespace)
        case let .eddystoneURL(url): return url
        }
    }

    /// Each identifier by its name (`uuid`, `major`, `minor`; `id1`, `id2`, `id3`; `namespace`,
    /// `instance`; `url`): a number for the 16-bit ones, text for the rest.
    public var fields: [(name: String, value: IdentityValue)] {
        switch self {
        case let .iBeacon(uuid, major, minor): return [("uuid", .text(uuid.description)), ("major", .number(major)), ("minor", .number(minor))]
        case let .altBeacon(id1, id2, id3): return [("id1", .text(id1.description)), ("id2", .number(id2)), ("id3", .number(id3))]
        case let .eddystoneUID(namespace, instance): return [("namespace", .text(Hex.encode(namespace))), ("instance", .text(Hex.encode(instance)))]
        case let .eddystoneURL(url): return [("url", .text(url))]
        }
    }

    public enum IdentityValue: Hashable, Sendable {
        case text(String)
        case number(UInt16)
    }

    /// One line for people: `E2C56DB5-… major 1 minor 2`, `altbeacon id1 … id2 1 id3 2`,
    /// `eddystone-uid namespace … instance …`, `eddystone-url https://…`.
    public var text: String {
        switch self {
        case let .iBeacon(uuid, major, minor): return "\(uuid) major \(major) minor \(minor)"
        default:
            return kind.rawValue + fields.map { field in
                switch field.value {
                case let .text(t): return " \(field.name) \(t)"
                case let .number(n): return " \(field.name) \(n)"
                }
            }.joined()
        }
    }

    /// Type first (in `BeaconFrame.Kind` order), then the identifiers' bytes in order.
    public static func < (a: BeaconIdentity, b: BeaconIdentity) -> Bool {
        let (ka, kb) = (BeaconFrame.Kind.allCases.firstIndex(of: a.kind) ?? 0, BeaconFrame.Kind.allCases.firstIndex(of: b.kind) ?? 0)
        if ka != kb { return ka < kb }
        switch (a, b) {
        case let (.iBeacon(u1, a1, b1), .iBeacon(u2, a2, b2)), let (.altBeacon(u1, a1, b1), .altBeacon(u2, a2, b2)):
            if u1 != u2 { return u1.bytes.lexicographicallyPrecedes(u2.bytes) }
            return a1 != a2 ? a1 < a2 : b1 < b2
        case let (.eddystoneUID(n1, i1), .eddystoneUID(n2, i2)):
            return n1 != n2 ? n1.lexicographicallyPrecedes(n2) : i1.lexicographicallyPrecedes(i2)
        case let (.eddystoneURL(u1), .eddystoneURL(u2)):
            return u1.utf8.lexicographicallyPrecedes(u2.utf8)
        default:
            return false
        }
    }

    /// The form `BeaconRegion` parses: `UUID:MAJOR:MINOR` (an iBeacon's, an AltBeacon's
    /// `ID1:ID2:ID3`), `NAMESPACE:INSTANCE` (Eddystone-UID); an Eddystone-URL's URL.
    public var description: String {
        switch self {
        case let .iBeacon(uuid, major, minor): return "\(uuid):\(major):\(minor)"
        case let .altBeacon(id1, id2, id3): return "\(id1):\(id2):\(id3)"
        case let .eddystoneUID(namespace, instance): return "\(Hex.encode(namespace)):\(Hex.encode(instance))"
        case let .eddystoneURL(url): return url
        }
    }
}

/// One received beacon advertisement (an identifying frame: iBeacon, AltBeacon, Eddystone-UID or
/// -URL). `timestamp` is seconds on any monotonic clock the caller chooses: the core never reads a clock.
public struct BeaconObservation: Hashable, Sendable {
    public var frame: BeaconFrame
    public let identity: BeaconIdentity
    /// Advertiser address, `AA:BB:CC:DD:EE:FF`.
    public var address: String
    public var addressType: AdvertisingReport.AddressType
    /// dBm; nil when the controller reported 127 (not available).
    public var rssi: Int8?
    public var timestamp: Double

    public init(beacon: IBeacon, address: String, addressType: AdvertisingReport.AddressType = .publicDevice,
                rssi: Int8?, timestamp: Double) {
        self.init(identity: BeaconIdentity(beacon), frame: .iBeacon(beacon), address: address, addressType: addressType, rssi: rssi, timestamp: timestamp)
    }

    /// Nil unless `frame` identifies a beacon (not Eddystone-TLM, not raw data).
    public init?(frame: BeaconFrame, address: String, addressType: AdvertisingReport.AddressType = .publicDevice,
                 rssi: Int8?, timestamp: Double) {
        guard let identity = BeaconIdentity(frame) else { return nil }
        self.init(identity: identity, frame: frame, address: address, addressType: addressType, rssi: rssi, timestamp: timestamp)
    }

    private init(identity: BeaconIdentity, frame: BeaconFrame, address: String, addressType: AdvertisingReport.AddressType,
                 rssi: Int8?, timestamp: Double) {
        self.identity = identity
        self.frame = frame
        self.address = address
        self.addressType = addressType
        self.rssi = rssi
        self.timestamp = timestamp
    }

    /// The beacon in a report's advertising data, or nil (other advertisers, Eddystone-TLM, scan
    /// responses, AD structures that do not parse).
    public init?(report: AdvertisingReport, timestamp: Double) {
        guard let frame = BeaconFrame(parsing: report.data) else { return nil }
        self.init(frame: frame, address: report.address, addressType: report.addressType, rssi: report.rssi, timestamp: timestamp)
    }

    /// The iBeacon, when it is one.
    public var beacon: IBeacon? { frame.iBeacon }

    /// The RSSI at 1 m the frame advertises, what distance is estimated from: an iBeacon's measured
    /// power, an AltBeacon's reference RSSI, an Eddystone frame's ranging data (its power at 0 m)
    /// less 41 dB (the Eddystone specification's loss over the first metre).
    public var measuredPower: Int8 { frame.powerAtOneMetre ?? -59 }

    /// Every beacon observation in an H4 event packet (empty for other events). A malformed event
    /// still yields the reports decoded before the defect; the defect is returned alongside.
    public static func observations(inEventPacket packet: [UInt8], timestamp: Double)
        -> (observations: [BeaconObservation], error: AdvertisingReportError?) {
        guard let batch = AdvertisingReports.decodePartial(eventPacket: packet) else { return ([], nil) }
        return (batch.reports.compactMap { BeaconObservation(report: $0, timestamp: timestamp) }, batch.error)
    }
}

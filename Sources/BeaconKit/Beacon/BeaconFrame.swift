// SPDX-License-Identifier: Apache-2.0
/// What one configured beacon advertises: an iBeacon, an AltBeacon, an Eddystone-UID or -URL frame,
/// or advertising data given as it is.
public indirect enum BeaconFrame: Hashable, Sendable {
    case iBeacon(IBeacon)
    case altBeacon(AltBeacon)
    case eddystone(Eddystone.Frame)
    /// A configured Eddystone-TLM beacon (`Telemetry`): its counts are filled in live by the session.
    case telemetry(Telemetry)
    /// AD structures as given (checked by `BeaconFrame.checkedData`).
    case data([UInt8])

    /// The config's name of each type (`type` in a config file).
    public enum Kind: String, CaseIterable, Sendable {
        case iBeacon = "ibeacon"
        case altBeacon = "altbeacon"
        case eddystoneUID = "eddystone-uid"
        case eddystoneURL = "eddystone-url"
        case eddystoneTLM = "eddystone-tlm"
        case data
    }

    public var kind: Kind {
        switch self {
        case .iBeacon: return .iBeacon
        case .altBeacon: return .altBeacon
        case .eddystone(.uid): return .eddystoneUID
        case .eddystone(.url): return .eddystoneURL
        case .eddystone(.tlm), .telemetry: return .eddystoneTLM
        case .data: return .data
        }
    }

    /// The advertising data, Flags first for every type but `data` (which is sent as given).
    public var advertisingData: [UInt8] {
        switch self {
        case let .iBeacon(b): return b.advertisingData
        case let .altBeacon(b): return b.advertisingData
        case let .eddystone(f): return f.advertisingData
        case let .telemetry(t): return Eddystone.Frame.tlm(t.tlm).advertisingData
        case let .data(d): return d
        }
    }

    /// An Eddystone-UID's or -URL's ranging data (its calibrated power at 0 m); nil for the others.
    public var eddystoneRangingData: Int8? {
        switch self {
        case let .eddystone(.uid(f)): return f.txPower
        case let .eddystone(.url(f)): return f.txPower
        default: return nil
        }
    }

    /// The RSSI at 1 m the frame advertises (an iBeacon's measured power, an AltBeacon's reference
    /// RSSI, an Eddystone-UID's or -URL's ranging data at 0 m less 41 dB); nil for the others.
    public var powerAtOneMetre: Int8? {
        switch self {
        case let .iBeacon(b): return b.measuredPower
        case let .altBeacon(b): return b.referenceRSSI
        case .eddystone(.uid), .eddystone(.url): return eddystoneRangingData.map { Int8(clamping: Int($0) - Eddystone.lossAtOneMetre) }
        case .eddystone(.tlm), .telemetry, .data: return nil
        }
    }

    /// The configured Eddystone-TLM, nil for the others.
    public var telemetry: Telemetry? {
        if case let .telemetry(t) = self { return t }
        return nil
    }

    /// The iBeacon, for what only an iBeacon has (CoreLocation regions, verify's field diff).
    public var iBeacon: IBeacon? {
        if case let .iBeacon(b) = self { return b }
        return nil
    }

    /// The bytes that make a beacon this one and not another (two beacons of a config may not share
    /// them): an iBeacon's UUID, major and minor; an AltBeacon's 20-byte beacon ID; an Eddystone-UID's
    /// namespace and instance; an Eddystone-URL's scheme and encoded URL; the whole of `data`. The
    /// type comes first, so an iBeacon and an AltBeacon with the same numbers differ.
    public var identity: [UInt8] {
        [UInt8(Kind.allCases.firstIndex(of: kind) ?? 0)] + identityFields
    }

    /// The identity without the type: what `StaticRandomAddress` hashes (an iBeacon's address stays
    /// the one it had before the other types existed).
    var identityFields: [UInt8] {
        switch self {
        case let .iBeacon(b):
            return b.uuid.bytes + [UInt8(b.major >> 8), UInt8(b.major & 0xff), UInt8(b.minor >> 8), UInt8(b.minor & 0xff)]
        case let .altBeacon(b):
            return b.id1.bytes + [UInt8(b.id2 >> 8), UInt8(b.id2 & 0xff), UInt8(b.id3 >> 8), UInt8(b.id3 & 0xff)]
        case let .eddystone(.uid(f)): return f.namespace + f.instance
        case let .eddystone(.url(f)): return [f.scheme] + f.encoded
        case let .eddystone(.tlm(f)): return f.frame
        case let .telemetry(t): return t.of.identityFields
        case let .data(d): return d
        }
    }

    /// One line naming the beacon: `E2C56DB5-… major 1 minor 2`, `altbeacon id1 … id2 1 id3 2`,
    /// `eddystone-uid namespace … instance …`, `eddystone-url https://…`, `data 0201060303aafe`.
    public var identityText: String {
        switch self {
        case let .iBeacon(b): return "\(b.uuid) major \(b.major) minor \(b.minor)"
        case let .altBeacon(b): return "altbeacon id1 \(b.id1) id2 \(b.id2) id3 \(b.id3)"
        case let .eddystone(.uid(f)): return "eddystone-uid namespace \(Hex.encode(f.namespace)) instance \(Hex.encode(f.instance))"
        case let .eddystone(.url(f)): return "eddystone-url \(f.url)"
        case .eddystone(.tlm): return "eddystone-tlm"
        case let .telemetry(t): return "eddystone-tlm of \(t.of.identityText)"
        case let .data(d): return "data \(Hex.encode(d))"
        }
    }

    /// `identityText` with the calibrated power at 1 m (iBeacon, AltBeacon) or 0 m (Eddystone).
    public var summary: String {
        switch self {
        case let .iBeacon(b): return identityText + " power \(b.measuredPower) dBm"
        case let .altBeacon(b): return identityText + " reference RSSI \(b.referenceRSSI) dBm"
        case let .eddystone(.uid(f)): return identityText + " ranging data \(f.txPower) dBm"
        case let .eddystone(.url(f)): return identityText + " ranging data \(f.txPower) dBm"
        case .eddystone(.tlm), .telemetry, .data: return identityText
        }
    }

    /// The legacy advertising data limit (LE Set Advertising Data): 31 bytes.
    public static let maximumDataLength = 31

    /// Raw advertising data for `.data`: well-formed AD structures (each length byte covers its type
    /// and data, none runs past the end, no zero-length structure before the end) of at most 31
    /// bytes, the most a legacy advertising PDU carries and what every beacon-tx path can send.
    public static func checkedData(_ bytes: [UInt8]) throws(DataError) -> BeaconFrame {
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= maximumDataLength else { throw .tooLong(bytes.count) }
        var i = 0
        while i < bytes.count {
            let length = Int(bytes[i])
            guard length > 0 else { throw .zeroLength(offset: i) }
            guard i + 1 + length <= bytes.count else { throw .overrun(offset: i, length: length, remaining: bytes.count - i - 1) }
            i += 1 + length
        }
        return .data(bytes)
    }

    public enum DataError: Error, Equatable, Sendable, CustomStringConvertible {
        case empty
        case tooLong(Int)
        case zeroLength(offset: Int)
        case overrun(offset: Int, length: Int, remaining: Int)

        public var description: String {
            switch self {
            case .empty: return "no bytes (1–31 bytes of AD structures)"
            case let .tooLong(n): return "\(n) bytes, more than the \(BeaconFrame.maximumDataLength) an advertising PDU carries"
            case let .zeroLength(o): return "a zero length at byte \(o): each AD structure is a length (1–30), a type and its data"
            case let .overrun(o, l, r): return "the AD structure at byte \(o) says \(l) bytes but \(r) follow"
            }
        }
    }
}

extension BeaconFrame {
    /// The beacon that advertising data carries: an iBeacon, an AltBeacon or an Eddystone frame, in
    /// that order; nil for other data (a `.data` beacon is matched by its bytes).
    public init?(parsing data: [UInt8]) {
        if let b = IBeacon(advertisingData: data) {
            self = .iBeacon(b)
        } else if let b = AltBeacon(advertisingData: data) {
            self = .altBeacon(b)
        } else if let f = Eddystone.Frame(advertisingData: data) {
            self = .eddystone(f)
        } else {
            return nil
        }
    }

    /// Each field as text, by the name a difference is reported with (`iBeacon minor`,
    /// `altbeacon id2`, `eddystone-url url`).
    public var fields: [(name: String, value: String)] {
        switch self {
        case let .iBeacon(b):
            return [("iBeacon uuid", b.uuid.description), ("iBeacon major", "\(b.major)"), ("iBeacon minor", "\(b.minor)"),
                    ("iBeacon measured power", "\(b.measuredPower)")]
        case let .altBeacon(b):
            return [("altbeacon id1", b.id1.description), ("altbeacon id2", "\(b.id2)"), ("altbeacon id3", "\(b.id3)"),
                    ("altbeacon reference RSSI", "\(b.referenceRSSI)"), ("altbeacon manufacturer", "\(b.manufacturer)"),
                    ("altbeacon reserved", "\(b.reserved)")]
        case let .eddystone(.uid(f)):
            return [("eddystone-uid namespace", Hex.encode(f.namespace)), ("eddystone-uid instance", Hex.encode(f.instance)),
                    ("eddystone-uid ranging data", "\(f.txPower)")]
        case let .eddystone(.url(f)):
            return [("eddystone-url url", f.url), ("eddystone-url ranging data", "\(f.txPower)")]
        case let .eddystone(.tlm(f)):
            return Self.telemetryFields(f, measured: f.celsius != nil)
        case let .telemetry(t):
            return Self.telemetryFields(t.tlm, measured: t.temperatureSource != nil)
        case let .data(d):
            return [("advertising data", Hex.encode(d))]
        }
    }

    /// The counts (and a measured temperature) are live: a TLM is compared by what is configured.
    static func telemetryFields(_ f: Eddystone.TLM, measured: Bool) -> [(name: String, value: String)] {
        [("eddystone-tlm version", "\(Eddystone.TLM.version)"), ("eddystone-tlm battery", "\(f.batteryMillivolts) mV"),
         ("eddystone-tlm temperature", measured ? "measured" : "not supported")]
    }

    /// The fields in which `actual` differs from `self`: field by field within one type, the type
    /// itself (and the bytes) across types.
    public func differences(_ command: String, actual: BeaconFrame) -> [FieldDifference] {
        guard actual.kind == kind else {
            return [FieldDifference(command: command, field: "beacon type", expected: kind.rawValue, actual: actual.kind.rawValue)]
        }
        return zip(fields, actual.fields).filter { $0.0.value != $0.1.value }
            .map { FieldDifference(command: command, field: $0.0.name, expected: $0.0.value, actual: $0.1.value) }
    }
}

/// A configured Eddystone-TLM beacon: the telemetry of the Eddystone-UID or -URL beacon `of`, whose
/// identity (and so, with an address per set, its address) it shares, as the specification wants a
/// TLM frame sent from its identifying frame's address. `tlm` holds what is configured (battery 0:
/// mains powered) and, once the session fills them in, the live counts and temperature.
public struct Telemetry: Hashable, Sendable {
    public var tlm: Eddystone.TLM
    public var of: BeaconFrame
    /// Where the temperature is read (a thermal zone's file, in millidegrees Celsius), by the reader the
    /// session is given; nil: not measured (0x8000). The core never opens it.
    public var temperatureSource: String?

    public init(tlm: Eddystone.TLM = Eddystone.TLM(advertisingPDUCount: 0, uptimeTenths: 0), of: BeaconFrame, temperatureSource: String? = nil) {
        self.tlm = tlm
        self.of = of
        self.temperatureSource = temperatureSource
    }
}

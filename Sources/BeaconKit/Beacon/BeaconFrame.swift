// SPDX-License-Identifier: Apache-2.0
/// What one configured beacon advertises: an iBeacon, an AltBeacon, an Eddystone-UID or -URL frame,
/// or advertising data given as it is.
public enum BeaconFrame: Hashable, Sendable {
    case iBeacon(IBeacon)
    case altBeacon(AltBeacon)
    case eddystone(Eddystone.Frame)
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
        case .eddystone(.tlm): return .eddystoneTLM
        case .data: return .data
        }
    }

    /// The advertising data, Flags first for every type but `data` (which is sent as given).
    public var advertisingData: [UInt8] {
        switch self {
        case let .iBeacon(b): return b.advertisingData
        case let .altBeacon(b): return b.advertisingData
        case let .eddystone(f): return f.advertisingData
        case let .data(d): return d
        }
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
        case .eddystone(.tlm), .data: return identityText
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

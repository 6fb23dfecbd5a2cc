// SPDX-License-Identifier: Apache-2.0
/// Eddystone, Google's open beacon format (its protocol specification): every frame travels as the
/// Service Data of the 16-bit UUID 0xFEAA, after the Flags and a Complete List of 16-bit Service
/// UUIDs that names 0xFEAA. The first byte of the service data after the UUID is the frame type.
public enum Eddystone {
    /// The Eddystone service UUID, little-endian on air: `AA FE`.
    public static let serviceUUID: UInt16 = 0xFEAA
    /// The ranging data is the power at 0 m; the specification's rule of thumb puts 1 m 41 dB lower.
    public static let lossAtOneMetre = 41

    public enum FrameType: UInt8, Sendable {
        case uid = 0x00
        case url = 0x10
        case tlm = 0x20
    }

    /// Eddystone-UID: a 10-byte namespace and a 6-byte instance, with the ranging data (the
    /// calibrated TX power at 0 m). Frame: `00 <tx> <namespace> <instance> 00 00` (two RFU bytes).
    public struct UID: Hashable, Sendable {
        public let namespace: [UInt8]
        public let instance: [UInt8]
        public var txPower: Int8

        public static let namespaceLength = 10
        public static let instanceLength = 6

        /// Nil unless the namespace has 10 bytes and the instance 6.
        public init?(namespace: [UInt8], instance: [UInt8], txPower: Int8) {
            guard namespace.count == Self.namespaceLength, instance.count == Self.instanceLength else { return nil }
            self.namespace = namespace
            self.instance = instance
            self.txPower = txPower
        }

        /// The 20 frame bytes (frame type first).
        public var frame: [UInt8] {
            [FrameType.uid.rawValue, UInt8(bitPattern: txPower)] + namespace + instance + [0x00, 0x00]
        }

        /// Parses a UID frame (frame type first). The RFU bytes may be absent, as some beacons send
        /// 18 bytes; when present they are ignored.
        init?(frame: [UInt8]) {
            guard frame.count == 18 || frame.count == 20, frame.first == FrameType.uid.rawValue else { return nil }
            self.init(namespace: Array(frame[2..<12]), instance: Array(frame[12..<18]), txPower: Int8(bitPattern: frame[1]))
        }
    }

    /// Eddystone-URL: a URL in the specification's compressed form (a scheme prefix code, then at
    /// most 17 bytes of text and expansion codes), with the TX power at 0 m.
    /// Frame: `10 <tx> <scheme> <encoded URL>`.
    public struct URL: Hashable, Sendable {
        /// The URL as given (and as decoded from the frame).
        public let url: String
        public var txPower: Int8
        public let scheme: UInt8
        public let encoded: [UInt8]

        /// The scheme prefixes, by code.
        public static let schemes: [String] = ["http://www.", "https://www.", "http://", "https://"]
        /// The expansion codes 0x00-0x0D, by code; 0x0E-0x20 and 0x7F-0xFF are reserved.
        public static let expansions: [String] = [
            ".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
            ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov",
        ]
        /// At most this many bytes after the scheme code.
        public static let maximumEncodedLength = 17

        /// Encodes `url`: the longest scheme prefix that matches, then at each place the longest
        /// expansion that matches, else the character itself (printable ASCII, 0x21-0x7E).
        public init(_ url: String, txPower: Int8) throws(URLError) {
            let bytes = Array(url.utf8)
            guard let scheme = Self.longestMatch(Self.schemes, in: bytes, at: 0) else { throw .noScheme }
            var i = Self.schemes[Int(scheme)].utf8.count
            var out: [UInt8] = []
            while i < bytes.count {
                if let code = Self.longestMatch(Self.expansions, in: bytes, at: i) {
                    out.append(code)
                    i += Self.expansions[Int(code)].utf8.count
                } else {
                    guard (0x21...0x7E).contains(bytes[i]) else { throw .characterNotAllowed(offset: i, byte: bytes[i]) }
                    out.append(bytes[i])
                    i += 1
                }
            }
            guard out.count <= Self.maximumEncodedLength else { throw .tooLong(encodedLength: out.count) }
            self.url = url
            self.txPower = txPower
            self.scheme = scheme
            self.encoded = out
        }

        /// The 3 to 20 frame bytes (frame type first).
        public var frame: [UInt8] { [FrameType.url.rawValue, UInt8(bitPattern: txPower), scheme] + encoded }

        /// Parses a URL frame (frame type first): a known scheme, no reserved code, at most 17 bytes.
        init?(frame: [UInt8]) {
            guard frame.count >= 3, frame.count <= 3 + Self.maximumEncodedLength, frame[0] == FrameType.url.rawValue,
                  Int(frame[2]) < Self.schemes.count else { return nil }
            var text = Self.schemes[Int(frame[2])]
            for b in frame[3...] {
                if Int(b) < Self.expansions.count {
                    text += Self.expansions[Int(b)]
                } else if (0x21...0x7E).contains(b) {
                    text.unicodeScalars.append(Unicode.Scalar(b))
                } else {
                    return nil
                }
            }
            url = text
            txPower = Int8(bitPattern: frame[1])
            scheme = frame[2]
            encoded = Array(frame[3...])
        }

        /// The code of the longest entry of `table` that `bytes` holds at `offset`.
        static func longestMatch(_ table: [String], in bytes: [UInt8], at offset: Int) -> UInt8? {
            var best: (code: Int, length: Int)?
            for (code, entry) in table.enumerated() {
                let e = Array(entry.utf8)
                guard offset + e.count <= bytes.count, bytes[offset..<(offset + e.count)].elementsEqual(e) else { continue }
                if e.count > (best?.length ?? 0) { best = (code, e.count) }
            }
            return best.map { UInt8($0.code) }
        }
    }

    public enum URLError: Error, Equatable, Sendable, CustomStringConvertible {
        case noScheme
        case characterNotAllowed(offset: Int, byte: UInt8)
        case tooLong(encodedLength: Int)

        public var description: String {
            switch self {
            case .noScheme: return "must start with http:// or https://"
            case let .characterNotAllowed(offset, byte):
                return "byte \(offset) (\(Hex.byte(byte))) is not allowed: only printable ASCII without spaces (0x21-0x7E)"
            case let .tooLong(n):
                return "encodes to \(n) bytes after the scheme; Eddystone-URL carries at most \(URL.maximumEncodedLength) (a shorter URL or a URL shortener helps)"
            }
        }
    }

    /// Eddystone-TLM (unencrypted, version 0): the beacon's telemetry. Frame:
    /// `20 00 <VBATT, mV> <TEMP, 8.8 fixed point> <ADV_CNT> <SEC_CNT, 0.1 s>`, all big-endian.
    public struct TLM: Hashable, Sendable {
        /// Battery voltage in mV; 0 when not battery powered.
        public var batteryMillivolts: UInt16
        /// Temperature in 1/256 °C (signed 8.8 fixed point); `temperatureNotSupported` when unknown.
        public var temperature: Int16
        /// Advertising PDUs sent since power-on or reboot.
        public var advertisingPDUCount: UInt32
        /// Time since power-on or reboot, in 0.1 s.
        public var uptimeTenths: UInt32

        /// 0x8000: the beacon does not measure its temperature.
        public static let temperatureNotSupported = Int16(bitPattern: 0x8000)
        public static let version: UInt8 = 0x00

        public init(batteryMillivolts: UInt16 = 0, temperature: Int16 = TLM.temperatureNotSupported, advertisingPDUCount: UInt32, uptimeTenths: UInt32) {
            self.batteryMillivolts = batteryMillivolts
            self.temperature = temperature
            self.advertisingPDUCount = advertisingPDUCount
            self.uptimeTenths = uptimeTenths
        }

        /// The 14 frame bytes (frame type first).
        public var frame: [UInt8] {
            var w = ByteWriter(capacity: 14)
            w.writeUInt8(FrameType.tlm.rawValue)
            w.writeUInt8(Self.version)
            w.writeUInt16BE(batteryMillivolts)
            w.writeUInt16BE(UInt16(bitPattern: temperature))
            w.writeUInt32BE(advertisingPDUCount)
            w.writeUInt32BE(uptimeTenths)
            return w.bytes
        }

        /// The temperature in °C, or nil when not supported.
        public var celsius: Double? {
            temperature == Self.temperatureNotSupported ? nil : Double(temperature) / 256
        }

        /// Parses an unencrypted TLM frame (frame type first), or nil.
        init?(frame: [UInt8]) {
            var r = ByteReader(frame)
            guard frame.count == 14, (try? r.readUInt8()) == FrameType.tlm.rawValue, (try? r.readUInt8()) == Self.version,
                  let battery = try? r.readUInt16BE(), let temperature = try? r.readUInt16BE(),
                  let count = try? r.readUInt32BE(), let uptime = try? r.readUInt32BE() else { return nil }
            self.init(batteryMillivolts: battery, temperature: Int16(bitPattern: temperature), advertisingPDUCount: count, uptimeTenths: uptime)
        }
    }

    /// One Eddystone frame.
    public enum Frame: Hashable, Sendable {
        case uid(UID)
        case url(URL)
        case tlm(TLM)

        public var frame: [UInt8] {
            switch self {
            case let .uid(f): return f.frame
            case let .url(f): return f.frame
            case let .tlm(f): return f.frame
            }
        }

        /// The service data after the AD type: the UUID (`AA FE`), then the frame.
        public var serviceData: [UInt8] {
            var w = ByteWriter(capacity: 2 + frame.count)
            w.writeUInt16LE(Eddystone.serviceUUID)
            w.writeBytes(frame)
            return w.bytes
        }

        /// The advertising data: Flags `02 01 06`, `03 03 AA FE`, then `LL 16 AA FE <frame>`
        /// (31 bytes for a UID, 14 to 31 for a URL, 25 for a TLM).
        public var advertisingData: [UInt8] {
            var w = ByteWriter(capacity: 31)
            w.writeBytes(ADStructure(type: .flags, data: [IBeacon.flags]).encoded)
            var uuid = ByteWriter(capacity: 2)
            uuid.writeUInt16LE(Eddystone.serviceUUID)
            w.writeBytes(ADStructure(type: .completeList16BitServiceUUIDs, data: uuid.bytes).encoded)
            w.writeBytes(ADStructure(type: .serviceData16BitUUID, data: serviceData).encoded)
            return w.bytes
        }

        /// Parses Eddystone service data (the UUID first), or nil for another service or an unknown
        /// or malformed frame.
        public init?(serviceData data: [UInt8]) {
            var r = ByteReader(data)
            guard let uuid = try? r.readUInt16LE(), uuid == Eddystone.serviceUUID else { return nil }
            let frame = r.readRest()
            switch frame.first.flatMap(FrameType.init(rawValue:)) {
            case .uid: guard let f = UID(frame: frame) else { return nil }; self = .uid(f)
            case .url: guard let f = URL(frame: frame) else { return nil }; self = .url(f)
            case .tlm: guard let f = TLM(frame: frame) else { return nil }; self = .tlm(f)
            case nil: return nil
            }
        }

        /// Finds an Eddystone frame in advertising data (the service data AD, any order), or nil.
        public init?(advertisingData data: [UInt8]) {
            guard let structures = try? ADStructure.parse(data),
                  let found = structures.lazy.filter({ $0.type == .serviceData16BitUUID })
                      .compactMap({ Frame(serviceData: $0.data) }).first else { return nil }
            self = found
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
/// An iBeacon region as a base station advertises it (Apple Proximity Beacon Specification, release R1):
/// proximity UUID, major, minor and the measured power (RSSI in dBm at 1 m).
public struct IBeacon: Hashable, Sendable {
    public var uuid: ProximityUUID
    public var major: UInt16
    public var minor: UInt16
    /// Calibrated RSSI at 1 m, signed dBm (Apple: "Measured Power").
    public var measuredPower: Int8
    /// Optional human name (CoreLocation's region identifier); not advertised.
    public var identifier: String?

    public init(uuid: ProximityUUID, major: UInt16, minor: UInt16, measuredPower: Int8 = -59, identifier: String? = nil) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.measuredPower = measuredPower
        self.identifier = identifier
    }

    /// Apple's company identifier (Bluetooth SIG assigned numbers), little-endian on air: `4C 00`.
    public static let appleCompanyIdentifier: UInt16 = 0x004C
    /// iBeacon type and length inside Apple's manufacturer data: `02 15`.
    public static let beaconType: UInt8 = 0x02
    public static let beaconDataLength: UInt8 = 0x15
    /// Flags AD: LE General Discoverable Mode, BR/EDR Not Supported.
    public static let flags: UInt8 = 0x06

    /// The 25-byte manufacturer-specific payload after the AD type: company id, type, length, UUID,
    /// major (BE), minor (BE), measured power.
    public var manufacturerData: [UInt8] {
        var w = ByteWriter(capacity: 25)
        w.writeUInt16LE(Self.appleCompanyIdentifier)
        w.writeUInt8(Self.beaconType)
        w.writeUInt8(Self.beaconDataLength)
        w.writeBytes(uuid.bytes)
        w.writeUInt16BE(major)
        w.writeUInt16BE(minor)
        w.writeInt8(measuredPower)
        return w.bytes
    }

    /// The 30-byte advertising data: Flags `02 01 06` + manufacturer data `1A FF 4C 00 02 15 ...`.
    public var advertisingData: [UInt8] {
        var w = ByteWriter(capacity: 30)
        w.writeBytes(ADStructure(type: .flags, data: [Self.flags]).encoded)
        w.writeBytes(ADStructure(type: .manufacturerSpecificData, data: manufacturerData).encoded)
        return w.bytes
    }

    /// Parses Apple manufacturer-specific data (company id first) as an iBeacon, or nil.
    public init?(manufacturerData data: [UInt8]) {
        var r = ByteReader(data)
        guard let company = try? r.readUInt16LE(), company == Self.appleCompanyIdentifier,
              let type = try? r.readUInt8(), type == Self.beaconType,
              let length = try? r.readUInt8(), length == Self.beaconDataLength, r.remaining == 21,
              let uuidBytes = try? r.readBytes(16), let uuid = ProximityUUID(bytes: uuidBytes),
              let major = try? r.readUInt16BE(), let minor = try? r.readUInt16BE(),
              let power = try? r.readInt8() else { return nil }
        self.init(uuid: uuid, major: major, minor: minor, measuredPower: power)
    }

    /// Finds an iBeacon in advertising data (any AD structure order), or nil.
    public init?(advertisingData data: [UInt8]) {
        guard let structures = try? ADStructure.parse(data),
              let found = structures.lazy.filter({ $0.type == .manufacturerSpecificData })
                  .compactMap({ IBeacon(manufacturerData: $0.data) }).first else { return nil }
        self = found
    }
}

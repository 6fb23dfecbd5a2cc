// SPDX-License-Identifier: Apache-2.0
/// An AltBeacon (the AltBeacon Technical Specification, the open format of the Android Beacon
/// Library): after the Flags, one manufacturer specific AD structure of 27 bytes,
/// `1B FF <MFG ID, LE> BE AC <beacon ID: 20 bytes> <reference RSSI> <MFG RSVD>`. The 20-byte beacon
/// ID is split as the library reads it: `id1` (16 bytes, UUID form), `id2` and `id3` (big-endian).
public struct AltBeacon: Hashable, Sendable {
    public var id1: ProximityUUID
    public var id2: UInt16
    public var id3: UInt16
    /// Average RSSI at 1 m from the advertiser, signed dBm ("Ref RSSI").
    public var referenceRSSI: Int8
    /// The beacon maker's company identifier ("MFG ID"), little-endian on air.
    public var manufacturer: UInt16
    /// The manufacturer's reserved byte ("MFG RSVD").
    public var reserved: UInt8

    public init(id1: ProximityUUID, id2: UInt16, id3: UInt16, referenceRSSI: Int8 = -59,
                manufacturer: UInt16 = AltBeacon.radiusNetworks, reserved: UInt8 = 0) {
        self.id1 = id1
        self.id2 = id2
        self.id3 = id3
        self.referenceRSSI = referenceRSSI
        self.manufacturer = manufacturer
        self.reserved = reserved
    }

    /// Radius Networks' company identifier (Bluetooth SIG assigned numbers), the library's default.
    public static let radiusNetworks: UInt16 = 0x0118
    /// The beacon code, big-endian on air: `BE AC`.
    public static let beaconCode: UInt16 = 0xBEAC
    /// Bytes of manufacturer data after the AD type: MFG ID 2, code 2, beacon ID 20, RSSI 1, RSVD 1.
    static let manufacturerDataLength = 26

    /// The 26 bytes after the AD type: MFG ID (LE), beacon code, id1, id2 (BE), id3 (BE), reference
    /// RSSI, reserved.
    public var manufacturerData: [UInt8] {
        var w = ByteWriter(capacity: Self.manufacturerDataLength)
        w.writeUInt16LE(manufacturer)
        w.writeUInt16BE(Self.beaconCode)
        w.writeBytes(id1.bytes)
        w.writeUInt16BE(id2)
        w.writeUInt16BE(id3)
        w.writeInt8(referenceRSSI)
        w.writeUInt8(reserved)
        return w.bytes
    }

    /// The 31-byte advertising data: Flags `02 01 06`, then `1B FF ...`.
    public var advertisingData: [UInt8] {
        ADStructure(type: .flags, data: [IBeacon.flags]).encoded + ADStructure(type: .manufacturerSpecificData, data: manufacturerData).encoded
    }

    /// Parses manufacturer specific data (MFG ID first) as an AltBeacon, or nil: any company
    /// identifier, the beacon code, exactly 26 bytes.
    public init?(manufacturerData data: [UInt8]) {
        var r = ByteReader(data)
        guard data.count == Self.manufacturerDataLength,
              let manufacturer = try? r.readUInt16LE(), let code = try? r.readUInt16BE(), code == Self.beaconCode,
              let idBytes = try? r.readBytes(16), let id1 = ProximityUUID(bytes: idBytes),
              let id2 = try? r.readUInt16BE(), let id3 = try? r.readUInt16BE(),
              let rssi = try? r.readInt8(), let reserved = try? r.readUInt8() else { return nil }
        self.init(id1: id1, id2: id2, id3: id3, referenceRSSI: rssi, manufacturer: manufacturer, reserved: reserved)
    }

    /// Finds an AltBeacon in advertising data (any AD structure order), or nil.
    public init?(advertisingData data: [UInt8]) {
        guard let structures = try? ADStructure.parse(data),
              let found = structures.lazy.filter({ $0.type == .manufacturerSpecificData })
                  .compactMap({ AltBeacon(manufacturerData: $0.data) }).first else { return nil }
        self = found
    }
}

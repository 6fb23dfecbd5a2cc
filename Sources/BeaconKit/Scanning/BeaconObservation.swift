// SPDX-License-Identifier: Apache-2.0
/// What identifies one iBeacon (Apple Proximity Beacon Specification): proximity UUID, major, minor.
public struct BeaconIdentity: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var uuid: ProximityUUID
    public var major: UInt16
    public var minor: UInt16

    public init(uuid: ProximityUUID, major: UInt16, minor: UInt16) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
    }

    public init(_ beacon: IBeacon) {
        self.init(uuid: beacon.uuid, major: beacon.major, minor: beacon.minor)
    }

    /// Byte order of the UUID, then major, then minor.
    public static func < (a: BeaconIdentity, b: BeaconIdentity) -> Bool {
        if a.uuid != b.uuid { return a.uuid.bytes.lexicographicallyPrecedes(b.uuid.bytes) }
        if a.major != b.major { return a.major < b.major }
        return a.minor < b.minor
    }

    /// `E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2`, the form `BeaconRegion` parses.
    public var description: String { "\(uuid):\(major):\(minor)" }
}

/// One received iBeacon advertisement. `timestamp` is seconds on any monotonic clock the caller
/// chooses: the core never reads a clock.
public struct BeaconObservation: Hashable, Sendable {
    public var beacon: IBeacon
    /// Advertiser address, `AA:BB:CC:DD:EE:FF`.
    public var address: String
    public var addressType: AdvertisingReport.AddressType
    /// dBm; nil when the controller reported 127 (not available).
    public var rssi: Int8?
    public var timestamp: Double

    public init(beacon: IBeacon, address: String, addressType: AdvertisingReport.AddressType = .publicDevice,
                rssi: Int8?, timestamp: Double) {
        self.beacon = beacon
        self.address = address
        self.addressType = addressType
        self.rssi = rssi
        self.timestamp = timestamp
    }

    /// The iBeacon in a report's advertising data, or nil (other advertisers, scan responses, AD
    /// structures that do not parse).
    public init?(report: AdvertisingReport, timestamp: Double) {
        guard let beacon = IBeacon(advertisingData: report.data) else { return nil }
        self.init(beacon: beacon, address: report.address, addressType: report.addressType,
                  rssi: report.rssi, timestamp: timestamp)
    }

    public var identity: BeaconIdentity { BeaconIdentity(beacon) }

    /// Every iBeacon observation in an H4 event packet (empty for other events). A malformed event
    /// still yields the reports decoded before the defect; the defect is returned alongside.
    public static func observations(inEventPacket packet: [UInt8], timestamp: Double)
        -> (observations: [BeaconObservation], error: AdvertisingReportError?) {
        guard let batch = AdvertisingReports.decodePartial(eventPacket: packet) else { return ([], nil) }
        return (batch.reports.compactMap { BeaconObservation(report: $0, timestamp: timestamp) }, batch.error)
    }
}

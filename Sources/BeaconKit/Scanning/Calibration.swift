// SPDX-License-Identifier: Apache-2.0
/// Statistics of RSSI samples taken with one beacon held at 1 m: what its `measuredPower` (the
/// iBeacon "Measured Power", RSSI at 1 m in dBm) should be for the receiver that took them.
public struct CalibrationStatistics: Hashable, Sendable {
    /// Samples used (RSSI "not available" excluded).
    public var sampleCount: Int
    /// dBm.
    public var mean: Double
    /// dBm; the mean of the two middle samples when the count is even.
    public var median: Double
    /// dBm: the mean after dropping the lowest and the highest `trimmedPerEnd` samples.
    public var trimmedMean: Double
    /// floor(10 % of the count) samples dropped at each end (none below 10 samples).
    public var trimmedPerEnd: Int
    /// The trimmed mean rounded half away from zero, clamped to `measuredPowerRange`.
    public var suggestedMeasuredPower: Int8

    /// What an iBeacon's measured power can carry in beacon-tx's config (the `measuredPower` key).
    public static let measuredPowerRange: ClosedRange<Int> = -127...20
}

extension CalibrationStatistics {
    /// nil when there are no samples.
    public init?(samples: [Int8]) {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.map(Int.init).sorted()
        let n = sorted.count
        sampleCount = n
        mean = Double(sorted.reduce(0, +)) / Double(n)
        median = n % 2 == 1 ? Double(sorted[n / 2]) : Double(sorted[n / 2 - 1] + sorted[n / 2]) / 2
        trimmedPerEnd = n / 10
        let kept = sorted[trimmedPerEnd..<(n - trimmedPerEnd)]
        trimmedMean = Double(kept.reduce(0, +)) / Double(kept.count)
        let rounded = Int(trimmedMean.rounded(.toNearestOrAwayFromZero))
        let clamped = min(max(rounded, Self.measuredPowerRange.lowerBound), Self.measuredPowerRange.upperBound)
        suggestedMeasuredPower = Int8(truncatingIfNeeded: clamped)
    }
}

/// The receive side of `scan --calibrate`, pure: fed advertising reports, it keeps the RSSI samples
/// of the beacons in `region`. Calibration is for one beacon: every distinct identity heard in the
/// region is kept in `identities` so the caller can refuse a second one.
public struct Calibration: Sendable {
    public let region: BeaconRegion
    /// The controller scanned on: its "down" or "unregistered" event ends the calibration.
    public let deviceID: UInt16
    /// RSSI of each report of the first beacon heard in the region (127 = not available excluded).
    public private(set) var samples: [Int8] = []
    /// Reports of that beacon whose RSSI was 127 (not available).
    public private(set) var unavailableCount = 0
    /// Each beacon heard in the region, in the order first heard.
    public private(set) var identities: [BeaconIdentity] = []
    /// The measured power the first beacon advertises now.
    public private(set) var advertisedMeasuredPower: Int8?
    /// Advertising reports received (any advertiser).
    public private(set) var reportCount = 0

    public init(region: BeaconRegion, deviceID: UInt16 = 0) {
        self.region = region
        self.deviceID = deviceID
    }

    /// Reports of the first beacon (with or without an RSSI).
    public var reportsOfBeacon: Int { samples.count + unavailableCount }

    /// The statistics so far; nil without a sample.
    public var statistics: CalibrationStatistics? { CalibrationStatistics(samples: samples) }

    /// One H4 packet: a controller failure throws; other events and malformed reports are ignored.
    public mutating func receive(_ packet: [UInt8]) throws(ControllerFailure) {
        guard let event = try? HCIEvent(packet: packet) else { return }
        try receive(event)
    }

    public mutating func receive(_ event: HCIEvent) throws(ControllerFailure) {
        if let failure = ControllerFailure(event, deviceID: deviceID) { throw failure }
        guard let batch = AdvertisingReports.decodePartial(event: event) else { return }
        for report in batch.reports { observe(report) }
    }

    public mutating func observe(_ report: AdvertisingReport) {
        reportCount += 1
        guard let beacon = IBeacon(advertisingData: report.data), region.matches(beacon) else { return }
        let id = BeaconIdentity(beacon)
        if !identities.contains(id) { identities.append(id) }
        guard id == identities.first else { return }
        advertisedMeasuredPower = beacon.measuredPower
        if let rssi = report.rssi { samples.append(rssi) } else { unavailableCount += 1 }
    }
}

// SPDX-License-Identifier: Apache-2.0
/// How ranging turns RSSI samples into a distance and a proximity class.
public struct RangingConfiguration: Hashable, Sendable {
    /// Seconds of RSSI history averaged into `smoothedRSSI`. A time window (not a sample count) keeps the
    /// lag the same whatever a beacon's advertising interval (100 ms or 1 s). Default 5 s.
    public var smoothingWindow: Double
    /// Upper bound on samples kept per beacon (a fast advertiser shortens its effective window). Default 100.
    public var maximumSamples: Int
    /// A beacon not seen for this many seconds is dropped from the ranged list. Default 10 s.
    public var forgetAfter: Double
    public var pathLoss: PathLossModel
    public var thresholds: ProximityThresholds

    public init(smoothingWindow: Double = 5, maximumSamples: Int = 100, forgetAfter: Double = 10,
                pathLoss: PathLossModel = .freeSpace, thresholds: ProximityThresholds = .standard) {
        self.smoothingWindow = smoothingWindow
        self.maximumSamples = maximumSamples
        self.forgetAfter = forgetAfter
        self.pathLoss = pathLoss
        self.thresholds = thresholds
    }
}

/// One beacon as ranging reports it (CoreLocation's `CLBeacon`).
public struct RangedBeacon: Hashable, Sendable {
    public var identity: BeaconIdentity
    /// The latest advertisement's frame (its ranging power as the type names it).
    public var frame: BeaconFrame
    /// From the latest advertisement: RSSI at 1 m in dBm (`BeaconObservation.measuredPower`).
    public var measuredPower: Int8
    /// Latest advertiser address (`AA:BB:CC:DD:EE:FF`).
    public var address: String
    /// RSSI of the latest advertisement; nil when it was 127 (not available).
    public var rssi: Int8?
    /// Arithmetic mean, in dBm, of the RSSI samples of the last `smoothingWindow` seconds; nil without one.
    public var smoothedRSSI: Double?
    /// Samples behind `smoothedRSSI`.
    public var sampleCount: Int
    /// Meters by the path loss model from `smoothedRSSI` (CoreLocation's `accuracy`); nil when unknown.
    public var distance: Double?
    public var proximity: Proximity
    /// Timestamp of the latest advertisement, with or without RSSI.
    public var lastSeen: Double
    /// An Eddystone beacon's latest telemetry (Eddystone-TLM from the same address); nil without one.
    public var telemetry: Eddystone.TLM?

    public init(identity: BeaconIdentity, frame: BeaconFrame, measuredPower: Int8, address: String, rssi: Int8?, smoothedRSSI: Double?,
                sampleCount: Int, distance: Double?, proximity: Proximity, lastSeen: Double, telemetry: Eddystone.TLM? = nil) {
        self.identity = identity
        self.frame = frame
        self.telemetry = telemetry
        self.measuredPower = measuredPower
        self.address = address
        self.rssi = rssi
        self.smoothedRSSI = smoothedRSSI
        self.sampleCount = sampleCount
        self.distance = distance
        self.proximity = proximity
        self.lastSeen = lastSeen
    }
}

/// Ranging as CoreLocation does it: every beacon seen, with its latest and smoothed RSSI, an estimated
/// distance and a proximity class, closest first. Pure: the caller passes every timestamp.
///
/// Cost: `observe`, `ranged(_:now:)` and `prune(now:)` are O(1) amortised in the number of beacons
/// tracked (the per-beacon sample list is bounded by `maximumSamples`); beacons unseen for
/// `forgetAfter` seconds are dropped, so memory follows the beacons in that window, not the run's length.
/// Only `range(now:in:)`, which lists and sorts them all, costs O(n log n).
public struct BeaconRanger: Sendable {
    struct Track: Sendable {
        var frame: BeaconFrame
        var measuredPower: Int8
        var address: String
        var rssi: Int8?
        var lastSeen: Double
        /// (timestamp, dBm), oldest first.
        var samples: [(time: Double, rssi: Int8)]
    }

    public var configuration: RangingConfiguration
    var tracks: [BeaconIdentity: Track] = [:]
    /// (time, identity) of every observation in arrival order, from `sightingsStart` on: the oldest
    /// first, so pruning looks only at what may have expired. An entry whose track was seen again
    /// later is stale and skipped.
    var sightings: [(time: Double, identity: BeaconIdentity)] = []
    var sightingsStart = 0

    public init(configuration: RangingConfiguration = RangingConfiguration()) {
        self.configuration = configuration
    }

    /// Beacons currently tracked.
    public var count: Int { tracks.count }

    /// Records one advertisement. An RSSI of nil (127) updates the address and last seen time but adds no sample.
    /// Returns true when the beacon was not tracked before (first seen, or seen again after being forgotten).
    @discardableResult
    public mutating func observe(_ observation: BeaconObservation) -> Bool {
        let id = observation.identity
        let existing = tracks[id]
        var track = existing ?? Track(frame: observation.frame, measuredPower: observation.measuredPower, address: observation.address,
                                      rssi: nil, lastSeen: observation.timestamp, samples: [])
        track.frame = observation.frame
        track.measuredPower = observation.measuredPower
        track.address = observation.address
        track.rssi = observation.rssi
        track.lastSeen = max(track.lastSeen, observation.timestamp)
        if let rssi = observation.rssi {
            track.samples.append((observation.timestamp, rssi))
            let cutoff = track.lastSeen - configuration.smoothingWindow
            track.samples.removeAll { $0.time <= cutoff }
            let excess = track.samples.count - max(1, configuration.maximumSamples)
            if excess > 0 { track.samples.removeFirst(excess) }
        }
        tracks[id] = track
        sightings.append((track.lastSeen, id))
        return existing == nil
    }

    /// Drops the beacons unseen for `forgetAfter` seconds at `now` and returns them. O(1) amortised:
    /// each observation is looked at once here.
    @discardableResult
    public mutating func prune(now: Double) -> [BeaconIdentity] {
        let forgetBefore = now - configuration.forgetAfter
        var dropped: [BeaconIdentity] = []
        while sightingsStart < sightings.count, sightings[sightingsStart].time <= forgetBefore {
            let (time, id) = sightings[sightingsStart]
            sightingsStart += 1
            // Stale unless this entry is the track's latest sighting.
            if let track = tracks[id], track.lastSeen <= forgetBefore, track.lastSeen == time {
                tracks[id] = nil
                dropped.append(id)
            }
        }
        // Compact once the consumed prefix is at least half the list: amortised O(1) per entry.
        if sightingsStart > 0, sightingsStart * 2 >= sightings.count {
            sightings.removeFirst(sightingsStart)
            sightingsStart = 0
        }
        return dropped
    }

    /// One beacon as ranging reports it at `now`, or nil when it is not tracked. O(samples of that beacon).
    public func ranged(_ id: BeaconIdentity, now: Double) -> RangedBeacon? {
        guard let track = tracks[id], track.lastSeen > now - configuration.forgetAfter else { return nil }
        return ranged(id, track, now: now)
    }

    func ranged(_ id: BeaconIdentity, _ track: Track, now: Double) -> RangedBeacon {
        let cutoff = now - configuration.smoothingWindow
        var sum = 0.0, count = 0
        for sample in track.samples where sample.time > cutoff && sample.time <= now {
            sum += Double(sample.rssi)
            count += 1
        }
        let smoothed = count == 0 ? nil : sum / Double(count)
        let distance = configuration.pathLoss.distance(measuredPower: track.measuredPower, rssi: smoothed)
        return RangedBeacon(identity: id, frame: track.frame, measuredPower: track.measuredPower, address: track.address,
                            rssi: track.rssi, smoothedRSSI: smoothed, sampleCount: count,
                            distance: distance, proximity: configuration.thresholds.classify(distance),
                            lastSeen: track.lastSeen)
    }

    /// The ranged beacons at `now`, optionally only those in `region`: closest first, unknown distances
    /// last, ties by identity. Beacons unseen for `forgetAfter` seconds are dropped for good.
    public mutating func range(now: Double, in region: BeaconRegion? = nil) -> [RangedBeacon] {
        let forgetBefore = now - configuration.forgetAfter
        prune(now: now)
        // Timestamps that went backwards can leave a forgotten track behind the sightings list.
        tracks = tracks.filter { $0.value.lastSeen > forgetBefore }
        var out: [RangedBeacon] = []
        for (id, track) in tracks where region?.matches(id) ?? true {
            out.append(ranged(id, track, now: now))
        }
        out.sort { a, b in
            switch (a.distance, b.distance) {
            case let (x?, y?) where x != y: return x < y
            case (.some, nil): return true
            case (nil, .some): return false
            default: return a.identity < b.identity
            }
        }
        return out
    }
}

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
    /// From the latest advertisement: RSSI at 1 m in dBm.
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

    public init(identity: BeaconIdentity, measuredPower: Int8, address: String, rssi: Int8?, smoothedRSSI: Double?,
                sampleCount: Int, distance: Double?, proximity: Proximity, lastSeen: Double) {
        self.identity = identity
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
public struct BeaconRanger: Sendable {
    struct Track: Sendable {
        var measuredPower: Int8
        var address: String
        var rssi: Int8?
        var lastSeen: Double
        /// (timestamp, dBm), oldest first.
        var samples: [(time: Double, rssi: Int8)]
    }

    public var configuration: RangingConfiguration
    var tracks: [BeaconIdentity: Track] = [:]

    public init(configuration: RangingConfiguration = RangingConfiguration()) {
        self.configuration = configuration
    }

    /// Beacons currently tracked.
    public var count: Int { tracks.count }

    /// Records one advertisement. An RSSI of nil (127) updates the address and last seen time but adds no sample.
    public mutating func observe(_ observation: BeaconObservation) {
        let id = observation.identity
        var track = tracks[id] ?? Track(measuredPower: observation.beacon.measuredPower, address: observation.address,
                                        rssi: nil, lastSeen: observation.timestamp, samples: [])
        track.measuredPower = observation.beacon.measuredPower
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
    }

    /// The ranged beacons at `now`, optionally only those in `region`: closest first, unknown distances
    /// last, ties by identity. Beacons unseen for `forgetAfter` seconds are dropped for good.
    public mutating func range(now: Double, in region: BeaconRegion? = nil) -> [RangedBeacon] {
        let forgetBefore = now - configuration.forgetAfter
        tracks = tracks.filter { $0.value.lastSeen > forgetBefore }
        let cutoff = now - configuration.smoothingWindow
        var out: [RangedBeacon] = []
        for (id, track) in tracks where region?.matches(id) ?? true {
            let recent = track.samples.filter { $0.time > cutoff && $0.time <= now }
            let smoothed = recent.isEmpty ? nil : recent.reduce(0.0) { $0 + Double($1.rssi) } / Double(recent.count)
            let distance = configuration.pathLoss.distance(measuredPower: track.measuredPower, rssi: smoothed)
            out.append(RangedBeacon(identity: id, measuredPower: track.measuredPower, address: track.address,
                                    rssi: track.rssi, smoothedRSSI: smoothed, sampleCount: recent.count,
                                    distance: distance, proximity: configuration.thresholds.classify(distance),
                                    lastSeen: track.lastSeen))
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

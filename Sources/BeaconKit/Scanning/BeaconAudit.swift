// SPDX-License-Identifier: Apache-2.0
/// One beacon a listener expects to hear: its identity and, when its config names it, the identifier.
public struct ExpectedBeacon: Hashable, Sendable {
    public var identity: BeaconIdentity
    public var identifier: String?

    public init(_ identity: BeaconIdentity, identifier: String? = nil) {
        self.identity = identity
        self.identifier = identifier
    }
}

/// A change of what a listener hears, in the order it happened.
public enum AuditChange: Hashable, Sendable {
    /// An expected beacon was heard (first, or again after a window without it).
    case heard(BeaconIdentity)
    /// An expected beacon was not heard for a whole window.
    case missing(BeaconIdentity)
    /// A beacon with one of the fleet's UUIDs that is not expected (misconfigured or rogue) was heard.
    case unexpectedHeard(BeaconIdentity)
    /// ... and then not heard for a whole window.
    case unexpectedGone(BeaconIdentity)
}

/// One beacon's account over the window, as the listener reports it.
public struct AuditEntry: Equatable, Sendable {
    public var identity: BeaconIdentity
    public var identifier: String?
    /// Heard within the last window.
    public var heard: Bool
    /// When it was last heard (the caller's monotonic seconds); nil: never.
    public var lastSeen: Double?
    /// Reports received within the window, per second of the window (or of the run, while it is shorter).
    public var reportsPerSecond: Double
    /// Median RSSI (dBm) of the window's reports that carried one; nil when none did (127: not available).
    public var medianRSSI: Double?
    /// The advertiser address of the last report.
    public var address: String?
    /// Reports received within the window.
    public var reports: Int

    public init(identity: BeaconIdentity, identifier: String?, heard: Bool, lastSeen: Double?, reportsPerSecond: Double,
                medianRSSI: Double?, address: String?, reports: Int) {
        self.identity = identity
        self.identifier = identifier
        self.heard = heard
        self.lastSeen = lastSeen
        self.reportsPerSecond = reportsPerSecond
        self.medianRSSI = medianRSSI
        self.address = address
        self.reports = reports
    }
}

/// The listener's side of a fleet (`scan --expect`), pure: fed beacon observations and times
/// (seconds on one monotonic clock), it says which expected beacons were heard within the last
/// `window` seconds, and which beacons use the fleet's first identifiers without being expected.
///
/// - `observe(_:)` and `tick(at:)` return the changes (heard ↔ missing, unexpected appearing and
///   going); `nextDeadline` is the earliest time a `tick` can report one: the window's edge after
///   the last report of a beacon that is heard. Nothing else needs a timer.
/// - Memory is bounded by the expected set plus the window: per beacon the reports of the window,
///   at most `maximumReportsKept` (beyond that the oldest go first, and the rate is taken over the
///   time the kept ones cover); at most `maximumUnexpected` unexpected beacons, forgotten a window
///   after their last report.
public struct BeaconAudit: Sendable {
    public let expected: [ExpectedBeacon]
    public let window: Double
    public let started: Double
    /// The first identifiers of the expected beacons (`BeaconIdentity.group`: UUIDs, AltBeacon id1s,
    /// Eddystone namespaces, URLs): other beacons with them are "unexpected".
    public let fleetGroups: Set<String>
    public var maximumReportsKept = 4096
    public var maximumUnexpected = 64
    /// Unexpected beacons not tracked because `maximumUnexpected` were tracked already.
    public private(set) var unexpectedDropped = 0
    /// Reports of beacons received (any identity).
    public private(set) var reportCount = 0

    struct Track: Sendable {
        var times: [Double] = []
        var rssi: [Int8?] = []
        var head = 0
        var lastSeen: Double?
        var address: String?
        var heard = false

        var count: Int { times.count - head }

        mutating func add(_ t: Double, _ r: Int8?, address a: String, limit: Int) {
            times.append(t)
            rssi.append(r)
            lastSeen = t
            address = a
            if count > limit { head += 1 }
            compact()
        }

        /// Drops the reports at or before `since` (the window is (now - window, now]).
        mutating func prune(since: Double) {
            while head < times.count, times[head] <= since { head += 1 }
            compact()
        }

        mutating func compact() {
            if head > 64, head * 2 > times.count {
                times.removeFirst(head)
                rssi.removeFirst(head)
                head = 0
            }
        }
    }

    var tracks: [Track]
    let index: [BeaconIdentity: Int]
    var unexpected: [BeaconIdentity: Track] = [:]

    /// `expected` in the order given; a beacon listed twice keeps its first entry.
    public init(expected: [ExpectedBeacon], window: Double, at now: Double) {
        var seen: [BeaconIdentity: Int] = [:]
        var list: [ExpectedBeacon] = []
        for e in expected where seen[e.identity] == nil {
            seen[e.identity] = list.count
            list.append(e)
        }
        self.expected = list
        self.window = window
        started = now
        index = seen
        fleetGroups = Set(list.map(\.identity.group))
        tracks = Array(repeating: Track(), count: list.count)
    }

    /// The earliest time a `tick` can report a change: a heard beacon's last report plus the window.
    public var nextDeadline: Double? {
        var best: Double?
        func consider(_ t: Track) {
            guard t.heard, let last = t.lastSeen else { return }
            let edge = last + window
            if best.map({ edge < $0 }) ?? true { best = edge }
        }
        tracks.forEach(consider)
        unexpected.values.forEach(consider)
        return best
    }

    /// One beacon report (call `tick` first when time may have passed a deadline).
    public mutating func observe(_ o: BeaconObservation) -> [AuditChange] {
        reportCount += 1
        let id = o.identity
        var changes = tick(at: o.timestamp)
        if let i = index[id] {
            tracks[i].add(o.timestamp, o.rssi, address: o.address, limit: maximumReportsKept)
            if !tracks[i].heard {
                tracks[i].heard = true
                changes.append(.heard(id))
            }
        } else if fleetGroups.contains(id.group) {
            if unexpected[id] == nil {
                guard unexpected.count < maximumUnexpected else {
                    unexpectedDropped += 1
                    return changes
                }
                unexpected[id] = Track()
            }
            unexpected[id]?.add(o.timestamp, o.rssi, address: o.address, limit: maximumReportsKept)
            if unexpected[id]?.heard == false {
                unexpected[id]?.heard = true
                changes.append(.unexpectedHeard(id))
            }
        }
        return changes
    }

    /// Beacons whose window passed without a report by `now`: missing, or forgotten when unexpected.
    public mutating func tick(at now: Double) -> [AuditChange] {
        var changes: [AuditChange] = []
        for i in tracks.indices {
            tracks[i].prune(since: now - window)
            if tracks[i].heard, let last = tracks[i].lastSeen, now - last >= window {
                tracks[i].heard = false
                changes.append(.missing(expected[i].identity))
            }
        }
        for (id, track) in unexpected.sorted(by: { $0.key < $1.key }) {
            if let last = track.lastSeen, now - last >= window {
                unexpected[id] = nil
                changes.append(.unexpectedGone(id))
            } else {
                unexpected[id]?.prune(since: now - window)
            }
        }
        return changes
    }

    /// Every expected beacon, in the order given, as of `now` (call `tick(at: now)` first).
    public func expectedEntries(at now: Double) -> [AuditEntry] {
        expected.indices.map { entry(expected[$0].identity, expected[$0].identifier, tracks[$0], now) }
    }

    /// The unexpected beacons heard within the window, sorted by identity.
    public func unexpectedEntries(at now: Double) -> [AuditEntry] {
        unexpected.sorted { $0.key < $1.key }.map { entry($0.key, nil, $0.value, now) }
    }

    /// The expected beacons not heard within the window.
    public var missing: [ExpectedBeacon] { expected.indices.filter { !tracks[$0].heard }.map { expected[$0] } }

    func entry(_ id: BeaconIdentity, _ identifier: String?, _ t: Track, _ now: Double) -> AuditEntry {
        let kept = Array(t.times[t.head...])
        let inWindow = kept.filter { $0 > now - window }
        var span = min(window, now - started)
        if t.count >= maximumReportsKept, let oldest = kept.first { span = min(span, now - oldest) }
        let rate = inWindow.isEmpty ? 0 : Double(inWindow.count) / max(1, span)
        var values: [Int] = []
        for i in t.head..<t.times.count where t.times[i] > now - window {
            if let r = t.rssi[i] { values.append(Int(r)) }
        }
        values.sort()
        var median: Double?
        if !values.isEmpty {
            let mid = values.count / 2
            median = values.count % 2 == 1 ? Double(values[mid]) : Double(values[mid - 1] + values[mid]) / 2
        }
        return AuditEntry(identity: id, identifier: identifier, heard: t.heard, lastSeen: t.lastSeen, reportsPerSecond: rate,
                          medianRSSI: median, address: t.address, reports: inWindow.count)
    }
}

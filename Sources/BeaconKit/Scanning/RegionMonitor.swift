// SPDX-License-Identifier: Apache-2.0
/// A monitoring transition (CoreLocation's `didEnterRegion` / `didExitRegion`).
public enum RegionEvent: Hashable, Sendable, CustomStringConvertible {
    case enter(BeaconRegion)
    case exit(BeaconRegion)

    public var region: BeaconRegion {
        switch self {
        case let .enter(r), let .exit(r): return r
        }
    }

    /// `enter E2C56DB5-…:1`.
    public var description: String {
        switch self {
        case let .enter(r): return "enter \(r)"
        case let .exit(r): return "exit \(r)"
        }
    }
}

/// CoreLocation's region state (`CLRegionState`).
public enum RegionState: Hashable, Sendable, CustomStringConvertible {
    /// Nothing seen yet since monitoring started.
    case unknown
    case inside
    case outside

    public var description: String {
        switch self {
        case .unknown: return "unknown"
        case .inside: return "inside"
        case .outside: return "outside"
        }
    }
}

/// Region monitoring as CoreLocation does it: `enter` when the first beacon matching a region is seen,
/// `exit` once no matching beacon has been seen for `exitTimeout` seconds (CoreLocation waits about
/// 30 s). Pure: the caller passes every timestamp (seconds on one monotonic clock), calls
/// `tick(now:)` to let exits happen, and can sleep until `nextDeadline` instead of polling.
public struct RegionMonitor: Sendable {
    public let regions: [BeaconRegion]
    public let exitTimeout: Double
    /// Per region (same index): last time a matching beacon was seen while inside.
    var lastSeen: [Double?]
    var states: [RegionState]

    public static let defaultExitTimeout = 30.0

    /// Regions are reported in this order. A non-finite or negative `exitTimeout` is taken as 0.
    public init(regions: [BeaconRegion], exitTimeout: Double = RegionMonitor.defaultExitTimeout) {
        self.regions = regions
        self.exitTimeout = exitTimeout.isFinite && exitTimeout > 0 ? exitTimeout : 0
        lastSeen = Array(repeating: nil, count: regions.count)
        states = Array(repeating: .unknown, count: regions.count)
    }

    public func state(at index: Int) -> RegionState {
        index >= 0 && index < states.count ? states[index] : .unknown
    }

    public func state(of region: BeaconRegion) -> RegionState {
        regions.firstIndex(of: region).map { states[$0] } ?? .unknown
    }

    /// Records a sighting of `identity` at `now`. Exits that fell due before `now` are reported first
    /// (so a sighting after a long silence reads exit, then enter), then the enters.
    public mutating func observe(_ identity: BeaconIdentity, at now: Double) -> [RegionEvent] {
        var events = tick(now: now)
        for i in regions.indices where regions[i].matches(identity) {
            if states[i] != .inside {
                states[i] = .inside
                events.append(.enter(regions[i]))
            }
            lastSeen[i] = max(lastSeen[i] ?? now, now)
        }
        return events
    }

    public mutating func observe(_ observation: BeaconObservation) -> [RegionEvent] {
        observe(observation.identity, at: observation.timestamp)
    }

    /// Reports `exit` for every region whose last matching sighting is at least `exitTimeout` old.
    /// Calling it exactly at `nextDeadline` produces the exit that deadline stood for.
    public mutating func tick(now: Double) -> [RegionEvent] {
        var events: [RegionEvent] = []
        for i in regions.indices where states[i] == .inside {
            guard let seen = lastSeen[i], now >= seen + exitTimeout else { continue }
            states[i] = .outside
            lastSeen[i] = nil
            events.append(.exit(regions[i]))
        }
        return events
    }

    /// The earliest time a `tick` can produce an exit; nil when no region is inside (nothing can
    /// happen until the next sighting, so the caller may wait for events alone).
    public var nextDeadline: Double? {
        var earliest: Double?
        for i in regions.indices where states[i] == .inside {
            if let seen = lastSeen[i] {
                let deadline = seen + exitTimeout
                earliest = min(earliest ?? deadline, deadline)
            }
        }
        return earliest
    }
}

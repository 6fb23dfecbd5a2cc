// SPDX-License-Identifier: Apache-2.0
/// When the beacons are on air: a total duration and an on/off cycle (iOS enter/exit tests).
public struct AdvertisingSchedule: Hashable, Sendable {
    /// Stop after this long (ms); nil = until a signal.
    public var durationMilliseconds: Int64?
    public var cycle: Cycle?

    public struct Cycle: Hashable, Sendable {
        public var onMilliseconds: Int64
        public var offMilliseconds: Int64
        /// On/off pairs before the session ends; nil = forever.
        public var count: Int?

        public init(onMilliseconds: Int64, offMilliseconds: Int64, count: Int? = nil) {
            self.onMilliseconds = onMilliseconds
            self.offMilliseconds = offMilliseconds
            self.count = count
        }
    }

    public init(durationMilliseconds: Int64? = nil, cycle: Cycle? = nil) {
        self.durationMilliseconds = durationMilliseconds
        self.cycle = cycle
    }

    public var isEmpty: Bool { durationMilliseconds == nil && cycle == nil }

    /// The phase changes from the start, in ms: `(at, on)`; the last entry with `on == false` and no
    /// following entry ends the session (also at `durationMilliseconds`). At most `limit` entries.
    public func phases(limit: Int = 64) -> [(at: Int64, on: Bool)] {
        guard let cycle else { return [] }
        var out: [(at: Int64, on: Bool)] = []
        var t: Int64 = 0
        var pairs = 0
        while out.count < limit {
            t += cycle.onMilliseconds
            out.append((t, false))
            pairs += 1
            if let count = cycle.count, pairs >= count { break }
            t += cycle.offMilliseconds
            out.append((t, true))
        }
        return out
    }
}

import Glibc

/// A point on CLOCK_MONOTONIC in nanoseconds; only for remaining-time arithmetic of `receive`.
struct MonotonicInstant: Comparable {
    var nanoseconds: Int64

    static func now() -> MonotonicInstant {
        var ts = timespec()
        // CLOCK_MONOTONIC cannot fail on Linux with a valid pointer; a zero reading would only make
        // the wait end early, never hang.
        _ = clock_gettime(CLOCK_MONOTONIC, &ts)
        return MonotonicInstant(nanoseconds: Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec))
    }

    /// `now + milliseconds`, or nil when that does not fit (treated as "forever").
    static func after(milliseconds: Int) -> MonotonicInstant? {
        let (delta, overflow) = Int64(clamping: milliseconds).multipliedReportingOverflow(by: 1_000_000)
        if overflow { return nil }
        let (sum, overflow2) = now().nanoseconds.addingReportingOverflow(delta)
        return overflow2 ? nil : MonotonicInstant(nanoseconds: sum)
    }

    /// Milliseconds from now until `self`, rounded up (a wait never ends before the deadline), at least 0,
    /// at most Int32.max (poll's range; a longer wait simply polls again).
    func millisecondsFromNow() -> Int32 {
        let left = nanoseconds &- MonotonicInstant.now().nanoseconds
        if left <= 0 { return 0 }
        let milliseconds = left / 1_000_000 + (left % 1_000_000 == 0 ? 0 : 1)
        return Int32(clamping: milliseconds)
    }

    static func < (a: MonotonicInstant, b: MonotonicInstant) -> Bool { a.nanoseconds < b.nanoseconds }
}

/// Milliseconds on CLOCK_MONOTONIC, for the command runner's deadlines and scan timing.
public func monotonicMilliseconds() -> Int64 { MonotonicInstant.now().nanoseconds / 1_000_000 }

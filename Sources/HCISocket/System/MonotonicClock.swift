// SPDX-License-Identifier: Apache-2.0
import Glibc
import SystemCalls

/// A point on CLOCK_MONOTONIC in nanoseconds; only for remaining-time arithmetic of `receive`.
struct MonotonicInstant: Comparable {
    var nanoseconds: Int64

    static func now(_ system: SystemCalls) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: system.clockNanoseconds(CLOCK_MONOTONIC))
    }

    /// `now + milliseconds`, or nil when that does not fit (treated as "forever").
    static func after(milliseconds: Int, _ system: SystemCalls) -> MonotonicInstant? {
        let (delta, overflow) = Int64(clamping: milliseconds).multipliedReportingOverflow(by: 1_000_000)
        if overflow { return nil }
        let (sum, overflow2) = now(system).nanoseconds.addingReportingOverflow(delta)
        return overflow2 ? nil : MonotonicInstant(nanoseconds: sum)
    }

    /// Milliseconds from now until `self`, rounded up (a wait never ends before the deadline), at least 0,
    /// at most Int32.max (poll's range; a longer wait simply polls again).
    func millisecondsFromNow(_ system: SystemCalls) -> Int32 {
        let left = nanoseconds &- MonotonicInstant.now(system).nanoseconds
        if left <= 0 { return 0 }
        let milliseconds = left / 1_000_000 + (left % 1_000_000 == 0 ? 0 : 1)
        return Int32(clamping: milliseconds)
    }

    static func < (a: MonotonicInstant, b: MonotonicInstant) -> Bool { a.nanoseconds < b.nanoseconds }
}


// SPDX-License-Identifier: Apache-2.0
/// Where the session stands: one explicit phase with a typed reason. Text is rendered at the edge
/// (BeaconTool's SessionText: the systemd STATUS, the state file, stderr).
public enum SessionPhase: Equatable, Sendable {
    /// Before `start`.
    case idle
    /// Every beacon is on air as the plan wants it.
    case onAir
    /// Another program's command took our beacons off air: re-armed once it completed and
    /// `settleMilliseconds` passed without the device going down.
    case disrupted(Disruption)
    /// The kernel reported the device down (power off, rfkill, bluetoothd stopping): nothing is sent
    /// until it is up again.
    case deviceDown
    /// The controller reported a Hardware Error: waiting for the kernel to reset it (or the grace).
    case awaitingReset(hardwareCode: UInt8)
    /// A re-arm failed; it is retried after `retryMilliseconds`.
    case retrying(RearmCause, SessionError)
    /// A central connected to a connectable beacon: re-enabled after the Disconnection Complete.
    case connected(ConnectedBeacon)
    /// The fight budget is spent: not re-arming until the other owner of the instance is quiet.
    case yielding(Yield)
    /// Off by the schedule (`--cycle`): disabled on the controller until the next on phase.
    case offPhase(CycleOff)
    /// The controller was unregistered (unplugged): the pump must find it again and `attach` a runner.
    case unplugged
    /// After `stop`.
    case stopped

    /// Which connectable beacon a central connected to.
    public enum ConnectedBeacon: Hashable, Sendable {
        /// The connection ended this extended advertising set (LE Advertising Set Terminated).
        case set(UInt8)
        /// The legacy instance (LE Connection Complete, role peripheral).
        case legacy
    }

    /// Why the session yields: `takeovers` in `windowMilliseconds`, the last one `last`.
    public struct Yield: Hashable, Sendable {
        public var takeovers: Int
        public var windowMilliseconds: Int64
        public var quietMilliseconds: Int64
        public var last: RearmCause

        public init(takeovers: Int, windowMilliseconds: Int64, quietMilliseconds: Int64, last: RearmCause) {
            self.takeovers = takeovers
            self.windowMilliseconds = windowMilliseconds
            self.quietMilliseconds = quietMilliseconds
            self.last = last
        }
    }

    /// One off phase of the cycle: the `pair`-th of `count` (nil = forever).
    public struct CycleOff: Hashable, Sendable {
        public var offMilliseconds: Int64
        public var pair: Int
        public var count: Int?

        public init(offMilliseconds: Int64, pair: Int, count: Int?) {
            self.offMilliseconds = offMilliseconds
            self.pair = pair
            self.count = count
        }
    }

    /// Off air for a reason beacon-tx waits out (a re-arm, a reset, a disconnection, the device).
    public var isWaiting: Bool {
        switch self {
        case .disrupted, .deviceDown, .awaitingReset, .retrying, .connected, .yielding: return true
        default: return false
        }
    }
}

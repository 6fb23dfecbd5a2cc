// SPDX-License-Identifier: Apache-2.0
/// Why the session could not put its beacons on air.
public enum SessionError: Error, Equatable, Sendable, CustomStringConvertible {
    case start(StartError)
    case plan(KioskPlan.PlanError)
    case command(HCIError)
    /// Memory Capacity Exceeded even for one set: the kernel's instances use every set.
    case capacityExceeded(device: String, beacons: Int, HCIError)
    /// The sharing mode's MGMT command failed (a re-add).
    case shared(ShareError)

    /// The device was found down (the kernel's ENETDOWN): waited for, not retried.
    var isDeviceDown: Bool {
        if case .transport(.deviceDown)? = hciError { return true }
        return false
    }

    var hciError: HCIError? {
        switch self {
        case let .command(e), let .capacityExceeded(_, _, e): return e
        case let .start(.command(e)): return e
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case let .start(e): return e.description
        case let .plan(e): return e.description
        case let .command(e): return e.description
        case let .shared(e): return e.description
        case let .capacityExceeded(device, beacons, e):
            return "\(e): \(device) has no free advertising set for \(beacons == 1 ? "the beacon" : "\(beacons) beacons")"
        }
    }
}

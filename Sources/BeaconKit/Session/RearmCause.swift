// SPDX-License-Identifier: Apache-2.0
/// Why the session re-armed (or is about to): typed, rendered at the edge, counted by kind in the metrics.
public enum RearmCause: Hashable, Sendable {
    /// Another program's command took our beacons off air.
    case disruption(Disruption)
    /// The kernel reported the device up again.
    case deviceUp
    /// The device was unregistered and came back (a new runner).
    case deviceReturned
    /// The controller's Hardware Error, and the kernel's reset did not come within the grace.
    case hardwareError(code: UInt8)
    /// A central's connection to a connectable beacon ended.
    case connectionEnded
    /// `--cycle`: an on phase began.
    case cycleOn(milliseconds: Int64)
    /// A reload failed and the previous beacons were put back.
    case reloadFailed
    /// A rotation step failed; the whole plan runs again.
    case rotationStepFailed
    /// Writing an Eddystone-TLM's fresh counts failed; the whole plan runs again.
    case telemetryRefreshFailed
    /// After yielding: the other owner of the instance was quiet this long.
    case otherOwnerQuiet(milliseconds: Int64)
    /// The sharing mode: our kernel advertising instance was removed (another program's Remove
    /// Advertising, bluetoothd clearing every instance at its start).
    case instanceRemoved(UInt8)
}

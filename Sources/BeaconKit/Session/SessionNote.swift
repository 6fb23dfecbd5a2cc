// SPDX-License-Identifier: Apache-2.0
/// What a session tells the operator, in values; the sentences are made at the edge (BeaconTool's
/// SessionText). The machine's notes, and what the actuators met carrying its effects out.
public enum SessionNote: Equatable, Sendable {
    /// The machine's: re-armed, a re-arm failed, the schedule is over, whose advertising is displaced.
    case machine(SessionMachine.Note)
    /// The sharing mode's re-arm: our instances added again after `RearmCause`.
    case readded(RearmCause, milliseconds: Int64)
    /// The controller refused a command with Command Disallowed: it is in the other family's mode.
    case switchedFamily(HCIError, to: AdvertisingFamily)
    /// The controller lists the other family's commands but answered Unknown HCI Command: this family
    /// is used for the rest of the run (re-arms, reloads).
    case familyNotImplemented(HCIError, using: AdvertisingFamily)
    /// The controller refused a write to an instance on air (Command Disallowed): the instance is
    /// disabled around such writes, `attempts` times at most each time.
    case writeDisallowedWhileAdvertising(HCIError, attempts: Int)
    /// Memory Capacity Exceeded: the beacons rotate on one set every `rotationMilliseconds`.
    case rotatingForCapacity(beacons: Int, rotationMilliseconds: Int)
    /// The kernel refused the extended pair (`opcode` with `status`): Add Advertising from now on.
    case addAdvertisingFallback(MGMTOpcode, MGMTStatus)
    /// The single instance is handed back as its other owner last wrote it (`enabled`: and enabled).
    case handedBack(enabled: Bool)
    /// The other owner's data is not known: blank data is left in the single instance.
    case blankedInstance
    /// An off phase's disable (raw HCI) or Remove Advertising (sharing) failed: retried.
    case offPhaseFailed(SessionError, retryMilliseconds: Int64)
    /// An off phase's hand-back failed.
    case handBackFailed(HCIError)
    /// The sharing mode: the device's index was removed, and added again (powered is still awaited).
    case indexRemoved
    case indexAdded
}

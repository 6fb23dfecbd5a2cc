// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// What the one session loop needs of a mode: its session's machine (phase, deadline, health,
/// schedule), an observer on its socket (each packet becomes the session's input there), and the
/// mode's own way of carrying out a reload, a stop and a device's return. Raw HCI: `RawHCIAdapter`
/// (`AdvertisingSession`, KioskPlan); the sharing mode: `MGMTAdapter` (`SharedAdvertisingSession`,
/// SharePlan).
protocol SessionAdapter: AnyObject {
    var device: String { get }
    /// The controller's address, for the unplug notes.
    var address: String { get }
    var machine: SessionMachine { get }
    /// The machine's knobs (the loop sets the unplug wait from `--device-timeout`).
    var policy: SessionMachine.Policy { get set }
    /// Called on every phase change and re-arm, once the session's effects are done.
    var onChange: ((SessionPhase) -> Void)? { get set }
    /// A signal the socket already delivered (while a command waited for its answer).
    func takePendingSignal() -> Int32?
    /// One wait on the socket: a packet is handed to the session. Throws the loop's final error
    /// (the message names the device and what is left on air).
    func receive(timeoutMilliseconds: Int) throws(CLIError) -> SessionWake
    /// The machine's deadline passed.
    func timerExpired()
    /// What is on air now, with the settings on air: the one value `STATUS=`, the state file and the
    /// metrics read.
    func snapshot(_ s: Settings) -> OnAirSnapshot
    /// Applies new settings; returns what the reload changed, after "N unchanged, …" (or throws why not).
    func reload(_ new: Settings) throws(CLIError) -> SessionReload
    /// Takes our beacons off air and ends the session; returns what was done, for the stop note.
    func stop(_ s: Settings) throws(CLIError) -> String
    /// The device was unregistered: wait for it (`timeoutMilliseconds`) and attach the session again,
    /// or say that the loop's own socket sees the return (`.onSocket`).
    func awaitReturn(_ s: Settings, timeoutMilliseconds: Int) throws(CLIError) -> DeviceReturn
}

enum SessionWake: Equatable {
    case signal(Int32)
    case packet
    case timedOut
}

enum DeviceReturn: Equatable {
    case returned
    case signal(Int32)
    case timedOut
    /// The mode's socket stays open and its observer hears the return (MGMT Index Added).
    case onSocket
}

/// What a reload changed, rendered once by the loop: the counts, and the mode's addition
/// (" (all restarted: the layout changed)", " (kernel instances 5, 4)").
struct SessionReload: Equatable {
    var summary: ReloadSummary
    var detail: String
}

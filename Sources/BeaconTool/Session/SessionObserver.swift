// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// Either mode's session as the loop sees it, whatever its actuator: `Session` is the one conformance.
protocol LoopSession: AnyObject {
    var machine: SessionMachine { get }
    /// The machine's knobs (the loop sets the unplug wait from `--device-timeout`).
    var policy: SessionMachine.Policy { get set }
    var onPhaseChange: ((SessionPhase) -> Void)? { get set }
    func timerExpired()
}

extension Session: LoopSession {}

/// What the one session loop needs of a mode beside its session: the observer on its socket (each
/// packet becomes one input of the session), and the edge of its reload, stop and device return.
protocol SessionObserver: AnyObject {
    var session: LoopSession { get }
    var device: String { get }
    /// The controller's address, for the unplug notes.
    var address: String { get }
    /// A signal the socket already delivered (while a command waited for its answer).
    func takePendingSignal() -> Int32?
    /// One wait on the socket: a packet is handed to the session. Throws the loop's final error
    /// (the message names the device and what is left on air).
    func receive(timeoutMilliseconds: Int) throws(CLIError) -> SessionWake
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

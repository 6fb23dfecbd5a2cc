// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// Which of a session's beacons are on air now, by the session's own account: the per-beacon
/// `beacon_tx_beacon_on_air` of the metrics file. Pure: the session's phase and where its beacons
/// sit, nothing read from the controller.
///
/// - Sets (every beacon its own extended set, or its own kernel instance in the sharing mode): all
///   on air in the on-air phase. While another program holds one set (disabled, removed or wrote
///   it, or a central's connection ended it) only that set's beacon is off; the others stay on air
///   on their own sets. Anything that takes every set (a reset, clear, disable-all) takes them all.
/// - A rotation on one instance: only the beacon whose turn it is is on air; when the instance is
///   taken, none is.
/// - The kernel's own rotation (the sharing mode on a legacy controller): the kernel picks the
///   turn, so every registered instance counts as on air in the on-air phase.
/// - Every other phase (device down, a failed re-arm being retried, yielding, a `--cycle` off
///   phase, unplugged, stopped, before the start): nothing is on air.
enum BeaconOnAir {
    enum Placement: Equatable {
        /// Beacon i on set (or kernel instance) `handles[i]`.
        case sets([UInt8])
        /// One instance; `turn` is the index of the beacon on air.
        case rotation(turn: Int)
        /// Kernel instances rotated by the kernel (the sharing mode, legacy).
        case kernelRotation
    }

    /// One flag per beacon, in the configured order.
    static func states(_ phase: SessionPhase, _ placement: Placement, beacons count: Int) -> [Bool] {
        guard count > 0 else { return [] }
        let none = [Bool](repeating: false, count: count)
        switch placement {
        case .kernelRotation:
            return phase == .onAir ? [Bool](repeating: true, count: count) : none
        case let .rotation(turn):
            guard phase == .onAir else { return none }
            return (0..<count).map { $0 == turn % count }
        case let .sets(handles):
            if phase == .onAir { return (0..<count).map { $0 < handles.count } }
            guard let taken = takenSet(phase) else { return none }
            return (0..<count).map { $0 < handles.count && handles[$0] != taken }
        }
    }

    /// The one set another program holds in `phase`; nil when the phase takes every beacon (or is
    /// not a disruption of one set).
    static func takenSet(_ phase: SessionPhase) -> UInt8? {
        switch phase {
        case let .disrupted(.disabledSet(h)), let .disrupted(.removedSet(h)), let .disrupted(.wrote(_, set: h?)), let .connected(.set(h)):
            return h
        default:
            return nil
        }
    }
}

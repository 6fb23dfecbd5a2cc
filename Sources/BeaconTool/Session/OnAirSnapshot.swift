// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// What a session has on air now, as one value: the mode's adapter makes it once per change
/// (`SessionObserver.snapshot`), and `STATUS=`, the state file (`ServiceReporter.onAir`) and the
/// metrics (`KioskMetricsFile.update`) all read this one value, so they cannot tell two stories.
/// Everything in it is the session's own account (its machine and plan), nothing read back from
/// the controller.
struct OnAirSnapshot {
    var phase: SessionPhase = .onAir
    /// nil before the first start.
    var family: AdvertisingFamily?
    /// Where the beacons sit: their sets or kernel instances, a rotation's turn, or the kernel's rotation.
    var placement: BeaconOnAir.Placement = .sets([])
    /// The extended sets (raw HCI) or kernel instances (the sharing mode) beacon-tx owns, by number.
    var numbers: [UInt8] = []
    /// The sharing mode: our beacons are kernel advertising instances.
    var shared = false
    var beacons: [BeaconEntry] = []
    /// The machine's last re-arm (or re-add) and the counters the metrics carry.
    var lastRearm: (cause: RearmCause, at: Int64)?
    var rearmCount = 0
    var failedRearmCount = 0
    var yieldCount = 0
    /// Whose advertising ours displaces on a single instance (said in `STATUS=`).
    var displacing: String?
    /// The random static address the beacons go on air from (a controller without a public address).
    var ownAddress: [UInt8]?
}

extension OnAirSnapshot {
    /// The machine's part (phase, last re-arm, counters) and the mode's.
    init(_ machine: SessionMachine, family: AdvertisingFamily?, placement: BeaconOnAir.Placement, numbers: [UInt8], shared: Bool,
         beacons: [BeaconEntry]) {
        phase = machine.phase
        self.family = family
        self.placement = placement
        self.numbers = numbers
        self.shared = shared
        self.beacons = beacons
        lastRearm = machine.lastRearm
        rearmCount = machine.rearmCount
        failedRearmCount = machine.failedRearmCount
        yieldCount = machine.yieldCount
    }

    var onAir: Bool { phase == .onAir }

    /// Beacons take turns: beacon-tx's rotation on one instance, or the kernel's on a legacy controller.
    var rotation: Bool {
        switch placement {
        case .rotation, .kernelRotation: return beacons.count > 1
        case .sets: return false
        }
    }

    /// The numbers that are extended advertising sets (the metrics' `set` labels): none on legacy commands.
    var sets: [UInt8] { family == .extended ? numbers : [] }

    /// One flag per beacon, in the configured order (`BeaconOnAir`).
    var beaconOnAir: [Bool] { BeaconOnAir.states(phase, placement, beacons: beacons.count) }

    /// The on-air sentence of `STATUS=` and the state file.
    func text(device: String) -> String {
        let count = beacons.count == 1 ? "1 beacon" : "\(beacons.count) beacons"
        if shared {
            return "\(count) on air on \(device) (shared: kernel advertising instance\(numbers.count == 1 ? "" : "s") \(SessionState.setList(numbers)))"
        }
        return SessionState.onAirText(device: device, count: beacons.count, family: family ?? .legacy, sets: numbers, rotation: rotation)
            + (ownAddress.map { "; from random static address \(StaticRandomAddress.text($0)) (no public address)" } ?? "")
            + (displacing.map { "; displacing \($0) (--share shares the instance)" } ?? "")
    }
}

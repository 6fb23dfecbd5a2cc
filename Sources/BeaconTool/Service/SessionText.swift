// SPDX-License-Identifier: Apache-2.0
import BeaconKit

// The session's typed values as the operator reads them (stderr, the systemd STATUS, the state
// file): the core decides and says what happened in values, the sentences are made here.

extension SessionPhase {
    /// The operator's sentence (stderr, systemd STATUS); nil where there is none (`onAir` is
    /// reported with the plan, `idle` and `stopped` are not reported).
    func text(device: String) -> String? {
        switch self {
        case .idle, .onAir, .stopped, .unplugged: return nil
        case let .disrupted(d): return "\(d.text(device: device)); re-arming"
        case .deviceDown: return "\(device) down; waiting to re-arm"
        case .awaitingReset: return "\(device) reported a Hardware Error; waiting for the kernel to reset it"
        case let .retrying(_, error): return "re-arm failed (\(error)); retrying"
        case let .connected(.set(h)): return "a connection ended advertising set \(h); re-enabling after the disconnection"
        case .connected(.legacy): return "a central connected; re-enabling after the disconnection"
        case let .yielding(y):
            let quiet = Milliseconds.seconds(y.quietMilliseconds)
            return "another program took over \(device)'s advertising \(y.takeovers) times in \(Milliseconds.seconds(y.windowMilliseconds)) s (last: \(y.last.text(device: device))); yielding: not re-arming until it is quiet for \(quiet) s (SIGHUP re-arms now; --share shares the instance)"
        case let .offPhase(c):
            return "cycle: off for \(Milliseconds.seconds(c.offMilliseconds)) s (\(c.pair)\(c.count.map { " of \($0)" } ?? ""))"
        }
    }
}

extension RearmCause {
    func text(device: String) -> String {
        switch self {
        case let .disruption(d): return d.text(device: device)
        case .deviceUp: return "\(device) up again"
        case .deviceReturned: return "\(device) returned"
        case let .hardwareError(code): return "Hardware Error (code \(Hex.byte(code)))"
        case .connectionEnded: return "a connection ended"
        case let .cycleOn(ms): return "cycle: on for \(Milliseconds.seconds(ms)) s"
        case .reloadFailed: return "reload failed; the previous beacons are put back"
        case .rotationStepFailed: return "rotation step failed"
        case .telemetryRefreshFailed: return "writing the Eddystone-TLM's counts failed"
        case let .otherOwnerQuiet(ms): return "the other owner of the advertising instance was quiet for \(Milliseconds.seconds(ms)) s"
        case let .instanceRemoved(i): return "instance \(i) was removed by another program or the kernel"
        }
    }
}

extension SessionMachine.Note {
    func text(device: String, beacons: Int) -> String {
        switch self {
        case let .rearmed(cause, ms):
            return "re-armed \(beacons) beacon(s) on \(device) after: \(cause.text(device: device)) (on air \(ms) ms after the event)"
        case let .rearmFailed(cause, error, retry):
            return "re-arm failed (after: \(cause.text(device: device))): \(error); retrying in \(retry) ms"
        case let .scheduleOver(lastCycle, duration):
            return lastCycle ? "the last cycle is over" : "the scheduled \(Milliseconds.seconds(duration)) s are over"
        case let .displacing(owner):
            return owner.note(device: device)
        }
    }
}


extension DisplacedOwner {
    var text: String {
        switch self {
        case let .kernelInstances(ids):
            return "the kernel's advertising instance\(ids.count == 1 ? "" : "s") \(ids.map(String.init).joined(separator: ", "))"
        case .anotherOwner: return "another owner's advertising"
        }
    }

    func note(device: String) -> String {
        let whose: String
        switch self {
        case let .kernelInstances(ids): whose = text + " use" + (ids.count == 1 ? "s" : "")
        case .anotherOwner: whose = "another owner (the kernel's advertising instances) uses"
        }
        return "\(device) has one advertising instance and \(whose) it too: beacon-tx takes it over, so that advertising is off air while beacon-tx runs (to share the instance, use --share)"
    }
}

extension Disruption {
    func text(device: String) -> String {
        switch self {
        case .reset: return "another program reset \(device) (HCI Reset)"
        case .clearedSets: return "another program cleared all advertising sets (LE Clear Advertising Sets)"
        case let .removedSet(h): return "another program removed advertising set \(h)"
        case .disabledAllSets: return "another program disabled all advertising sets"
        case let .disabledSet(h): return "another program disabled advertising set \(h)"
        case .disabledLegacy: return "another program disabled legacy advertising"
        case let .wrote(opcode, set):
            let name = CommandTable.description(opcode)?.name ?? opcode.description
            return "another program sent \(name) " + (set.map { "for advertising set \($0)" } ?? "(legacy advertising)")
        }
    }
}

extension SessionNote {
    /// One line for stderr (`ctx.note`), about `device` and its `beacons`.
    func text(device: String, beacons: Int) -> String {
        switch self {
        case let .machine(note): return note.text(device: device, beacons: beacons)
        case let .readded(cause, ms):
            return "re-added \(beacons) instance(s) on \(device) after: \(cause.text(device: device)) (on air \(ms) ms after the event)"
        case let .switchedFamily(error, family):
            return "\(device): \(error); the controller is in \(family) advertising mode, switching to \(family) commands"
        case let .familyNotImplemented(error, family):
            return "\(device): \(error); the controller lists \(family.other) advertising but does not implement it: "
                + "using \(family) advertising commands for the rest of this run"
        case let .writeDisallowedWhileAdvertising(error, attempts):
            return "\(device): \(error) while advertising; such a write is now sent with the beacon disabled around it (at most \(attempts) tries, then a re-arm)"
        case let .rotatingForCapacity(count, ms):
            return "\(device): no free advertising set for each of \(count) beacons (Memory Capacity Exceeded); rotating them on one set every \(ms) ms"
        case let .addAdvertisingFallback(opcode, status):
            return "the kernel refused MGMT \(opcode) with \(status) (Raspberry Pi kernels 6.12.93 and 6.18.34 do: "
                + "raspberrypi/linux#7473); using Add Advertising (0x003e) instead: the kernel's advertising interval, not ours"
        case let .handedBack(enabled):
            return "\(device): the advertising instance is handed back as its other owner last wrote it (data, parameters\(enabled ? ", enabled" : ""))"
        case .blankedInstance:
            return "\(device): the other owner's advertising data was written before beacon-tx started; blank data is left in the instance so that no beacon stays on air when the kernel re-enables it"
        case let .offPhaseFailed(error, retry):
            if case let .shared(e) = error { return "cycle: removing our instances failed: \(e); retrying in \(retry) ms" }
            return "cycle: disabling failed: \(error); retrying in \(retry) ms"
        case let .handBackFailed(error): return "cycle: handing the advertising instance back failed: \(error)"
        case .indexRemoved: return "\(device) was removed; waiting for it to return"
        case .indexAdded: return "\(device) is back; waiting until it is powered"
        }
    }
}

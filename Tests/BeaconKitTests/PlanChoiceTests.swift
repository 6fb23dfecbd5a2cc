// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import Testing

/// The family and capacity rules are the machine's: each refusal is one input, and the machine
/// answers with the next plan to try or the failure, for the start, a re-arm and a restarting reload.
@Suite struct PlanChoiceTests {
    static let both = PlanRules(device: "hci0", families: [.extended, .legacy], beacons: 3)
    static let disallowed = HCIError.commandFailed(opcode: .leSetExtendedAdvertisingParameters, status: .commandDisallowed)
    static let legacyDisallowed = HCIError.commandFailed(opcode: .leSetAdvertisingParameters, status: .commandDisallowed)
    static let unknown = HCIError.commandFailed(opcode: .leSetExtendedAdvertisingParameters, status: .unknownHCICommand)
    static let full = HCIError.commandFailed(opcode: .leSetExtendedAdvertisingParameters, status: .memoryCapacityExceeded)
    static let ext = PlanChoice(family: .extended), legacy = PlanChoice(family: .legacy)

    func started(_ rules: PlanRules) -> SessionMachine {
        var m = SessionMachine()
        _ = m.step(.startRequested(rules), now: 0)
        return m
    }

    @Test func theStartTakesTheForcedOrPreferredFamilyAndRotatesWithTooFewSets() {
        var m = SessionMachine()
        #expect(m.step(.startRequested(Self.both), now: 0) == [.place(Self.ext, after: nil)])
        var forced = SessionMachine()
        #expect(forced.step(.startRequested(PlanRules(device: "hci0", forced: .legacy, families: [.extended, .legacy])), now: 0)
                == [.place(Self.legacy, after: nil)])
        var few = SessionMachine()
        #expect(few.step(.startRequested(PlanRules(device: "hci0", families: [.extended, .legacy], beacons: 3, sets: 2)), now: 0)
                == [.place(PlanChoice(family: .extended, rotate: true), after: nil)])
        var unsupported = SessionMachine()
        #expect(unsupported.step(.startRequested(PlanRules(device: "hci0", forced: .extended, families: [.legacy])), now: 0) == [])
        #expect(unsupported.startFailure == .start(.familyUnsupported(.extended, device: "hci0")) && unsupported.phase == .idle)
        var none = SessionMachine()
        _ = none.step(.startRequested(PlanRules(device: "hci0", families: [])), now: 0)
        #expect(none.startFailure == .start(.noLEAdvertising(device: "hci0")))
    }

    @Test func commandDisallowedSwitchesOnceThenBothRefusalsAreOneError() {
        var m = started(Self.both)
        let first = PlanRefusal.familyDisallowed(.start(.command(Self.disallowed)))
        #expect(m.step(.planRefused(Self.ext, first), now: 1) == [.place(Self.legacy, after: first)])
        let second = PlanRefusal.familyDisallowed(.start(.command(Self.legacyDisallowed)))
        #expect(m.step(.planRefused(Self.legacy, second), now: 2) == [.withdraw(Self.legacy)])
        #expect(m.startFailure == .start(.bothFamiliesDisallowed(device: "hci0", first: Self.disallowed, second: Self.legacyDisallowed)))
        #expect(m.phase == .idle)

        var switched = started(Self.both)
        _ = switched.step(.planRefused(Self.ext, first), now: 1)
        #expect(switched.step(.placed, now: 2) == [] && switched.phase == .onAir && switched.placedFamily == .legacy)
    }

    @Test func aForcedFamilyNeverSwitches() {
        var m = started(PlanRules(device: "hci0", forced: .extended, families: [.extended, .legacy]))
        #expect(m.step(.planRefused(Self.ext, .familyDisallowed(.start(.command(Self.disallowed)))), now: 1) == [.withdraw(Self.ext)])
        #expect(m.startFailure == .start(.forcedFamilyDisallowed(.extended, device: "hci0", Self.disallowed)))
    }

    @Test func unknownHCICommandDropsTheFamilyForTheRun() {
        var m = started(Self.both)
        let refusal = PlanRefusal.familyNotImplemented(.start(.command(Self.unknown)))
        #expect(m.step(.planRefused(Self.ext, refusal), now: 1) == [.place(Self.legacy, after: refusal)])
        _ = m.step(.placed, now: 2)
        #expect(m.rules.families == [.legacy])
        _ = m.step(.hardwareError(code: 1), now: 10)
        #expect(m.step(.timer, now: 10 + m.policy.hardwareErrorGraceMilliseconds)
                == [.rearm(.hardwareError(code: 1), started: 10, resume: 0, choice: Self.legacy, after: nil)], "the re-arm keeps to legacy")
    }

    @Test func memoryCapacityExceededRotatesOnOneSetUnlessThereIsOneBeacon() {
        var m = started(Self.both)
        let refusal = PlanRefusal.capacity(.capacityExceeded(device: "hci0", beacons: 3, Self.full))
        #expect(m.step(.planRefused(Self.ext, refusal), now: 1) == [.place(PlanChoice(family: .extended, rotate: true), after: refusal)])
        var one = started(PlanRules(device: "hci0", families: [.extended, .legacy], beacons: 1))
        let alone = PlanRefusal.capacity(.capacityExceeded(device: "hci0", beacons: 1, Self.full))
        #expect(one.step(.planRefused(Self.ext, alone), now: 1) == [])
        #expect(one.startFailure == .capacityExceeded(device: "hci0", beacons: 1, Self.full))
    }

    @Test func aRefusedReArmSwitchesTooAndAStandingRefusalIsRetried() {
        var m = started(Self.both)
        _ = m.step(.placed, now: 0)
        _ = m.step(.poweredOff, now: 5)
        #expect(m.step(.poweredOn, now: 6) == [.rearm(.deviceUp, started: 6, resume: 0, choice: Self.ext, after: nil)])
        let refusal = PlanRefusal.familyDisallowed(.start(.command(Self.disallowed)))
        #expect(m.step(.planRefused(Self.ext, refusal), now: 7) == [.rearm(.deviceUp, started: 6, resume: 0, choice: Self.legacy, after: refusal)])
        let other = SessionError.start(.command(.transport(.busy(call: "write", device: "hci0"))))
        _ = m.step(.planRefused(Self.legacy, .failed(other)), now: 8)
        #expect(m.phase == .retrying(.deviceUp, other))
        #expect(m.step(.planRefused(Self.legacy, .failed(other)), now: 9) == [], "no plan is being tried")
    }

    @Test func aRestartingReloadPlacesTheNewRulesAndFallsBackToTheOldOnes() {
        var m = started(Self.both)
        _ = m.step(.placed, now: 0)
        let new = PlanRules(device: "hci0", forced: .legacy, families: [.extended, .legacy], beacons: 2)
        #expect(m.step(.reloadRequested(inPlace: false, rules: new), now: 10) == [.reload(.restart)])
        #expect(m.step(.oldPlanStopped, now: 11) == [.place(Self.legacy, after: nil)])
        let refused = SessionError.start(.command(Self.legacyDisallowed))
        #expect(m.step(.planRefused(Self.legacy, .failed(refused)), now: 12) == [.rearm(.reloadFailed, started: 12, resume: 0, choice: Self.ext, after: nil)],
                "the old beacons back, by the old rules")
        #expect(m.reloadFailure == refused && m.rules == Self.both)
        _ = m.step(.rearmed(.reloadFailed, started: 12, rotationIndex: 0), now: 13)
        _ = m.step(.reloadRequested(inPlace: false, rules: new), now: 20)
        _ = m.step(.oldPlanStopped, now: 21)
        #expect(m.step(.placed, now: 22) == [] && m.rules == new && m.placedFamily == .legacy && m.phase == .onAir)
    }

    @Test func aFamilyARestartingReloadFindsNotImplementedStaysDropped() {
        var m = started(Self.both)
        _ = m.step(.placed, now: 0)
        _ = m.step(.reloadRequested(inPlace: false, rules: Self.both), now: 10)
        #expect(m.step(.oldPlanStopped, now: 11) == [.place(Self.ext, after: nil)])
        let refusal = PlanRefusal.familyNotImplemented(.start(.command(Self.unknown)))
        #expect(m.step(.planRefused(Self.ext, refusal), now: 12) == [.place(Self.legacy, after: refusal)])
        _ = m.step(.placed, now: 13)
        #expect(m.rules.families == [.legacy] && m.placedFamily == .legacy && m.reloadFailure == nil)
    }
}

extension SessionMachine {
    /// A start whose first plan went on air, without an actuator.
    mutating func startPlaced(now: Int64) {
        _ = step(.startRequested(PlanRules()), now: now)
        _ = step(.placed, now: now)
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
import Testing

/// Issue 29 item 1: the machine decides how a reload is carried out, what the stop sends, the
/// hand-back and the displacement note; the sessions only carry the effects out.
@Suite struct SessionDecisionTests {
    typealias C = Controllers
    typealias T = AdvertisingSessionTests

    func onAir(cycle: AdvertisingSchedule.Cycle? = nil) -> SessionMachine {
        var m = SessionMachine()
        m.policy.schedule = AdvertisingSchedule(cycle: cycle)
        _ = m.step(.planAdopted(rotationLength: 0, dwellMilliseconds: 0), now: 0)
        m.startPlaced(now: 0)
        return m
    }

    @Test func theReloadMethodFollowsThePhase() {
        var m = onAir()
        #expect(m.step(.reloadRequested(inPlace: true), now: 10) == [.reload(.inPlace)])
        #expect(m.step(.reloadRequested(inPlace: false), now: 10) == [.reload(.restart)], "another family or layout")
        _ = m.step(.commandSeen(.reset, disruption: .reset, advertising: false), now: 20)
        #expect(m.step(.reloadRequested(inPlace: true), now: 30) == [.reload(.restart)], "not on air as the old plan has it")
        var pending = onAir()
        _ = pending.step(.hardwareError(code: 1), now: 5)
        _ = pending.step(.connected(.set(239)), now: 6)
        _ = pending.step(.disconnected, now: 7)
        _ = pending.step(.rearmed(.connectionEnded, started: 7, rotationIndex: 0), now: 8)
        #expect(pending.phase == .onAir && pending.pendingRearm != nil)
        #expect(pending.step(.reloadRequested(inPlace: true), now: 9) == [.reload(.restart)],
                "a re-arm is still due (fuzz-session hci-reload-drops-pending-rearm-*): the whole plan")
        #expect(m.step(.reloaded, now: 31) == [])
        #expect(m.phase == .onAir && m.pendingRearm == nil, "the restart put everything on air: no re-arm left")

        var down = onAir()
        _ = down.step(.poweredOff, now: 10)
        #expect(down.step(.reloadRequested(inPlace: true), now: 20) == [.reload(.offAir(removeOld: false))],
                "a powered-off controller forgot its advertising")
        down.policy.placementsSurvivePowerOff = true
        #expect(down.step(.reloadRequested(inPlace: true), now: 20) == [.reload(.offAir(removeOld: true))],
                "the kernel keeps its instances through a power-off")
        #expect(down.step(.reloaded, now: 21) == [] && down.phase == .deviceDown, "still down")

        var gone = onAir()
        _ = gone.step(.deviceGone, now: 10)
        #expect(gone.step(.reloadRequested(inPlace: true), now: 20) == [.reload(.offAir(removeOld: false))])

        var off = onAir(cycle: .init(onMilliseconds: 1000, offMilliseconds: 1000, count: nil))
        _ = off.step(.timer, now: 1000)
        #expect(off.step(.reloadRequested(inPlace: true), now: 1100) == [.reload(.offAir(removeOld: true))], "off means off")
        #expect(off.step(.reloadFailed(.command(.timeout(opcode: .leSetAdvertisingEnable, milliseconds: 2000))), now: 1101) == [], "the on phase puts the previous plan on air")
        #expect(off.reloadFailure == .command(.timeout(opcode: .leSetAdvertisingEnable, milliseconds: 2000)) && off.lastReloadMethod == .offAir(removeOld: true), "the outcome is the reload's answer")
    }

    @Test func aFailedReloadOnAirReArmsThePreviousBeaconsAtOnce() {
        var m = onAir()
        _ = m.step(.reloadRequested(inPlace: true), now: 10)
        #expect(m.step(.reloadFailed(.command(.timeout(opcode: .leSetAdvertisingEnable, milliseconds: 2000))), now: 11) == [.rearm(.reloadFailed, started: 11, resume: 0, choice: PlanChoice(family: .legacy), after: nil)])
        var refused = onAir()
        _ = refused.step(.reloadRequested(inPlace: true), now: 10)
        #expect(refused.step(.reloadRefused(.command(.timeout(opcode: .leSetAdvertisingEnable, milliseconds: 2000))), now: 11) == [],
                "refused before anything was sent: nothing to put back")
        #expect(refused.phase == .onAir && refused.reloadFailure != nil)
    }

    @Test func aReloadWhileYieldingRestartsWithAFreshBudget() {
        var m = onAir()
        m.policy.fightBudget = FightBudget(takeovers: 1, windowMilliseconds: 60_000, quietMilliseconds: 30_000)
        for t: Int64 in [100, 2000] {
            _ = m.step(.commandSeen(.leSetAdvertisingData, disruption: .wrote(.leSetAdvertisingData, set: nil), advertising: true), now: t)
            _ = m.step(.commandCompleted(.leSetAdvertisingData), now: t)
            let effects = m.step(.timer, now: t + m.policy.settleMilliseconds)
            if case .rearm(let cause, let started, _, _, _) = effects.first { _ = m.step(.rearmed(cause, started: started, rotationIndex: 0), now: t + 300) }
        }
        #expect(m.isYielding)
        #expect(m.step(.reloadRequested(inPlace: true), now: 3000) == [.reload(.restart)])
        #expect(m.recentTakeovers.isEmpty && m.pendingRearm == nil)
        _ = m.step(.reloaded, now: 3001)
        #expect(m.phase == .onAir)
    }

    @Test func theStopSendsWhatThePhaseLeavesOnAir() {
        var m = onAir()
        #expect(m.step(.stopRequested, now: 10) == [.takeOffAir])
        #expect(m.phase == .stopped && m.step(.stopRequested, now: 11) == [], "once")

        var shared = onAir()
        _ = shared.step(.otherOwnerOfInstance(displacing: nil), now: 1)
        #expect(shared.step(.stopRequested, now: 10) == [.takeOffAir])
        #expect(shared.step(.takenOffAir, now: 11) == [.handBackInstance(stopping: true)], "handed back once ours are off air")
        var failed = shared
        #expect(failed.step(.stopFailed(.command(.timeout(opcode: .leSetAdvertisingEnable, milliseconds: 2000))), now: 11) == [] && failed.stopFailure == .command(.timeout(opcode: .leSetAdvertisingEnable, milliseconds: 2000)),
                "not handed back when the stop plan failed")

        var down = onAir()
        _ = down.step(.poweredOff, now: 1)
        #expect(down.step(.stopRequested, now: 10) == [], "nothing of ours is on a powered-off controller")
        var kernelDown = onAir()
        kernelDown.policy.placementsSurvivePowerOff = true
        _ = kernelDown.step(.poweredOff, now: 1)
        #expect(kernelDown.step(.stopRequested, now: 10) == [.takeOffAir], "the kernel kept our instances")

        var gone = onAir()
        _ = gone.step(.deviceGone, now: 1)
        #expect(gone.step(.stopRequested, now: 10) == [])

        var idle = SessionMachine()
        #expect(idle.step(.stopRequested, now: 0) == [] && idle.phase == .stopped)
    }

    @Test func theDisplacementIsNotedOnceAndOnlyForAnAdvertisingOwner() {
        var m = onAir()
        #expect(m.step(.otherOwnerOfInstance(displacing: nil), now: 1) == [], "writing data is not advertising")
        #expect(m.instanceHasOtherOwner && m.displacedOwner == nil)
        #expect(m.step(.otherOwnerOfInstance(displacing: .anotherOwner), now: 2) == [.note(.displacing(.anotherOwner))])
        #expect(m.step(.otherOwnerOfInstance(displacing: .kernelInstances([1])), now: 3) == [])
        #expect(m.displacedOwner == .anotherOwner)
    }

    /// The sharing mode's observer: New Settings is power, Index Removed / Added + Powered the device.
    @Test func powerAndPresenceAreIgnoredWhereTheyChangeNothing() {
        var m = onAir()
        #expect(m.step(.poweredOn, now: 1) == [], "another setting changed while powered")
        _ = m.step(.deviceGone, now: 2)
        #expect(m.step(.poweredOff, now: 3) == [] && m.phase == .unplugged, "gone is gone")
        #expect(m.step(.poweredOn, now: 4) == [.rearm(.deviceReturned, started: 4, resume: 0, choice: PlanChoice(family: .legacy), after: nil)], "powered while gone: back")
        _ = m.step(.rearmed(.deviceReturned, started: 4, rotationIndex: 0), now: 5)
        #expect(m.phase == .onAir && m.step(.deviceBack, now: 6) == [], "back once")
    }

    /// A reload in an off phase of `--cycle` takes the old set away and enables nothing: the new
    /// beacon goes on air with the next on phase (an update in place would have enabled it).
    @Test func aReloadInAnOffPhaseEnablesNothingUntilTheOnPhase() throws {
        let old = KioskConfiguration(beacons: [try T.beacon(2)])
        var new = old
        new.beacons[0].frame = try AdvertisingSessionTests.minor(20, of: new.beacons[0].frame)
        let oldPlan = try KioskPlan(old, family: .extended), newPlan = try KioskPlan(new, family: .extended)
        let fake = ScriptedController(C.okSteps(oldPlan.start) + C.okSteps(oldPlan.disable()) + C.okSteps(oldPlan.stop) + C.okSteps(newPlan.start))
        let clock = T.Clock()
        let s = AdvertisingSession(configuration: old, caps: try T.caps(extended: true), device: "hci0",
                                   runner: HCICommandRunner(channel: fake, now: { clock.ms }), now: { clock.ms }, log: { _ in })
        s.policy.schedule = AdvertisingSchedule(cycle: .init(onMilliseconds: 2000, offMilliseconds: 2000, count: nil))
        try s.start()
        clock.ms += 2000
        s.timerExpired()
        let sentBefore = fake.sent.count
        let summary = try s.reload(new)
        #expect(summary == ReloadSummary(unchanged: 0, updated: 1))
        #expect(fake.sent.dropFirst(sentBefore).map { Hex.encode($0) } == oldPlan.stop.map { Hex.encode($0.command.packet) })
        #expect(s.configuration == new && s.machine.clock.isOff)
        clock.ms += 2000
        s.timerExpired()
        #expect(s.phase == .onAir)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(fake.mismatches.isEmpty, "\(fake.mismatches)")
    }

    /// A reload that restarts (another family) keeps the schedule: `--duration` still ends when it
    /// would have (the restart does not start the clock again).
    @Test func aRestartingReloadKeepsTheDurationsEnd() throws {
        let old = KioskConfiguration(beacons: [try T.beacon(2)])
        var new = old
        new.family = .legacy
        let oldPlan = try KioskPlan(old, family: .extended), newPlan = try KioskPlan(new, family: .legacy)
        let fake = ScriptedController(C.okSteps(oldPlan.start) + C.okSteps(oldPlan.stop) + C.okSteps(newPlan.start))
        let clock = T.Clock()
        let s = AdvertisingSession(configuration: old, caps: try T.caps(extended: true), device: "hci0",
                                   runner: HCICommandRunner(channel: fake, now: { clock.ms }), now: { clock.ms }, log: { _ in })
        s.policy.schedule = AdvertisingSchedule(durationMilliseconds: 10_000)
        try s.start()
        let end = s.machine.clock.endAt
        clock.ms += 5000
        let summary = try s.reload(new)
        #expect(summary.restarted && s.phase == .onAir && s.plan?.family == .legacy)
        #expect(s.machine.clock.endAt == end && end == 20_000)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    /// Found by fuzz-session (`hci-unplugged-across-cycle-*`): the cycle's boundaries pass while the
    /// device is gone or down; the phase stays (the loop waits for the device), nothing is sent, and
    /// the return re-arms in an on phase or lands in the off phase.
    @Test func cycleBoundariesWhileTheDeviceIsAwayKeepItsPhase() {
        let cycle = AdvertisingSchedule.Cycle(onMilliseconds: 1000, offMilliseconds: 1000, count: nil)
        var gone = onAir(cycle: cycle)
        _ = gone.step(.deviceGone, now: 500)
        #expect(gone.step(.timer, now: 1000) == [] && gone.phase == .unplugged, "off: nothing to disable on a gone device")
        #expect(gone.step(.timer, now: 2000) == [] && gone.phase == .unplugged, "on: the return re-arms, not the clock")
        #expect(gone.step(.deviceBack, now: 2100) == [.rearm(.deviceReturned, started: 2100, resume: 0, choice: PlanChoice(family: .legacy), after: nil)])

        var down = onAir(cycle: cycle)
        _ = down.step(.poweredOff, now: 500)
        #expect(down.step(.timer, now: 1000) == [] && down.phase == .deviceDown)
        #expect(down.step(.poweredOn, now: 1500) == [])
        #expect(down.phase == .offPhase(.init(offMilliseconds: 1000, pair: 1, count: nil)), "up in the off phase: off")
        #expect(down.step(.timer, now: 2000) == [.rearm(.cycleOn(milliseconds: 1000), started: 2000, resume: 0, choice: PlanChoice(family: .legacy), after: nil)])

        var kernel = onAir(cycle: cycle)
        kernel.policy.placementsSurvivePowerOff = true
        _ = kernel.step(.poweredOff, now: 500)
        #expect(kernel.step(.timer, now: 1000) == [.disableForCycle], "the kernel kept our instances: removed at the off phase")
        #expect(kernel.phase == .deviceDown)
    }

    /// Found by fuzz-session (`hci-reload-while-connected-*`): a restarting reload while a central is
    /// connected enables every beacon (on air, nothing left to re-enable); an update in place leaves
    /// the connected one to the disconnection.
    @Test func aReloadWhileConnected() {
        var restart = onAir()
        _ = restart.step(.connected(.set(239)), now: 1)
        #expect(restart.step(.reloadRequested(inPlace: false), now: 2) == [.reload(.restart)])
        _ = restart.step(.planAdopted(rotationLength: 0, dwellMilliseconds: 0), now: 3)
        _ = restart.step(.reloaded, now: 3)
        #expect(restart.phase == .onAir && restart.connectedBeacons.isEmpty)

        var update = onAir()
        _ = update.step(.connected(.set(239)), now: 1)
        #expect(update.step(.reloadRequested(inPlace: true), now: 2) == [.reload(.inPlace)])
        _ = update.step(.planAdopted(rotationLength: 0, dwellMilliseconds: 0), now: 3)
        _ = update.step(.reloaded, now: 3)
        #expect(update.phase == .connected(.set(239)))
        #expect(update.step(.disconnected, now: 4) == [.reenable([239], started: 4)])
    }

    /// Found by fuzz-session (`hci-disconnect-in-off-phase-*`): a disconnection in an off phase
    /// re-enabled the connected beacon; off means off until the on phase, which enables every one.
    @Test func aDisconnectionInAnOffPhaseEnablesNothing() {
        var m = onAir(cycle: .init(onMilliseconds: 1000, offMilliseconds: 1000, count: nil))
        _ = m.step(.connected(.set(239)), now: 500)
        #expect(m.step(.timer, now: 1000) == [.disableForCycle])
        #expect(m.step(.disconnected, now: 1500) == [] && m.connectedBeacons.isEmpty)
        #expect(m.step(.connected(.legacy), now: 1600) == [] && m.clock.isOff, "nothing of ours to connect to")
        #expect(m.step(.timer, now: 2000) == [.rearm(.cycleOn(milliseconds: 1000), started: 2000, resume: 0, choice: PlanChoice(family: .legacy), after: nil)])
    }
}

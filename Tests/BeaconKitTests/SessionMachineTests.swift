// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import Testing

/// The session's transition function alone: (phase, input, now) → (phase, effects), no controller.
@Suite struct SessionMachineTests {
    /// A machine on air since t = 0 with a 3-beacon rotation (dwell 1 s).
    func onAir(cycle: AdvertisingSchedule.Cycle? = nil, rotation: Int = 3) -> SessionMachine {
        var m = SessionMachine()
        m.policy.schedule = AdvertisingSchedule(cycle: cycle)
        _ = m.step(.planAdopted(rotationLength: rotation, dwellMilliseconds: 1000), now: 0)
        m.startPlaced(now: 0)
        return m
    }

    @Test func aForeignDisableIsReArmedOnceItCompletedAndSettled() {
        var m = onAir()
        #expect(m.step(.commandSeen(.leSetAdvertisingEnable, disruption: .disabledLegacy, advertising: true), now: 100) == [])
        #expect(m.phase == .disrupted(.disabledLegacy))
        #expect(m.nextDeadline == 100 + 4 * m.policy.settleMilliseconds, "re-armed even if the completion is lost")
        #expect(m.step(.commandCompleted(.leSetAdvertisingEnable), now: 110) == [])
        #expect(m.nextDeadline == 110 + m.policy.settleMilliseconds)
        #expect(m.step(.timer, now: 359) == [], "not before the settle time")
        #expect(m.step(.timer, now: 360) == [.rearm(.disruption(.disabledLegacy), started: 100, resume: 0, choice: PlanChoice(family: .legacy), after: nil)])
        #expect(m.step(.rearmed(.disruption(.disabledLegacy), started: 100, rotationIndex: 0), now: 380)
                == [.note(.rearmed(.disruption(.disabledLegacy), milliseconds: 280))])
        #expect(m.phase == .onAir)
        #expect(m.rearmCount == 1)
    }

    /// One packet, one input: another program's enable of the single instance is both a new owner
    /// (noted once; handed back at once in an off phase) and, on air, a disruption.
    /// The rotation's and the TLM's timers belong to the on-air phase: a central connected to a
    /// legacy connectable beacon (or a failed swap's retry) leaves no deadline in the past, which
    /// made the loop wait 0 ms again and again (a busy loop for as long as the connection lasted).
    @Test func theOnAirTimersEndWithThePhaseAndStartAgainWithIt() {
        var m = onAir()
        m.policy.telemetryMilliseconds = 1000
        _ = m.step(.connected(.legacy), now: 500)
        #expect(m.nextDeadline == nil, "nothing to do until the disconnection")
        #expect(m.step(.timer, now: 1500) == [] && m.nextDeadline == nil)
        #expect(m.step(.disconnected, now: 4000) == [.reenable([], started: 4000)])
        _ = m.step(.rearmed(.connectionEnded, started: 4000, rotationIndex: 0), now: 4100)
        #expect(m.nextDeadline == 5100, "a whole dwell (and TLM period) from the return on air")
        #expect(m.step(.timer, now: 5100) == [.rotate(to: 1), .refreshTelemetry(onAirMilliseconds: 1500, uptimeMilliseconds: 5100)])
        _ = m.step(.failed(.rotationStepFailed, .command(.commandFailed(opcode: .leSetAdvertisingData, status: .commandDisallowed))), now: 5110)
        #expect(m.nextDeadline == 5110 + m.policy.retryMilliseconds, "the retry, not the swap that failed")
    }

    @Test func aForeignEnableOfTheInstanceIsOneInput() {
        var m = onAir()
        let enable = SessionMachine.Input.commandSeen(.leSetAdvertisingEnable, disruption: .disabledLegacy, advertising: true,
                                                                         instanceWrite: .enables)
        #expect(m.step(enable, now: 100) == [.note(.displacing(.anotherOwner))])
        #expect(m.instanceHasOtherOwner && m.phase == .disrupted(.disabledLegacy))
        #expect(m.step(enable, now: 200) == [], "noted once")
        var off = onAir(cycle: .init(onMilliseconds: 1000, offMilliseconds: 60_000))
        _ = off.step(.timer, now: 1000)
        #expect(off.step(enable, now: 1500) == [.handBackInstance(stopping: false), .note(.displacing(.anotherOwner))], "off: handed back at once, no re-arm")
        #expect(off.pendingRearm == nil)
    }

    @Test func aCommandThatLeavesOurPlacementsAloneChangesNothing() {
        var m = onAir()
        let before = m.nextDeadline
        #expect(m.step(.commandSeen(.leSetExtendedAdvertisingData, disruption: nil, advertising: true), now: 100) == [])
        #expect(m.phase == .onAir)
        #expect(m.nextDeadline == before)
    }

    @Test func theRotationSwapsAtEachDwellAndResumesAfterAReArm() {
        var m = onAir()
        #expect(m.step(.timer, now: 1000) == [.rotate(to: 1)])
        _ = m.step(.rotated(to: 1), now: 1003)
        #expect(m.nextDeadline == 2000, "the cadence is kept: one dwell after the scheduled swap")
        _ = m.step(.commandSeen(.reset, disruption: .reset, advertising: false), now: 1500)
        _ = m.step(.commandCompleted(.reset), now: 1501)
        #expect(m.step(.timer, now: 1751) == [.rearm(.disruption(.reset), started: 1500, resume: 1, choice: PlanChoice(family: .legacy), after: nil)],
                "the beacon that was on air comes back first")
    }

    @Test func downAndUpInAnOffPhaseStayOffHealthyAndQuiet() {
        var m = onAir(cycle: .init(onMilliseconds: 2000, offMilliseconds: 600_000))
        #expect(m.step(.timer, now: 2000) == [.disableForCycle])
        let off = SessionPhase.offPhase(.init(offMilliseconds: 600_000, pair: 1, count: nil))
        #expect(m.phase == off)
        for input: SessionMachine.Input in [.poweredOff, .poweredOn, .hardwareError(code: 1),
                                            .commandSeen(.reset, disruption: .reset, advertising: false), .commandCompleted(.reset)] {
            #expect(m.step(input, now: 3000) == [], "\(input)")
            #expect(m.phase == off, "\(input)")
            #expect(m.isHealthy, "the watchdog keeps being fed: \(input)")
        }
        #expect(m.nextDeadline == 602_000, "nothing before the on phase")
        #expect(m.step(.timer, now: 602_000) == [.rearm(.cycleOn(milliseconds: 2000), started: 602_000, resume: 0, choice: PlanChoice(family: .legacy), after: nil)])
    }

    @Test func theWatchdogIsFedThroughALongOffPhase() {
        var m = onAir(cycle: .init(onMilliseconds: 1000, offMilliseconds: 3_600_000))
        _ = m.step(.timer, now: 1000)
        // Every watchdog period (say 30 s) of an hour off: healthy, and no timer but the on phase.
        for t in stride(from: Int64(1000), to: 3_601_000, by: 30_000) {
            #expect(m.isHealthy, "at \(t) ms")
            #expect(m.step(.timer, now: t) == [] || t >= 3_601_000)
        }
        #expect(m.nextDeadline == 3_601_000)
    }

    @Test func anUnplugInAnOffPhaseReturnsToTheOffPhase() {
        var m = onAir(cycle: .init(onMilliseconds: 1000, offMilliseconds: 60_000))
        _ = m.step(.timer, now: 1000)
        _ = m.step(.deviceGone, now: 2000)
        #expect(m.phase == .unplugged)
        #expect(m.step(.deviceBack, now: 5000) == [], "the on phase runs the whole plan anyway")
        #expect(m.phase == .offPhase(.init(offMilliseconds: 60_000, pair: 1, count: nil)))
        #expect(m.isHealthy)
    }

    /// The sharing mode hears a device's return as Index Added, then New Settings with Powered: the
    /// machine, not the observer, knows that powered while unplugged is the return.
    @Test func poweredWhileUnpluggedIsTheDevicesReturn() {
        var m = onAir()
        _ = m.step(.deviceGone, now: 1000)
        #expect(m.step(.poweredOn, now: 2000) == [.rearm(.deviceReturned, started: 2000, resume: 0, choice: PlanChoice(family: .legacy), after: nil)])
        var down = onAir()
        _ = down.step(.poweredOff, now: 1000)
        #expect(down.step(.poweredOn, now: 2000) == [.rearm(.deviceUp, started: 2000, resume: 0, choice: PlanChoice(family: .legacy), after: nil)])
    }

    /// The unplug wait is a timer of the unplugged phase: the device's return cancels it, a second
    /// unregistration does not move it, and its expiry ends the session (`deviceLost`).
    @Test func theUnplugWaitIsATimerOfTheUnpluggedPhase() {
        var m = onAir(rotation: 0)
        m.policy.unplugWaitMilliseconds = 5000
        _ = m.step(.deviceGone, now: 1000)
        #expect(m.unplugDeadline == 6000 && m.nextDeadline == 6000)
        _ = m.step(.deviceGone, now: 2000)
        #expect(m.unplugDeadline == 6000, "the wait counts from the first unregistration")
        _ = m.step(.deviceBack, now: 3000)
        _ = m.step(.rearmed(.deviceReturned, started: 3000, rotationIndex: 0), now: 3100)
        #expect(m.unplugDeadline == nil && m.nextDeadline == nil && !m.deviceLost, "back on air: the timer is cancelled")
        _ = m.step(.deviceGone, now: 10_000)
        #expect(m.step(.timer, now: 14_999) == [] && !m.deviceLost)
        #expect(m.step(.timer, now: 15_000) == [] && m.deviceLost && m.nextDeadline == nil)
        var forever = onAir(rotation: 0)
        _ = forever.step(.deviceGone, now: 1000)
        #expect(forever.nextDeadline == nil, "no wait configured: none")
    }

    @Test func deviceDownIsWaitedForNotRetried() {
        var m = onAir()
        _ = m.step(.poweredOff, now: 100)
        #expect(m.phase == .deviceDown)
        #expect(m.nextDeadline == nil, "nothing is sent until the kernel reports it up")
        #expect(m.isHealthy, "an administrator's power off is waited out, not a hang: the watchdog keeps being fed")
        #expect(m.step(.commandSeen(.reset, disruption: .reset, advertising: false), now: 200) == [], "nothing of ours is on air to disrupt")
        #expect(m.step(.poweredOn, now: 300) == [.rearm(.deviceUp, started: 300, resume: 0, choice: PlanChoice(family: .legacy), after: nil)])
        _ = m.step(.failed(.deviceUp, .command(.transport(.deviceDown(call: "write", device: "hci0")))), now: 301)
        #expect(m.phase == .deviceDown)
        #expect(m.failedRearmCount == 0)
    }

    /// Resets faster than the dwell plus the re-arm (e2e rc-rotation-resume on a loaded host: each
    /// re-arm took 450–550 ms, one reset every 0.7 s, 200 ms dwell) must not keep one beacon on air:
    /// a beacon brought back by a re-arm and disrupted again before its swap yields to the next one.
    @Test func disruptionsFasterThanTheDwellGoRoundTheBeacons() throws {
        var m = onAir()   // 3 beacons, 1 s dwell
        let reset = RearmCause.disruption(.reset)
        var resumed: [Int] = []
        var t: Int64 = 100
        for _ in 0..<6 {
            _ = m.step(.commandSeen(.reset, disruption: .reset, advertising: false), now: t)
            _ = m.step(.commandCompleted(.reset), now: t)
            let effects = m.step(.timer, now: t + m.policy.settleMilliseconds)
            guard case let .rearm(_, _, resume, _, _)? = effects.first else { Issue.record("no re-arm: \(effects)"); return }
            resumed.append(resume)
            // What the shell's re-arm does: the plan again (rotation from beacon 1), then the resume step.
            _ = m.step(.planAdopted(rotationLength: 3, dwellMilliseconds: 1000), now: t + 300)
            _ = m.step(.rearmed(reset, started: t, rotationIndex: resume), now: t + 300)
            t += 700
        }
        #expect(resumed == [0, 1, 2, 0, 1, 2], "the first re-arm brings back the beacon on air, each later one the next")
        // A swap between two disruptions: the beacon on air then comes back, not the next one.
        t = try #require(m.nextDeadline)
        #expect(m.step(.timer, now: t) == [.rotate(to: 0)])
        _ = m.step(.rotated(to: 0), now: t)
        _ = m.step(.commandSeen(.reset, disruption: .reset, advertising: false), now: t + 10)
        _ = m.step(.commandCompleted(.reset), now: t + 10)
        #expect(m.step(.timer, now: t + 260) == [.rearm(reset, started: t + 10, resume: 0, choice: PlanChoice(family: .legacy), after: nil)])
    }

    @Test func aNewOnPhaseStartsTheRotationAtBeaconOne() {
        var m = onAir(cycle: .init(onMilliseconds: 1500, offMilliseconds: 10_000))
        _ = m.step(.timer, now: 1000)
        _ = m.step(.rotated(to: 1), now: 1000)
        _ = m.step(.timer, now: 1500)
        #expect(m.step(.timer, now: 11_500) == [.rearm(.cycleOn(milliseconds: 1500), started: 11_500, resume: 0, choice: PlanChoice(family: .legacy), after: nil)])
    }

    @Test func aFailedReArmIsRetried() {
        var m = onAir(rotation: 0)
        _ = m.step(.hardwareError(code: 0x02), now: 0)
        #expect(m.phase == .awaitingReset(hardwareCode: 0x02))
        #expect(m.step(.timer, now: m.policy.hardwareErrorGraceMilliseconds) == [.rearm(.hardwareError(code: 2), started: 0, resume: 0, choice: PlanChoice(family: .legacy), after: nil)])
        let error = SessionError.command(.commandFailed(opcode: .leSetAdvertisingEnable, status: .init(rawValue: 0x0C)))
        #expect(m.step(.failed(.hardwareError(code: 2), error), now: 3000)
                == [.note(.rearmFailed(.hardwareError(code: 2), error, retryMilliseconds: 1000))])
        #expect(m.phase == .retrying(.hardwareError(code: 2), error))
        #expect(m.isHealthy, "a retry is due")
        #expect(m.step(.timer, now: 4000) == [.rearm(.hardwareError(code: 2), started: 0, resume: 0, choice: PlanChoice(family: .legacy), after: nil)])
    }

    /// Hardware Errors in a row (raspberrypi/linux#2832; the quirk bed's rc-quirky): one that comes
    /// while the kernel has the device down leaves it down; nothing is sent (not even the stop) until
    /// the kernel brings it up. Before, the machine waited for a reset again and the stop wrote to a
    /// down device (exit 69).
    @Test func aHardwareErrorWhileDownLeavesTheDeviceDown() {
        var m = onAir(rotation: 0)
        _ = m.step(.hardwareError(code: 0x00), now: 0)
        _ = m.step(.poweredOff, now: 100)
        #expect(m.step(.hardwareError(code: 0x00), now: 200) == [])
        #expect(m.phase == .deviceDown)
        #expect(m.nextDeadline == nil, "no re-arm is scheduled while down")
        #expect(m.step(.stopRequested, now: 300) == [], "the stop writes nothing to a device that is down")
    }

    @Test func takeoversBeyondTheBudgetYieldUntilTheOtherOwnerIsQuiet() {
        var m = onAir(rotation: 0)
        m.policy.fightBudget = FightBudget(takeovers: 1, windowMilliseconds: 30_000, quietMilliseconds: 10_000)
        func takeover(at t: Int64) -> [SessionMachine.Effect] {
            _ = m.step(.commandSeen(.leSetAdvertisingData, disruption: .wrote(.leSetAdvertisingData, set: nil), advertising: true), now: t)
            _ = m.step(.commandCompleted(.leSetAdvertisingData), now: t)
            return m.step(.timer, now: t + m.policy.settleMilliseconds)
        }
        let wrote = RearmCause.disruption(.wrote(.leSetAdvertisingData, set: nil))
        #expect(takeover(at: 1000) == [.rearm(wrote, started: 1000, resume: 0, choice: PlanChoice(family: .legacy), after: nil)])
        _ = m.step(.rearmed(wrote, started: 1000, rotationIndex: 0), now: 1250)
        #expect(takeover(at: 2000) == [], "the second takeover in 30 s is not fought")
        #expect(m.phase == .yielding(.init(takeovers: 2, windowMilliseconds: 30_000, quietMilliseconds: 10_000, last: wrote)))
        #expect(m.isHealthy)
        _ = m.step(.commandSeen(.leSetAdvertisingEnable, disruption: nil, advertising: true), now: 9000)
        #expect(m.nextDeadline == 19_000, "each advertising command of the other owner pushes the quiet period back")
        #expect(m.step(.timer, now: 19_000) == [.rearm(.otherOwnerQuiet(milliseconds: 10_000), started: 19_000, resume: 0, choice: PlanChoice(family: .legacy), after: nil)])
    }

    @Test func aConnectionIsReEnabledAfterTheDisconnection() {
        var m = onAir(rotation: 0)
        _ = m.step(.connected(.set(238)), now: 10)
        #expect(m.phase == .connected(.set(238)))
        #expect(m.step(.disconnected, now: 50) == [.reenable([238], started: 50)])
        #expect(m.step(.disconnected, now: 60) == [], "once")
    }

    @Test func nothingHappensBeforeStartOrAfterStop() {
        var m = SessionMachine()
        #expect(m.step(.poweredOn, now: 0) == [])
        #expect(m.phase == .idle)
        m = onAir()
        _ = m.step(.stopRequested, now: 5)
        #expect(m.step(.poweredOn, now: 6) == [])
        #expect(m.step(.timer, now: 5000) == [])
        #expect(m.phase == .stopped)
        #expect(m.nextDeadline == nil)
    }
}

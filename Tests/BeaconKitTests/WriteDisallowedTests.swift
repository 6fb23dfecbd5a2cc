// SPDX-License-Identifier: Apache-2.0
@testable import BeaconKit
import BeaconTestSupport
import Testing

/// A controller that now and then refuses LE Set Advertising Data while advertising with Command
/// Disallowed (noble/bleno #136, #157): the rotation's swap is sent again with the instance disabled
/// around it, a bounded number of times, and told once. Whole packets, scripted.
@Suite struct WriteDisallowedTests {
    typealias C = Controllers

    static func disallowed(_ step: PlannedCommand) -> ScriptedController.Step {
        .command(step.command, replies: [C.fail(step.command, .commandDisallowed)])
    }

    /// disable, the write, enable: what a paused write sends.
    static func paused(_ plan: KioskPlan, _ step: PlannedCommand) -> [PlannedCommand] {
        plan.disable() + [step] + plan.reenable(plan.handles)
    }

    @Test func aRefusedSwapIsWrittenWithTheInstanceDisabledAroundItAndToldOnce() throws {
        let plan = try KioskPlan(try AdvertisingSessionTests.three(), family: .legacy)
        let (one, two) = (plan.rotationSteps[1], plan.rotationSteps[2])
        #expect(Self.paused(plan, one).map { Hex.encode($0.command.packet) } == [
            "010a200100", Hex.encode(one.command.packet), "010a200101",
        ], "LE Set Advertising Enable off, LE Set Advertising Data, LE Set Advertising Enable on")
        let fake = ScriptedController(C.script(C.okSteps(plan.start), [Self.disallowed(one)], C.okSteps(Self.paused(plan, one)),
                                               [Self.disallowed(two)], C.okSteps(Self.paused(plan, two))))
        let clock = AdvertisingSessionTests.Clock()
        var notes: [SessionNote] = []
        let s = try AdvertisingSessionTests().session(try AdvertisingSessionTests.three(), fake, extended: false, clock: clock, log: { notes.append($0) })
        try s.start()
        for step in 1...2 {
            clock.ms = 10_000 + Int64(step) * 200
            s.timerExpired()
        }
        #expect(s.machine.rotationSwaps == 2 && s.machine.rotationIndex == 2)
        #expect(s.phase == .onAir && s.machine.failedRearmCount == 0)
        #expect(notes == [.writeDisallowedWhileAdvertising(.commandFailed(opcode: .leSetAdvertisingData, status: .commandDisallowed), attempts: 2)])
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    /// Museum's three beacons on air, then the first swap's time: the swap must have failed.
    static func firstSwapFails(_ fake: ScriptedController, _ clock: AdvertisingSessionTests.Clock) throws -> AdvertisingSession {
        let s = try AdvertisingSessionTests().session(try AdvertisingSessionTests.three(), fake, extended: false, clock: clock)
        try s.start()
        clock.ms = 10_200
        s.timerExpired()
        guard case .retrying(.rotationStepFailed, _) = s.phase else { throw SwapDidNotFail(phase: "\(s.phase)") }
        return s
    }
    struct SwapDidNotFail: Error { var phase: String }

    @Test func theRetryIsBoundedThenTheMachineReArms() throws {
        let plan = try KioskPlan(try AdvertisingSessionTests.three(), family: .legacy)
        let one = plan.rotationSteps[1]
        let refusedPaused: [ScriptedController.Step] = C.okSteps(plan.disable()) + [Self.disallowed(one)]
        let fake = ScriptedController(C.script(C.okSteps(plan.start), [Self.disallowed(one)], refusedPaused, refusedPaused,
                                               C.okSteps(plan.start)))
        let clock = AdvertisingSessionTests.Clock()
        let s = try Self.firstSwapFails(fake, clock)
        #expect(s.machine.rotationSwaps == 0)
        clock.ms = 10_200 + s.machine.policy.retryMilliseconds
        s.timerExpired()
        #expect(s.phase == .onAir, "re-armed: the whole start plan, the instance enabled again")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    /// Another refusal than Command Disallowed is not retried.
    @Test func anotherStatusIsNotRetried() throws {
        let plan = try KioskPlan(try AdvertisingSessionTests.three(), family: .legacy)
        let one = plan.rotationSteps[1]
        let fake = ScriptedController(C.script(C.okSteps(plan.start), [.command(one.command, replies: [C.fail(one.command, Status(rawValue: 0x1F))])]))
        _ = try Self.firstSwapFails(fake, AdvertisingSessionTests.Clock())
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
import Testing

/// Issue 29 item 4: off means off on a single legacy instance that the kernel's MGMT instances also
/// use. The kernel's rotation re-enables the instance ~2 s into an off phase without rewriting it,
/// so an off phase that only disabled would put our beacon back on air. The machine decides
/// (`handBackInstance` after `disableForCycle`); the session writes the other owner's last data
/// back (or blank data when it was never seen), and the on phase's re-arm writes ours again.
@Suite struct OffPhaseHandBackTests {
    typealias C = Controllers
    typealias T = AdvertisingSessionTests

    static func command(_ hex: String) throws -> HCICommand { try HCICommand(packet: try #require(Hex.decode(hex))) }
    /// LE Set Advertising Data (0x2008) with zero-length data: 32 parameter bytes, all zero.
    static let blankHex = "010820" + "20" + String(repeating: "00", count: 32)
    /// The kernel's own data: Flags (02 01 06) and a Complete Local Name "AB" (03 09 41 42), padded to 31.
    static let kernelDataHex = "010820" + "20" + "07" + "0201060309" + "4142" + String(repeating: "00", count: 24)
    /// LE Set Advertising Enable (0x200a) on.
    static let enableHex = "010a200101"

    func session(_ fake: ScriptedController, _ clock: T.Clock) throws -> AdvertisingSession {
        let s = AdvertisingSession(configuration: KioskConfiguration(beacons: [try T.beacon(2)]), caps: try T.caps(extended: false), device: "hci0",
                                   runner: HCICommandRunner(channel: fake, now: { clock.ms }), now: { clock.ms }, log: { _ in })
        s.policy.schedule = AdvertisingSchedule(cycle: .init(onMilliseconds: 4000, offMilliseconds: 4000, count: nil))
        return s
    }

    @Test func theMachineHandsTheInstanceBackOnlyWhenItHasAnotherOwner() {
        var alone = SessionMachine()
        alone.policy.schedule = AdvertisingSchedule(cycle: .init(onMilliseconds: 1000, offMilliseconds: 1000, count: nil))
        alone.startPlaced(now: 0)
        #expect(alone.step(.timer, now: 1000) == [.disableForCycle])
        var shared = SessionMachine()
        shared.policy.schedule = alone.policy.schedule
        _ = shared.step(.otherOwnerOfInstance(displacing: nil), now: 0)
        shared.startPlaced(now: 0)
        #expect(shared.step(.timer, now: 1000) == [.disableForCycle, .handBackInstance(stopping: false)])
        // The on phase re-arms with the whole start plan (ours again).
        #expect(shared.step(.timer, now: 2000) == [.rearm(.cycleOn(milliseconds: 1000), started: 2000, resume: 0, choice: PlanChoice(family: .legacy), after: nil)])
    }

    /// The kernel's instances are known (Read Advertising Features) but its data was written before
    /// beacon-tx started: each off phase leaves blank data in the instance.
    @Test func unknownKernelDataIsBlankedAtEachOffPhase() throws {
        let config = KioskConfiguration(beacons: [try T.beacon(2)])
        let plan = try KioskPlan(config, family: .legacy)
        let blank = ScriptedController.Step.command(try Self.command(Self.blankHex), replies: [C.ok(try Self.command(Self.blankHex))])
        let fake = ScriptedController(C.okSteps(plan.start) + C.okSteps(plan.disable()) + [blank] + C.okSteps(plan.start)
                                      + C.okSteps(plan.disable()) + [blank])
        let clock = T.Clock()
        let s = try session(fake, clock)
        s.kernelInstances = [1]
        try s.start()
        clock.ms += 4000
        s.timerExpired()
        #expect(s.phase == .offPhase(.init(offMilliseconds: 4000, pair: 1, count: nil)))
        clock.ms += 4000
        s.timerExpired()
        #expect(s.phase == .onAir)
        clock.ms += 4000
        s.timerExpired()
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(fake.mismatches.isEmpty, "\(fake.mismatches)")
    }

    /// The kernel wrote its data and enabled the instance while beacon-tx ran (seen on the raw
    /// socket); then one cycle: what the off phase sends after its disable (`handBack`), and the on
    /// phase's re-arm.
    func offPhaseAfterTheKernelWrote(handBack: (_ data: HCICommand, _ enable: HCICommand) throws -> [ScriptedController.Step]) throws {
        let plan = try KioskPlan(KioskConfiguration(beacons: [try T.beacon(2)]), family: .legacy)
        let data = try Self.command(Self.kernelDataHex), enable = try Self.command(Self.enableHex)
        let fake = ScriptedController(C.okSteps(plan.start) + C.okSteps(plan.disable()) + (try handBack(data, enable)) + C.okSteps(plan.start))
        let clock = T.Clock()
        let s = try session(fake, clock)
        try s.start()
        s.handle(.observedCommand(data))
        s.handle(.observedCommand(enable))
        clock.ms += 4000
        s.timerExpired()
        #expect(s.phase == .offPhase(.init(offMilliseconds: 4000, pair: 1, count: nil)))
        clock.ms += 4000
        s.timerExpired()
        #expect(s.phase == .onAir)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(fake.mismatches.isEmpty, "\(fake.mismatches)")
    }

    /// The off phase writes the kernel's data back and enables it, so the kernel's advertisement is
    /// on air in our off phase and none of ours.
    @Test func seenKernelDataIsWrittenBackAtTheOffPhase() throws {
        try offPhaseAfterTheKernelWrote { data, enable in [C.okStep(data), C.okStep(enable)] }
    }

    /// The write-back of the other owner's data is refused: blank data goes into the instance
    /// instead (ours must not stay there for the kernel to re-enable), and the on phase re-arms.
    @Test func aRefusedWriteBackLeavesBlankDataNotOurs() throws {
        try offPhaseAfterTheKernelWrote { data, _ in
            let blank = try Self.command(Self.blankHex)
            return [.command(data, replies: [C.fail(data, .commandDisallowed)]), .command(blank, replies: [C.ok(blank)])]
        }
    }

    /// Fuzz finding (raw HCI, 1.95M executions): the other owner shows itself only in the off phase,
    /// by enabling the instance that still holds our beacon. The machine hands it back then, once.
    @Test func anOwnerLearntInTheOffPhaseGetsTheInstanceBackAtOnce() {
        var m = SessionMachine()
        m.policy.schedule = AdvertisingSchedule(cycle: .init(onMilliseconds: 1000, offMilliseconds: 1000, count: nil))
        m.startPlaced(now: 0)
        #expect(m.step(.timer, now: 1000) == [.disableForCycle])
        #expect(m.step(.otherOwnerOfInstance(displacing: .anotherOwner), now: 1100) == [.handBackInstance(stopping: false), .note(.displacing(.anotherOwner))])
        #expect(m.step(.otherOwnerOfInstance(displacing: .anotherOwner), now: 1200) == [], "handed back once")
        // Learnt on air, it waits for the off phase (which hands back by itself).
        var onAir = SessionMachine()
        onAir.startPlaced(now: 0)
        #expect(onAir.step(.otherOwnerOfInstance(displacing: nil), now: 10) == [])
    }

    /// The same on the wire: another program enables the instance (no data of its own written) in
    /// our off phase; blank data goes into it before the next on phase writes ours again.
    @Test func anEnableSeenInTheOffPhaseBlanksTheInstance() throws {
        let config = KioskConfiguration(beacons: [try T.beacon(2)])
        let plan = try KioskPlan(config, family: .legacy)
        let enable = try Self.command(Self.enableHex)
        let blank = ScriptedController.Step.command(try Self.command(Self.blankHex), replies: [C.ok(try Self.command(Self.blankHex))])
        let fake = ScriptedController(C.okSteps(plan.start) + C.okSteps(plan.disable()) + [blank] + C.okSteps(plan.start))
        let clock = T.Clock()
        let s = try session(fake, clock)
        try s.start()
        clock.ms += 4000
        s.timerExpired()
        #expect(s.phase == .offPhase(.init(offMilliseconds: 4000, pair: 1, count: nil)))
        clock.ms += 500
        s.handle(.observedCommand(enable))
        clock.ms += 3500
        s.timerExpired()
        #expect(s.phase == .onAir)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(fake.mismatches.isEmpty, "\(fake.mismatches)")
    }
}

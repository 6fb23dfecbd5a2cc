// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
import Testing

/// Issue 23, items 1 and 3: one legacy advertising instance shared with the kernel's MGMT instances.
/// The kernel's commands here are what it sends for `btmgmt add-adv -d 08ffffff4b45524e31 1` on a
/// controller without extended advertising: a non-resolvable random address, non-connectable
/// parameters from it, the data, the enable.
@Suite struct SingleInstanceOwnershipTests {
    typealias C = Controllers
    typealias T = AdvertisingSessionTests

    static let kernelAddress = HCICommand(.leSetRandomAddress, [0x5A, 0x4B, 0x3C, 0x2D, 0x1E, 0x0F])
    static let kernelParameters = HCICommand(.leSetAdvertisingParameters,
                                             [0x00, 0x08, 0x00, 0x08, 0x03, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0x07, 0x00])
    static func kernelData(_ n: UInt8) -> HCICommand { .leSetAdvertisingData([0x08, 0xFF, 0xFF, 0xFF, 0x4B, 0x45, 0x52, 0x4E, 0x30 + n]) }
    static func kernelTakeover(_ n: UInt8) -> [HCICommand] {
        [.leSetAdvertisingEnable(false), kernelAddress, kernelParameters, kernelData(n), .leSetAdvertisingEnable(true)]
    }

    func session(_ config: KioskConfiguration, _ fake: ScriptedController, clock: T.Clock,
                 log: @escaping (SessionNote) -> Void = { _ in }) throws -> AdvertisingSession {
        AdvertisingSession(configuration: config, caps: try T.caps(extended: false), device: "hci0",
                           runner: HCICommandRunner(channel: fake, now: { clock.ms }), now: { clock.ms }, log: log)
    }

    /// The kernel's commands as the raw socket sees them: each copied, then its Command Complete.
    func kernelSends(_ commands: [HCICommand], to s: AdvertisingSession) {
        for c in commands {
            s.handle(.observedCommand(c))
            s.handle(.event(C.ok(c)))
        }
    }

    /// One takeover by the kernel, then the re-arm after the settle time.
    func takeover(_ n: UInt8, _ s: AdvertisingSession, _ clock: T.Clock) {
        kernelSends(Self.kernelTakeover(n), to: s)
        clock.ms += s.policy.settleMilliseconds
        s.timerExpired()
    }

    @Test func stopGivesTheInstanceBackAsTheKernelLastWroteIt() throws {
        let config = KioskConfiguration(beacons: [try T.beacon(2)])
        let plan = try KioskPlan(config, family: .legacy)
        let restore = [Self.kernelAddress, Self.kernelParameters, Self.kernelData(1), .leSetAdvertisingEnable(true)]
        let fake = ScriptedController(C.okSteps(plan.start) + C.okSteps(plan.start) + C.okSteps(plan.stop) + restore.map(C.okStep))
        let clock = T.Clock()
        var notes: [SessionNote] = []
        let s = try session(config, fake, clock: clock) { notes.append($0) }
        try s.start()
        #expect(s.displacedOwner == nil, "nobody else advertises yet")
        // `btmgmt add-adv` after our start: the kernel writes its instance, we take it back once.
        takeover(1, s, clock)
        #expect(s.phase == .onAir)
        #expect(s.machine.rearmCount == 1)
        #expect(s.displacedOwner == .anotherOwner)
        try s.stop()
        #expect(fake.isFullyConsumed, "stop = our disable, then the kernel's address, parameters, data and enable; left: \(fake.remaining)")
        #expect(notes.filter { $0 == .machine(.displacing(.anotherOwner)) }.count == 1, "said once: \(notes)")
        #expect(notes.last == .handedBack(enabled: true))
    }

    @Test func stopBlanksOurDataWhenTheKernelsDataWasNeverSeen() throws {
        let config = KioskConfiguration(beacons: [try T.beacon(2)])
        let plan = try KioskPlan(config, family: .legacy)
        let fake = ScriptedController(C.okSteps(plan.start) + C.okSteps(plan.stop) + [C.okStep(.leSetAdvertisingData([]))])
        let clock = T.Clock()
        var notes: [SessionNote] = []
        let s = try session(config, fake, clock: clock) { notes.append($0) }
        // The kernel's instance 1 was added before beacon-tx (MGMT Read Advertising Features says so).
        s.kernelInstances = [1]
        try s.start()
        #expect(notes.first == .machine(.displacing(.kernelInstances([1]))))
        #expect(s.displacedOwner == .kernelInstances([1]))
        try s.stop()
        #expect(fake.isFullyConsumed, "stop = our disable, then zero-length data; left: \(fake.remaining)")
        // The blank data command on the wire: LE Set Advertising Data, length 0, 31 zero octets.
        #expect(ForeignLegacyAdvertising.blankData.command.packet == [0x01, 0x08, 0x20, 0x20] + [UInt8](repeating: 0, count: 32))
    }

    @Test func theFightBudgetYieldsAfterThreeTakeoversAndReArmsWhenTheOwnerIsQuiet() throws {
        let config = KioskConfiguration(beacons: [try T.beacon(2)])
        let plan = try KioskPlan(config, family: .legacy)
        // Our start, three re-arms, the yield (nothing sent), the re-arm after the quiet period.
        let fake = ScriptedController((0..<5).flatMap { _ in C.okSteps(plan.start) })
        let clock = T.Clock()
        let s = try session(config, fake, clock: clock)
        try s.start()
        // Two kernel instances rotate every 2 s: each turn takes the instance over.
        for turn in 0..<3 {
            clock.ms += 2000
            takeover(UInt8(1 + turn % 2), s, clock)
            #expect(s.phase == .onAir)
        }
        #expect(s.machine.rearmCount == 3)
        clock.ms += 2000
        takeover(2, s, clock)
        #expect(s.machine.isYielding)
        #expect(s.machine.yieldCount == 1)
        #expect(s.machine.rearmCount == 3, "the fourth takeover within 30 s is not fought")
        #expect(s.phase == .yielding(.init(takeovers: 4, windowMilliseconds: 30_000, quietMilliseconds: 10_000, last: .disruption(.wrote(.leSetAdvertisingData, set: nil)))))
        // The kernel keeps rotating: every one of its commands pushes the quiet period back.
        clock.ms += 2000
        kernelSends(Self.kernelTakeover(1), to: s)
        clock.ms += 9000
        s.timerExpired()
        #expect(s.machine.isYielding, "9 s after the kernel's last command")
        #expect(s.machine.nextDeadline == clock.ms + 1000)
        // Its instances are gone (btmgmt clr-adv): 10 s later beacon-tx takes the instance again.
        clock.ms += 1000
        s.timerExpired()
        #expect(!s.machine.isYielding)
        #expect(s.phase == .onAir)
        #expect(s.machine.lastRearm?.cause == .otherOwnerQuiet(milliseconds: 10_000))
        #expect(s.machine.recentTakeovers.isEmpty, "a fresh budget")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func aStopWhileYieldedLeavesTheOwnersAdvertisingOn() throws {
        let config = KioskConfiguration(beacons: [try T.beacon(2)])
        let plan = try KioskPlan(config, family: .legacy)
        var budget = FightBudget(takeovers: 1)
        budget.quietMilliseconds = 5000
        // Start, one re-arm, the yield; stop sends nothing: the kernel's instance is on air as the kernel
        // wrote it (its parameters could not even be written while it advertises: Command Disallowed).
        let fake = ScriptedController(C.okSteps(plan.start) + C.okSteps(plan.start))
        let clock = T.Clock()
        let s = try session(config, fake, clock: clock)
        s.policy.fightBudget = budget
        try s.start()
        takeover(1, s, clock)
        takeover(2, s, clock)
        #expect(s.machine.isYielding)
        try s.stop()
        #expect(s.phase == .stopped)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func aReloadWhileYieldedReArmsAtOnce() throws {
        let config = KioskConfiguration(beacons: [try T.beacon(2)])
        let plan = try KioskPlan(config, family: .legacy)
        let fake = ScriptedController(C.okSteps(plan.start) + C.okSteps(plan.start) + C.okSteps(plan.stop) + C.okSteps(plan.start))
        let clock = T.Clock()
        let s = try session(config, fake, clock: clock)
        s.policy.fightBudget = FightBudget(takeovers: 1)
        try s.start()
        takeover(1, s, clock)
        takeover(2, s, clock)
        #expect(s.machine.isYielding)
        let summary = try s.reload(config)
        #expect(summary.restarted)
        #expect(!s.machine.isYielding)
        #expect(s.phase == .onAir)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func aBudgetCountsOnlyTakeoversInsideItsWindow() {
        let b = FightBudget()
        var recent: [Int64] = []
        let spent = [0, 10_000, 20_000, 30_000, 31_000].map { (t: Int64) -> Bool in
            let r = b.takeover(at: t, after: recent)
            recent = r.recent
            return r.spent
        }
        #expect(spent == [false, false, false, false, true], "at 30 s the first one has left the window")
        #expect(recent == [10_000, 20_000, 30_000, 31_000])
        let forever = FightBudget(takeovers: 0)
        let never = (0..<100).map { forever.takeover(at: Int64($0), after: []).spent }
        #expect(!never.contains(true))
        #expect(FightBudget().text == "3 takeovers in 30 s")
    }

    @Test func onlyLegacyAdvertisingCommandsAreRecorded() {
        var f = ForeignLegacyAdvertising()
        let extended = f.record(.leSetExtendedAdvertisingEnable(false, sets: []))
        #expect(!extended)
        #expect(f.isEmpty)
        let off = f.record(.leSetAdvertisingEnable(false))
        #expect(off)
        #expect(!f.hasData)
        #expect(f.restoreSteps.isEmpty, "it stopped advertising: nothing to turn back on")
        let data = f.record(Self.kernelData(1))
        #expect(data)
        #expect(f.restoreSteps.map(\.command) == [Self.kernelData(1)])
    }
}

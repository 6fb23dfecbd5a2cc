// SPDX-License-Identifier: Apache-2.0
@testable import BeaconKit
import BeaconTestSupport
import Testing

/// The kiosk session driven through the scripted controller: every command it sends must be the next
/// one of the script (whole packets), and the script must be fully consumed.
@Suite struct AdvertisingSessionTests {
    typealias C = Controllers

    static func beacon(_ minor: UInt16, connectable: Bool = false) throws -> BeaconAdvertisement {
        let b = try #require(Golden.beacon)
        return BeaconAdvertisement(frame: .iBeacon(IBeacon(uuid: b.uuid, major: 1, minor: minor, measuredPower: -59)),
                                   options: AdvertisingOptions(interval: .standard, connectable: connectable))
    }

    /// The iBeacon `frame` with another minor.
    static func minor(_ minor: UInt16, of frame: BeaconFrame) throws -> BeaconFrame {
        var b = try #require(frame.iBeacon)
        b.minor = minor
        return .iBeacon(b)
    }

    static func three() throws -> KioskConfiguration {
        KioskConfiguration(beacons: [try beacon(1), try beacon(2), try beacon(3)])
    }

    /// The probe's answers as capabilities.
    static func caps(extended: Bool, sets: UInt8? = nil) throws -> ControllerCapabilities {
        let fake = ScriptedController(C.probe(extended: extended))
        var caps = try Advertiser.probe(HCICommandRunner(channel: fake))
        caps.numberOfSupportedAdvertisingSets = sets
        return caps
    }

    /// A phase in a timeline (the sentences are BeaconTool's, SessionTextTests).
    static func label(_ phase: SessionPhase) -> String {
        if case let .offPhase(c) = phase { return "off \(c.pair) of \(c.count.map(String.init) ?? "∞")" }
        return "\(phase)"
    }

    final class Clock: @unchecked Sendable {
        var ms: Int64 = 10_000
    }

    func session(_ config: KioskConfiguration, _ fake: ScriptedController, extended: Bool = true, sets: UInt8? = nil,
                 clock: Clock = Clock(), log: @escaping (SessionNote) -> Void = { _ in }) throws -> AdvertisingSession {
        AdvertisingSession(configuration: config, caps: try Self.caps(extended: extended, sets: sets), device: "hci0",
                           runner: HCICommandRunner(channel: fake, now: { clock.ms }), now: { clock.ms }, log: log)
    }

    @Test func threeBeaconsGetThreeSetsFromTheTopOfTheRange() throws {
        let plan = try KioskPlan(try Self.three(), family: .extended)
        #expect(plan.layout == .sets([0xEF, 0xEE, 0xED]))
        // Per set: disable (unknown set tolerated), parameters, data; then one enable of the three sets.
        #expect(plan.start.map { Hex.encode($0.command.packet) } == [
            "013920060001ef000000",
            "01362019ef1000a00000a00000070000000000000000007f0100010000",
            "01372022ef03011e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010001c5",
            "013920060001ee000000",
            "01362019ee1000a00000a00000070000000000000000007f0100010000",
            "01372022ee03011e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5",
            "013920060001ed000000",
            "01362019ed1000a00000a00000070000000000000000007f0100010000",
            "01372022ed03011e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010003c5",
            "0139200e0103ef000000ee000000ed000000",
        ])
        #expect(plan.stop.map { Hex.encode($0.command.packet) } == [
            "013920060001ef000000", "013920060001ee000000", "013920060001ed000000",
            "013c2001ef", "013c2001ee", "013c2001ed",
        ])
        #expect(plan.rotationSteps.isEmpty)
    }

    @Test func legacyRotatesTheDataWithoutDisabling() throws {
        let plan = try KioskPlan(try Self.three(), family: .legacy)
        #expect(plan.layout == .rotation(handle: 0xEF))
        #expect(plan.start.count == 4)
        #expect(plan.rotationSteps.map { Hex.encode($0.command.packet) } == [
            "010820201e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010001c500",
            "010820201e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c500",
            "010820201e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010003c500",
        ])
        #expect(plan.configuration.rotationCycleMilliseconds == 600, "each beacon heard at least once a second")
        var slow = try Self.three()
        slow.rotationMilliseconds = 50
        #expect(throws: KioskPlan.PlanError.rotationShorterThanInterval(rotationMilliseconds: 50, intervalMilliseconds: 100)) {
            try KioskPlan(slow, family: .legacy)
        }
    }

    @Test func rotationSwapsAtEachDwellAndOnlyThen() throws {
        let plan = try KioskPlan(try Self.three(), family: .legacy)
        let fake = ScriptedController(C.okSteps(plan.start) + C.okSteps([plan.rotationSteps[1], plan.rotationSteps[2], plan.rotationSteps[0]]))
        let clock = Clock()
        let s = try session(try Self.three(), fake, extended: false, clock: clock)
        try s.start()
        #expect(s.machine.nextDeadline == 10_200)
        clock.ms = 10_150
        s.timerExpired()  // early: nothing is sent
        #expect(s.machine.rotationSwaps == 0)
        for step in 1...3 {
            clock.ms = 10_000 + Int64(step) * 200
            s.timerExpired()
            #expect(s.machine.nextDeadline == 10_000 + Int64(step + 1) * 200, "cadence kept")
        }
        #expect(s.machine.rotationSwaps == 3)
        #expect(s.machine.rotationIndex == 0)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func oneBeaconHasNoTimer() throws {
        let config = KioskConfiguration(beacons: [try Self.beacon(2)])
        let plan = try KioskPlan(config, family: .extended)
        let fake = ScriptedController(C.okSteps(plan.start))
        let s = try session(config, fake)
        try s.start()
        #expect(s.phase == .onAir)
        #expect(s.machine.nextDeadline == nil, "an idle single-beacon kiosk sleeps")
        #expect(fake.isFullyConsumed)
    }

    @Test func capacityExceededFallsBackToRotationOnOneSet() throws {
        let sets = try KioskPlan(try Self.three(), family: .extended)
        let rotated = try KioskPlan(try Self.three(), family: .extended, rotate: true)
        #expect(rotated.layout == .rotation(handle: 0xEF))
        let third = sets.start[7].command  // parameters of the third set
        var steps = C.okSteps(Array(sets.start.prefix(7)))
        steps.append(.command(third, replies: [C.fail(third, .memoryCapacityExceeded)]))
        steps += C.okSteps(sets.stop)  // nothing half-done
        steps += C.okSteps(rotated.start)
        var log: [SessionNote] = []
        let fake = ScriptedController(steps)
        let s = try session(try Self.three(), fake, log: { log.append($0) })
        try s.start()
        #expect(s.plan?.layout == .rotation(handle: 0xEF))
        #expect(s.machine.nextDeadline != nil)
        #expect(log == [.rotatingForCapacity(beacons: 3, rotationMilliseconds: KioskConfiguration.defaultRotationMilliseconds)])
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func capacityExceededForOneSetIsAClearError() throws {
        let config = KioskConfiguration(beacons: [try Self.beacon(2)])
        let plan = try KioskPlan(config, family: .extended)
        let params = plan.start[1].command
        let fake = ScriptedController([C.okStep(plan.start[0].command), .command(params, replies: [C.fail(params, .memoryCapacityExceeded)])]
                                      + C.okSteps(plan.stop))
        let s = try session(config, fake)
        #expect(throws: SessionError.capacityExceeded(device: "hci0", beacons: 1, .commandFailed(opcode: .leSetExtendedAdvertisingParameters, status: .memoryCapacityExceeded))) {
            try s.start()
        }
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func fewerSetsThanBeaconsRotatesWithoutTrying() throws {
        let rotated = try KioskPlan(try Self.three(), family: .extended, rotate: true)
        let fake = ScriptedController(C.okSteps(rotated.start))
        let s = try session(try Self.three(), fake, sets: 2)
        try s.start()
        #expect(s.plan?.layout == .rotation(handle: 0xEF))
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func disableAllSetsByAnotherProgramIsReArmedAfterSettling() throws {
        let plan = try KioskPlan(try Self.three(), family: .extended)
        let disableAll = HCICommand.leSetExtendedAdvertisingEnable(false, sets: [])
        let fake = ScriptedController(C.okSteps(plan.start) + C.okSteps(plan.start))
        let clock = Clock()
        let s = try session(try Self.three(), fake, clock: clock)
        try s.start()
        s.handle(.observedCommand(disableAll))
        #expect(s.phase == .disrupted(.disabledAllSets))
        s.handle(.event(C.ok(disableAll)))
        #expect(s.machine.nextDeadline == 10_250)
        clock.ms = 10_250
        s.timerExpired()
        #expect(s.phase == .onAir)
        #expect(s.machine.rearmCount == 1)
        #expect(s.machine.lastRearm?.cause == .disruption(.disabledAllSets))
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func unrelatedCommandsAreIgnored() throws {
        let plan = try KioskPlan(try Self.three(), family: .extended)
        let fake = ScriptedController(C.okSteps(plan.start))
        let s = try session(try Self.three(), fake)
        try s.start()
        // bluetoothctl advertise on: the kernel's instance 1, not ours.
        s.handle(.observedCommand(.leSetExtendedAdvertisingEnable(true, sets: [AdvertisingSetEnable(handle: 1)])))
        s.handle(.observedCommand(.leSetExtendedAdvertisingEnable(false, sets: [AdvertisingSetEnable(handle: 1)])))
        s.handle(.observedCommand(.leRemoveAdvertisingSet(handle: 1)))
        #expect(s.phase == .onAir)
        #expect(s.machine.nextDeadline == nil)
        // Removing one of ours is not.
        s.handle(.observedCommand(.leRemoveAdvertisingSet(handle: 0xEE)))
        #expect(s.phase == .disrupted(.removedSet(238)))
    }

    @Test func powerOffIsRespectedUntilTheDeviceIsUp() throws {
        let plan = try KioskPlan(try Self.three(), family: .extended)
        let fake = ScriptedController(C.okSteps(plan.start) + C.okSteps(plan.start))
        let clock = Clock()
        let s = try session(try Self.three(), fake, clock: clock)
        try s.start()
        var states: [SessionPhase] = []
        s.onPhaseChange = { states.append($0) }
        // mgmt power off: disable all, clear, then the device goes down before the settle time ends.
        let disableAll = HCICommand.leSetExtendedAdvertisingEnable(false, sets: [])
        s.handle(.observedCommand(disableAll))
        s.handle(.event(C.ok(disableAll)))
        s.handle(.observedCommand(.leClearAdvertisingSets))
        s.handle(.event(C.ok(.leClearAdvertisingSets)))
        s.handle(.event(StackInternalDeviceEvent(kind: .down, deviceID: 0).event))
        #expect(s.phase == .deviceDown)
        // One line for the whole power-off: the clear after the disable is part of the same re-arm.
        #expect(states == [.disrupted(.disabledAllSets), .deviceDown])
        #expect(s.machine.nextDeadline == nil, "nothing is sent to a device that is down")
        clock.ms += 60_000
        s.timerExpired()
        s.handle(.event(StackInternalDeviceEvent(kind: .up, deviceID: 0).event))
        #expect(s.phase == .onAir)
        #expect(s.machine.lastRearm?.cause == .deviceUp)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func aConnectionEndsAConnectableSetAndTheDisconnectionReEnablesIt() throws {
        let config = KioskConfiguration(beacons: [try Self.beacon(1, connectable: true), try Self.beacon(2, connectable: true)])
        let plan = try KioskPlan(config, family: .extended)
        let reenable = HCICommand.leSetExtendedAdvertisingEnable(true, sets: [AdvertisingSetEnable(handle: 0xEE)])
        let fake = ScriptedController(C.okSteps(plan.start) + [C.okStep(reenable)])
        let s = try session(config, fake)
        try s.start()
        // LE Advertising Set Terminated: status 0, handle 0xEE, connection 0x0040, 1 event.
        s.handle(.event(HCIEvent(code: .leMeta, parameters: [0x12, 0x00, 0xEE, 0x40, 0x00, 0x01])))
        #expect(s.phase == .connected(.set(238)))
        s.handle(.event(HCIEvent(code: .disconnectionComplete, parameters: [0x00, 0x40, 0x00, 0x13])))
        #expect(s.phase == .onAir)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func reloadTouchesOnlyTheChangedBeacon() throws {
        let old = try Self.three()
        var new = old
        new.beacons[1].frame = try Self.minor(20, of: new.beacons[1].frame)
        let oldPlan = try KioskPlan(old, family: .extended)
        let newPlan = try KioskPlan(new, family: .extended)
        let update = try #require(oldPlan.update(to: newPlan))
        // Only set 238: disable, parameters, data (minor 20 = 0x0014), enable.
        #expect(update.map { Hex.encode($0.command.packet) } == [
            "013920060001ee000000",
            "01362019ee1000a00000a00000070000000000000000007f0100010000",
            "01372022ee03011e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010014c5",
            "013920060101ee000000",
        ])
        let fake = ScriptedController(C.okSteps(oldPlan.start) + C.okSteps(update))
        let s = try session(old, fake)
        try s.start()
        let summary = try s.reload(new)
        #expect(summary.unchanged == 2 && summary.updated == 1 && !summary.restarted)
        #expect(s.configuration == new)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func reloadAddsAndRemovesSets() throws {
        let old = try Self.three()
        var fewer = old
        fewer.beacons.removeLast()
        let removal = try #require(try KioskPlan(old, family: .extended).update(to: try KioskPlan(fewer, family: .extended)))
        #expect(removal.map { Hex.encode($0.command.packet) } == ["013920060001ed000000", "013c2001ed"])
        let addition = try #require(try KioskPlan(fewer, family: .extended).update(to: try KioskPlan(old, family: .extended)))
        #expect(addition.count == 4)
        #expect(Hex.encode(addition[3].command.packet) == "013920060101ed000000")
    }
}

/// `--cycle` and `--duration` against a fake clock: commands exactly at the phase changes, no timer
/// in between.
@Suite struct AdvertisingScheduleTests {
    typealias C = Controllers

    @Test func cycleTwoOnTwoOffTwiceThenFinished() throws {
        let config = KioskConfiguration(beacons: [try AdvertisingSessionTests.beacon(2)])
        let plan = try KioskPlan(config, family: .extended)
        let disable = Array(plan.stop.prefix(1))
        #expect(disable.map { Hex.encode($0.command.packet) } == ["013920060001ef000000"], "disable only, the set is kept")
        let fake = ScriptedController(C.okSteps(plan.start) + C.okSteps(disable) + C.okSteps(plan.start) + C.okSteps(disable))
        let clock = AdvertisingSessionTests.Clock()
        let s = AdvertisingSession(configuration: config, caps: try AdvertisingSessionTests.caps(extended: true), device: "hci0",
                                   runner: HCICommandRunner(channel: fake, now: { clock.ms }), now: { clock.ms }, log: { _ in })
        s.policy.schedule = AdvertisingSchedule(cycle: .init(onMilliseconds: 2000, offMilliseconds: 2000, count: 2))
        try s.start()
        var timeline: [String] = []
        for t: Int64 in [11_999, 12_000, 14_000, 16_000, 18_000] {
            clock.ms = t
            let sentBefore = fake.sent.count
            s.timerExpired()
            timeline.append("\(t - 10_000): \(fake.sent.count - sentBefore) sent, \(AdvertisingSessionTests.label(s.phase)), next \(s.machine.nextDeadline.map { "\($0 - 10_000)" } ?? "none"), finished \(s.machine.finished)")
        }
        #expect(timeline == [
            "1999: 0 sent, onAir, next 2000, finished false",
            "2000: 1 sent, off 1 of 2, next 4000, finished false",
            "4000: 4 sent, onAir, next 6000, finished false",
            "6000: 1 sent, off 2 of 2, next 8000, finished false",
            "8000: 0 sent, off 2 of 2, next none, finished true",
        ])
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    /// The pump (state file, STATUS, the "cycle: off" note a test or an operator waits for) hears of
    /// a phase change after its commands were sent, not before (e2e start-cycle caught the order).
    @Test func aPhaseChangeIsReportedAfterItsCommands() throws {
        let config = KioskConfiguration(beacons: [try AdvertisingSessionTests.beacon(2)])
        let plan = try KioskPlan(config, family: .extended)
        let disable = Array(plan.stop.prefix(1))
        let fake = ScriptedController(C.okSteps(plan.start) + C.okSteps(disable) + C.okSteps(plan.start))
        let clock = AdvertisingSessionTests.Clock()
        let s = AdvertisingSession(configuration: config, caps: try AdvertisingSessionTests.caps(extended: true), device: "hci0",
                                   runner: HCICommandRunner(channel: fake, now: { clock.ms }), now: { clock.ms }, log: { _ in })
        s.policy.schedule = AdvertisingSchedule(cycle: .init(onMilliseconds: 2000, offMilliseconds: 2000))
        var reports: [String] = []
        s.onPhaseChange = { reports.append("\($0 == .onAir ? "on air" : "off") after \(fake.sent.count) commands") }
        try s.start()
        let started = fake.sent.count
        clock.ms += 2000
        s.timerExpired()
        clock.ms += 2000
        s.timerExpired()
        #expect(reports == ["on air after \(started) commands", "off after \(started + 1) commands",
                            "on air after \(2 * started + 1) commands"])
    }

    @Test func phasesOfTheDryRun() {
        let forever = AdvertisingSchedule(cycle: .init(onMilliseconds: 30_000, offMilliseconds: 60_000))
        #expect(forever.phases(limit: 4).map { "\($0.on ? "on" : "off")@\($0.at)" } == ["off@30000", "on@90000", "off@120000", "on@180000"])
        let twice = AdvertisingSchedule(cycle: .init(onMilliseconds: 2000, offMilliseconds: 2000, count: 2))
        #expect(twice.phases().map(\.at) == [2000, 4000, 6000])
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
import Testing

/// The session's defects and untested paths found by the design review: each test here failed (or
/// had no counterpart) before its fix.
@Suite struct SessionDefectTests {
    typealias C = Controllers
    typealias T = AdvertisingSessionTests

    func session(_ config: KioskConfiguration, _ fake: ScriptedController, extended: Bool = true, clock: T.Clock = T.Clock(),
                 log: @escaping (SessionNote) -> Void = { _ in }) throws -> AdvertisingSession {
        AdvertisingSession(configuration: config, caps: try T.caps(extended: extended), device: "hci0",
                           runner: HCICommandRunner(channel: fake, now: { clock.ms }), now: { clock.ms }, log: log)
    }

    @Test func aForeignDataWriteOnOurSetIsReArmedAndOurOwnBytesAreNot() throws {
        let config = try T.three()
        let plan = try KioskPlan(config, family: .extended)
        let fake = ScriptedController(C.okSteps(plan.start) + C.okSteps(plan.start))
        let clock = T.Clock()
        let s = try session(config, fake, clock: clock)
        try s.start()
        // Exactly our data for set 239 (a replay, or a tool copying it): nothing changes on air.
        let ours = try #require(plan.start.map(\.command).first { $0.opcode == .leSetExtendedAdvertisingData })
        s.handle(.observedCommand(ours))
        #expect(s.phase == .onAir)
        // Another program's data on set 239 (minor 0x0063): our beacon is no longer on air there.
        let foreign = HCICommand(.leSetExtendedAdvertisingData, try #require(Hex.decode(
            "ef03011e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010063c5")))
        s.handle(.observedCommand(foreign))
        #expect(s.phase == .disrupted(.wrote(.leSetExtendedAdvertisingData, set: 239)))
        s.handle(.event(C.ok(foreign)))
        clock.ms += s.policy.settleMilliseconds
        s.timerExpired()
        #expect(s.phase == .onAir)
        #expect(s.machine.lastRearm?.cause == .disruption(.wrote(.leSetExtendedAdvertisingData, set: 239)))
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func foreignParametersOrAnotherSetsDataAreToldApart() throws {
        let config = try T.three()
        let plan = try KioskPlan(config, family: .extended)
        let fake = ScriptedController(C.okSteps(plan.start))
        let s = try session(config, fake)
        try s.start()
        // bluetoothd's own instance (set 1): not ours.
        s.handle(.observedCommand(HCICommand(.leSetExtendedAdvertisingData, [0x01, 0x03, 0x01, 0x03, 0x02, 0x01, 0x06])))
        #expect(s.phase == .onAir)
        // A random address on set 238, which advertises from the public address: nothing phones see changes.
        s.handle(.observedCommand(HCICommand(.leSetAdvertisingSetRandomAddress, [0xEE, 1, 2, 3, 4, 5, 0xC6])))
        #expect(s.phase == .onAir)
        // Parameters on set 238 that differ from ours: what phones see changed.
        s.handle(.observedCommand(.leSetExtendedAdvertisingParameters(handle: 0xEE, properties: .legacyConnectable,
                                                                       intervalMin: 0x140, intervalMax: 0x140)))
        #expect(s.phase == .disrupted(.wrote(.leSetExtendedAdvertisingParameters, set: 238)))
    }

    @Test func aForeignRandomAddressCountsWhenOurSetAdvertisesFromOne() throws {
        var config = try T.three()
        config.addressPerSet = true
        let plan = try KioskPlan(config, family: .extended)
        let fake = ScriptedController(C.okSteps(plan.start))
        let s = try session(config, fake)
        try s.start()
        s.handle(.observedCommand(HCICommand(.leSetAdvertisingSetRandomAddress, [0xEE, 1, 2, 3, 4, 5, 0xC6])))
        #expect(s.phase == .disrupted(.wrote(.leSetAdvertisingSetRandomAddress, set: 238)))
    }

    @Test func aForeignLegacyDataWriteIsReArmed() throws {
        let config = KioskConfiguration(beacons: [try T.beacon(2)])
        let plan = try KioskPlan(config, family: .legacy)
        let fake = ScriptedController(C.okSteps(plan.start) + C.okSteps(plan.start))
        let clock = T.Clock()
        let s = try session(config, fake, extended: false, clock: clock)
        try s.start()
        let other = HCICommand(.leSetAdvertisingData, [0x03, 0x02, 0x01, 0x06] + [UInt8](repeating: 0, count: 28))
        s.handle(.observedCommand(other))
        #expect(s.phase == .disrupted(.wrote(.leSetAdvertisingData, set: nil)))
        s.handle(.event(C.ok(other)))
        clock.ms += s.policy.settleMilliseconds
        s.timerExpired()
        #expect(s.phase == .onAir)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    /// fuzz-session's finding: another owner's scan response on a connectable (scannable) beacon was
    /// a disruption that no re-arm undoes (the start plan writes no scan response), so the session
    /// re-armed for nothing; bluetoothd writes its name there. The iBeacon is in the advertising data.
    @Test func aForeignScanResponseOnAConnectableBeaconIsNoDisruption() throws {
        let config = KioskConfiguration(beacons: [try T.beacon(2, connectable: true)])
        let plan = try KioskPlan(config, family: .legacy)
        let fake = ScriptedController(C.okSteps(plan.start))
        let s = try session(config, fake, extended: false)
        try s.start()
        let name = HCICommand.leSetScanResponseData([0x05, 0x09, 0x6b, 0x69, 0x6f, 0x73])
        s.handle(.observedCommand(name))
        s.handle(.event(C.ok(name)))
        #expect(s.phase == .onAir)
        #expect(s.machine.nextDeadline == nil, "no re-arm scheduled")
    }

    @Test func downAndUpDuringAnOffPhaseStayOffAndHealthyAndTheOnPhaseRearms() throws {
        let config = KioskConfiguration(beacons: [try T.beacon(2)])
        let plan = try KioskPlan(config, family: .extended)
        let disable = Array(plan.stop.prefix(1))
        let fake = ScriptedController(C.okSteps(plan.start) + C.okSteps(disable) + C.okSteps(plan.start))
        let clock = T.Clock()
        let s = try session(config, fake, clock: clock)
        s.policy.schedule = AdvertisingSchedule(cycle: .init(onMilliseconds: 2000, offMilliseconds: 600_000, count: nil))
        try s.start()
        clock.ms = 12_000
        s.timerExpired()
        #expect(s.phase == .offPhase(.init(offMilliseconds: 600_000, pair: 1, count: nil)))
        // bluetoothctl power off / on in the middle of a ten-minute off phase.
        s.handle(.event(StackInternalDeviceEvent(kind: .down, deviceID: 0).event))
        #expect(s.phase == .offPhase(.init(offMilliseconds: 600_000, pair: 1, count: nil)))
        #expect(s.machine.isHealthy, "the watchdog must keep being fed: the session does what it was asked to")
        s.handle(.event(StackInternalDeviceEvent(kind: .up, deviceID: 0).event))
        #expect(s.phase == .offPhase(.init(offMilliseconds: 600_000, pair: 1, count: nil)))
        #expect(s.machine.isHealthy)
        #expect(s.machine.nextDeadline == 612_000, "nothing before the on phase")
        clock.ms = 612_000
        s.timerExpired()
        #expect(s.phase == .onAir)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func aFailedRearmIsRetriedAfterTheRetryInterval() throws {
        let config = KioskConfiguration(beacons: [try T.beacon(2)])
        let plan = try KioskPlan(config, family: .extended)
        let parameters = plan.start[1].command
        #expect(parameters.opcode == .leSetExtendedAdvertisingParameters)
        // The re-arm's parameters command fails once (the controller is still busy), then all goes through.
        let failing: [ScriptedController.Step] = [C.okStep(plan.start[0].command), .command(parameters, replies: [C.fail(parameters, .init(rawValue: 0x3a))])]
        let fake = ScriptedController(C.okSteps(plan.start) + failing + C.okSteps(plan.stop) + C.okSteps(plan.start))
        let clock = T.Clock()
        var lines: [SessionNote] = []
        let s = try session(config, fake, clock: clock, log: { lines.append($0) })
        try s.start()
        let disableAll = HCICommand.leSetExtendedAdvertisingEnable(false, sets: [])
        s.handle(.observedCommand(disableAll))
        s.handle(.event(C.ok(disableAll)))
        clock.ms += s.policy.settleMilliseconds
        s.timerExpired()
        guard case .retrying(.disruption(.disabledAllSets), _) = s.phase else { Issue.record("not retrying after the failed re-arm: \(s.phase)"); return }
        #expect(s.machine.isHealthy, "a retry is pending")
        #expect(s.machine.nextDeadline == clock.ms + s.policy.retryMilliseconds)
        clock.ms += s.policy.retryMilliseconds
        s.timerExpired()
        #expect(s.phase == .onAir)
        #expect(s.machine.rearmCount == 1)
        #expect(lines.contains {
            if case .machine(.rearmFailed(.disruption(.disabledAllSets), _, retryMilliseconds: 1000)) = $0 { return true }
            return false
        })
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func aLegacyConnectableBeaconIsReEnabledAfterTheCentralDisconnects() throws {
        let config = KioskConfiguration(beacons: [try T.beacon(2, connectable: true)])
        let plan = try KioskPlan(config, family: .legacy)
        let fake = ScriptedController(C.okSteps(plan.start) + C.okSteps(plan.reenable([])))
        let s = try session(config, fake, extended: false)
        try s.start()
        // LE Connection Complete: status 0, connection 0x0040, role peripheral (0x01), ...
        s.handle(.event(HCIEvent(code: .leMeta, parameters: [0x01, 0x00, 0x40, 0x00, 0x01, 0x00] + [UInt8](repeating: 0, count: 13))))
        #expect(s.phase == .connected(.legacy))
        s.handle(.event(HCIEvent(code: .disconnectionComplete, parameters: [0x00, 0x40, 0x00, 0x13])))
        #expect(s.phase == .onAir)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func aReloadWhoseNewPlanFailsPutsThePreviousBeaconsBack() throws {
        let old = KioskConfiguration(beacons: [try T.beacon(2)])
        var new = old
        new.family = .legacy   // a family change restarts: the old plan's stop, then the new start
        let oldPlan = try KioskPlan(old, family: .extended)
        let newPlan = try KioskPlan(new, family: .legacy)
        let firstNew = newPlan.start[0].command
        let fake = ScriptedController(C.okSteps(oldPlan.start) + C.okSteps(oldPlan.stop)
                                      + [.command(firstNew, replies: [C.fail(firstNew, .init(rawValue: 0x1f))])]
                                      + C.okSteps(oldPlan.start))
        let s = try session(old, fake)
        try s.start()
        #expect(throws: (any Error).self) { try s.reload(new) }
        #expect(s.configuration == old, "the previous configuration stays")
        #expect(s.phase == .onAir, "and its beacons are back on air")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }
}

/// Issue 23, item 4: a re-arm resumes a rotation where it was instead of at beacon 1.
@Suite struct RotationResumeTests {
    typealias C = Controllers
    typealias T = AdvertisingSessionTests

    @Test func aReArmResumesTheRotationWithTheBeaconThatWasOnAir() throws {
        let config = try T.three()
        let plan = try KioskPlan(config, family: .legacy)
        let fake = ScriptedController(C.okSteps(plan.start) + C.okSteps([plan.rotationSteps[1], plan.rotationSteps[2]])
                                      + C.okSteps(plan.start) + C.okSteps([plan.rotationSteps[2], plan.rotationSteps[0]]))
        let clock = T.Clock()
        let s = AdvertisingSession(configuration: config, caps: try T.caps(extended: false), device: "hci0",
                                   runner: HCICommandRunner(channel: fake, now: { clock.ms }), now: { clock.ms }, log: { _ in })
        try s.start()
        for _ in 0..<2 {
            clock.ms += Int64(config.rotationMilliseconds)
            s.timerExpired()
        }
        #expect(s.machine.rotationIndex == 2)
        let off = HCICommand.leSetAdvertisingEnable(false)
        s.handle(.observedCommand(off))
        s.handle(.event(C.ok(off)))
        clock.ms += s.policy.settleMilliseconds
        s.timerExpired()
        #expect(s.phase == .onAir)
        #expect(s.machine.rotationIndex == 2, "beacon 3 was on air: it comes back first, beacon 1 does not jump the queue")
        #expect(s.machine.nextDeadline == 10_850, "a whole dwell for the beacon that came back")
        clock.ms += Int64(config.rotationMilliseconds)
        s.timerExpired()
        #expect(s.machine.rotationIndex == 0)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }
}

/// The session declares what it must hear; the pump (RawHCIObserver) installs exactly that.
@Suite struct SessionInputFilterTests {
    @Test func connectableBeaconsAddLEMetaAndDisconnections() throws {
        let quiet = RawHCIActuator.inputFilter(for: try AdvertisingSessionTests.three())
        #expect(quiet == [.commandComplete, .commandStatus, .hardwareError])
        let connectable = KioskConfiguration(beacons: [try AdvertisingSessionTests.beacon(1), try AdvertisingSessionTests.beacon(2, connectable: true)])
        #expect(RawHCIActuator.inputFilter(for: connectable)
                == [.commandComplete, .commandStatus, .hardwareError, .leMeta, .disconnectionComplete])
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
import Testing

/// A controller whose LE features and Supported_Commands claim extended advertising, but whose set
/// commands answer Unknown HCI Command (0x01): the Raspberry Pi 4's (citruz/beacontools #63), an
/// RTL8761B (bluez/bluetooth-next PR #133). `auto` falls back to legacy once, says so, and keeps
/// legacy for the re-arms and reloads of the run. Whole packets, scripted.
@Suite struct ExtendedRefusedTests {
    typealias C = Controllers

    static func unknown(_ c: HCICommand) -> ScriptedController.Step { .command(c, replies: [C.fail(c, .unknownHCICommand)]) }

    @Test func autoFallsBackToLegacyOnceAndKeepsItForReArms() throws {
        let config = KioskConfiguration(beacons: [try AdvertisingSessionTests.beacon(2)])
        let extended = try KioskPlan(config, family: .extended)
        let legacy = try KioskPlan(config, family: .legacy)
        // The first extended command is refused; its stop runs (best effort, refused too); then legacy.
        let refusedStop: [ScriptedController.Step] = extended.stop.map { Self.unknown($0.command) }
        // Then the re-arm after the device comes back: legacy at once, no extended try.
        let fake = ScriptedController(C.script([Self.unknown(extended.start[0].command)], refusedStop, C.okSteps(legacy.start), C.okSteps(legacy.start)))
        var notes: [SessionNote] = []
        let s = try AdvertisingSessionTests().session(config, fake, log: { notes.append($0) })
        try s.start()
        #expect(s.plan?.family == .legacy)
        #expect(notes == [.familyNotImplemented(.commandFailed(opcode: .leSetExtendedAdvertisingEnable, status: .unknownHCICommand), using: .legacy)])
        #expect(!s.caps.supportsExtendedAdvertising && s.caps.supportsLegacyAdvertising)
        s.handle(.event(StackInternalDeviceEvent(kind: .down, deviceID: 0).event))
        s.handle(.event(StackInternalDeviceEvent(kind: .up, deviceID: 0).event))
        #expect(s.phase == .onAir)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    /// A forced family is not switched: the refusal is the error.
    @Test func aForcedExtendedFamilyIsAnError() throws {
        var config = KioskConfiguration(beacons: [try AdvertisingSessionTests.beacon(2)])
        config.family = .extended
        let extended = try KioskPlan(config, family: .extended)
        let refusedStop: [ScriptedController.Step] = extended.stop.map { Self.unknown($0.command) }
        let fake = ScriptedController(C.script([Self.unknown(extended.start[0].command)], refusedStop))
        let s = try AdvertisingSessionTests().session(config, fake)
        #expect(throws: SessionError.self) { try s.start() }
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func theNoteSaysWhatHappened() {
        let e = HCIError.commandFailed(opcode: .leSetExtendedAdvertisingEnable, status: .unknownHCICommand)
        #expect(Advertiser.isFamilyRefusal(e))
        #expect(!Advertiser.isFamilyRefusal(.commandFailed(opcode: .leSetExtendedAdvertisingEnable, status: .invalidHCICommandParameters)))
    }
}

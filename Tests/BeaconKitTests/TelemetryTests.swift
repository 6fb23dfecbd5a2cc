// SPDX-License-Identifier: Apache-2.0
@testable import BeaconKit
import BeaconTestSupport
import Testing

/// Eddystone-TLM on air: the machine's TLM timer (a timer of the on-air phase) and its time on air,
/// the counts a refresh writes, and where each mode writes them (whole packets).
@Suite struct TelemetryTests {
    typealias C = Controllers

    static let uid = BeaconFrame.eddystone(.uid(Eddystone.UID(namespace: Array(0..<10), instance: Array(0..<6), txPower: -18)!))
    static let options = AdvertisingOptions(interval: .standard)
    static func config(rotation: Int = KioskConfiguration.defaultRotationMilliseconds) -> KioskConfiguration {
        KioskConfiguration(beacons: [BeaconAdvertisement(frame: uid, options: options),
                                     BeaconAdvertisement(frame: .telemetry(Telemetry(of: uid)), options: options)],
                           rotationMilliseconds: rotation)
    }

    /// The TLM's advertising data with these counts (battery 0, temperature not measured), by hand.
    static func tlmData(pdus: UInt32, tenths: UInt32) -> [UInt8] {
        func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
        return [0x02, 0x01, 0x06, 0x03, 0x03, 0xaa, 0xfe, 0x11, 0x16, 0xaa, 0xfe, 0x20, 0x00, 0x00, 0x00, 0x80, 0x00] + be32(pdus) + be32(tenths)
    }

    final class Clock: @unchecked Sendable { var ms: Int64 = 10_000 }

    @Test func theTLMIsSentFromItsBeaconsIdentityAndAddress() throws {
        let tlm = BeaconFrame.telemetry(Telemetry(of: Self.uid))
        #expect(tlm.kind == .eddystoneTLM && tlm.advertisingData == Self.tlmData(pdus: 0, tenths: 0))
        #expect(StaticRandomAddress.derived(for: tlm) == StaticRandomAddress.derived(for: Self.uid), "one address: a scanner pairs them by it")
        #expect(tlm.identity != Self.uid.identity, "yet a beacon of its own")
        #expect(BeaconFrame(parsing: tlm.advertisingData) == .eddystone(.tlm(Eddystone.TLM(advertisingPDUCount: 0, uptimeTenths: 0))))
    }

    /// 100 ms interval: 3 PDUs per 105 ms (interval + advDelay's mean) per placement.
    @Test func theCountsComeFromTimeOnAirAndTheInterval() {
        var k = Self.config()
        let found = k.refreshTelemetry(onAirMilliseconds: 10_000, uptimeMilliseconds: 12_345, sideBySide: true, temperature: { _ in nil })
        #expect(found)
        guard case let .telemetry(t) = k.beacons[1].frame else { Issue.record("no TLM"); return }
        #expect(t.tlm.advertisingPDUCount == 571 && t.tlm.uptimeTenths == 123 && t.tlm.temperature == Eddystone.TLM.temperatureNotSupported)
        _ = k.refreshTelemetry(onAirMilliseconds: 10_000, uptimeMilliseconds: 10_000, sideBySide: false, temperature: { _ in nil })
        guard case let .telemetry(r) = k.beacons[1].frame else { Issue.record("no TLM"); return }
        #expect(r.tlm.advertisingPDUCount == 285, "a rotation: one instance")
        var measured = Self.config()
        measured.beacons[1].frame = .telemetry(Telemetry(of: Self.uid, temperatureSource: "/zone"))
        _ = measured.refreshTelemetry(onAirMilliseconds: 0, uptimeMilliseconds: 0, sideBySide: true, temperature: { $0 == "/zone" ? 0x1780 : nil })
        guard case let .telemetry(m) = measured.beacons[1].frame else { Issue.record("no TLM"); return }
        #expect(m.tlm.celsius == 23.5)
        var none = KioskConfiguration(beacons: [BeaconAdvertisement(frame: Self.uid, options: Self.options)])
        let foundNone = none.refreshTelemetry(onAirMilliseconds: 1, uptimeMilliseconds: 1, sideBySide: true, temperature: { _ in nil })
        #expect(!foundNone)
    }

    /// The TLM timer runs only on air; time off air (powered off) does not count as on air, the
    /// uptime does. Kills "TLM refreshed while down", "on-air time counted through a power-off".
    @Test func theMachinesTelemetryTimerBelongsToTheOnAirPhase() {
        var m = SessionMachine()
        m.policy.telemetryMilliseconds = 1000
        _ = m.step(.planAdopted(rotationLength: 0, dwellMilliseconds: 0), now: 0)
        m.startPlaced(now: 0)
        #expect(m.nextDeadline == 1000)
        #expect(m.step(.timer, now: 1000) == [.refreshTelemetry(onAirMilliseconds: 1000, uptimeMilliseconds: 1000)])
        #expect(m.nextDeadline == 2000)
        _ = m.step(.poweredOff, now: 1500)
        #expect(m.nextDeadline == nil, "down: no TLM timer")
        #expect(m.step(.timer, now: 2000) == [])
        #expect(m.step(.poweredOn, now: 5000) == [.rearm(.deviceUp, started: 5000, resume: 0, choice: PlanChoice(family: .legacy), after: nil)])
        _ = m.step(.rearmed(.deviceUp, started: 5000, rotationIndex: 0), now: 5000)
        #expect(m.nextDeadline == 6000, "a new on-air stretch: its own timer")
        #expect(m.step(.timer, now: 6000) == [.refreshTelemetry(onAirMilliseconds: 2500, uptimeMilliseconds: 6000)])
        #expect(m.onAirMilliseconds(at: 6500) == 3000)
        var plain = SessionMachine()
        plain.startPlaced(now: 0)
        #expect(plain.nextDeadline == nil, "no TLM beacon: no timer")
        // A reload on air that adds the first TLM starts its timer; one that drops the last stops it.
        plain.policy.telemetryMilliseconds = 1000
        #expect(plain.step(.reloadRequested(inPlace: true), now: 500) == [.reload(.inPlace)])
        _ = plain.step(.reloaded, now: 600)
        #expect(plain.nextDeadline == 1600)
        plain.policy.telemetryMilliseconds = nil
        _ = plain.step(.reloadRequested(inPlace: true), now: 700)
        _ = plain.step(.reloaded, now: 800)
        #expect(plain.nextDeadline == nil, "no TLM left: no timer (a stale one would fire for ever)")
    }

    /// Sets: once a second, the TLM's set gets its data with the fresh counts (two sets side by side).
    @Test func setsWriteTheTLMsDataOnceASecond() throws {
        let plan = try KioskPlan(Self.config(), family: .extended)
        #expect(plan.layout == .sets([0xEF, 0xEE]))
        let fresh1 = PlannedCommand(.leSetExtendedAdvertisingData(handle: 0xEE, data: Self.tlmData(pdus: 57, tenths: 10)))
        let fresh2 = PlannedCommand(.leSetExtendedAdvertisingData(handle: 0xEE, data: Self.tlmData(pdus: 114, tenths: 20)))
        #expect(Hex.encode(fresh1.command.packet)
            == "0137201dee030119" + "0201060303aafe1116aafe20000000800000000039" + "0000000a")
        let fake = ScriptedController(C.okSteps(plan.start) + C.okSteps([fresh1, fresh2]))
        let clock = Clock()
        let s = AdvertisingSession(configuration: Self.config(), caps: try AdvertisingSessionTests.caps(extended: true), device: "hci0",
                                   runner: HCICommandRunner(channel: fake, now: { clock.ms }), now: { clock.ms }, log: { _ in })
        try s.start()
        #expect(s.machine.nextDeadline == 11_000)
        clock.ms = 10_999
        s.timerExpired()
        clock.ms = 11_000
        s.timerExpired()
        clock.ms = 12_000
        s.timerExpired()
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(s.phase == .onAir && s.machine.rearmCount == 0)
        // A reload of the same file keeps the counts: nothing to send, nothing reset.
        let summary = try s.reload(Self.config())
        #expect(summary.updated == 0 && summary.unchanged == 2 && s.configuration.beacons[1].frame.advertisingData == Self.tlmData(pdus: 114, tenths: 20))
    }

    /// With a thermal zone, the first frame already carries the temperature the reader gives.
    @Test func theStartFrameCarriesTheTemperature() throws {
        var config = Self.config()
        config.beacons[1].frame = .telemetry(Telemetry(of: Self.uid, temperatureSource: "/zone"))
        var started = config
        started.beacons[1].frame = .telemetry(Telemetry(tlm: Eddystone.TLM(temperature: 0x1780, advertisingPDUCount: 0, uptimeTenths: 0),
                                                        of: Self.uid, temperatureSource: "/zone"))
        let plan = try KioskPlan(started, family: .extended)
        let fake = ScriptedController(C.okSteps(plan.start))
        let clock = Clock()
        let s = AdvertisingSession(configuration: config, caps: try AdvertisingSessionTests.caps(extended: true), device: "hci0",
                                   runner: HCICommandRunner(channel: fake, now: { clock.ms }), now: { clock.ms }, log: { _ in })
        s.readTemperature = { $0 == "/zone" ? 0x1780 : nil }
        try s.start()
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    /// A rotation writes fresh counts only while the TLM is on air; its next turn carries them.
    @Test func aRotationCarriesTheFreshCountsOnTheTLMsTurn() throws {
        let config = Self.config(rotation: 700)
        let plan = try KioskPlan(config, family: .legacy)
        let tlm = { (pdus: UInt32, tenths: UInt32) in PlannedCommand(.leSetAdvertisingData(Self.tlmData(pdus: pdus, tenths: tenths))) }
        let fake = ScriptedController(C.okSteps(plan.start) + C.okSteps([
            plan.rotationSteps[1],   // 10 700: the TLM's turn, counts of the start
            tlm(28, 10),             // 11 000: refreshed while on air
            plan.rotationSteps[0],   // 11 400: the UID's turn
            // 12 000: refreshed, the UID on air: nothing sent
            tlm(57, 20),             // 12 100: the TLM's turn with the 12 000 counts
        ]))
        let clock = Clock()
        let s = AdvertisingSession(configuration: config, caps: try AdvertisingSessionTests.caps(extended: false), device: "hci0",
                                   runner: HCICommandRunner(channel: fake, now: { clock.ms }), now: { clock.ms }, log: { _ in })
        try s.start()
        for t: Int64 in [10_700, 11_000, 11_400, 12_000, 12_100] {
            clock.ms = t
            s.timerExpired()
        }
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(s.machine.rotationSwaps == 3 && s.machine.rearmCount == 0)
    }

    /// The sharing mode re-adds the TLM's instance with fresh counts every 10 s (one placement).
    @Test func theSharingModeReaddsTheTLMInstance() throws {
        let beacons = Self.config().beacons
        let features = MGMTAdvertisingFeatures(supportedFlags: MGMTAdvertisingFlags(rawValue: 0x1ffff), maxInstances: 5, instances: [])
        func adds(_ plan: SharePlan, _ i: Int) -> [ScriptedKernel.Step] {
            plan.add(i).map { $0.opcode == .addExtendedAdvertisingParameters ? Kernel.step($0, [plan.instances[i], 0, 31, 31]) : Kernel.instanceStep($0) }
        }
        let start = SharePlan(index: 0, beacons: beacons, instances: [5, 4], dwellMilliseconds: 1000, method: .extended)
        var later = beacons
        later[1].frame = .telemetry(Telemetry(tlm: Eddystone.TLM(advertisingPDUCount: 285, uptimeTenths: 100), of: Self.uid))
        let refreshed = start.with(beacons: later)
        let kernel = ScriptedKernel([Kernel.step(.readAdvertisingFeatures(index: 0), features.returnParameters)] + adds(start, 0) + adds(start, 1)
                                    + adds(refreshed, 1))
        let clock = Clock()
        let s = SharedAdvertisingSession(beacons: beacons, index: 0, device: "hci0", dwellMilliseconds: 1000,
                                         runner: MGMTCommandRunner(channel: kernel), now: { clock.ms }, log: { _ in })
        try s.start()
        #expect(s.machine.nextDeadline == 20_000)
        clock.ms = 20_000
        s.timerExpired()
        #expect(kernel.isFullyConsumed, "\(kernel.remaining)")
        #expect(kernel.mismatches.isEmpty, "\(kernel.mismatches)")
        #expect(s.plan.beacons[1].frame.advertisingData == Self.tlmData(pdus: 285, tenths: 100))
    }
}

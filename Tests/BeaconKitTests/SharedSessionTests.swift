// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
import Testing

/// The sharing mode's session as scripted MGMT conversations with a kernel: whole packets, every
/// step consumed.
@Suite struct SharedSessionTests {
    static let uuid = ProximityUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
    static func beacon(_ minor: UInt16) -> BeaconAdvertisement {
        BeaconAdvertisement(frame: .iBeacon(IBeacon(uuid: uuid, major: 1, minor: minor, measuredPower: -59)),
                            options: AdvertisingOptions(interval: .standard, connectable: false))
    }
    /// One instance (1, bluetoothd's) in use of 5; every flag supported.
    static let features = MGMTAdvertisingFeatures(supportedFlags: MGMTAdvertisingFlags(rawValue: 0x1ffff), maxInstances: 5, instances: [1])
    static let read = MGMTCommand.readAdvertisingFeatures(index: 0)

    /// Hex of the extended pair for minor `m` on instance `i`, copied from mgmt-api's layouts by hand.
    /// (In parts: Swift 6.0.3, the aarch64 toolchain, cannot type-check the whole `+` chain in time.)
    static func parametersHex(_ i: UInt8) -> String {
        let instance = String(Hex.byte(i).dropFirst(2))
        let rest: String = "00500000" + "0100" + "0000" + "a0000000" + "a0000000" + "00"
        return "540000001200" + instance + rest
    }
    static func dataHex(_ i: UInt8, _ m: UInt16) -> String {
        let instance = String(Hex.byte(i).dropFirst(2)), minor = String(Hex.word(m).dropFirst(2))
        let beacon: String = "0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e00001" + minor + "c5"
        return "550000002100" + instance + "1e00" + beacon
    }
    static func addSteps(_ i: UInt8, _ m: UInt16) throws -> [ScriptedKernel.Step] {
        let p = try MGMTCommand(packet: Hex.decode(parametersHex(i))!), d = try MGMTCommand(packet: Hex.decode(dataHex(i, m))!)
        return [Kernel.step(p, [i, 0, 31, 31]), Kernel.instanceStep(d)]
    }

    func session(_ kernel: ScriptedKernel, _ beacons: [BeaconAdvertisement], notes: Box) -> SharedAdvertisingSession {
        SharedAdvertisingSession(beacons: beacons, index: 0, device: "hci0", dwellMilliseconds: 1000,
                                 runner: MGMTCommandRunner(channel: kernel), now: kernel.now, log: { notes.lines.append($0) })
    }

    final class Box { var lines: [SessionNote] = [] }

    @Test func startTakesTheHighestFreeInstancesAndStopRemovesOnlyOurs() throws {
        let kernel = ScriptedKernel([Kernel.step(Self.read, Self.features.returnParameters)]
            + (try Self.addSteps(5, 1)) + (try Self.addSteps(4, 2))
            + [Kernel.instanceStep(.removeAdvertising(index: 0, instance: 5)), Kernel.instanceStep(.removeAdvertising(index: 0, instance: 4))])
        let notes = Box()
        let s = session(kernel, [Self.beacon(1), Self.beacon(2)], notes: notes)
        try s.start()
        #expect(s.plan.instances == [5, 4] && s.plan.method == .extended && s.phase == .onAir)
        try s.stop()
        #expect(kernel.isFullyConsumed, "\(kernel.remaining)")
        #expect(kernel.mismatches.isEmpty, "\(kernel.mismatches)")
        #expect(notes.lines.isEmpty)
    }

    /// Raspberry Pi kernels 6.12.93 and 6.18.34: Add Extended Advertising Data answers Invalid
    /// Parameters (0x0d). One note, then Add Advertising for this beacon and the next.
    @Test func invalidParametersToExtendedDataFallsBackToAddAdvertisingOnce() throws {
        let p5 = try MGMTCommand(packet: Hex.decode(Self.parametersHex(5))!), d5 = try MGMTCommand(packet: Hex.decode(Self.dataHex(5, 1))!)
        let add5 = try MGMTCommand(packet: Hex.decode("3e0000002900" + "05" + "00000000" + "0100" + "0000" + "1e00"
                                                        + "0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010001c5")!)
        let add4 = MGMTCommand.addAdvertising(index: 0, instance: 4, flags: [], duration: 1, advertisingData: Self.beacon(2).frame.advertisingData)
        let kernel = ScriptedKernel([
            Kernel.step(Self.read, Self.features.returnParameters),
            Kernel.step(p5, [5, 0, 31, 31]), .command(d5, replies: [Kernel.fail(d5, .invalidParameters)]),
            Kernel.instanceStep(add5), Kernel.instanceStep(add4),
        ])
        let notes = Box()
        let s = session(kernel, [Self.beacon(1), Self.beacon(2)], notes: notes)
        try s.start()
        #expect(s.plan.method == .addAdvertising)
        #expect(kernel.isFullyConsumed, "\(kernel.remaining)")
        #expect(kernel.mismatches.isEmpty, "\(kernel.mismatches)")
        #expect(notes.lines == [.addAdvertisingFallback(.addExtendedAdvertisingData, .invalidParameters)])
    }

    /// `--share-commands add-advertising`: Add Advertising (0x003e) from the first beacon on, though
    /// the kernel offers interval parameters; nothing is noted (it was asked for).
    @Test func aPinnedAddAdvertisingIsUsedFromTheStart() throws {
        let add5 = try MGMTCommand(packet: Hex.decode("3e0000002900" + "05" + "00000000" + "0100" + "0000" + "1e00"
                                                        + "0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010001c5")!)
        let kernel = ScriptedKernel([Kernel.step(Self.read, Self.features.returnParameters), Kernel.instanceStep(add5)])
        let notes = Box()
        let s = SharedAdvertisingSession(beacons: [Self.beacon(1)], index: 0, device: "hci0", dwellMilliseconds: 1000, method: .addAdvertising,
                                         runner: MGMTCommandRunner(channel: kernel), now: kernel.now, log: { notes.lines.append($0) })
        try s.start()
        #expect(s.plan.method == .addAdvertising && s.phase == .onAir)
        #expect(kernel.isFullyConsumed, "\(kernel.remaining)")
        #expect(kernel.mismatches.isEmpty, "\(kernel.mismatches)")
        #expect(notes.lines.isEmpty)
    }

    @Test func otherFailuresAreErrorsAndTooFewInstancesIsSaid() throws {
        let full = MGMTAdvertisingFeatures(supportedFlags: [], maxInstances: 2, instances: [1, 2])
        let kernel = ScriptedKernel([Kernel.step(Self.read, full.returnParameters)])
        let s = session(kernel, [Self.beacon(1)], notes: Box())
        #expect(throws: SessionError.shared(.noFreeInstances(device: "hci0", beacons: 1, maxInstances: 2, inUse: [1, 2]))) { try s.start() }
        let p5 = try MGMTCommand(packet: Hex.decode(Self.parametersHex(5))!)
        let denied = ScriptedKernel([Kernel.step(Self.read, Self.features.returnParameters), .command(p5, replies: [Kernel.fail(p5, .permissionDenied)])])
        #expect(throws: SessionError.shared(.mgmt(.commandFailed(opcode: .addExtendedAdvertisingParameters, index: 0, status: .permissionDenied)))) {
            try session(denied, [Self.beacon(1)], notes: Box()).start()
        }
    }

    /// Another program removes our instance: it is added again. Index Removed, Index Added, then New
    /// Settings with Powered: everything is added again. Another index's events change nothing.
    @Test func removedAndPowerCycledInstancesAreAddedAgain() throws {
        let kernel = ScriptedKernel([Kernel.step(Self.read, Self.features.returnParameters)] + (try Self.addSteps(5, 1)))
        let notes = Box()
        let s = session(kernel, [Self.beacon(1)], notes: notes)
        try s.start()
        s.handle(MGMTEvent(.advertisingRemoved, index: 1, [5]))
        s.handle(MGMTEvent(.advertisingRemoved, index: 0, [1]))
        #expect(s.machine.rearmCount == 0)
        kernel.append(try Self.addSteps(5, 1))
        s.handle(MGMTEvent(.advertisingRemoved, index: 0, [5]))
        #expect(s.machine.rearmCount == 1)
        s.handle(MGMTEvent(.indexRemoved, index: 0))
        #expect(s.machine.isDown && s.phase != .onAir)
        s.handle(MGMTEvent(.indexAdded, index: 0))
        s.handle(MGMTEvent(.newSettings, index: 0, [0x00, 0x02, 0x00, 0x00]))  // LE, not powered
        #expect(s.machine.rearmCount == 1)
        kernel.append(try Self.addSteps(5, 1))
        s.handle(MGMTEvent(.newSettings, index: 0, [0x01, 0x02, 0x00, 0x00]))  // Powered, LE
        #expect(s.machine.rearmCount == 2 && s.phase == .onAir && !s.machine.isDown)
        #expect(kernel.isFullyConsumed, "\(kernel.remaining)")
        #expect(kernel.mismatches.isEmpty, "\(kernel.mismatches)")
    }

    @Test func aFailedReaddIsRetriedAfterASecond() throws {
        let kernel = ScriptedKernel([Kernel.step(Self.read, Self.features.returnParameters)] + (try Self.addSteps(5, 1)))
        let s = session(kernel, [Self.beacon(1)], notes: Box())
        try s.start()
        let p5 = try MGMTCommand(packet: Hex.decode(Self.parametersHex(5))!)
        kernel.append([.command(p5, replies: [Kernel.fail(p5, .busy)])])
        s.handle(MGMTEvent(.advertisingRemoved, index: 0, [5]))
        #expect(s.machine.nextDeadline == kernel.now() + 1000)
        kernel.append([.receive(.timedOut)])
        _ = try? kernel.receive(timeoutMilliseconds: 1000)
        kernel.append(try Self.addSteps(5, 1))
        s.timerExpired()
        #expect(s.machine.rearmCount == 1 && s.machine.nextDeadline == nil)
        #expect(kernel.isFullyConsumed, "\(kernel.remaining)")
    }

    @Test func reloadTouchesOnlyWhatChanged() throws {
        let kernel = ScriptedKernel([Kernel.step(Self.read, Self.features.returnParameters)] + (try Self.addSteps(5, 1)) + (try Self.addSteps(4, 2)))
        let s = session(kernel, [Self.beacon(1), Self.beacon(2)], notes: Box())
        try s.start()
        // Minor 2 becomes 3; a third beacon gets the next free instance (3); then back to one beacon.
        kernel.append(try Self.addSteps(4, 3))
        #expect(try s.reload([Self.beacon(1), Self.beacon(3)], dwellMilliseconds: 1000)
                == .init(unchanged: 1, updated: 1, added: 0, removed: 0))
        kernel.append([Kernel.step(Self.read, MGMTAdvertisingFeatures(supportedFlags: Self.features.supportedFlags, maxInstances: 5, instances: [1]).returnParameters)]
                      + (try Self.addSteps(3, 7)))
        #expect(try s.reload([Self.beacon(1), Self.beacon(3), Self.beacon(7)], dwellMilliseconds: 1000)
                == .init(unchanged: 2, updated: 0, added: 1, removed: 0))
        #expect(s.plan.instances == [5, 4, 3])
        kernel.append([Kernel.instanceStep(.removeAdvertising(index: 0, instance: 4)), Kernel.instanceStep(.removeAdvertising(index: 0, instance: 3))])
        #expect(try s.reload([Self.beacon(1)], dwellMilliseconds: 1000) == .init(unchanged: 1, updated: 0, added: 0, removed: 2))
        #expect(kernel.isFullyConsumed, "\(kernel.remaining)")
        #expect(kernel.mismatches.isEmpty, "\(kernel.mismatches)")
    }

    /// A reload while the device is gone sends nothing (the kernel forgot our instances with it) and
    /// takes effect at the return; its instances are chosen from the kernel's last answer, so one that
    /// cannot fit is refused at once (the fuzz-session finding `share-reload-while-gone-too-many-*`).
    @Test func aReloadWhileGoneSendsNothingAndTakesEffectAtTheReturn() throws {
        let kernel = ScriptedKernel([Kernel.step(Self.read, Self.features.returnParameters)] + (try Self.addSteps(5, 1)))
        let s = session(kernel, [Self.beacon(1)], notes: Box())
        try s.start()
        s.handle(MGMTEvent(.indexRemoved, index: 0))
        #expect(try s.reload([Self.beacon(1), Self.beacon(2)], dwellMilliseconds: 1000) == .init(unchanged: 1, updated: 0, added: 1, removed: 0))
        #expect(kernel.isFullyConsumed && s.machine.lastReloadMethod == .offAir(removeOld: false), "nothing sent while gone")
        #expect(throws: SessionError.shared(.noFreeInstances(device: "hci0", beacons: 6, maxInstances: 5, inUse: [1, 4, 5]))) {
            try s.reload((1...6).map { Self.beacon($0) }, dwellMilliseconds: 1000)
        }
        kernel.append((try Self.addSteps(5, 1)) + (try Self.addSteps(4, 2)))
        s.handle(MGMTEvent(.indexAdded, index: 0))
        s.handle(MGMTEvent(.newSettings, index: 0, [0x01, 0x02, 0x00, 0x00]))  // Powered, LE
        #expect(s.phase == .onAir && s.plan.instances == [5, 4])
        #expect(kernel.isFullyConsumed, "\(kernel.remaining)")
        #expect(kernel.mismatches.isEmpty, "\(kernel.mismatches)")
    }

    /// Too few free instances for a reload: refused with nothing sent, the beacons on air untouched.
    @Test func aReloadWithTooFewFreeInstancesIsRefusedWithNothingSent() throws {
        let kernel = ScriptedKernel([Kernel.step(Self.read, Self.features.returnParameters)] + (try Self.addSteps(5, 1)))
        let s = session(kernel, [Self.beacon(1)], notes: Box())
        try s.start()
        let full = MGMTAdvertisingFeatures(supportedFlags: Self.features.supportedFlags, maxInstances: 2, instances: [1, 2])
        kernel.append([Kernel.step(Self.read, full.returnParameters)])
        #expect(throws: SessionError.shared(.noFreeInstances(device: "hci0", beacons: 2, maxInstances: 2, inUse: [1, 2, 5]))) {
            try s.reload([Self.beacon(1), Self.beacon(2)], dwellMilliseconds: 1000)
        }
        #expect(s.phase == .onAir && s.plan.instances == [5] && s.plan.beacons == [Self.beacon(1)])
        #expect(kernel.isFullyConsumed, "nothing re-added: \(kernel.remaining)")
        #expect(s.machine.nextDeadline == nil, "no re-arm scheduled")
    }

    @Test func shareModeRuleAndDuration() {
        #expect(!ShareMode.shares(.auto, singleInstance: true, kernelInstances: 0))
        #expect(ShareMode.shares(.auto, singleInstance: true, kernelInstances: 1))
        #expect(!ShareMode.shares(.auto, singleInstance: false, kernelInstances: 3))
        #expect(ShareMode.shares(.always, singleInstance: false, kernelInstances: 0))
        #expect(!ShareMode.shares(.never, singleInstance: true, kernelInstances: 2))
        #expect(SharePlan.durationSeconds(200) == 1 && SharePlan.durationSeconds(1499) == 1 && SharePlan.durationSeconds(2500) == 3)
    }
}

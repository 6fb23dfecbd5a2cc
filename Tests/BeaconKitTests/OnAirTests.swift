// SPDX-License-Identifier: Apache-2.0
@testable import BeaconKit
import Testing

/// The one on-air projection (`OnAir`): which of our beacons are on air, per beacon, from the
/// controller's state (raw HCI) or the kernel's instances (the sharing mode) and the plan.
@Suite struct OnAirTests {
    static let uuid = ProximityUUID(bytes: [0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0])!

    static func beacons(_ n: Int) -> [BeaconAdvertisement] {
        (0..<n).map { BeaconAdvertisement(frame: .iBeacon(IBeacon(uuid: uuid, major: 1, minor: UInt16($0 + 1))), options: AdvertisingOptions(interval: .standard)) }
    }

    @Test func extendedSetsAreOnAirPerBeacon() throws {
        let plan = try KioskPlan(KioskConfiguration(beacons: Self.beacons(3)), family: .extended)
        #expect(plan.beaconPlacements.map(\.placement) == plan.handles.map { .set($0) })
        var state = plan.desiredState()
        #expect(OnAir.beacons(plan, in: state) == [true, true, true])
        #expect(OnAir.beacons(plan, in: ControllerAdvertisingState()) == [false, false, false])
        // Another program disables the second set, then writes other data on the third.
        state.apply(.leSetExtendedAdvertisingEnable(false, sets: [AdvertisingSetEnable(handle: plan.handles[1])]))
        state.apply(.leSetExtendedAdvertisingData(handle: plan.handles[2], data: [0x02, 0x01, 0x06]))
        #expect(OnAir.beacons(plan, in: state) == [true, false, false])
        state.apply(.reset)
        #expect(OnAir.beacons(plan, in: state) == [false, false, false])
    }

    @Test func aRotationHasTheBeaconInItsTurnOnAir() throws {
        var config = KioskConfiguration(beacons: Self.beacons(3))
        config.rotationMilliseconds = 500
        let plan = try KioskPlan(config, family: .legacy)
        #expect(plan.beaconPlacements.map(\.placement) == [.legacy, .legacy, .legacy])
        #expect(OnAir.beacons(plan, in: plan.desiredState(rotationIndex: 0)) == [true, false, false])
        #expect(OnAir.beacons(plan, in: plan.desiredState(rotationIndex: 2)) == [false, false, true])
        var off = plan.desiredState(rotationIndex: 1)
        off.apply(.leSetAdvertisingEnable(false))
        #expect(OnAir.beacons(plan, in: off) == [false, false, false])
        // Unplaced beacons are never on air.
        #expect(OnAir.beacons([nil, plan.beaconPlacements[1]], in: plan.desiredState(rotationIndex: 1)) == [false, true])
    }

    @Test func theSharingModeIsTheKernelsInstances() {
        let plan = SharePlan(index: 0, beacons: Self.beacons(2), instances: [3, 4], dwellMilliseconds: 2000, method: .extended)
        var kernel = KernelAdvertisingInstances()
        #expect(OnAir.beacons(plan, in: kernel) == [false, false])
        // Parameters alone put nothing on air; the data does.
        kernel.apply(plan.add(0)[0])
        #expect(kernel.data[3] == [])
        #expect(OnAir.beacons(plan, in: kernel) == [false, false])
        for c in plan.start { kernel.apply(c) }
        #expect(OnAir.beacons(plan, in: kernel) == [true, true])
        // Another program's data on our instance, then the kernel drops the other one.
        kernel.apply(.addAdvertising(index: 0, instance: 3, flags: [], duration: 2, advertisingData: [0x02, 0x01, 0x06]))
        kernel.removed(4)
        #expect(OnAir.beacons(plan, in: kernel) == [false, false])
        for c in plan.start { kernel.apply(c) }
        kernel.apply(.removeAdvertising(index: 0, instance: 0))
        #expect(kernel.data.isEmpty)
        #expect(OnAir.beacons(plan, in: kernel) == [false, false])
    }
}

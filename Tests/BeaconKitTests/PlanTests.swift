// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
import Testing

@Suite struct PlanTests {
    func hexes(_ steps: [PlannedCommand]) -> [String] { steps.map { Hex.encode($0.command.packet) } }

    @Test func legacyStartAndStop() throws {
        let plan = AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: AdvertisingOptions(interval: .standard), family: .legacy)
        #expect(hexes(plan.start) == [
            "010a200100",
            "0106200fa000a0000300000000000000000700",
            "01082020" + "1e" + Golden.advertisingDataHex + "00",
            "010a200101",
        ])
        #expect(hexes(plan.stop) == ["010a200100"])
    }

    @Test func extendedStartAndStop() throws {
        let plan = AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: AdvertisingOptions(interval: .standard), family: .extended)
        #expect(hexes(plan.start) == [
            "01392006000100000000",
            "01362019001000a00000a00000070000000000000000007f0100010000",
            "013720220003011e" + Golden.advertisingDataHex,
            "01392006010100000000",
        ])
        #expect(hexes(plan.stop) == ["01392006000100000000", "013c200100"])
        #expect(plan.stop.allSatisfy { $0.tolerated.contains(.unknownAdvertisingIdentifier) })
    }

    @Test func connectableTxPowerAndInterval() throws {
        let interval = try #require(AdvertisingInterval(milliseconds: 152.3))
        #expect(interval.units == 0x00F4)
        #expect(interval.milliseconds == 152.5)
        let options = AdvertisingOptions(interval: interval, connectable: true, txPower: -12)
        let legacy = AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: options, family: .legacy)
        #expect(Hex.encode(legacy.start[1].command.packet) == "0106200ff400f4000000000000000000000700")
        let ext = AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: options, family: .extended)
        #expect(Hex.encode(ext.start[1].command.packet) == "01362019" + "00" + "1300" + "f40000" + "f40000" + "07" + "00" + "00" + "000000000000" + "00" + "f4" + "01" + "00" + "01" + "00" + "00")
    }

    @Test func intervalBounds() {
        #expect(AdvertisingInterval(milliseconds: 19.9) == nil)
        #expect(AdvertisingInterval(milliseconds: 20)?.units == 0x0020)
        #expect(AdvertisingInterval(milliseconds: 10240)?.units == 0x4000)
        #expect(AdvertisingInterval(milliseconds: 10240.1) == nil)
        #expect(AdvertisingInterval(milliseconds: .nan) == nil)
        #expect(AdvertisingInterval(units: 0x001F) == nil)
        #expect(AdvertisingInterval.standard.text == "100.000 msec (0x00a0)")
    }

    @Test func capabilitiesFromProbeBitmaps() {
        var caps = ControllerCapabilities(
            version: LocalVersionInformation(hciVersion: 8, hciSubversion: 0, lmpVersion: 8, companyIdentifier: 0, lmpSubversion: 0),
            supportedCommands: Controllers.commandBitmap(Controllers.legacyOpcodes), leFeatures: [0x01, 0, 0, 0, 0, 0, 0, 0])
        #expect(caps.supportsLegacyAdvertising)
        #expect(!caps.supportsExtendedAdvertising)
        #expect(caps.preferredAdvertisingFamily == .legacy)
        // Bit 205 is octet 25 bit 5 (LE Set Advertising Parameters).
        #expect(caps.supportedCommands[25] & 0x20 != 0)
        caps.supportedCommands = Controllers.commandBitmap(Controllers.legacyOpcodes + Controllers.extendedOpcodes)
        #expect(!caps.supportsExtendedAdvertising, "commands alone are not enough: LE feature bit 12 is needed")
        caps.leFeatures[1] = 0x10
        #expect(caps.supportsExtendedAdvertising)
        #expect(caps.preferredAdvertisingFamily == .extended)
        // Bits 290, 291, 293: octet 36 bits 2, 3, 5.
        #expect(caps.supportedCommands[36] & 0b0010_1100 == 0b0010_1100)
        caps.supportedCommands = []
        #expect(caps.preferredAdvertisingFamily == nil)
    }
}

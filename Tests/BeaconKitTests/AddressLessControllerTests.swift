// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
import Testing

/// A controller with no public address (BD_ADDR 00:00:00:00:00:00, as Zephyr's hci_uart on an
/// nRF52): beacons go on air from a random static address, never from the zero address; and answers
/// the Core spec does not allow are read as not known. Whole packets as hex.
@Suite struct AddressLessControllerTests {
    typealias C = Controllers

    static let address: [UInt8] = [0xC3, 0x11, 0x22, 0x33, 0x44, 0x55]

    static func config(_ minors: [UInt16]) throws -> KioskConfiguration {
        var c = KioskConfiguration(beacons: try minors.map { try AdvertisingSessionTests.beacon($0) })
        c.ownRandomAddress = address
        return c
    }

    @Test func legacySetsTheRandomAddressAfterTheDisableAndAdvertisesFromIt() throws {
        let plan = try KioskPlan(try Self.config([2]), family: .legacy)
        let expected: [String] = [
            "010a200100",
            "010520065544332211c3",                        // LE Set Random Address C3:11:22:33:44:55
            "0106200fa000a0000301000000000000000700",      // parameters: ADV_NONCONN_IND, Own_Address_Type 0x01 (Random), no peer
            "010820201e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c500",
            "010a200101",
        ]
        #expect(plan.start.map { Hex.encode($0.command.packet) } == expected)
    }

    @Test func legacyRotationKeepsOneAddressForEveryBeacon() throws {
        let plan = try KioskPlan(try Self.config([1, 2]), family: .legacy)
        let addresses: [String] = plan.start.filter { $0.command.opcode == .leSetRandomAddress }.map { Hex.encode($0.command.packet) }
        #expect(addresses == ["010520065544332211c3"])
        // The steps replace the data only: the address stays.
        #expect(plan.rotationSteps.allSatisfy { $0.command.opcode == .leSetAdvertisingData })
    }

    @Test func extendedSetsAdvertiseFromTheAddressUnlessEachHasItsOwn() throws {
        let plan = try KioskPlan(try Self.config([2]), family: .extended)
        let expected: [String] = [
            "013920060001ef000000",
            "01362019ef1000a00000a00000070100000000000000007f0100010000",   // channels 07, Own_Address_Type 0x01, no peer
            "01352007ef5544332211c3",                      // LE Set Advertising Set Random Address
            "01372022ef03011e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5",
            "013920060101ef000000",
        ]
        #expect(plan.start.map { Hex.encode($0.command.packet) } == expected)
        var perSet = try Self.config([2])
        perSet.addressPerSet = true
        let own = try KioskPlan(perSet, family: .extended)
        let derived = StaticRandomAddress.derived(for: try AdvertisingSessionTests.beacon(2).frame)
        #expect(own.start.contains { $0.command == .leSetAdvertisingSetRandomAddress(handle: 0xEF, address: derived) })
        #expect(derived != Self.address)
    }

    @Test func withoutTheAddressNothingChanges() throws {
        var c = try Self.config([2])
        c.ownRandomAddress = nil
        let plan = try KioskPlan(c, family: .legacy)
        #expect(!plan.start.contains { $0.command.opcode == .leSetRandomAddress })
        #expect(Hex.encode(plan.start[1].command.packet).hasPrefix("0106200fa000a0000300"))
    }

    /// The session keeps its address across a reload: an unchanged beacon is left alone.
    @Test func reloadKeepsTheSessionsAddress() throws {
        var plain = try Self.config([1])
        plain.ownRandomAddress = nil
        var with = plain
        with.ownRandomAddress = Self.address
        let first = try KioskPlan(with, family: .extended)
        var added = plain
        added.beacons.append(try AdvertisingSessionTests.beacon(2))
        added.ownRandomAddress = Self.address
        let second = try KioskPlan(added, family: .extended)
        let fake = ScriptedController(C.okSteps(first.start) + C.okSteps(try #require(first.update(to: second))))
        let session = AdvertisingSession(configuration: plain, caps: try AdvertisingSessionTests.caps(extended: true), device: "hci0",
                                         ownRandomAddress: Self.address, runner: HCICommandRunner(channel: fake, now: { 0 }), now: { 0 }, log: { _ in })
        try session.start()
        var next = plain
        next.beacons.append(try AdvertisingSessionTests.beacon(2))
        let summary = try session.reload(next)
        #expect(!summary.restarted)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(session.configuration.ownRandomAddress == Self.address)
    }

    @Test func addressText() {
        #expect(StaticRandomAddress.isMissingPublicAddress("00:00:00:00:00:00"))
        #expect(!StaticRandomAddress.isMissingPublicAddress("00:AA:01:00:00:00"))
        #expect(!StaticRandomAddress.isMissingPublicAddress("not an address"))
        #expect(StaticRandomAddress.parse("c3:11:22:33:44:55") == Self.address)
        #expect(StaticRandomAddress.parse("C3:11:22:33:44") == nil)
        #expect(StaticRandomAddress.parse("C3:11:22:33:44:5G") == nil)
        #expect(StaticRandomAddress.parse("C3:11:22:33:44:555") == nil)
        #expect(StaticRandomAddress.isStatic(Self.address))
        #expect(!StaticRandomAddress.isStatic([0x43, 0x11, 0x22, 0x33, 0x44, 0x55]))        // top bits 01: not static
        #expect(!StaticRandomAddress.isStatic([0xC0, 0, 0, 0, 0, 0]))                       // the rest all 0
        #expect(!StaticRandomAddress.isStatic([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]))        // the rest all 1
        let derived = StaticRandomAddress.derived(for: try! Self.config([2]))
        #expect(derived.map(StaticRandomAddress.isStatic) == true)
    }

    // MARK: answers the spec does not allow

    @Test func aSetCountOfZeroAndAShortMaximumLengthAreNotKnown() throws {
        let fake = ScriptedController(C.probe(extended: true) + C.setLimits(length: [0x14, 0x00], sets: 0))
        let runner = HCICommandRunner(channel: fake)
        var caps = try Advertiser.probe(runner)
        try Advertiser.readAdvertisingSetLimits(runner, into: &caps)
        #expect(caps.numberOfSupportedAdvertisingSets == nil)
        #expect(caps.maximumAdvertisingDataLength == nil)
        #expect(caps.implausible.map(\.field) == ["Max_Advertising_Data_Length", "Num_Supported_Advertising_Sets"])
        #expect(caps.implausible.map(\.value) == [20, 0])
        #expect(caps.shown(\.numberOfSupportedAdvertisingSets) == "not known (the controller answered 0)")
        #expect(caps.implausible[1].text
                == "LE Read Number of Supported Advertising Sets answered Num_Supported_Advertising_Sets 0, outside 1 to 240: read as not known")
    }

    @Test func plausibleLimitsAreKept() throws {
        let fake = ScriptedController(C.probe(extended: true) + C.setLimits(length: [0x1F, 0x00], sets: 0xF0))
        let runner = HCICommandRunner(channel: fake)
        var caps = try Advertiser.probe(runner)
        try Advertiser.readAdvertisingSetLimits(runner, into: &caps)
        #expect(caps.numberOfSupportedAdvertisingSets == 240)
        #expect(caps.maximumAdvertisingDataLength == 31)
        #expect(caps.implausible.isEmpty)
    }

    /// Zephyr's controller answers LE Set Extended Advertising Parameters with Selected_TX_Power 127:
    /// told once, however often the parameters are sent; -127…+20 says nothing.
    @Test func selectedTXPowerOf127IsToldOnce() throws {
        let params = HCICommand.leSetExtendedAdvertisingParameters(handle: 0xEF, properties: .legacyNonconnectable, intervalMin: 0xA0, intervalMax: 0xA0)
        func answer(_ power: UInt8) -> ScriptedController.Step {
            .command(params, replies: [CommandComplete(numHCICommandPackets: 1, opcode: .leSetExtendedAdvertisingParameters, returnParameters: [0x00, power]).event])
        }
        let fake = ScriptedController([answer(0x7F), answer(0x7F), answer(0xF6), answer(0x14)])
        let runner = HCICommandRunner(channel: fake)
        var told: [ImplausibleAnswer] = []
        runner.onImplausibleAnswer = { told.append($0) }
        for _ in 0..<4 { try runner.run(params) }
        #expect(fake.isFullyConsumed)
        #expect(told == [ImplausibleAnswer(command: .leSetExtendedAdvertisingParameters, field: "Selected_TX_Power", value: 127, allowed: -127...20)])
        #expect(told.first?.text == "LE Set Extended Advertising Parameters answered Selected_TX_Power 127, outside -127 to 20: read as not known")
    }
}

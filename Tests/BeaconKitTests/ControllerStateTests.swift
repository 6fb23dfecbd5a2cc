// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
import Testing

/// `ControllerAdvertisingState`: the Core spec rules it answers by, the typed views it reads
/// commands through, and the session converging on a behavioural controller that answers from it.
@Suite struct ControllerStateTests {
    typealias T = AdvertisingSessionTests

    static func command(_ hex: String) throws -> HCICommand { try HCICommand(packet: try #require(Hex.decode(hex))) }

    // Whole packets, as a sniffer shows them.
    static let extendedParameters239 = "01362019ef1000a00000a00000070000000000000000007f0100010000"
    static let extendedEnable239 = "013920060101ef000000"
    static let legacyParameters = "0106200f" + "a000a000" + "03" + "00" + "00" + "000000000000" + "07" + "00"

    @Test func everyFieldAViewReadsIsInTheTable() {
        for (opcode, name) in DescribedCommand.fieldsRead {
            let fields = CommandTable.description(opcode)?.parameters ?? []
            let names = fields.map(\.name) + fields.flatMap { f -> [String] in
                if case let .repeated(_, _, group) = f.width { return group.map(\.name) } else { return [] }
            }
            #expect(names.contains(name), "\(opcode) has no field \(name)")
        }
        for (event, name) in DescribedEvent.fieldsRead {
            let d = EventTable.descriptions.first { $0.name == event }
            #expect(d?.fields.contains { $0.name == name } == true, "\(event) has no field \(name)")
        }
    }

    @Test func familyColumn() {
        #expect(CommandTable.description(.leSetAdvertisingData)?.family == .legacy)
        #expect(CommandTable.description(.leSetScanEnable)?.family == .legacy)
        #expect(CommandTable.description(.leRemoveAdvertisingSet)?.family == .extended)
        #expect(CommandTable.description(.leSetRandomAddress)?.family == .neutral)
        #expect(CommandTable.description(.reset)?.family == .neutral)
    }

    @Test func viewsReadTheFieldsBySpecName() throws {
        let enable = try #require(LESetExtendedAdvertisingEnable(try Self.command("0139200a0102ef000000ee0a0005")))
        #expect(enable.enable)
        #expect(enable.sets == [.init(handle: 0xEF, duration: 0, maxExtendedAdvertisingEvents: 0),
                                .init(handle: 0xEE, duration: 10, maxExtendedAdvertisingEvents: 5)])
        #expect(try #require(LESetExtendedAdvertisingEnable(try Self.command("013920020000"))).disablesAll)
        #expect(LESetAdvertisingEnable(try Self.command("010a200101"))?.advertisingEnable == true)
        // Malformed bytes from another program: nil, never a trap.
        #expect(LESetExtendedAdvertisingEnable(HCICommand(.leSetExtendedAdvertisingEnable, [0x01, 0x03, 0xEF])) == nil)
        #expect(DescribedCommand(HCICommand(.leSetExtendedAdvertisingData, [0xEF, 0x03, 0x01, 0x09, 0x02])) == nil)
    }

    @Test func theMixingRule() throws {
        var s = ControllerAdvertisingState()
        #expect(s.execute(try Self.command(Self.legacyParameters)) == .success)
        #expect(s.lockedFamily == .legacy)
        #expect(s.answer(try Self.command(Self.extendedParameters239)) == .commandDisallowed)
        // Neutral commands are not locked; HCI Reset unlocks.
        #expect(s.answer(.leSetRandomAddress([0xC0, 1, 2, 3, 4, 5])) == .success)
        #expect(s.execute(.reset) == .success)
        #expect(s.execute(try Self.command(Self.extendedParameters239)) == .success)
        #expect(s.answer(try Self.command(Self.legacyParameters)) == .commandDisallowed)
    }

    @Test func setRules() throws {
        var s = ControllerAdvertisingState(numberOfSupportedAdvertisingSets: 1)
        let data = HCICommand.leSetExtendedAdvertisingData(handle: 0xEF, data: [0x02, 0x01, 0x06])
        #expect(s.answer(data) == .unknownAdvertisingIdentifier)
        #expect(s.answer(try Self.command(Self.extendedEnable239)) == .unknownAdvertisingIdentifier)
        #expect(s.answer(.leRemoveAdvertisingSet(handle: 0xEF)) == .unknownAdvertisingIdentifier)
        #expect(s.execute(try Self.command(Self.extendedParameters239)) == .success)
        // One set only: a second handle finds no room.
        #expect(s.answer(try Self.command("01362019ee1000a00000a00000070000000000000000007f0100010000")) == .memoryCapacityExceeded)
        #expect(s.execute(data) == .success)
        #expect(s.execute(try Self.command(Self.extendedEnable239)) == .success)
        #expect(s.sets[0xEF]?.enabled == true && s.sets[0xEF]?.data == [0x02, 0x01, 0x06])
        // While enabled: no parameters, no removal, no fragment; complete data is allowed.
        #expect(s.answer(try Self.command(Self.extendedParameters239)) == .commandDisallowed)
        #expect(s.answer(.leRemoveAdvertisingSet(handle: 0xEF)) == .commandDisallowed)
        #expect(s.answer(.leClearAdvertisingSets) == .commandDisallowed)
        #expect(s.answer(.leSetExtendedAdvertisingData(handle: 0xEF, data: [0x02, 0x01, 0x06], operation: 0x01)) == .commandDisallowed)
        #expect(s.answer(data) == .success)
        #expect(s.execute(try Self.command("013920020000")) == .success)
        #expect(s.sets[0xEF]?.enabled == false)
        #expect(s.execute(.leRemoveAdvertisingSet(handle: 0xEF)) == .success)
        #expect(s.sets.isEmpty)
        #expect(s.answer(try Self.command(Self.legacyParameters)) == .commandDisallowed)
    }

    /// The session on a controller that answers from the model: after each foreign command has
    /// completed and the settle time passed, the model holds exactly the desired state again.
    @Test func theSessionBringsTheControllerBackToTheDesiredStateAfterEachForeignCommand() throws {
        var config = try T.three()
        config.addressPerSet = true   // so that a random address is what phones see
        let foreign: [HCICommand] = [
            .leSetExtendedAdvertisingEnable(false, sets: []),
            .leSetExtendedAdvertisingEnable(false, sets: [AdvertisingSetEnable(handle: 0xEE)]),
            .leSetExtendedAdvertisingData(handle: 0xEF, data: [0x02, 0x01, 0x06]),
            .leSetAdvertisingSetRandomAddress(handle: 0xED, address: [0xC6, 5, 4, 3, 2, 1]),
            .reset,
        ]
        for c in foreign {
            let model = ModelController()
            let s = AdvertisingSession(configuration: config, caps: try T.caps(extended: true), device: "hci0",
                                       runner: HCICommandRunner(model: model), now: model.now, log: { _ in })
            try s.start()
            let plan = try #require(s.plan)
            #expect(model.state.onAir(plan.placements) == plan.desiredState().onAir(plan.placements))
            for input in model.foreign(c) { s.handle(input) }
            #expect(model.state.onAir(plan.placements) != plan.desiredState().onAir(plan.placements), "\(c) changed nothing")
            model.advance(s.policy.settleMilliseconds)
            s.timerExpired()
            #expect(s.phase == .onAir, "\(c)")
            #expect(model.state.onAir(plan.placements) == plan.desiredState().onAir(plan.placements), "after \(c)")
            #expect(s.machine.rearmCount == 1, "\(c)")
        }
    }

    @Test func tooFewSetsOnTheModelMakeARotation() throws {
        let model = ModelController(state: ControllerAdvertisingState(numberOfSupportedAdvertisingSets: 2))
        let s = AdvertisingSession(configuration: try T.three(), caps: try T.caps(extended: true), device: "hci0",
                                   runner: HCICommandRunner(model: model), now: model.now, log: { _ in })
        try s.start()
        let plan = try #require(s.plan)
        #expect(plan.layout.isRotation)
        #expect(model.sent.contains { $0.status == .memoryCapacityExceeded })
        #expect(model.state.onAir(plan.placements) == plan.desiredState().onAir(plan.placements))
    }

    @Test func aControllerLockedToLegacySwitchesAutoToLegacy() throws {
        var locked = ControllerAdvertisingState()
        locked.apply(try Self.command(Self.legacyParameters))   // bluetoothd advertised with legacy commands
        let model = ModelController(state: locked)
        let s = AdvertisingSession(configuration: try T.three(), caps: try T.caps(extended: true), device: "hci0",
                                   runner: HCICommandRunner(model: model), now: model.now, log: { _ in })
        try s.start()
        let plan = try #require(s.plan)
        #expect(plan.family == .legacy)
        #expect(model.state.legacy.enabled)
        #expect(model.state.onAir(plan.placements) == plan.desiredState().onAir(plan.placements))
    }
}

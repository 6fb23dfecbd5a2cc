// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
import Testing

/// Scripted controller conversations: every command must be the next one the script expects and
/// the script must be fully consumed.
@Suite struct ConversationTests {
    typealias C = Controllers

    func options() -> AdvertisingOptions { AdvertisingOptions(interval: .standard) }

    func plan(_ family: AdvertisingFamily) throws -> AdvertisingPlan {
        AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: options(), family: family)
    }

    /// Probes, then starts `family` as the session does: `Advertiser.startSwitchingOnce` with the other
    /// family's plan as the fallback when the controller supports it (`--controller auto`).
    /// `switched` gets the refusal that made it switch.
    func start(_ fake: ScriptedController, family: AdvertisingFamily, extendedCaps: Bool, switched: inout [HCIError]) throws -> AdvertisingPlan {
        let runner = HCICommandRunner(channel: fake)
        let caps = try Advertiser.probe(runner)
        #expect(caps.supportsExtendedAdvertising == extendedCaps)
        let first = try plan(family)
        let fallback = caps.supports(family.other) ? try plan(family.other) : nil
        var refusals: [HCIError] = []
        defer { switched = refusals }
        return try Advertiser.startSwitchingOnce(runner, first, fallback: fallback) { refusals.append($0) }
    }

    @Test func legacyConversation() throws {
        let fake = ScriptedController(C.probe(hciVersion: 8, extended: false) + C.okSteps(try plan(.legacy).start))
        var switched: [HCIError] = []
        let used = try start(fake, family: .legacy, extendedCaps: false, switched: &switched)
        #expect(used.family == .legacy)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(fake.mismatches.isEmpty)
        #expect(switched.isEmpty)
    }

    @Test func extendedConversationToleratesUnknownSetOnFirstDisable() throws {
        let p = try plan(.extended)
        var steps = C.probe(extended: true)
        steps.append(.command(p.start[0].command, replies: [C.fail(p.start[0].command, .unknownAdvertisingIdentifier)]))
        steps += C.okSteps(Array(p.start.dropFirst()))
        let fake = ScriptedController(steps)
        var switched: [HCIError] = []
        #expect(try start(fake, family: .extended, extendedCaps: true, switched: &switched).family == .extended)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func fallbackToExtendedOnCommandDisallowed() throws {
        let legacy = try plan(.legacy), ext = try plan(.extended)
        var steps = C.probe(extended: true)
        // The kernel used extended advertising: legacy commands get 0x0c.
        steps.append(.command(legacy.start[0].command, replies: [C.fail(legacy.start[0].command, .commandDisallowed)]))
        steps.append(.command(legacy.start[1].command, replies: [C.fail(legacy.start[1].command, .commandDisallowed)]))
        steps += C.okSteps(ext.start)
        let fake = ScriptedController(steps)
        var switched: [HCIError] = []
        let used = try start(fake, family: .legacy, extendedCaps: true, switched: &switched)
        #expect(used.family == .extended)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(switched == [.commandFailed(opcode: .leSetAdvertisingParameters, status: .commandDisallowed)])
    }

    @Test func bothFamiliesDisallowedNamesBothRefusals() throws {
        let legacy = try plan(.legacy), ext = try plan(.extended)
        var steps = C.probe(extended: true)
        steps.append(.command(ext.start[0].command, replies: [C.fail(ext.start[0].command, .commandDisallowed)]))
        steps.append(.command(ext.start[1].command, replies: [C.fail(ext.start[1].command, .commandDisallowed)]))
        steps.append(.command(legacy.start[0].command, replies: [C.fail(legacy.start[0].command, .commandDisallowed)]))
        steps.append(.command(legacy.start[1].command, replies: [C.fail(legacy.start[1].command, .commandDisallowed)]))
        let fake = ScriptedController(steps)
        var switched: [HCIError] = []
        #expect(throws: FamilyStartError.bothDisallowed(first: .commandFailed(opcode: .leSetExtendedAdvertisingParameters, status: .commandDisallowed),
                                                        second: .commandFailed(opcode: .leSetAdvertisingParameters, status: .commandDisallowed))) {
            _ = try start(fake, family: .extended, extendedCaps: true, switched: &switched)
        }
        #expect(switched == [.commandFailed(opcode: .leSetExtendedAdvertisingParameters, status: .commandDisallowed)])
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func otherFailuresDoNotSwitchFamily() throws {
        let legacy = try plan(.legacy)
        var steps = C.probe(extended: true)
        steps.append(C.okStep(legacy.start[0].command))
        steps.append(.command(legacy.start[1].command, replies: [C.fail(legacy.start[1].command, .invalidHCICommandParameters)]))
        // Nothing half-done: the stop plan follows the refusal.
        steps += C.okSteps(legacy.stop)
        let fake = ScriptedController(steps)
        var switched: [HCIError] = []
        #expect(throws: FamilyStartError.refused(.commandFailed(opcode: .leSetAdvertisingParameters, status: .invalidHCICommandParameters))) {
            _ = try start(fake, family: .legacy, extendedCaps: true, switched: &switched)
        }
        #expect(fake.isFullyConsumed)
    }

    @Test func timeoutNamesTheCommand() throws {
        let fake = ScriptedController([.command(.readLocalVersionInformation, replies: [])])
        let runner = HCICommandRunner(channel: fake, timeoutMilliseconds: 2000)
        #expect(throws: HCIError.timeout(opcode: .readLocalVersionInformation, milliseconds: 2000)) { try Advertiser.probe(runner) }
        #expect(fake.isFullyConsumed)
        #expect(fake.requestedTimeouts == [2000])
        #expect(HCIError.timeout(opcode: .readLocalVersionInformation, milliseconds: 2000).description == "Read Local Version Information (0x1001): no answer from the controller within 2000 ms")
    }

    /// Issue 20 (found on RootCanal under load): a rotation step whose answer came later than the
    /// timeout left the runner without a credit, so every later command failed "no command credit"
    /// and the kiosk exited 69. A timeout now gives the credit back, as the kernel does.
    @Test func aTimeoutGivesTheCreditBack() throws {
        let data = HCICommand.leSetAdvertisingData(Array(repeating: 0, count: 3))
        let fake = ScriptedController([.command(data, replies: []), .receive(.timedOut), C.okStep(.leSetAdvertisingEnable(true))])
        let runner = HCICommandRunner(channel: fake, timeoutMilliseconds: 2000)
        #expect(throws: HCIError.timeout(opcode: .leSetAdvertisingData, milliseconds: 2000)) { try runner.run(data) }
        #expect(runner.credits == 1)
        try runner.run(.leSetAdvertisingEnable(true))
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(fake.mismatches == [])
    }

    @Test func deadlineShrinksWhileSkippingUnrelatedEvents() throws {
        var clock: Int64 = 0
        let unrelated = HCIEvent(code: .leMeta, parameters: [0x02, 0x00])
        let fake = ScriptedController([
            .command(.reset, replies: [unrelated, C.ok(.readLocalVersionInformation), C.ok(.reset)]),
        ])
        let runner = HCICommandRunner(channel: fake, timeoutMilliseconds: 1000, now: { clock += 300; return clock })
        let cc = try runner.run(.reset)
        #expect(cc.opcode == .reset)
        #expect(fake.requestedTimeouts == [700, 400, 100])
        // Another program's answer (Read Local Version Information) is kept too: a session needs it.
        #expect(runner.takeUnrelatedEvents() == [unrelated, C.ok(.readLocalVersionInformation)])
        #expect(fake.isFullyConsumed)
    }

    @Test func creditsWaitForAFreeSlot() throws {
        // Reset answered with ncmd 0: the next command waits for a NOP Command Complete (opcode 0).
        let nop = CommandComplete(numHCICommandPackets: 1, opcode: Opcode(rawValue: 0), returnParameters: [])
        let fake = ScriptedController([
            .command(.reset, replies: [CommandComplete(numHCICommandPackets: 0, opcode: .reset, returnParameters: [0]).event]),
            .receive(.event(nop.event.packet)),
            C.okStep(.readLocalVersionInformation),
        ])
        let runner = HCICommandRunner(channel: fake)
        try runner.run(.reset)
        #expect(runner.credits == 0)
        _ = try runner.send(.readLocalVersionInformation)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(fake.sent.count == 2)
    }

    /// Issue 40 (the quirk bed's credit-nop controller): the NOP that gave the credit back came while
    /// the session slept between commands, read by the session and not the runner, so the stop's
    /// disable waited for a credit already given and failed "not sent" (exit 69 after SIGTERM).
    @Test func aCreditGivenBetweenCommandsIsNotLost() throws {
        let nop = CommandComplete(numHCICommandPackets: 1, opcode: Opcode(rawValue: 0), returnParameters: [0]).event
        let fake = ScriptedController([
            .command(.leSetAdvertisingEnable(true), replies: [CommandComplete(numHCICommandPackets: 0, opcode: .leSetAdvertisingEnable, returnParameters: [0]).event]),
            .receive(.event(nop.packet)),
            C.okStep(.leSetAdvertisingEnable(false)),
        ])
        let runner = HCICommandRunner(channel: fake, timeoutMilliseconds: 300)
        try runner.run(.leSetAdvertisingEnable(true))
        #expect(runner.credits == 0)
        #expect(try runner.receive(timeoutMilliseconds: 1000) == .event(nop.packet), "the idle read hands the packet on")
        #expect(runner.credits == 1)
        try runner.run(.leSetAdvertisingEnable(false))
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func noCreditIsNotBlamedOnTheCommand() throws {
        let fake = ScriptedController([
            .command(.reset, replies: [CommandComplete(numHCICommandPackets: 0, opcode: .reset, returnParameters: [0]).event]),
        ])
        let runner = HCICommandRunner(channel: fake, timeoutMilliseconds: 300)
        try runner.run(.reset)
        #expect(throws: HCIError.noCommandCredits(opcode: .readLocalVersionInformation, milliseconds: 300)) {
            try runner.run(.readLocalVersionInformation)
        }
        #expect(fake.sent.count == 1, "the command must not be written without a credit")
        #expect(HCIError.noCommandCredits(opcode: .reset, milliseconds: 300).description.contains("not sent"))
    }

    @Test func commandStatusAnswersCount() throws {
        let fake = ScriptedController([
            .command(.reset, replies: [CommandStatus(status: .commandDisallowed, numHCICommandPackets: 1, opcode: .reset).event]),
        ])
        #expect(throws: HCIError.commandFailed(opcode: .reset, status: .commandDisallowed)) { try HCICommandRunner(channel: fake).run(.reset) }
    }

    @Test func signalDuringACommandIsRemembered() throws {
        // The signal arrives before the answer; the answer comes on the next wait.
        let slow = ScriptedController([.command(.reset, replies: []), .receive(.signal(15)), .receive(.event(C.ok(.reset).packet))])
        let runner = HCICommandRunner(channel: slow)
        try runner.run(.reset)
        #expect(runner.pendingSignal == 15)
        #expect(slow.isFullyConsumed)
    }

    @Test func malformedAnswersNeverTrap() throws {
        let fake = ScriptedController([
            .command(.reset, replies: []),
            .receive(.event([0x04, 0x0e, 0x09, 0x01])),            // plen past the end: skipped
            .receive(.event([0x04, 0x0e, 0x01, 0x01])),            // Command Complete too short
        ])
        #expect(throws: HCIError.malformedEvent(opcode: .reset, .truncated(.truncated(field: "Command_Opcode", needed: 2, available: 0)))) {
            try HCICommandRunner(channel: fake).run(.reset)
        }
    }

    @Test func transportErrorsPassThrough() {
        let fake = ScriptedController([.commandFails(.reset, .permissionDenied(call: "write", device: "hci0"))])
        #expect(throws: HCIError.transport(.permissionDenied(call: "write", device: "hci0"))) { try HCICommandRunner(channel: fake).run(.reset) }
        #expect(fake.isFullyConsumed)
    }

    @Test func stopTwiceAndInEitherMode() throws {
        let caps = try Advertiser.probe(HCICommandRunner(channel: ScriptedController(C.probe(extended: true))))
        let ext = AdvertisingPlan.stopCommands(family: .extended)
        // Extended mode, our set on: disable + remove succeed. Second stop: the set is gone (0x42), so the
        // legacy disable follows and gets Command Disallowed from a controller in extended mode.
        let legacyOff = HCICommand.leSetAdvertisingEnable(false)
        let fake = ScriptedController(C.okSteps(ext) + [
            .command(ext[0].command, replies: [C.fail(ext[0].command, .unknownAdvertisingIdentifier)]),
            .command(legacyOff, replies: [C.fail(legacyOff, .commandDisallowed)]),
        ])
        let runner = HCICommandRunner(channel: fake)
        #expect(try Advertiser.stopActive(runner, caps: caps, advertisingHandles: [0]) == .extended)
        #expect(try Advertiser.stopActive(runner, caps: caps, advertisingHandles: [0]) == .legacy)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        // Legacy mode: the extended disable gets 0x0c, the legacy disable follows; the second time too.
        let legacyDisable = HCICommand.leSetAdvertisingEnable(false)
        let legacyMode = ScriptedController([
            .command(ext[0].command, replies: [C.fail(ext[0].command, .commandDisallowed)]), C.okStep(legacyDisable),
            .command(ext[0].command, replies: [C.fail(ext[0].command, .commandDisallowed)]), .command(legacyDisable, replies: [C.fail(legacyDisable, .commandDisallowed)]),
        ])
        let r2 = HCICommandRunner(channel: legacyMode)
        #expect(try Advertiser.stopActive(r2, caps: caps, advertisingHandles: [0]) == .legacy)
        #expect(try Advertiser.stopActive(r2, caps: caps, advertisingHandles: [0]) == .legacy)
        #expect(legacyMode.isFullyConsumed, "left: \(legacyMode.remaining)")
    }
}

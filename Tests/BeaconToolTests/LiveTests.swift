// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Testing

/// `start`, `stop` and `devices` against scripted controllers: the whole conversation must match
/// and be consumed, and every transport errno must become the right message and exit code.
@Suite struct LiveTests {
    typealias C = Controllers

    func plan(_ family: AdvertisingFamily) throws -> AdvertisingPlan {
        AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: AdvertisingOptions(interval: .standard, advertisingHandle: 0xEF), family: family)
    }

    /// The parts of a conversation, in order. Not one `+` chain of step arrays: Swift 6.0.3 (Debian 13's
    /// swiftlang) gives up on the longer ones ("unable to type-check this expression in reasonable
    /// time") and takes long on the others, when an array literal of `.receive(...)` is among them.
    func steps(_ parts: [ScriptedController.Step]...) -> [ScriptedController.Step] { parts.flatMap { $0 } }

    func host(_ steps: [ScriptedController.Step], up: Bool = true) -> (FakeHost, ScriptedController) {
        let fake = ScriptedController(steps)
        return (FakeHost(devices: [C.device(0, up: up), C.device(1)], channels: [0: fake]), fake)
    }

    @Test func startAutoUsesExtendedAndStopsOnSIGTERM() throws {
        let p = try plan(.extended)
        let (h, fake) = host(steps(C.probe(extended: true), C.okSteps(p.start), [.receive(.signal(15))], C.okSteps(p.stop)))
        let r = tool(["start"] + goldenFlags, host: h)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(fake.mismatches.isEmpty, "\(fake.mismatches)")
        #expect(h.log == ["open hci0 +signals"])
        #expect(fake.eventFilters == [[.commandComplete, .commandStatus, .hardwareError]], "no reports while only advertising")
        #expect(fake.observesCommands, "other programs' commands are watched")
        #expect(r.out.isEmpty)
        #expect(r.err.contains("advertising E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2 power -59 dBm on hci0 (extended commands"))
        #expect(r.err.contains("signal 15: advertising stopped on hci0"))
        // The last command is the stop plan's remove; the one before disables the set.
        #expect(fake.sent.suffix(2).map { Hex.encode($0) } == ["013920060001ef000000", "013c2001ef"])
    }

    @Test func startLegacyForcedSendsExactlyTheDryRunPlan() throws {
        let p = try plan(.legacy)
        let (h, fake) = host(steps(C.probe(extended: true), C.okSteps(p.start), [.receive(.signal(2))], C.okSteps(p.stop)))
        let r = tool(["start"] + goldenFlags + ["--controller", "legacy"], host: h)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        let dry = tool(["start"] + goldenFlags + ["--controller", "legacy", "--dry-run", "--format", "hex"])
        let probeCount = C.probe(extended: true).count
        let dryStart = dry.out.split(separator: "\n").drop { $0 == "# start:" }.prefix { $0 != "# stop:" }
        #expect(fake.sent[probeCount..<(probeCount + 4)].map { Hex.encode($0) } == dryStart.map(String.init))
    }

    /// Issue 20, defect 4: a forced family that meets Command Disallowed is an error with a remedy
    /// (exit 69); nothing of the other family is sent (it used to switch to extended and exit 0).
    @Test func forcedLegacyMeetingCommandDisallowedIsAnErrorNotASwitch() throws {
        let legacy = try plan(.legacy)
        var steps = C.probe(extended: true)
        steps.append(.command(legacy.start[0].command, replies: [C.fail(legacy.start[0].command, .commandDisallowed)]))
        steps.append(.command(legacy.start[1].command, replies: [C.fail(legacy.start[1].command, .commandDisallowed)]))
        // Nothing half-done: the legacy stop plan, whose Command Disallowed counts as already stopped.
        steps.append(.command(legacy.stop[0].command, replies: [C.fail(legacy.stop[0].command, .commandDisallowed)]))
        let (h, fake) = host(steps)
        let r = tool(["start"] + goldenFlags + ["--controller", "legacy"], host: h)
        #expect(r.code == 69)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(fake.mismatches == [])
        #expect(r.err == "beacon-tx start: hci0 refused legacy advertising (LE Set Advertising Parameters (0x2006) failed: Command Disallowed (0x0c)): it is in extended advertising mode, and the legacy family was forced; reset the controller to leave extended mode (--reset, or hciconfig hci0 reset), or use --controller auto to switch\n")
    }

    /// `auto` still switches once: extended refused with Command Disallowed (legacy mode) → legacy.
    @Test func autoSwitchesOnceWhenTheControllerIsInTheOtherMode() throws {
        let legacy = try plan(.legacy), ext = try plan(.extended)
        var steps = C.probe(extended: true)
        steps.append(.command(ext.start[0].command, replies: [C.fail(ext.start[0].command, .commandDisallowed)]))
        steps.append(.command(ext.start[1].command, replies: [C.fail(ext.start[1].command, .commandDisallowed)]))
        steps += self.steps(C.okSteps(legacy.start), [.receive(.signal(15))], C.okSteps(legacy.stop))
        let (h, fake) = host(steps)
        let r = tool(["start"] + goldenFlags, host: h)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(r.err.contains("hci0: LE Set Extended Advertising Parameters (0x2036) failed: Command Disallowed (0x0c); the controller is in legacy advertising mode, switching to legacy commands\n"))
    }

    /// The schedule's flags (`--duration` and `--cycle` at work: SessionLoopRawTests, SessionLoopTests).
    @Test func scheduleFlagsInTheDryRunAndTheirUsageErrors() throws {
        let (h, _) = host([])
        let dry = tool(["start"] + goldenFlags + ["--cycle", "2:2:2", "--dry-run"])
        #expect(dry.out.contains("schedule: on 2 s (the start commands), off 2 s (disable, sets kept), 2 times, then stop; phase changes: off at 2 s, on at 4 s, off at 6 s, stop at 8 s"), "\(dry.out)")
        #expect(tool(["start"] + goldenFlags + ["--cycle", "2"]).code == 64)
        #expect(tool(["start"] + goldenFlags + ["--duration", "3", "--detach"], host: h).code == 64)
    }

    @Test func detachLeavesAdvertisingOn() throws {
        let p = try plan(.extended)
        let (h, fake) = host(C.probe(extended: true) + C.okSteps(p.start))
        let r = tool(["start"] + goldenFlags + ["--detach"], host: h)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed)
        #expect(h.log == ["open hci0"])
        #expect(r.err.contains("until 'beacon-tx stop --device hci0'"), "\(r.err)")   // the default set needs no --advertising-set
    }

    @Test func signalDuringStartStillStops() throws {
        let p = try plan(.legacy)
        var steps = C.probe(extended: false)
        steps.append(.command(p.start[0].command, replies: []))
        steps.append(.receive(.signal(2)))
        steps.append(.receive(.event(C.ok(p.start[0].command).packet)))
        steps += C.okSteps(Array(p.start.dropFirst())) + C.okSteps(p.stop)
        let (h, fake) = host(steps)
        let r = tool(["start"] + goldenFlags, host: h)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func signalDuringTheProbeStartsNothing() throws {
        let version = Controllers.probe(extended: true)[0]
        guard case let .command(c, replies) = version else { Issue.record("probe starts with a command"); return }
        let steps: [ScriptedController.Step] = [.command(c, replies: []), .receive(.signal(15)), .receive(.event(replies[0].packet))]
            + Array(C.probe(extended: true).dropFirst())
        let (h, fake) = host(steps)
        let r = tool(["start"] + goldenFlags, host: h)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(fake.sent.count == 3, "only the probe was sent")
        #expect(r.err.contains("signal 15 before advertising started on hci0; nothing was changed"))
    }

    @Test func downDeviceIsBroughtUpAndResetOnRequest() throws {
        let p = try plan(.legacy)
        let (h, fake) = host(C.probe(extended: false) + C.okSteps(p.start), up: false)
        let r = tool(["start"] + goldenFlags + ["--detach", "--reset", "--device", "hci0"], host: h)
        #expect(r.code == 0, "\(r.err)")
        #expect(h.log == ["up hci0", "reset hci0", "open hci0", "open control"], "a legacy-only controller: the kernel's instances are asked (MGMT)")
        #expect(r.err.contains("hci0 is down; bringing it up (HCIDEVUP)"))
        #expect(fake.isFullyConsumed)
    }

    @Test func stopTwice() throws {
        // Without a config, stop checks the first four handles start picks (239 downwards): 239 was on.
        let handles: [UInt8] = [0xEF, 0xEE, 0xED, 0xEC]
        let disables = handles.map { HCICommand.leSetExtendedAdvertisingEnable(false, sets: [AdvertisingSetEnable(handle: $0)]) }
        let unknown: (HCICommand) -> ScriptedController.Step = { .command($0, replies: [C.fail($0, .unknownAdvertisingIdentifier)]) }
        let (h, fake) = host(steps(C.probe(extended: true), [C.okStep(disables[0])], disables.dropFirst().map(unknown),
                                   [C.okStep(.leRemoveAdvertisingSet(handle: 0xEF))]))
        let first = tool(["stop"], host: h)
        #expect(first.code == 0, "\(first.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        let legacyOff = HCICommand.leSetAdvertisingEnable(false)
        fake.append(steps(C.probe(extended: true), disables.map(unknown), [.command(legacyOff, replies: [C.fail(legacyOff, .commandDisallowed)])]))
        let again = tool(["stop", "--device", "hci0"], host: h)
        #expect(again.code == 0, "\(again.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func advertisingSetFlagReachesStartAndStop() throws {
        let options = AdvertisingOptions(interval: .standard, advertisingHandle: 5)
        let p = AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: options, family: .extended)
        #expect(Hex.encode(p.start[1].command.packet).hasPrefix("0136201905"))
        let (h, fake) = host(C.probe(extended: true) + C.okSteps(p.start) + C.probe(extended: true) + C.okSteps(p.stop))
        let start = tool(["start"] + goldenFlags + ["--advertising-set", "5", "--detach"], host: h)
        #expect(start.code == 0)
        // The hint names the set, so copying it stops the right one.
        #expect(start.err.contains("detached; the controller keeps advertising until 'beacon-tx stop --device hci0 --advertising-set 5'"), "\(start.err)")
        #expect(tool(["stop", "--advertising-set", "5"], host: h).code == 0)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(tool(["start"] + goldenFlags + ["--advertising-set", "240", "--dry-run"]).err.contains("0–239"))
    }

    @Test func devicesJSON() throws {
        let (h, fake) = host(C.probe(extended: true) + C.setLimits())
        h.deviceList[1].isUp = false
        let r = tool(["devices", "--json"], host: h)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed)
        expectSnapshot(r.out, "devices.json")
        let list = try JSON.parse(r.out)
        guard case let .array(items) = list else { Issue.record("not a list"); return }
        #expect(items.count == 2)
        #expect(items[0]["extendedAdvertising"] == .bool(true))
        #expect(items[0]["advertisingSets"] == .number(16))
    }

    // MARK: errors

    @Test func noBluetoothInTheKernel() {
        let r = tool(["start"] + goldenFlags)
        #expect(r.code == 69)
        #expect(r.err == "beacon-tx start: socket(AF_BLUETOOTH): this kernel has no Bluetooth support (EAFNOSUPPORT); load the bluetooth module or use a kernel built with CONFIG_BT\n")
    }

    @Test func unknownDeviceNamesTheOnesThatExist() {
        let (h, _) = host([])
        let r = tool(["start"] + goldenFlags + ["--device", "hci9", "--device-timeout", "0"], host: h)
        #expect(r.code == 69)
        #expect(r.err == "beacon-tx start: no such device hci9 (available: hci0, hci1)\n")
    }

    @Test func aDeviceNotThereYetIsWaitedForUpToTheDeviceTimeout() {
        let (h, _) = host([])
        let r = tool(["start"] + goldenFlags + ["--device", "hci9"], host: h)
        #expect(r.code == 69)
        #expect(r.err == """
            beacon-tx: waiting for hci9 to appear (controllers: hci0, hci1; up to 60 s, --device-timeout)
            beacon-tx start: hci9 did not appear within 60 s (--device-timeout; controllers: hci0, hci1); nothing is on air

            """)
        #expect(h.log == ["wait for hci9 60000 ms"], "nothing opened, nothing sent")
    }

    @Test func aLateDeviceIsStartedWhenItAppearsAndGivenTimeToBePoweredFirst() throws {
        let p = AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: AdvertisingOptions(interval: .standard, advertisingHandle: 0xEF), family: .extended)
        let fake = ScriptedController(steps(Controllers.probe(extended: true), Controllers.okSteps(p.start), [.receive(.signal(15))], Controllers.okSteps(p.stop)))
        let h = FakeHost(devices: [], channels: [0: fake])
        // Registered down first (the kernel sets it up), then up (bluetoothd powered it).
        h.deviceWaits = [.returned(Controllers.device(0, up: false)), .returned(Controllers.device(0))]
        let r = tool(["start"] + goldenFlags + ["--device", "hci0", "--device-timeout", "30"], host: h)
        #expect(r.code == 0, "\(r.err)")
        #expect(h.log == ["wait for hci0 30000 ms", "wait for hci0 up 5000 ms", "open hci0 +signals"])
        #expect(r.err.hasPrefix("beacon-tx: waiting for hci0 to appear (no controllers yet; up to 30 s, --device-timeout)\nbeacon-tx: hci0 appeared after 0 s\n"))
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
    }

    @Test func aSignalWhileWaitingForTheDeviceEndsCleanlyAndSighupKeepsWaiting() {
        let h = FakeHost(devices: [], channels: [:])
        h.deviceWaits = [.signal(1), .signal(15)]
        let r = tool(["start"] + goldenFlags + ["--device", "hci0"], host: h)
        #expect(r.code == 0, "\(r.err)")
        #expect(h.log.count == 2 && h.log.allSatisfy { $0.hasPrefix("wait for hci0 ") }, "\(h.log)")
        #expect(r.err == """
            beacon-tx: waiting for hci0 to appear (no controllers yet; up to 60 s, --device-timeout)
            beacon-tx: SIGHUP: re-read the configuration while waiting for the device
            beacon-tx: signal 15 while waiting for hci0; nothing was changed

            """)
    }

    @Test func permissionDeniedOnWriteExits77WithTheRemedy() {
        let (h, _) = host([.commandFails(.readLocalVersionInformation, .permissionDenied(call: "write", device: "hci0"))])
        let r = tool(["start"] + goldenFlags, host: h)
        #expect(r.code == 77)
        #expect(r.err.contains("run as root (sudo), or as the beacon-tx service, whose unit grants CAP_NET_RAW and CAP_NET_ADMIN"))
        #expect(r.err.split(separator: "\n").count == 1)
    }

    @Test func permissionDeniedOnUp() {
        let (h, _) = host([], up: false)
        h.upError = .permissionDenied(call: "ioctl(HCIDEVUP)", device: "hci0")
        let r = tool(["start"] + goldenFlags + ["--device", "hci0"], host: h)
        #expect(r.code == 77)
        #expect(r.err.contains("ioctl(HCIDEVUP) on hci0: Operation not permitted"))
    }

    @Test func rfkillAndBusyAndTimeout() {
        let (h1, _) = host([])
        h1.openError = .rfkilled(call: "bind", device: "hci0")
        let a = tool(["start"] + goldenFlags + ["--device", "hci0"], host: h1)
        #expect(a.code == 69 && a.err.contains("rfkill unblock bluetooth"))

        let (h2, _) = host([.commandFails(.readLocalVersionInformation, .busy(call: "write", device: "hci0"))])
        let b = tool(["start"] + goldenFlags + ["--device", "hci0"], host: h2)
        #expect(b.code == 69 && b.err.contains("busy"))

        let (h3, fake) = host([.command(.readLocalVersionInformation, replies: [])])
        let c = tool(["start"] + goldenFlags + ["--device", "hci0", "--timeout", "500"], host: h3)
        #expect(c.code == 69)
        #expect(c.err == "beacon-tx start: Read Local Version Information (0x1001): no answer from the controller within 500 ms (controller not answering; check the device, try --reset or a longer --timeout)\n")
        #expect(fake.isFullyConsumed)
    }

    @Test func forcedExtendedOnALegacyController() {
        let (h, _) = host(C.probe(hciVersion: 6, extended: false))
        let r = tool(["start"] + goldenFlags + ["--controller", "extended"], host: h)
        #expect(r.code == 69)
        #expect(r.err.contains("hci0 does not support extended advertising"))
    }

    @Test func verboseTracesEveryCommand() throws {
        let p = try plan(.legacy)
        let (h, _) = host(C.probe(extended: false) + C.okSteps(p.start))
        let r = tool(["start"] + goldenFlags + ["--detach", "--verbose"], host: h)
        #expect(r.code == 0)
        #expect(r.err.contains("< LE Set Advertising Data (0x08|0x0008) plen 32\n> Command Complete (0x0e) LE Set Advertising Data (0x08|0x0008) ncmd 1: Success (0x00)\n"))
    }
}

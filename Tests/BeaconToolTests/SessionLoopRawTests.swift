// SPDX-License-Identifier: Apache-2.0
@testable import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

/// Raw HCI on the real loop (`LoopHarness`): what happens between the start and the stop, with time
/// moving only by the harness's clock. Each case says when the bytes go out, not only that they do:
/// nothing before the deadline, the exact plan at it.
@Suite struct SessionLoopRawTests {
    typealias C = Controllers

    func plan() throws -> AdvertisingPlan {
        AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: AdvertisingOptions(interval: .standard, advertisingHandle: 2), family: .extended)
    }

    func harness(_ extra: [String] = []) throws -> LoopHarness {
        try LoopHarness(["start"] + goldenFlags + ["--advertising-set", "2"] + extra, controller: C.probe(extended: true) + C.okSteps(try plan().start))
    }

    func expectScriptDone(_ h: LoopHarness, _ comment: Comment? = nil) {
        #expect(h.controller.isFullyConsumed, "left: \(h.controller.remaining) \(comment?.description ?? "")")
        #expect(h.controller.mismatches.isEmpty, "\(h.controller.mismatches)")
    }

    /// `--duration 3`: nothing is sent until 3 s have passed, then the stop plan, exit 0.
    @Test func durationSendsTheStopPlanAtItsTimeAndNotBefore() throws {
        let p = try plan()
        let h = try harness(["--duration", "3"])
        let started = h.controller.sent.count
        h.advanceTime(by: 2999)
        #expect(h.controller.sent.count == started && h.exit == nil, "nothing before the end")
        h.advanceTime(by: 1, expecting: C.okSteps(p.stop))
        #expect(h.exit == .success, "\(h.failure?.message ?? "")")
        #expect(h.stderr.contains("schedule done: advertising stopped on hci0"))
        expectScriptDone(h)
    }

    /// Another program's HCI Reset: seen as a command, then its completion; the re-arm waits the
    /// settle time (250 ms) for a down that does not come, then sends the start plan again.
    @Test func anotherProgramsResetIsReArmedOnceItHasSettled() throws {
        let p = try plan()
        let h = try harness()
        let started = h.controller.sent.count
        h.deliver(HCIReceive.command(HCICommand.reset.packet))
        h.deliver(HCIReceive.event(C.ok(.reset).packet))
        #expect(h.phase == .disrupted(.reset))
        h.advanceTime(by: 249)
        #expect(h.controller.sent.count == started, "nothing while it settles")
        h.advanceTime(by: 1, expecting: C.okSteps(p.start))
        #expect(h.phase == .onAir && h.machine.lastRearm?.cause == .disruption(.reset))
        #expect(h.stderr.contains("re-armed 1 beacon(s) on hci0 after: another program reset hci0 (HCI Reset)"), "\(h.stderr)")
        // LE Clear Advertising Sets the same way.
        let clearSets = HCICommand.leClearAdvertisingSets
        h.deliver(HCIReceive.command(clearSets.packet))
        h.deliver(HCIReceive.event(C.ok(clearSets).packet))
        h.advanceTime(by: 250, expecting: C.okSteps(p.start))
        #expect(h.stderr.contains("after: another program cleared all advertising sets (LE Clear Advertising Sets)"), "\(h.stderr)")
        #expect(h.controller.observesCommands, "other programs' commands are watched")
        h.deliver(HCIReceive.signal(15), expecting: C.okSteps(p.stop))
        #expect(h.exit == .success)
        expectScriptDone(h)
    }

    /// A Hardware Error: the session waits 3 s for the kernel's reset (the device going down and
    /// up); none comes, so it re-arms by itself at 3 s, in the same process.
    @Test func aHardwareErrorWithoutTheKernelsResetReArmsAfterTheGrace() throws {
        let p = try plan()
        let h = try harness()
        let started = h.controller.sent.count
        h.deliver(HCIReceive.event(HCIEvent(code: .hardwareError, parameters: [0x07]).packet))
        #expect(h.stderr.contains("hci0 reported a Hardware Error; waiting for the kernel to reset it"))
        h.advanceTime(by: 2999)
        #expect(h.controller.sent.count == started, "nothing during the grace")
        h.advanceTime(by: 1, expecting: C.okSteps(p.start))
        #expect(h.phase == .onAir)
        #expect(h.stderr.contains("re-armed 1 beacon(s) on hci0 after: Hardware Error (code 0x07)"), "\(h.stderr)")
        expectScriptDone(h)
    }

    /// The raw-HCI unplug: the socket is closed and the adapter awaited on the host (WATCHDOG=1 fed
    /// meanwhile); it returns, is opened and probed again and the start plan re-arms it. A second
    /// unplug outlasts `--device-timeout 5`: exit 69 naming the device, at 5 s.
    @Test func anUnpluggedControllerIsAwaitedReArmedAndGivenUpOnAtTheTimeout() throws {
        let p = try plan()
        let h = try harness(["--device-timeout", "5"])
        let gone = StackInternalDeviceEvent(kind: .unregistered, deviceID: 0).event
        h.host.deviceWaits = [.returned(C.device(0))]
        h.deliver(HCIReceive.event(gone.packet))
        #expect(h.phase == .unplugged && h.machine.isHealthy)
        h.advanceTime(by: 0, expecting: C.probe(extended: true) + C.okSteps(p.start))
        #expect(h.stderr.contains("hci0 (00:AA:01:00:00:00) was unregistered; waiting up to 5 s for it to return"), "\(h.stderr)")
        #expect(h.phase == .onAir && h.machine.lastRearm?.cause == .deviceReturned)
        #expect(h.stderr.contains("re-armed 1 beacon(s) on hci0 after: hci0 returned"), "\(h.stderr)")
        // The dead device's socket was closed before the wait (it would keep index 0 taken).
        #expect(h.controller.closeCount == 1)
        // Waited for by its address, in steps of the watchdog's beat (1 s here), not the whole 5 s.
        #expect(h.host.log == ["open hci0 +signals", "wait for 00:AA:01:00:00:00 1000 ms", "open hci0 +signals"], "\(h.host.log)")
        expectScriptDone(h)

        let beats = h.beats
        let unplugged = h.now
        h.deliver(HCIReceive.event(gone.packet))
        h.advanceTime(by: 6000)
        #expect(h.failure?.code == .unavailable)
        #expect(h.failure?.message == "hci0 (00:AA:01:00:00:00) did not return within 5 s (--device-timeout); nothing is on air")
        #expect(h.now - unplugged == 5000, "given up at the timeout, not later")
        #expect(h.beats >= beats + 4, "WATCHDOG=1 while waiting: \(h.datagrams.suffix(8))")
    }

    /// A legacy kiosk of three rotated on one instance (dwell 200 ms): the loop wakes at each dwell
    /// and sends that beacon's data, in turn, and nothing between.
    @Test func theRotationSwapsAtEachDwellThroughTheLoop() throws {
        let b = try #require(Golden.beacon)
        let config = KioskConfiguration(beacons: [1, 2, 3].map {
            BeaconAdvertisement(frame: .iBeacon(IBeacon(uuid: b.uuid, major: 1, minor: $0, measuredPower: -59)), options: AdvertisingOptions(interval: .standard))
        })
        let kiosk = try KioskPlan(config, family: .legacy)
        let directory = NSTemporaryDirectory() + "beacon-tx-rotation-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let beacons = [1, 2, 3].map { "{ \"uuid\": \"\(Golden.uuidText)\", \"major\": 1, \"minor\": \($0) }" }
        try "{ \"rotation\": 200, \"beacons\": [\(beacons.joined(separator: ", "))] }".write(toFile: directory + "/kiosk.json", atomically: true, encoding: .utf8)
        let h = try LoopHarness(["start", "--config", directory + "/kiosk.json", "--controller", "legacy"],
                                controller: C.probe(extended: false) + C.okSteps(kiosk.start))
        #expect(h.phase == .onAir)
        let started = h.controller.sent.count
        h.advanceTime(by: 199)
        #expect(h.controller.sent.count == started, "nothing before the first dwell ends")
        for turn in [1, 2, 0, 1] {
            h.advanceTime(by: 200, expecting: C.okSteps([kiosk.rotationSteps[turn]]))
            #expect(h.controller.sent.last == kiosk.rotationSteps[turn].command.packet)
        }
        #expect(h.machine.rotationSwaps == 4)
        expectScriptDone(h)
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

/// The real `SessionLoop` of `start` (either mode, built by `StartCommand.prepare` from a command
/// line) over scripted sockets, on a virtual clock that moves only when the test says so, in the
/// spirit of swift-nio's EmbeddedChannel with `advanceTime`: `advanceTime(by:)` runs the loop's
/// turns until the clock has moved that far (each empty wait ends at its own timeout or at the
/// target, whichever comes first); `deliver` hands the socket one packet or signal with no time
/// passing. The script (`expecting:`) holds the exact bytes the loop must send meanwhile.
final class LoopHarness {
    let host: FakeHost
    let controller: ScriptedController
    let kernel: ScriptedKernel?
    let listener: NotifyListener
    private let capture = Capture()
    /// The monotonic clock of the tool (ms): it never moves by itself.
    private(set) var now: Int64 = 1_000_000
    /// Every sd_notify datagram so far.
    private(set) var datagrams: [String] = []
    private(set) var loop: SessionLoop
    /// How the loop ended: its exit code, or its error.
    private(set) var exit: ExitCode?
    private(set) var failure: CLIError?
    /// Where the current `advanceTime` ends.
    private var until: Int64?

    init(_ arguments: [String], controller steps: [ScriptedController.Step], kernel kernelSteps: [ScriptedKernel.Step]? = nil,
         watchdogMicroseconds: Int = 4_000_000, stateDirectory: String? = nil) throws {
        controller = ScriptedController(steps)
        kernel = kernelSteps.map(ScriptedKernel.init)
        host = FakeHost(devices: [Controllers.device(0)], channels: [0: controller])
        host.control = kernel
        listener = try NotifyListener()
        let env = ["NOTIFY_SOCKET": listener.name, "WATCHDOG_USEC": String(watchdogMicroseconds), "WATCHDOG_PID": "4242"]
        let (c, host) = (capture, host)
        let box = ClockBox()
        let ctx = ToolContext(
            stdout: { c.out += $0 + "\n" }, stderr: { c.err += $0 + "\n" }, stdoutBytes: { c.bytes += $0 }, stdoutIsTerminal: false,
            makeHost: { () throws(TransportError) -> HCIHost in host }, monotonicMilliseconds: { box.now },
            wallClockSeconds: { 1_800_000_000 }, service: service(env, stateDirectory: stateDirectory),
            stdoutError: { nil }, readStdinLine: { () throws(CLIError) -> [UInt8]? in nil })
        let parsed = try ParsedArguments(raw: arguments.map { Array($0.utf8) }, specs: StartCommand.options + [.flag("--help", "")], command: "start")
        let settings = try StartCommand.settings(from: parsed, ctx)
        // The start itself takes no time; from here on the clock is the harness's.
        guard case let .loop(loop) = try StartCommand.prepare(settings, parsed, ctx) else { throw CLIError(.software, "no session loop") }
        self.loop = loop
        box.read = { [unowned self] in self.now }
        let clamp: (Int) -> Int = { [unowned self] t in
            let left = Int(max(0, (self.until ?? self.now) - self.now))
            return t < 0 ? left : min(t, left)
        }
        let moved: (Int) -> Void = { [unowned self] t in self.now += Int64(max(0, t)) }
        controller.clampWait = clamp
        controller.onTimeout = moved
        host.onWaitTimeout = moved
        kernel?.clampWait = clamp
        kernel?.onTimeout = moved
        loop.begin()
        datagrams += listener.drain()
    }

    deinit { loop.end() }

    var machine: SessionMachine { loop.observer.session.machine }
    var phase: SessionPhase { machine.phase }
    var stderr: String { capture.err }
    var beats: Int { datagrams.filter { $0 == "WATCHDOG=1" }.count }

    /// Runs the loop until the clock has moved `milliseconds` (or the loop ended), what is due at
    /// the target included, the socket answering from the script (`expecting` is appended first).
    func advanceTime(by milliseconds: Int64, expecting steps: [ScriptedController.Step] = [], kernel kernelSteps: [ScriptedKernel.Step] = []) {
        controller.append(steps)
        kernel?.append(kernelSteps)
        let target = now + milliseconds
        until = target
        defer { until = nil }
        while exit == nil, failure == nil, now < target { turn() }
        // What is due at the target itself (a deadline, a beat) runs too.
        turn()
    }

    /// One packet or signal on the raw socket now, and what the loop must send about it.
    func deliver(_ received: HCIReceive, expecting steps: [ScriptedController.Step] = []) {
        controller.append([.receive(received)] + steps)
        until = now
        defer { until = nil }
        turn()
    }

    /// One packet or signal on the control channel now.
    func deliver(_ received: MGMTReceive, expecting steps: [ScriptedKernel.Step] = []) {
        kernel?.append([.receive(received)] + steps)
        until = now
        defer { until = nil }
        turn()
    }

    private func turn() {
        guard exit == nil, failure == nil else { return }
        do {
            exit = try loop.turn()
        } catch {
            failure = error
        }
        datagrams += listener.drain()
    }
}

private final class ClockBox {
    var read: () -> Int64 = { 1_000_000 }
    var now: Int64 { read() }
}

@Suite struct SessionLoopTests {
    typealias C = Controllers

    /// LE Set Extended Advertising Enable: disable set 2 (one set, no duration or event limit).
    static let disableSet2: [UInt8] = [0x01, 0x39, 0x20, 0x06, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00]

    func plan() throws -> AdvertisingPlan {
        AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: AdvertisingOptions(interval: .standard, advertisingHandle: 2), family: .extended)
    }

    /// Raw HCI, `--cycle 2:3:2`, watchdog every second: the off phase disables set 2 (those bytes),
    /// the on phase runs the whole start plan again, the second off phase ends the schedule with the
    /// stop plan; WATCHDOG=1 once a second throughout, off phases included.
    @Test func rawHCICycleBoundariesAndWatchdogBeats() throws {
        let p = try plan()
        let h = try LoopHarness(["start"] + goldenFlags + ["--advertising-set", "2", "--cycle", "2:3:2"],
                                controller: C.probe(extended: true) + C.okSteps(p.start))
        #expect(h.phase == .onAir)
        #expect(h.datagrams.first == "READY=1\nSTATUS=1 beacon on air on hci0 (extended set 2)")
        let started = h.controller.sent.count
        h.advanceTime(by: 2000, expecting: [C.okStep(try HCICommand(packet: Self.disableSet2))])
        #expect(h.phase == .offPhase(.init(offMilliseconds: 3000, pair: 1, count: 2)))
        #expect(h.machine.clock.isOff && h.machine.isHealthy)
        #expect(h.controller.sent.dropFirst(started) == [Self.disableSet2], "the off phase sends the disable, nothing else")
        #expect(h.datagrams.contains("STATUS=hci0: cycle: off for 3 s (1 of 2)"))
        h.advanceTime(by: 3000, expecting: C.okSteps(p.start))
        #expect(h.phase == .onAir)
        #expect(h.machine.rearmCount == 1 && h.machine.lastRearm?.cause == .cycleOn(milliseconds: 2000))
        h.advanceTime(by: 2000, expecting: [C.okStep(try HCICommand(packet: Self.disableSet2))])
        #expect(h.phase == .offPhase(.init(offMilliseconds: 3000, pair: 2, count: 2)))
        h.advanceTime(by: 3000, expecting: C.okSteps(p.stop))
        #expect(h.exit == .success, "\(h.failure?.message ?? "")")
        #expect(h.controller.isFullyConsumed, "left: \(h.controller.remaining)")
        #expect(h.controller.mismatches.isEmpty, "\(h.controller.mismatches)")
        // 10 s of session: the first beat at once, then one a second; the schedule ends at 10 s, before a beat.
        #expect(h.beats == 10, "\(h.datagrams)")
        #expect(h.stderr.contains("schedule done: advertising stopped on hci0"))
    }

    /// Device down (an administrator's power off): nothing is sent and the watchdog is still fed,
    /// a beat a second (waiting is not hanging, issue 31); device up: the start plan at once;
    /// SIGTERM: the stop plan.
    @Test func rawHCIDeviceDownKeepsTheWatchdogFedUntilUp() throws {
        let p = try plan()
        let h = try LoopHarness(["start"] + goldenFlags + ["--advertising-set", "2"], controller: C.probe(extended: true) + C.okSteps(p.start))
        h.advanceTime(by: 3000)
        let before = h.beats
        #expect(before == 4)
        h.deliver(HCIReceive.event(StackInternalDeviceEvent(kind: .down, deviceID: 1).event.packet))
        #expect(h.phase == .onAir, "another device's down is not ours")
        let down = StackInternalDeviceEvent(kind: .down, deviceID: 0).event
        #expect(Hex.encode(down.packet) == "04fd06010004000000")
        let sent = h.controller.sent.count
        h.deliver(HCIReceive.event(down.packet))
        #expect(h.phase == .deviceDown && h.machine.isHealthy)
        #expect(h.machine.nextDeadline == nil, "no timer while down: the kernel's up re-arms")
        h.advanceTime(by: 5000)
        #expect(h.beats == before + 5, "WATCHDOG=1 a second while down: \(h.datagrams)")
        #expect(h.datagrams.contains("STATUS=hci0 down; waiting to re-arm"))
        #expect(h.controller.sent.count == sent, "nothing sent while down")
        h.deliver(HCIReceive.event(StackInternalDeviceEvent(kind: .up, deviceID: 0).event.packet), expecting: C.okSteps(p.start))
        #expect(h.phase == .onAir && h.machine.lastRearm?.cause == .deviceUp)
        #expect(h.stderr.contains("re-armed 1 beacon(s) on hci0 after: hci0 up again"), "\(h.stderr)")
        #expect(h.host.log == ["open hci0 +signals"], "never brought up by beacon-tx")
        h.advanceTime(by: 2000)
        #expect(h.beats == before + 7)
        h.deliver(HCIReceive.signal(15), expecting: C.okSteps(p.stop))
        #expect(h.exit == .success)
        #expect(h.controller.isFullyConsumed && h.controller.mismatches.isEmpty, "left: \(h.controller.remaining) \(h.controller.mismatches)")
        #expect(h.datagrams.last == "STOPPING=1\nSTATUS=stopping: advertising off on hci0")
    }

    static let mgmtParams: [UInt8] = Hex.decode("540000001200" + "05" + "00500000" + "0100" + "0000" + "a0000000" + "a0000000" + "00") ?? []
    static let mgmtData: [UInt8] = Hex.decode("550000002100" + "05" + "1e00" + "0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5") ?? []
    static let mgmtRemove: [UInt8] = Hex.decode("3f000000010005") ?? []

    func add() throws -> [ScriptedKernel.Step] {
        [Kernel.step(try MGMTCommand(packet: Self.mgmtParams), [5, 0, 31, 31]), Kernel.instanceStep(try MGMTCommand(packet: Self.mgmtData))]
    }

    func sharing(_ extra: [String]) throws -> LoopHarness {
        try LoopHarness(["start"] + goldenFlags + ["--share", "always"] + extra, controller: C.probe(extended: false),
                        kernel: [Kernel.step(.readAdvertisingFeatures(index: 0), [0xFF, 0xFF, 0x01, 0x00, 31, 31, 5, 1, 1])] + (try add()))
    }

    /// The sharing mode under the same loop: `--cycle 2:2:1` removes instance 5 (those bytes) in the
    /// off phase, which ends the schedule; the stop's Remove Advertising finds it gone (Invalid
    /// Parameters counts as removed); WATCHDOG=1 once a second all along.
    @Test func sharingCycleAndWatchdogOnTheSameLoop() throws {
        let h = try sharing(["--cycle", "2:2:1"])
        #expect(h.phase == .onAir)
        let remove = try MGMTCommand(packet: Self.mgmtRemove)
        h.advanceTime(by: 2000, kernel: [Kernel.instanceStep(remove)])
        #expect(h.phase == .offPhase(.init(offMilliseconds: 2000, pair: 1, count: 1)))
        #expect(h.kernel?.sent.last == Self.mgmtRemove)
        h.advanceTime(by: 2000, kernel: [.command(remove, replies: [Kernel.fail(remove, .invalidParameters)])])
        #expect(h.exit == .success, "\(h.failure?.message ?? "")")
        #expect(h.kernel?.isFullyConsumed == true, "left: \(h.kernel?.remaining ?? [])")
        #expect(h.beats == 4, "a beat a second, at 0 to 3 s: \(h.datagrams)")
        #expect(h.stderr.contains("schedule done: removed our kernel advertising instances 5 on hci0"))
    }

    /// The sharing mode's unplug: Index Removed is waited for on the control channel (the watchdog
    /// still fed: waiting is not hanging), Index Added and New Settings with Powered re-add instance 5; a second
    /// unplug that outlasts --device-timeout ends the loop with exit 69 naming the device.
    @Test func sharingUnplugReturnAndDeviceTimeout() throws {
        let h = try sharing(["--device-timeout", "5"])
        h.deliver(MGMTReceive.event(MGMTEvent(.indexRemoved, index: 0).packet))
        #expect(h.phase == .unplugged && h.machine.isHealthy)
        let beats = h.beats
        h.advanceTime(by: 3000)
        #expect(h.phase == .unplugged && h.beats > beats && h.exit == nil && h.failure == nil)
        #expect(h.stderr.contains("hci0 (00:AA:01:00:00:00) was unregistered; waiting up to 5 s for it to return"))
        h.deliver(MGMTReceive.event(MGMTEvent(.indexAdded, index: 0).packet))
        #expect(h.phase == .unplugged, "not powered yet")
        h.deliver(MGMTReceive.event(MGMTEvent(.newSettings, index: 0, [0x01, 0x02, 0x00, 0x00]).packet), expecting: try add())
        #expect(h.phase == .onAir && h.machine.lastRearm?.cause == .deviceReturned)
        #expect(h.kernel?.sent.suffix(2) == [Self.mgmtParams, Self.mgmtData])
        h.deliver(MGMTReceive.event(MGMTEvent(.indexRemoved, index: 0).packet))
        h.advanceTime(by: 6000)
        #expect(h.failure?.code == .unavailable)
        #expect(h.failure?.message == "hci0 (00:AA:01:00:00:00) did not return within 5 s (--device-timeout); nothing is on air")
    }
}

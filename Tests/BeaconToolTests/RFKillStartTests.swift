// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

/// Issue 32: an adapter blocked by rfkill. A start that may wait (the device timeout) waits for the
/// unblock like for a missing adapter and comes on air by itself; one that may not exits 69 with the
/// remedy; the default device choice says why it passed an adapter over; devices and status show it.
@Suite struct RFKillStartTests {
    typealias C = Controllers
    static let soft = RFKillBlock(soft: true, hard: false)

    func blocked(_ id: UInt16, _ block: RFKillBlock = soft) -> HCIDeviceInfo {
        var d = C.device(id, up: false)
        d.rfkill = block
        return d
    }

    func onAirSteps() throws -> [ScriptedController.Step] {
        let p = AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: AdvertisingOptions(interval: .standard, advertisingHandle: 0xEF), family: .extended)
        var s = C.probe(extended: true)
        s += C.okSteps(p.start)
        s.append(.receive(.signal(15)))
        s += C.okSteps(p.stop)
        return s
    }

    @Test func aBlockedAdapterIsWaitedForAndGoesOnAirOnceUnblocked() throws {
        let fake = ScriptedController(try onAirSteps())
        let h = FakeHost(devices: [blocked(0)], channels: [0: fake])
        var unblocked = blocked(0)
        unblocked.rfkill = RFKillBlock(soft: false, hard: false)
        h.deviceWaits = [.returned(unblocked)]
        let listener = try NotifyListener()
        let r = tool(["start"] + goldenFlags + ["--device", "hci0", "--device-timeout", "30"], host: h, service: service(["NOTIFY_SOCKET": listener.name]))
        #expect(r.code == 0, "\(r.err)")
        #expect(h.log == ["wait for hci0 unblocked 30000 ms", "up hci0", "open hci0 +signals"])
        #expect(r.err.hasPrefix("""
            beacon-tx: waiting for hci0 (blocked by rfkill): hci0: soft; up to 30 s (--device-timeout); run: rfkill unblock bluetooth
            beacon-tx: hci0 was unblocked after 0 s
            beacon-tx: hci0 is down; bringing it up (HCIDEVUP)

            """), "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(listener.drain().first == "READY=1\nSTATUS=waiting for hci0 (blocked by rfkill)")
    }

    @Test func withoutADeviceTimeoutABlockedAdapterExits69WithTheRemedy() {
        let h = FakeHost(devices: [blocked(0)], channels: [:])
        let r = tool(["start"] + goldenFlags + ["--device", "hci0", "--device-timeout", "0"], host: h)
        #expect(r.code == 69)
        #expect(r.err == "beacon-tx start: hci0 is blocked by rfkill (soft); run: rfkill unblock bluetooth\n")
        #expect(h.log.isEmpty, "nothing brought up, nothing opened: \(h.log)")
        let hard = FakeHost(devices: [blocked(0, RFKillBlock(soft: false, hard: true))], channels: [:])
        let rh = tool(["start"] + goldenFlags + ["--device-timeout", "0"], host: hard)
        #expect(rh.code == 69)
        #expect(rh.err.contains("hci0 is blocked by rfkill (hard); a hardware switch or the firmware blocks it (hard): turn the radio switch on"), "\(rh.err)")
    }

    @Test func aBlockThatOutlastsTheTimeoutExits69() {
        let h = FakeHost(devices: [blocked(0)], channels: [:])
        let r = tool(["start"] + goldenFlags + ["--device", "hci0", "--device-timeout", "5"], host: h)
        #expect(r.code == 69)
        #expect(r.err.hasSuffix("beacon-tx start: hci0 stayed blocked by rfkill for 5 s (--device-timeout; hci0: soft); nothing is on air; run: rfkill unblock bluetooth\n"), "\(r.err)")
    }

    @Test func theDefaultChoiceSaysWhyItPassedABlockedAdapterOver() throws {
        let fake = ScriptedController(try onAirSteps())
        let h = FakeHost(devices: [blocked(0), C.device(1)], channels: [1: fake])
        let r = tool(["start"] + goldenFlags, host: h)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.err.hasPrefix("beacon-tx: hci0 is blocked by rfkill (soft); using hci1\n"), "\(r.err)")
        #expect(h.log == ["open hci1 +signals"])
        #expect(fake.isFullyConsumed)
    }

    @Test func everyAdapterBlockedWithoutDeviceIsWaitedForToo() throws {
        let fake = ScriptedController(try onAirSteps())
        let h = FakeHost(devices: [blocked(0), blocked(1)], channels: [1: fake])
        var one = C.device(1)
        one.rfkill = RFKillBlock(soft: false, hard: false)
        h.deviceWaits = [.returned(one)]
        let r = tool(["start"] + goldenFlags, host: h)
        #expect(r.code == 0, "\(r.err)")
        #expect(h.log == ["wait for any controller unblocked 60000 ms", "open hci1 +signals"])
        #expect(r.err.hasPrefix("beacon-tx: waiting for hci0, hci1 (blocked by rfkill): hci0: soft, hci1: soft;"), "\(r.err)")
        #expect(r.err.contains("beacon-tx: hci0 is blocked by rfkill (soft); using hci1"))
    }

    @Test func devicesAndStatusShowTheBlock() throws {
        let h = FakeHost(devices: [blocked(0), C.device(1)], channels: [1: ScriptedController(C.probe(extended: false))])
        let r = tool(["devices"], host: h)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out.hasPrefix("hci0  00:AA:01:00:00:00  down  Virtual  blocked by rfkill (soft)  (capabilities need the device up, which rfkill prevents: run: rfkill unblock bluetooth)\n"), "\(r.out)")
        let j = tool(["devices", "--json"], host: FakeHost(devices: [blocked(0)], channels: [:]))
        guard case let .array(items) = try JSON.parse(j.out) else { Issue.record("not a list"); return }
        #expect(items[0]["rfkill"] == .object([("soft", .bool(true)), ("hard", .bool(false))]))

        var sys = SystemProbe()
        sys.listDirectory = { $0 == "/sys/class/bluetooth" ? ["hci0", "hci1"] : [] }
        sys.rfkill = { $0 == 0 ? Self.soft : nil }
        let s = tool(["status"], system: sys)
        #expect(s.code == 3)
        #expect(s.out == "hci0: nothing on air (no beacon-tx session)\n  hci0 is blocked by rfkill (soft): run: rfkill unblock bluetooth\n")
        let sj = tool(["status", "--json", "--device", "hci0"], system: sys)
        guard case let .array(rows) = try JSON.parse(sj.out) else { Issue.record("not a list"); return }
        #expect(rows[0]["rfkill"] == .object([("soft", .bool(true)), ("hard", .bool(false))]))
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

/// `verify` of captures made in the sharing mode (`start --share`): beacon-tx's MGMT commands on its
/// control socket, the HCI commands the kernel derives from them. Synthetic btmon captures built
/// from the share plan's own commands, one fault each, and a real one from the e2e bed (rc-share).
@Suite struct ShareVerifyTests {
    static let two = ["--beacon", "\(Golden.uuidText):1:1", "--beacon", "\(Golden.uuidText):1:2", "--rotation", "1000"]
    static let wrongMajor = ["--beacon", "\(Golden.uuidText):2:1", "--beacon", "\(Golden.uuidText):1:2", "--rotation", "1000"]
    static let kernelData: [UInt8] = [0x02, 0x01, 0x06, 0x05, 0x09, 0x6b, 0x69, 0x6f, 0x73]   // Flags, Complete Local Name "kios"

    /// What to break in a synthetic capture.
    enum Fault { case none, noRemove, ghost, kernelAddsFlags, refusedExtended, removedByOther }

    /// bluetoothd's socket and a kernel instance on hci0's one legacy instance, beacon-tx adding
    /// instances 5 and 4 (the plan's commands), the kernel's rotation over the three, the stop.
    static func capture(_ fault: Fault) throws -> [UInt8] {
        let uuid = try #require(ProximityUUID(Golden.uuidText))
        let beacons = [1, 2].map {
            BeaconAdvertisement(frame: .iBeacon(IBeacon(uuid: uuid, major: 1, minor: $0)), options: AdvertisingOptions(interval: .standard))
        }
        var plan = SharePlan(index: 0, beacons: beacons, instances: [5, 4], dwellMilliseconds: 1000, method: .extended)
        var m = MonitorCapture()
        m.newIndex(0, name: "hci0")
        m.openIndex(0)
        m.controlOpen(cookie: 1, format: 2, comm: "bluetoothd")
        /// One turn of an instance as the kernel's legacy path schedules it (Linux 6.1).
        func turn(_ data: [UInt8]) {
            m.run(0, .leSetAdvertisingData(data))
            m.run(0, .leSetAdvertisingEnable(false))
            m.run(0, .leSetRandomAddress([0x36, 0x77, 0x0a, 0x76, 0x5f, 0x89]))
            m.run(0, .leSetAdvertisingParameters(intervalMin: 0x00a0, intervalMax: 0x00f0, type: .advNonconnInd, ownAddressType: 1))
            m.run(0, .leSetAdvertisingEnable(true))
        }
        turn(kernelData)
        m.at(1)
        m.controlOpen(cookie: 5, format: 2, comm: "beacon-tx")
        if fault == .refusedExtended {
            m.mgmtRun(cookie: 5, plan.start[0])
            m.mgmtRun(cookie: 5, plan.start[1], status: .invalidParameters)
            plan = plan.with(method: .addAdvertising)
        }
        for c in plan.start { m.mgmtRun(cookie: 5, c) }
        let ours = beacons.map { b -> [UInt8] in
            var data = b.frame.advertisingData
            if fault == .kernelAddsFlags { data[2] = 0x02 }   // the kernel's own Flags value instead of ours
            return data
        }
        for (k, t) in [1.5, 2.5, 3.5, 5.5, 6.5, 7.5].enumerated() {
            m.at(t)
            turn([ours[0], ours[1], kernelData, kernelData][k % 3])
        }
        if fault == .removedByOther {
            m.at(8)
            m.controlOpen(cookie: 3, format: 2, comm: "btmgmt")
            m.mgmtRun(cookie: 3, .removeAdvertising(index: 0, instance: 4))
            m.controlClose(cookie: 3)
        }
        m.at(9)
        for c in plan.stop {
            if (fault == .noRemove || fault == .removedByOther) && c.instance == 4 { continue }
            m.mgmtRun(cookie: 5, c)
            turn(kernelData)
        }
        if fault == .ghost {
            m.at(9.5)
            turn(ours[0])
        }
        m.controlClose(cookie: 5)
        return m.bytes
    }

    static func verify(_ fault: Fault, _ extra: [String] = [], beacons: [String] = two) throws -> ToolRun {
        let path = NSTemporaryDirectory() + "beacon-tx-share-\(UUID().uuidString).snoop"
        try Data(try capture(fault)).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var r = tool(["verify", path] + beacons + extra)
        r.out = r.out.replacingOccurrences(of: path, with: "share.snoop")
        return r
    }

    @Test func aSharedKioskPasses() throws {
        let r = try Self.verify(.none)
        #expect(r.code == 0, "\(r.out)\(r.err)")
        #expect(r.err == "")
        #expect(r.out.contains("\nmode: shared through the kernel (beacon-tx's MGMT commands on its control socket, the HCI commands the kernel derived): instances 5, 4, MGMT Add Extended Advertising Parameters + Data, Duration 1 s\n"))
        #expect(r.out.contains("kernel advertising instance 5, written by the kernel on the legacy instance (legacy commands)"))
        #expect(r.out.contains("the kernel wrote its data 2 time(s)"))
        #expect(r.out.contains("  at the end: removed by beacon-tx's stop plan at 9.000 s\n"))
        #expect(r.out.hasSuffix("\nPASS: 2 beacon(s) shared through the kernel as planned, our bytes exactly, removed by beacon-tx at the end\n"))
        let j = try Self.verify(.none, ["--json"])
        #expect(j.code == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(j.out.utf8)) as? [String: Any])
        let share = try #require(object["share"] as? [String: Any])
        #expect(share["instances"] as? [Int] == [5, 4])
        #expect(share["method"] as? String == "extended")
        let beacons = try #require(object["beacons"] as? [[String: Any]])
        #expect(beacons.map { $0["instance"] as? Int } == [5, 4])
        #expect(beacons.map { $0["kernelWrites"] as? Int } == [2, 2])
    }

    @Test func aWrongMajorFails() throws {
        let r = try Self.verify(.none, beacons: Self.wrongMajor)
        #expect(r.code == 1)
        #expect(r.err == "beacon-tx verify: FAIL: beacon 1: MGMT Add Extended Advertising Data: iBeacon major 2 ≠ 1 (config ≠ capture)\n")
    }

    /// The share plan for the same flags: another dwell is another Duration.
    @Test func anotherDwellThanThePlanFails() throws {
        let r = try Self.verify(.none, beacons: Array(Self.two.dropLast()) + ["3000"])
        #expect(r.code == 1)
        #expect(r.err == "beacon-tx verify: FAIL: beacon 1: MGMT Add Extended Advertising Parameters (0x0054) for instance 5: Duration 3 s ≠ 1 s (plan ≠ capture)\n")
    }

    @Test func aMissingRemoveAdvertisingFails() throws {
        let r = try Self.verify(.noRemove)
        #expect(r.code == 1)
        #expect(r.err == "beacon-tx verify: FAIL: beacon 2: no MGMT Remove Advertising (0x003f) of instance 4 from beacon-tx after it was added at 1.007 s: beacon-tx's MGMT socket closed with the instance still in the kernel's rotation\n")
    }

    @Test func ourDataAfterTheRemoveFails() throws {
        let r = try Self.verify(.ghost)
        #expect(r.code == 1)
        #expect(r.err == "beacon-tx verify: FAIL: beacon 1: LE Set Advertising Data (0x2008) at 9.500 s wrote its data again after beacon-tx's Remove Advertising of instance 5 at 9.000 s\n")
    }

    @Test func bytesTheKernelChangedFail() throws {
        let r = try Self.verify(.kernelAddsFlags)
        #expect(r.code == 1)
        #expect(r.err.hasPrefix("beacon-tx verify: FAIL: beacon 1: LE Set Advertising Data (0x2008) at 1.500 s carries 020102"))
        #expect(r.err.hasSuffix(", not the 0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010001c5 beacon-tx added (the kernel changed our bytes)\n"))
    }

    /// The kernels that refuse Add Extended Advertising Data (0x0d): Add Advertising instead, noted.
    @Test func theAddAdvertisingFallbackPassesWithANote() throws {
        let r = try Self.verify(.refusedExtended)
        #expect(r.code == 0, "\(r.out)\(r.err)")
        #expect(r.out.contains("MGMT Add Advertising (the kernel's interval), Duration 1 s\nnote: the kernel refused MGMT Add Extended Advertising Data (0x0055) with Invalid Parameters (0x0d) at 1.003 s: beacon-tx used Add Advertising (0x003e) instead (the kernel's interval)\n"))
    }

    @Test func anInstanceRemovedByAnotherProgramFails() throws {
        let r = try Self.verify(.removedByOther)
        #expect(r.code == 1)
        #expect(r.err == "beacon-tx verify: FAIL: beacon 2: removed at 8.001 s: MGMT Remove Advertising (0x003f) of instance 4 from btmgmt, and not added again by the end of the capture\n")
    }

    /// The verifier's own verdicts on the same faults, as values (the sentences above are the CLI's words for them).
    @Test func theFaultsAsTypedFailures() throws {
        let uuid = try #require(ProximityUUID(Golden.uuidText))
        func report(_ fault: Fault, major: UInt16 = 1, rotation: Int = 1000) throws -> CaptureReport {
            let config = KioskConfiguration(beacons: [(major, 1), (1, 2)].map {
                BeaconAdvertisement(frame: .iBeacon(IBeacon(uuid: uuid, major: $0.0, minor: $0.1)), options: AdvertisingOptions(interval: .standard))
            }, rotationMilliseconds: rotation)
            return CaptureVerifier.verify(try CaptureFile.read(try Self.capture(fault), .fail), expected: config, controllerIndex: 0)
        }
        let pass = try report(.none)
        #expect(pass.passed && pass.firstFailure == nil && pass.share?.extendedRefusal == nil)
        #expect(try report(.none, major: 2).firstFailure == .beacon(number: 1, .addedBeaconDiffers(FieldDifference(
            command: "Add Extended Advertising Data", field: "iBeacon major", expected: "2", actual: "1"))))
        #expect(try report(.none, rotation: 3000).firstFailure
            == .beacon(number: 1, .planDiffers(.addExtendedAdvertisingParameters, instance: 5, field: "Duration", expected: "3 s", actual: "1 s")))
        #expect(try report(.noRemove).firstFailure == .beacon(number: 2, .notRemoved(instance: 4, addedSeconds: 1.007)))
        #expect(try report(.ghost).firstFailure
            == .beacon(number: 1, .writtenAfterRemoval(.leSetAdvertisingData, seconds: 9.5, instance: 5, removedSeconds: 9)))
        guard case let .beacon(1, .kernelChangedData(opcode, at, written, added))? = try report(.kernelAddsFlags).firstFailure else {
            Issue.record("expected the kernel's changed bytes")
            return
        }
        #expect(opcode == .leSetAdvertisingData && at == 1.5 && written[2] == 0x02 && added[2] == 0x06)
        let fallback = try report(.refusedExtended)
        #expect(fallback.passed)
        #expect(fallback.share?.extendedRefusal?.status == .invalidParameters)
        #expect(fallback.share?.extendedRefusal?.seconds == 1.003)
        let removed = try report(.removedByOther)
        let last = try #require(removed.beacons[1].events.last)
        #expect(removed.firstFailure == .beacon(number: 2, .removedByOther(last)))
        #expect(removed.beacons[1].events.last?.who == "from btmgmt")
    }

    /// A real `btmon -w` capture of rc-share (RootCanal legacy-only, bluetoothd, Debian's 6.1 kernel):
    /// two beacons shared next to a kernel instance, a reload (minor 2 → 3), `btmgmt rm-adv` of ours
    /// undone, the stop.
    @Test func aRealShareCapture() throws {
        let path = VerifyTests.fixture("btmon-share.snoop")
        let args = ["--beacon", "\(Golden.uuidText):1:1", "--beacon", "\(Golden.uuidText):1:3", "--rotation", "1000"]
        let r = tool(["verify", path] + args)
        #expect(r.code == 0, "\(r.out)\(r.err)")
        expectSnapshot(r.out.replacingOccurrences(of: repoRoot.path + "/", with: ""), "verify-btmon-share.txt")
        let j = tool(["verify", path, "--json"] + args)
        #expect(j.code == 0)
        expectSnapshot(j.out.replacingOccurrences(of: repoRoot.path + "/", with: ""), "verify-btmon-share.json")
        let wrong = tool(["verify", path, "--beacon", "\(Golden.uuidText):7:1", "--beacon", "\(Golden.uuidText):1:3", "--rotation", "1000"])
        #expect(wrong.code == 1)
        #expect(wrong.err == "beacon-tx verify: FAIL: beacon 1: MGMT Add Extended Advertising Data: iBeacon major 7 ≠ 1 (config ≠ capture)\n")
        // What the config asks comes first, as in every other check.
        #expect(VerifyReport.text(.connectableDiffers(.leSetAdvertisingParameters, expected: true, actual: false))
            == "LE Set Advertising Parameters (0x2006): connectable ≠ non-connectable (config ≠ capture)")
    }

    /// A real one from an extended controller (btvirt, scenario verify-share-extended): the kernel
    /// puts each instance on the set of its number (3 and 2), both on air at once, our interval.
    @Test func aRealShareCaptureOnAnExtendedController() throws {
        let path = VerifyTests.fixture("btmon-share-extended.snoop")
        let r = tool(["verify", path] + Self.two)
        #expect(r.code == 0, "\(r.out)\(r.err)")
        expectSnapshot(r.out.replacingOccurrences(of: repoRoot.path + "/", with: ""), "verify-btmon-share-extended.txt")
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

/// The sharing mode tells one story in the state file (`status`) and the metrics file: whether our
/// beacons take turns (the kernel rotates its instances on a legacy controller's one advertising
/// instance; an extended controller gives each instance the set of its number). Before, the state
/// file said "rotation" for any two beacons while the metrics said "sets" on an extended controller.
@Suite struct SharingReportTests {
    typealias C = Controllers

    /// `--share always`, two beacons (minor 1 and 2), instances 5 and 4 (no kernel instance before).
    func harness(extended: Bool, state: String) throws -> LoopHarness {
        let uuid = try #require(ProximityUUID(Golden.uuidText))
        let beacons = [1, 2].map { BeaconAdvertisement(frame: .iBeacon(IBeacon(uuid: uuid, major: 1, minor: UInt16($0))), options: AdvertisingOptions(interval: .standard)) }
        let plan = SharePlan(index: 0, beacons: beacons, instances: [5, 4], dwellMilliseconds: 200, method: .extended)
        let adds: [ScriptedKernel.Step] = plan.start.map { c in
            c.opcode == .addExtendedAdvertisingParameters ? Kernel.step(c, [c.instance ?? 0, 0, 31, 31]) : Kernel.instanceStep(c)
        }
        return try LoopHarness(["start", "--beacon", "\(Golden.uuidText):1:1", "--beacon", "\(Golden.uuidText):1:2", "--share", "always"],
                               controller: C.probe(extended: extended),
                               kernel: [Kernel.step(.readAdvertisingFeatures(index: 0), [0xFF, 0xFF, 0x01, 0x00, 31, 31, 5, 0])] + adds,
                               stateDirectory: state)
    }

    @Test(arguments: [(true, false), (false, true)]) func stateFileAndMetricsAgreeOnRotation(_ extended: Bool, _ rotates: Bool) throws {
        let state = temporaryDirectory()
        let h = try harness(extended: extended, state: state)
        #expect(h.phase == .onAir, "\(h.stderr)")
        #expect(h.kernel?.isFullyConsumed == true, "left: \(h.kernel?.remaining ?? [])")
        let file = try JSON.parse(String(contentsOfFile: state + "/hci0.json", encoding: .utf8))
        #expect(file["rotation"] == .bool(rotates), "state file: \(file)")
        let metrics = try String(contentsOfFile: state + "/hci0.prom", encoding: .utf8)
        let layout = rotates ? "rotation" : "sets"
        #expect(metrics.contains("beacon_tx_session_info{device=\"hci0\",family=\"\(extended ? "extended" : "legacy")\",layout=\"\(layout)\"} 1"), "\(metrics)")
    }
}

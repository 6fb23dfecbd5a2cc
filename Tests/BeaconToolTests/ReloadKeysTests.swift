// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

/// SIGHUP with a config whose top-level keys changed, on the real loop (`LoopHarness`): every key
/// takes effect or is refused by name, the old session untouched (no option silently ignored).
/// Before: a changed `cycle`, `duration`, `device` or `share` was "reloaded" and never applied,
/// `metrics` kept writing the old file and `timeout` kept the old wait.
@Suite struct ReloadKeysTests {
    typealias C = Controllers

    /// A config file of the golden beacon on set 2, with `extra` top-level keys (JSON text).
    final class ConfigFile {
        let directory = NSTemporaryDirectory() + "beacon-tx-reload-\(UUID().uuidString)"
        var path: String { directory + "/kiosk.json" }
        /// Set 2 in raw HCI; the sharing mode refuses `advertisingSet` (the kernel chooses).
        let advertisingSet: Bool
        /// The beacon's minor, for reloads that change the beacon itself.
        var minor = 2
        init(_ extra: String = "", advertisingSet: Bool = true) throws {
            self.advertisingSet = advertisingSet
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try write(extra)
        }
        func write(_ extra: String) throws {
            let keys = [extra, advertisingSet ? "\"advertisingSet\": 2" : ""].filter { !$0.isEmpty }.joined(separator: ", ")
            let text = "{ \(keys)\(keys.isEmpty ? "" : ", ")\"beacons\": [{ \"uuid\": \"\(Golden.uuidText)\", \"major\": 1, \"minor\": \(minor) }] }"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }
        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// The sharing mode on instance 5 of a legacy controller.
    func shared(_ file: ConfigFile) throws -> LoopHarness {
        try LoopHarness(["start", "--config", file.path], controller: C.probe(extended: false),
                        kernel: [Kernel.step(.readAdvertisingFeatures(index: 0), [0xFF, 0xFF, 0x01, 0x00, 31, 31, 5, 1, 1])] + (try SessionLoopTests().add()))
    }

    func raw(_ file: ConfigFile) throws -> LoopHarness {
        let p = AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: AdvertisingOptions(interval: .standard, advertisingHandle: 2), family: .extended)
        return try LoopHarness(["start", "--config", file.path], controller: C.probe(extended: true) + C.okSteps(p.start))
    }

    static let fixed: [(key: String, value: String, shown: String)] = [
        ("cycle", "\"5:5\"", "cycle null → \"5:5\""),
        ("duration", "60", "duration null → 60"),
        ("device", "\"hci1\"", "device null → \"hci1\""),
        ("share", "\"always\"", "share \"auto\" → \"always\""),
    ]

    @Test(arguments: fixed.indices) func rawHCIRefusesAKeyOfTheStartByName(_ i: Int) throws {
        let (key, value, shown) = Self.fixed[i]
        let file = try ConfigFile()
        let h = try raw(file)
        let sent = h.controller.sent.count
        try file.write("\"\(key)\": \(value)")
        h.deliver(HCIReceive.signal(1))
        #expect(h.stderr.contains("beacon-tx: reload: \(shown): this key takes effect only at a start (restart the session: systemctl restart, or start again); the previous beacons stay on air"), "\(h.stderr)")
        #expect(!h.stderr.contains("reloaded"), "\(h.stderr)")
        #expect(h.controller.sent.count == sent, "nothing sent")
        #expect(h.loop.settings.cycle == nil && h.loop.settings.durationSeconds == nil && h.loop.settings.share == .auto && h.loop.settings.device == nil)
        #expect(h.phase == .onAir && h.exit == nil && h.failure == nil)
    }

    @Test func twoKeysAreNamedTogetherAndTheRestStillReloads() throws {
        let file = try ConfigFile()
        let h = try raw(file)
        try file.write("\"cycle\": \"5:5\", \"duration\": 60")
        h.deliver(HCIReceive.signal(1))
        #expect(h.stderr.contains("beacon-tx: reload: duration null → 60, cycle null → \"5:5\": these keys take effect only at a start"), "\(h.stderr)")
        // The same keys as at the start: the reload goes through (nothing changed on air).
        try file.write("")
        h.deliver(HCIReceive.signal(1))
        #expect(h.stderr.contains("reloaded \(file.path): 1 unchanged, 0 updated, 0 added, 0 removed"), "\(h.stderr)")
    }

    @Test func timeoutTakesEffectOnTheNextCommand() throws {
        let file = try ConfigFile()
        let h = try raw(file)
        try file.write("\"timeout\": 500")
        h.deliver(HCIReceive.signal(1))
        #expect(h.stderr.contains("reloaded"), "\(h.stderr)")
        let adapter = try #require(h.loop.observer as? RawHCIObserver)
        #expect(adapter.opened.runner.timeoutMilliseconds == 500)
    }

    @Test func metricsMovesTheFile() throws {
        let file = try ConfigFile()
        let (a, b) = (file.directory + "/a.prom", file.directory + "/b.prom")
        try file.write("\"metrics\": \"\(a)\"")
        let h = try raw(file)
        #expect(FileManager.default.fileExists(atPath: a))
        try file.write("\"metrics\": \"\(b)\"")
        h.deliver(HCIReceive.signal(1))
        #expect(h.stderr.contains("reloaded"), "\(h.stderr)")
        #expect(!FileManager.default.fileExists(atPath: a), "the old file goes")
        let text = try String(contentsOfFile: b, encoding: .utf8)
        #expect(text.contains("beacon_tx_session_on_air{device=\"hci0\"} 1"), "\(text)")
        #expect(text.contains("beacon_tx_reloads_total{device=\"hci0\",result=\"applied\"} 1"), "\(text)")
    }

    /// A changed minor reloads in place through the loop (SIGHUP): set 2 alone is configured again
    /// (disabled, its parameters and data with the new minor, enabled: the new plan's commands for
    /// it) and nothing else is sent; the process and the session stay.
    @Test func rawHCIReloadsAChangedBeaconInPlace() throws {
        let file = try ConfigFile()
        let h = try raw(file)
        let b = try #require(Golden.beacon)
        let next = AdvertisingPlan(frame: .iBeacon(IBeacon(uuid: b.uuid, major: 1, minor: 3, measuredPower: -59)),
                                   options: AdvertisingOptions(interval: .standard, advertisingHandle: 2), family: .extended)
        let sent = h.controller.sent.count
        file.minor = 3
        try file.write("")
        h.deliver(HCIReceive.signal(1), expecting: C.okSteps(next.start))
        #expect(h.stderr.contains("reloaded \(file.path): 0 unchanged, 1 updated, 0 added, 0 removed"), "\(h.stderr)")
        #expect(Array(h.controller.sent.dropFirst(sent)) == next.start.map(\.command.packet))
        #expect(h.phase == .onAir && h.exit == nil && h.failure == nil)
        #expect(h.controller.isFullyConsumed && h.controller.mismatches.isEmpty, "\(h.controller.remaining) \(h.controller.mismatches)")
    }

    /// The sharing mode reloads a changed minor on the same kernel instance (5): Add Extended
    /// Advertising Parameters and Data again, the data with minor 3; no Remove Advertising.
    @Test func theSharingModeReAddsAChangedBeaconOnItsInstance() throws {
        let file = try ConfigFile("\"share\": \"always\"", advertisingSet: false)
        let h = try shared(file)
        let minor3 = try #require(Hex.decode("550000002100" + "05" + "1e00" + "0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010003c5"))
        let sent = h.kernel?.sent.count ?? 0
        file.minor = 3
        try file.write("\"share\": \"always\"")
        h.deliver(MGMTReceive.signal(1), expecting: [Kernel.step(try MGMTCommand(packet: SessionLoopTests.mgmtParams), [5, 0, 31, 31]),
                                                     Kernel.instanceStep(try MGMTCommand(packet: minor3))])
        #expect(h.stderr.contains("reloaded \(file.path): 0 unchanged, 1 updated, 0 added, 0 removed"), "\(h.stderr)")
        #expect(Array(h.kernel?.sent.dropFirst(sent) ?? []) == [SessionLoopTests.mgmtParams, minor3])
        #expect(h.phase == .onAir && h.exit == nil && h.failure == nil)
        #expect(h.kernel?.isFullyConsumed == true && h.kernel?.mismatches.isEmpty == true, "\(h.kernel?.remaining ?? []) \(h.kernel?.mismatches ?? [])")
    }

    /// The sharing mode refuses the same way: no MGMT command.
    @Test func theSharingModeRefusesACycleByName() throws {
        let file = try ConfigFile("\"share\": \"always\"", advertisingSet: false)
        let h = try shared(file)
        try expectRefused(h, file, "\"cycle\": \"5:5:2\"", shown: "cycle null → \"5:5:2\"")
        #expect(h.loop.settings.cycle == nil)
    }

    /// The MGMT commands are chosen at the start too: `shareCommands` changed is refused by name.
    @Test func theSharingModeRefusesAChangeOfItsMGMTCommandsByName() throws {
        let file = try ConfigFile("\"share\": \"always\"", advertisingSet: false)
        let h = try shared(file)
        try expectRefused(h, file, "\"shareCommands\": \"add-advertising\"", shown: "shareCommands \"auto\" → \"add-advertising\"")
        #expect(h.loop.settings.shareCommands == nil)
    }

    /// A sharing session on air reloads `key` beside `"share": "always"`: refused by name, no MGMT command.
    func expectRefused(_ h: LoopHarness, _ file: ConfigFile, _ key: String, shown: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(h.phase == .onAir, sourceLocation: sourceLocation)
        let sent = h.kernel?.sent.count
        try file.write("\"share\": \"always\", " + key)
        h.deliver(MGMTReceive.signal(1))
        #expect(h.stderr.contains("beacon-tx: reload: \(shown): this key takes effect only at a start"), "\(h.stderr)", sourceLocation: sourceLocation)
        #expect(h.kernel?.sent.count == sent, sourceLocation: sourceLocation)
        #expect(h.phase == .onAir, sourceLocation: sourceLocation)
    }
}

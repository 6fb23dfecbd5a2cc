// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

private typealias C = Controllers

/// Issue 20: what beacon-tx must not ask of a controller, and what it must say when a plan cannot be
/// what the config asks for. Scripted conversations (whole packets), whole messages, whole dry runs.
@Suite struct ControllerRulesTests {
    static let museum = repoPath("Config/museum.json")

    func host(_ steps: [ScriptedController.Step]) -> (FakeHost, ScriptedController) {
        let fake = ScriptedController(steps)
        return (FakeHost(devices: [C.device(0)], channels: [0: fake]), fake)
    }

    // MARK: defect 1: per-beacon interval under rotation

    /// museum.json's `"interval": 200` on museum-shop cannot be applied on one rotated instance: the
    /// text says so on the beacon, the device line gives the interval the instance really uses, and a
    /// warning names the beacon (it used to print "(interval 200.000 msec (0x0140))" as if applied).
    @Test func rotationTextSaysThePerBeaconIntervalIsNotApplied() {
        let r = tool(["start", "--config", Self.museum, "--controller", "legacy", "--dry-run"])
        #expect(r.code == 0, "\(r.err)")
        expectSnapshot(r.out, "start-museum-rotation.txt")
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.contains("beacon 3: museum-shop E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 3 measured power -62 dBm (interval 200.000 msec (0x0140) not applied)"))
        #expect(lines.contains("warning:  beacon 3 (museum-shop): interval 200.000 msec (0x0140) is not applied: rotated beacons share one advertising instance, which uses 100.000 msec (0x00a0) (the top-level interval)"))
    }

    /// The JSON plan gives each rotated beacon the options it is advertised with.
    @Test func rotationJSONGivesTheSharedInterval() throws {
        let r = tool(["start", "--config", Self.museum, "--controller", "legacy", "--dry-run", "--format", "json"])
        let plan = try JSON.parse(r.out)
        guard case let .array(beacons)? = plan["beacons"] else { Issue.record("no beacons"); return }
        #expect(beacons.map { $0["intervalMilliseconds"] } == [.number(100), .number(100), .number(100)])
    }

    /// When every beacon agrees on a value, the rotated instance uses it (no top-level fallback).
    @Test func rotationUsesTheBeaconsCommonValue() throws {
        let uuid = try #require(ProximityUUID(Golden.uuidText))
        let slow = AdvertisingOptions(interval: try #require(AdvertisingInterval(milliseconds: 300)), connectable: true)
        let config = KioskConfiguration(beacons: [1, 2].map { BeaconAdvertisement(frame: .iBeacon(IBeacon(uuid: uuid, major: 1, minor: $0)), options: slow) },
                                        rotationMilliseconds: 300, commonOptions: AdvertisingOptions(interval: .standard))
        let plan = try KioskPlan(config, family: .legacy)
        #expect(config.ignoredUnderRotation == [])
        #expect(Hex.encode(plan.start[1].command.packet) == "0106200fe001e0010000000000000000000700")
        var mixed = config
        mixed.beacons[1].options = AdvertisingOptions(interval: .standard)
        #expect(mixed.ignoredUnderRotation == [
            .init(beacon: 0, key: "interval", configured: "300.000 msec (0x01e0)", applied: "100.000 msec (0x00a0)"),
            .init(beacon: 0, key: "connectable", configured: "true", applied: "false"),
        ])
        #expect(Hex.encode(try KioskPlan(mixed, family: .legacy).start[1].command.packet) == "0106200fa000a0000300000000000000000700")
    }

    // MARK: defect 2: verify passes on every capture beacon-tx itself produces

    /// For every shipped config and both families: the btsnoop dry run, then `verify` against the same
    /// config. museum.json with legacy commands used to fail (beacon 3's interval 0x0140 ≠ 0x00a0).
    @Test(arguments: ["legacy", "extended"])
    func everyShippedConfigsDryRunVerifies(family: String) throws {
        let configs = try FileManager.default.contentsOfDirectory(atPath: repoPath("Config")).filter { $0.hasSuffix(".json") }.sorted()
        #expect(configs == ["kiosk.json", "minimal.json", "museum.json", "types.json"])
        for name in configs {
            for extra in [[], ["--random-address-per-set"]] {
                let path = NSTemporaryDirectory() + "beacon-tx-verify-\(UUID().uuidString).snoop"
                defer { try? FileManager.default.removeItem(atPath: path) }
                let config = repoPath("Config/" + name)
                let dry = tool(["start", "--config", config, "--controller", family, "--dry-run", "--format", "btsnoop", "--output", path] + extra)
                #expect(dry.code == 0, "\(name) \(family): \(dry.err)")
                let v = tool(["verify", path, "--config", config] + extra)
                #expect(v.code == 0, "\(name) \(family) \(extra): \(v.err)")
                #expect(v.err == "", "\(name) \(family) \(extra)")
            }
        }
    }

    // MARK: defect 3: the first disable of a set that does not exist yet

    /// No HCI command lists the sets that exist, and a detached start may have left ours enabled, so
    /// the start plan disables first; `--verbose` marks the Unknown Advertising Identifier answer as
    /// the expected one (verify tolerates it too).
    @Test func verboseMarksTheExpectedUnknownAdvertisingIdentifier() throws {
        let p = AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: AdvertisingOptions(interval: .standard, advertisingHandle: 0xEF), family: .extended)
        let first = p.start[0].command
        let (h, fake) = host(C.probe(extended: true) + [.command(first, replies: [C.fail(first, .unknownAdvertisingIdentifier)])] + C.okSteps(Array(p.start.dropFirst())))
        let r = tool(["start"] + goldenFlags + ["--detach", "--verbose"], host: h)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed)
        #expect(r.err.contains("> Command Complete (0x0e) LE Set Extended Advertising Enable (0x08|0x0039) ncmd 1: Unknown Advertising Identifier (0x42)\n  (expected: the advertising set does not exist (yet): nothing to disable or remove)\n"))
    }

    // MARK: defect 5: controller version rules

    /// HCI 4.1 and a 50 ms non-connectable legacy interval: refused after the probe, before any
    /// advertising command, naming the version and the floor, exit 78 (not restarted by the units).
    @Test func pre50IntervalBelowTheFloorIsRefusedBeforeAnythingIsSent() {
        let (h, fake) = host(C.probe(hciVersion: 7, extended: false))
        let r = tool(["start"] + goldenFlags + ["--interval", "50"], host: h)
        #expect(r.code == 78)
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(fake.sent.count == 3, "the probe only")
        #expect(r.err == "beacon-tx start: interval 50.000 msec (0x0050) is below 100.000 msec (0x00a0), the floor for non-connectable legacy advertising before Bluetooth 5.0, and hci0 is Bluetooth 4.1: nothing was sent; set \"interval\" (--interval) to 100 ms or more, or make the beacons connectable\n")
    }

    /// The same interval connectable, or on a 5.0 controller, is sent.
    @Test func theFloorAppliesOnlyBefore50AndToNonConnectable() throws {
        let fast = AdvertisingOptions(interval: try #require(AdvertisingInterval(milliseconds: 50)))
        let p = AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: fast, family: .legacy)
        let (h, fake) = host(C.probe(hciVersion: 9, extended: false) + C.okSteps(p.start))
        #expect(tool(["start"] + goldenFlags + ["--interval", "50", "--detach"], host: h).code == 0)
        #expect(fake.isFullyConsumed)
        var connectable = fast
        connectable.connectable = true
        let pc = AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: connectable, family: .legacy)
        let (h2, fake2) = host(C.probe(hciVersion: 7, extended: false) + C.okSteps(pc.start))
        #expect(tool(["start"] + goldenFlags + ["--interval", "50", "--connectable", "--detach"], host: h2).code == 0)
        #expect(fake2.isFullyConsumed)
    }

    /// The LE feature bit without the commands is not extended advertising: a controller that sets
    /// bit 12 but does not list LE Remove Advertising Set gets legacy commands under auto.
    @Test func featureBitWithoutTheCommandsIsLegacy() throws {
        let p = AdvertisingPlan(frame: .iBeacon(try #require(Golden.beacon)), options: AdvertisingOptions(interval: .standard), family: .legacy)
        let (h, fake) = host(C.probe(extended: true, omitting: [.leRemoveAdvertisingSet]) + C.okSteps(p.start))
        let r = tool(["start"] + goldenFlags + ["--detach"], host: h)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(fake.mismatches == [])
    }

    /// A controller that sets the feature bit and the set commands but not LE Read Number of Supported
    /// Advertising Sets (nor LE Read Maximum Advertising Data Length) is never sent them.
    @Test func unlistedSetLimitCommandsAreNotSent() throws {
        let uuid = try #require(ProximityUUID(Golden.uuidText))
        let config = KioskConfiguration(beacons: [1, 2].map { BeaconAdvertisement(frame: .iBeacon(IBeacon(uuid: uuid, major: 1, minor: $0)), options: AdvertisingOptions(interval: .standard)) })
        let p = try KioskPlan(config, family: .extended)
        let (h, fake) = host(C.probe(extended: true, omitting: [.leReadNumberOfSupportedAdvertisingSets, .leReadMaximumAdvertisingDataLength]) + C.okSteps(p.start))
        let r = tool(["start", "--beacon", "\(Golden.uuidText):1:1", "--beacon", "\(Golden.uuidText):1:2", "--detach"], host: h)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(fake.mismatches == [])
    }

    // MARK: defect 6: rotations phones cannot follow

    static func beacons(_ n: Int) -> [String] { (1...n).flatMap { ["--beacon", "\(Golden.uuidText):1:\($0)"] } }

    /// 12 rotated beacons at the default dwell: the cycle (2.4 s) is longer than iOS's ranging period,
    /// and 12 identities on one address are more than Home Assistant follows.
    @Test func longRotationWarnsInTheDryRun() {
        let r = tool(["start"] + Self.beacons(12) + ["--controller", "legacy", "--dry-run"])
        #expect(r.code == 0, "\(r.err)")
        let warnings = r.out.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(warnings == [
            "warning:  rotation cycle 2400 ms (12 beacons x 200 ms) is longer than iOS's 1 s ranging period: phones lose each beacon between its turns; rotate fewer beacons or shorten --rotation",
            "warning:  12 identities on one address: Home Assistant's iBeacon integration ignores an address with 10 or more (MAX_IDS); on an extended controller, --controller extended --random-address-per-set gives each beacon its own address",
        ])
        #expect(r.out.contains("rotation: every 200 ms the data is replaced while advertising stays enabled (each beacon on air every 2400 ms):"))
        // Five beacons: a 1 s cycle, no warning.
        let five = tool(["start"] + Self.beacons(5) + ["--controller", "legacy", "--dry-run"])
        #expect(!five.out.contains("warning:"))
        // Sets from one address: still one address; with --random-address-per-set, none.
        let sets = tool(["start"] + Self.beacons(10) + ["--controller", "extended", "--dry-run"])
        #expect(sets.out.split(separator: "\n").filter { $0.hasPrefix("warning:") } == [
            "warning:  10 identities on one address: Home Assistant's iBeacon integration ignores an address with 10 or more (MAX_IDS); --random-address-per-set gives each set its own address",
        ])
        let own = tool(["start"] + Self.beacons(10) + ["--controller", "extended", "--random-address-per-set", "--dry-run"])
        #expect(!own.out.contains("warning:"))
    }

    /// The live start prints the same warnings (stderr), after the on-air line with the cycle.
    @Test func longRotationWarnsAtStart() throws {
        let uuid = try #require(ProximityUUID(Golden.uuidText))
        let config = KioskConfiguration(beacons: (1...12).map { BeaconAdvertisement(frame: .iBeacon(IBeacon(uuid: uuid, major: 1, minor: UInt16($0))), options: AdvertisingOptions(interval: .standard)) },
                                        family: .legacy)
        let p = try KioskPlan(config, family: .legacy)
        let (h, _) = host(C.probe(extended: false) + C.okSteps(p.start))
        let r = tool(["start"] + Self.beacons(12) + ["--controller", "legacy", "--detach"], host: h)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.err.contains("(legacy commands, rotating every 200 ms, each beacon every 2400 ms, 100.000 msec (0x00a0), non-connectable)\n"))
        #expect(r.err.contains("beacon-tx: rotation cycle 2400 ms (12 beacons x 200 ms) is longer than iOS's 1 s ranging period"))
        #expect(r.err.contains("beacon-tx: 12 identities on one address: Home Assistant's iBeacon integration ignores an address with 10 or more (MAX_IDS)"))
    }

    /// `--random-address-per-set`: Own_Address_Type Random and LE Set Advertising Set Random Address
    /// right after each set's parameters, with a random static address derived from the region.
    @Test func randomAddressPerSetCommands() throws {
        let r = tool(["start", "--beacon", "\(Golden.uuidText):1:1", "--beacon", "\(Golden.uuidText):1:2", "--controller", "extended",
                      "--random-address-per-set", "--dry-run", "--format", "hex"])
        #expect(r.code == 0, "\(r.err)")
        let uuid = try #require(ProximityUUID(Golden.uuidText))
        let a1 = StaticRandomAddress.derived(for: .iBeacon(IBeacon(uuid: uuid, major: 1, minor: 1)))
        let a2 = StaticRandomAddress.derived(for: .iBeacon(IBeacon(uuid: uuid, major: 1, minor: 2)))
        for a in [a1, a2] {
            #expect(a.count == 6 && a[0] & 0xC0 == 0xC0, "random static: the two top bits set")
        }
        #expect(a1 != a2)
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(Array(lines.prefix(5)) == [
            "# start:",
            "013920060001ef000000",
            "01362019ef1000a00000a00000070100000000000000007f0100010000",
            "01352007ef" + Hex.encode(a1.reversed()),
            "01372022ef03011e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010001c5",
        ])
        #expect(lines.contains("01352007ee" + Hex.encode(a2.reversed())))
        // Stable: the same region, the same address (a scanner keys on it).
        #expect(StaticRandomAddress.derived(for: .iBeacon(IBeacon(uuid: uuid, major: 1, minor: 1, measuredPower: -70))) == a1)
        #expect(StaticRandomAddress.text([0xC3, 0x01, 0x02, 0x0A, 0xB0, 0xFF]) == "C3:01:02:0A:B0:FF")
    }
}

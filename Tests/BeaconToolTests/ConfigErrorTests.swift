// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

/// A config file named `kiosk.json` in its own directory (the messages below name it so).
func kioskFile(_ text: String) -> String {
    let path = temporaryDirectory() + "/kiosk.json"
    _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    return path
}

/// `start --config FILE --dry-run`, with the file's path shown as `kiosk.json`.
func startWithConfig(_ text: String, _ flags: [String] = []) -> (code: Int32, err: String) {
    let path = kioskFile(text)
    let r = tool(["start", "--config", path, "--dry-run"] + flags)
    return (r.code, r.err.replacingOccurrences(of: path, with: "kiosk.json"))
}

/// A `beacons` list of the golden UUID, major 1 and these minors.
func goldenBeacons(_ minors: [Int], extra: String = "") -> String {
    "[" + minors.map { #"{"uuid": "\#(Golden.uuidText)", "major": 1, "minor": \#($0)\#(extra)}"# }.joined(separator: ", ") + "]"
}

/// Issue 30, item 8: an unknown key suggests the nearest accepted one, two beacons with one
/// identity are refused naming both, and a check across keys names the file and the key (65)
/// when the file set the values. And `"$schema"` is accepted and ignored.
@Suite struct ConfigErrorTests {
    let u = Golden.uuidText
    func start(_ text: String, _ flags: [String] = []) -> (code: Int32, err: String) { startWithConfig(text, flags) }
    func beacons(_ minors: [Int], extra: String = "") -> String { goldenBeacons(minors, extra: extra) }
    func file(_ text: String) -> String { kioskFile(text) }

    @Test func unknownKeysSuggestTheNearestAcceptedOne() {
        let beaconKeys = "accepted: identifier, type, uuid, major, minor, measuredPower, interval, connectable, txPower"
        let measuredpwr = start(#"{"beacons": [{"uuid": "\#(u)", "major": 1, "minor": 2, "measuredpwr": -60}]}"#)
        #expect(measuredpwr.code == 65)
        #expect(measuredpwr.err == "beacon-tx start: config kiosk.json: beacons[0]: unknown key \"measuredpwr\" (\(beaconKeys); did you mean measuredPower?)\n")
        let snake = start(#"{"beacons": [{"uuid": "\#(u)", "major": 1, "minor": 2, "measured_power": -60}]}"#)
        #expect(snake.code == 65)
        #expect(snake.err == "beacon-tx start: config kiosk.json: beacons[0]: unknown key \"measured_power\" (\(beaconKeys); did you mean measuredPower?)\n")
        let topLevel = "accepted: device, interval, connectable, txPower, controller, share, shareCommands, timeout, advertisingSet, randomAddressPerSet, "
            + "rotation, deviceTimeout, duration, cycle, metrics, beacons, $schema"
        let tx = start(#"{"tx_power": -4, "beacons": \#(beacons([2]))}"#)
        #expect(tx.code == 65)
        #expect(tx.err == "beacon-tx start: config kiosk.json: unknown key \"tx_power\" (\(topLevel); did you mean txPower?)\n")
        // A beacon's key at the top level says where it belongs.
        let misplaced = start(#"{"measuredPower": -60, "beacons": \#(beacons([2]))}"#)
        #expect(misplaced.err == "beacon-tx start: config kiosk.json: unknown key \"measuredPower\" (\(topLevel); measuredPower is a key of each beacon in \"beacons\")\n")
        // Far from every key: no guess.
        let far = start(#"{"colour": "blue", "beacons": \#(beacons([2]))}"#)
        #expect(far.code == 65)
        #expect(far.err == "beacon-tx start: config kiosk.json: unknown key \"colour\" (\(topLevel))\n")
        #expect(KeySuggestion.nearest("DEVICE", in: ["device", "interval"]) == "device")
        #expect(KeySuggestion.nearest("mjr", in: ["major", "minor"]) == nil)
        #expect(KeySuggestion.nearest("minr", in: ["major", "minor"]) == "minor")
        #expect(KeySuggestion.distance(Array("kitten".utf8), Array("sitting".utf8)) == 3)
        #expect(KeySuggestion.nearest(String(repeating: "k", count: 5000), in: ["device"]) == nil)
    }

    @Test func twoBeaconsWithOneIdentityAreRefused() {
        let r = start(#"{"beacons": \#(beacons([1, 2, 1]))}"#)
        #expect(r.code == 65)
        #expect(r.err == "beacon-tx start: config kiosk.json: beacons[2]: the same beacon as beacons[0] (\(u) major 1 minor 1): each beacon needs its own uuid, major and minor\n")
        // The UUID's spelling does not make another beacon.
        let spelled = start(#"{"beacons": [{"uuid": "\#(u)", "major": 1, "minor": 1}, {"uuid": "\#(u.lowercased().replacingOccurrences(of: "-", with: ""))", "major": 1, "minor": 1}]}"#)
        #expect(spelled.code == 65 && spelled.err.contains("beacons[1]: the same beacon as beacons[0]"), "\(spelled.err)")
        #expect(start(#"{"beacons": \#(beacons([1, 2, 3]))}"#).code == 0)
        let flags = tool(["start", "--dry-run", "--beacon", "\(u):1:1", "--beacon", "\(u):1:2", "--beacon", "\(u):1:1:-70"])
        #expect(flags.code == 64)
        #expect(flags.err == "beacon-tx start: --beacon \(u):1:1:-70 (the 3rd) repeats the 1st (\(u) major 1 minor 1): each beacon needs its own uuid, major and minor\n")
        #expect(StartCommand.ordinal(2) == "2nd" && StartCommand.ordinal(11) == "11th" && StartCommand.ordinal(23) == "23rd")
    }

    /// A check across keys exits 65 naming the file and the key when the file set the values, and
    /// 64 as before when a flag took part.
    @Test func checksAcrossKeysNameTheFileAndTheKey() {
        let rotation = start(#"{"rotation": 50, "beacons": \#(beacons([1, 2]))}"#)
        #expect(rotation.code == 65)
        #expect(rotation.err == "beacon-tx start: config kiosk.json: rotation: 50 ms is shorter than the advertising interval 100 ms: "
                + "a beacon would be replaced before it is sent (accepted 100–10000 ms with this interval)\n")
        // The interval from the file, the rotation by default.
        let interval = start(#"{"interval": 500, "beacons": \#(beacons([1, 2]))}"#)
        #expect(interval.code == 65)
        #expect(interval.err == "beacon-tx start: config kiosk.json: interval: 500 ms is longer than the rotation 200 ms: "
                + "a beacon would be replaced before it is sent (accepted 20–200 ms with this rotation)\n")
        // A flag among them: a usage error, as before.
        let flag = start(#"{"beacons": \#(beacons([1, 2]))}"#, ["--rotation", "50"])
        #expect(flag.code == 64)
        #expect(flag.err == "beacon-tx start: rotation 50 ms is shorter than the advertising interval 100.000 ms: a beacon would be replaced before it is sent\n")
        let flagged = start(#"{"rotation": 50, "beacons": \#(beacons([1, 2]))}"#, ["--interval", "200"])
        #expect(flagged.code == 64, "\(flagged.err)")
        let fixed = start(#"{"rotation": 50, "beacons": \#(beacons([1, 2]))}"#, ["--rotation", "100"])
        #expect(fixed.code == 0, "\(fixed.err)")
        let sets = start(#"{"advertisingSet": 238, "beacons": \#(beacons([1, 2, 3]))}"#, ["--controller", "extended"])
        #expect(sets.code == 65)
        #expect(sets.err == "beacon-tx start: config kiosk.json: advertisingSet: 3 beacons do not fit in advertising handles from 238 to 239\n")
        // The sharing mode carries out a cycle (issue 29): no refusal any more.
        let cycle = start(#"{"share": "always", "cycle": "30:60", "beacons": \#(beacons([1]))}"#)
        #expect(cycle.code == 0, "\(cycle.err)")
        // What it cannot carry out: the file's key (65), or the flag (64).
        let set = start(#"{"share": "always", "advertisingSet": 200, "beacons": \#(beacons([1]))}"#)
        #expect(set.code == 65)
        #expect(set.err == "beacon-tx start: config kiosk.json: advertisingSet: does not work when beacon-tx shares the advertising instance "
                + "(\"share\": \"always\"): the kernel chooses the advertising set of each instance (use --share never to choose the sets)\n")
        let setFlag = start(#"{"share": "always", "beacons": \#(beacons([1]))}"#, ["--advertising-set", "200"])
        #expect(setFlag.code == 64)
        #expect(setFlag.err == "beacon-tx start: --advertising-set does not work when beacon-tx shares the advertising instance "
                + "(--share always): the kernel chooses the advertising set of each instance (use --share never to choose the sets)\n")
    }

    @Test func schemaKeyIsAcceptedAndIgnored() throws {
        let path = file(#"{"$schema": "./config.schema.json", "beacons": \#(beacons([2]))}"#)
        let dump = tool(["dump-config", "--config", path])
        #expect(dump.code == 0, "\(dump.err)")
        #expect(dump.out == tool(["dump-config"] + goldenFlags).out)
        let bad = start(#"{"$schema": 1, "beacons": \#(beacons([2]))}"#)
        #expect(bad.code == 65)
        #expect(bad.err == "beacon-tx start: config kiosk.json: $schema: expected a string (the schema's URL or file name), found a number\n")
        // Only at the top level.
        #expect(start(#"{"beacons": \#(beacons([2], extra: #", "$schema": "x""#))}"#).code == 65)
    }
}

/// A live start refuses the same file the same way, before any advertising command is sent.
@Suite struct ConfigErrorLiveTests {
    @Test func liveStartNamesTheFileAndTheKey() {
        let path = kioskFile(#"{"rotation": 50, "beacons": \#(goldenBeacons([1, 2]))}"#)
        let fake = ScriptedController(Controllers.probe(extended: false))
        let h = FakeHost(devices: [Controllers.device(0, up: true)], channels: [0: fake])
        let r = tool(["start", "--config", path], host: h)
        #expect(r.code == 65)
        #expect(r.err.hasSuffix("beacon-tx start: config \(path): rotation: 50 ms is shorter than the advertising interval 100 ms: "
                                + "a beacon would be replaced before it is sent (accepted 100–10000 ms with this interval)\n"), "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(fake.mismatches.isEmpty, "\(fake.mismatches)")
    }
}

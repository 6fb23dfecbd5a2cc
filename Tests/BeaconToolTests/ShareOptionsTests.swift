// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

/// Issue 29 items 3 and 4 through the CLI: every `start` option either works in the sharing mode or
/// is refused at start naming the option and the mode; and the sharing session keeps the watchdog,
/// `--metrics` and `--cycle` as the raw-HCI session does.
@Suite struct ShareOptionsTests {
    typealias C = Controllers

    /// One row per `start` option: a new option without a row fails here until its sharing-mode
    /// behaviour is decided.
    @Test func theTableCoversEveryStartOption() {
        let options = StartCommand.options.map(\.name)
        let rows = ShareOptions.table.map(\.flag)
        #expect(Set(options) == Set(rows), "no row: \(Set(options).subtracting(rows)); no option: \(Set(rows).subtracting(options))")
        #expect(rows.count == Set(rows).count, "one row each")
    }

    /// Each raw-HCI-only option, given with `--share always`: exit 64 before any socket, naming the
    /// option, the mode and why. With `--share never` none of them is refused for the mode.
    @Test func everyRawHCIOnlyOptionIsRefusedWithShareAlways() {
        let samples: [String: [String]] = [
            "--controller": ["--controller", "legacy"], "--advertising-set": ["--advertising-set", "200"],
            "--random-address-per-set": ["--random-address-per-set"], "--detach": ["--detach"],
        ]
        for (flag, support) in ShareOptions.table {
            guard case let .rawHCIOnly(why) = support else { continue }
            guard let args = samples[flag] else {
                Issue.record("no sample for \(flag)")
                continue
            }
            let r = tool(["start"] + goldenFlags + ["--share", "always"] + args)
            #expect(r.code == 64, "\(flag): \(r.err)")
            if flag == "--detach" {
                #expect(r.err.contains("--share always needs the foreground session (without --detach)"), "\(r.err)")
            } else {
                #expect(r.err == "beacon-tx start: \(flag) does not work when beacon-tx shares the advertising instance (--share always): \(why)\n")
            }
            let never = tool(["start"] + goldenFlags + ["--share", "never"] + args)
            #expect(!never.err.contains("does not work when beacon-tx shares"), "\(flag) --share never: \(never.err)")
        }
    }

    /// `--share-commands` only with `--share always`, and never beside what Add Advertising cannot
    /// carry: exit 64 naming the flags, or 65 naming the config key; `--share always` takes it.
    @Test func shareCommandsNeedsShareAlwaysAndNoIntervalOrTxPower() throws {
        for (extra, want) in [(["--share", "auto"], "--share-commands works only with --share always (here auto)"),
                              (["--share", "never"], "--share-commands works only with --share always (here never)"),
                              (["--share", "always", "--interval", "200"], "--interval does not work with --share-commands add-advertising: MGMT Add Advertising carries no interval"),
                              (["--share", "always", "--tx-power", "-4"], "--tx-power does not work with --share-commands add-advertising: MGMT Add Advertising carries no tx power")] {
            let r = tool(["start"] + goldenFlags + ["--share-commands", "add-advertising", "--dry-run"] + extra)
            #expect(r.code == 64, "\(extra): \(r.err)")
            #expect(r.err.hasPrefix("beacon-tx start: \(want)"), "\(extra): \(r.err)")
        }
        let dir = temporaryDirectory()
        let config = dir + "/kiosk.json"
        try Data(#"{"share": "auto", "shareCommands": "add-advertising", "beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2}]}"#.utf8)
            .write(to: URL(fileURLWithPath: config))
        let file = tool(["start", "--config", config, "--dry-run"])
        #expect(file.code == 65, "\(file.err)")
        #expect(file.err.contains("shareCommands: works only with \"share\": \"always\" (here \"auto\")"), "\(file.err)")
        try Data(#"{"share": "always", "shareCommands": "add-advertising", "beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2, "interval": 200}]}"#.utf8)
            .write(to: URL(fileURLWithPath: config))
        let perBeacon = tool(["start", "--config", config, "--dry-run"])
        #expect(perBeacon.code == 65, "\(perBeacon.err)")
        #expect(perBeacon.err.contains("shareCommands: \"add-advertising\" does not work beside an interval (interval, here or in a beacon)"), "\(perBeacon.err)")
        let ok = tool(["start"] + goldenFlags + ["--share", "always", "--share-commands", "add-advertising", "--dry-run", "--format", "json"])
        #expect(ok.code == 0, "\(ok.err)")
        #expect(ok.out.contains("\"mgmtOpcode\": \"0x003e\"") && ok.out.contains("\"method\": \"addAdvertising\""), "\(ok.out)")
        #expect(!ok.out.contains("\"mgmtOpcode\": \"0x0054\""), "\(ok.out)")
    }

    /// `--share auto` shares (one instance, a kernel instance on it): a raw-HCI-only option is refused
    /// once that is known, before our first MGMT Add, naming the mode.
    @Test func autoRefusesARawHCIOnlyOptionOnceItShares() {
        let fake = ScriptedController(C.probe(extended: false))
        let kernel = ScriptedKernel([Kernel.step(.readAdvertisingFeatures(index: 0), [0x7F, 0x00, 0x00, 0x00, 31, 31, 5, 1, 1])])
        let h = FakeHost(devices: [C.device(0)], channels: [0: fake])
        h.control = kernel
        let r = tool(["start"] + goldenFlags + ["--random-address-per-set"], host: h)
        #expect(r.code == 64, "\(r.err)")
        #expect(r.err.contains("beacon-tx start: --random-address-per-set does not work when beacon-tx shares the advertising instance "
                               + "(--share auto shares it: the controller has one instance and the kernel has instances on it)"), "\(r.err)")
        #expect(kernel.isFullyConsumed, "MGMT left: \(kernel.remaining)")
    }

    /// `--share always --cycle 2:2:2 --metrics FILE` under a watchdog (WATCHDOG_USEC 2 s: a beat every
    /// second): each off phase removes our instance 5 and the next on phase adds it again (whole MGMT
    /// packets); WATCHDOG=1 all along; STATUS says the off phase; the metrics file says on air in the
    /// on phases, off (session up) in the off phases, and session down at the end.
    @Test func theSharingSessionKeepsTheWatchdogTheMetricsAndTheCycle() throws {
        let listener = try NotifyListener()
        let dir = temporaryDirectory()
        let metricsPath = dir + "/beacon-tx.prom"
        let clock = TestClock()
        let fake = ScriptedController(C.probe(extended: false))
        // Add Extended Advertising Parameters: instance 5, flags duration + interval (0x5000), duration 1 s,
        // interval 160 (100 ms) both, tx power 0; Add Extended Advertising Data: instance 5, the golden beacon.
        // (In parts: Swift 6.0.3, the aarch64 toolchain, cannot type-check the whole `+` chain in time.)
        let paramsHex: String = "540000001200" + "05" + "00500000" + "0100" + "0000" + "a0000000" + "a0000000" + "00"
        let beaconHex: String = "0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5"
        let dataHex: String = "550000002100" + "05" + "1e00" + beaconHex
        let params = try MGMTCommand(packet: #require(Hex.decode(paramsHex)))
        let data = try MGMTCommand(packet: #require(Hex.decode(dataHex)))
        let remove = try MGMTCommand(packet: #require(Hex.decode("3f000000010005")))
        let add: [ScriptedKernel.Step] = [Kernel.step(params, [5, 0, 31, 31]), Kernel.instanceStep(data)]
        let kernel = ScriptedKernel([Kernel.step(.readAdvertisingFeatures(index: 0), [0xFF, 0xFF, 0x01, 0x00, 31, 31, 5, 1, 1])]
            + add + [Kernel.instanceStep(remove)] + add + [Kernel.instanceStep(remove)]
            + [.command(remove, replies: [Kernel.fail(remove, .invalidParameters)])])
        var seen: [String] = []
        // Drained at every wait: a datagram socket queues only a few (net.unix.max_dgram_qlen).
        var datagrams: [String] = []
        kernel.onTimeout = { timeout in
            clock.milliseconds += Int64(max(0, timeout))
            datagrams += listener.drain()
            let text = (try? String(contentsOfFile: metricsPath, encoding: .utf8)) ?? ""
            let up = text.contains("beacon_tx_session_up{device=\"hci0\"} 1"), on = text.contains("beacon_tx_session_on_air{device=\"hci0\"} 1")
            let state = "up=\(up ? 1 : 0) on=\(on ? 1 : 0)"
            if seen.last != state { seen.append(state) }
        }
        let h = FakeHost(devices: [C.device(0)], channels: [0: fake])
        h.control = kernel
        let env = ["NOTIFY_SOCKET": listener.name, "WATCHDOG_USEC": "2000000", "WATCHDOG_PID": "4242"]
        let r = tool(["start"] + goldenFlags + ["--share", "always", "--cycle", "2:2:2", "--metrics", metricsPath], host: h, clock: clock,
                     service: service(env, stateDirectory: dir))
        #expect(r.code == 0, "\(r.err)")
        #expect(kernel.isFullyConsumed, "MGMT left: \(kernel.remaining)")
        #expect(kernel.mismatches.isEmpty, "\(kernel.mismatches)")
        #expect(seen == ["up=1 on=1", "up=1 on=0", "up=1 on=1", "up=1 on=0"], "\(seen)")
        let final = try String(contentsOfFile: metricsPath, encoding: .utf8)
        #expect(final.contains("beacon_tx_session_up{device=\"hci0\"} 0") && final.contains("beacon_tx_session_on_air{device=\"hci0\"} 0"))
        #expect(final.contains("beacon_tx_rearms_total{device=\"hci0\",reason=\"schedule\"} 1"), "\(final)")
        datagrams += listener.drain()
        let beats = datagrams.filter { $0 == "WATCHDOG=1" }.count
        // 8 s of session, a beat a second.
        #expect(beats >= 8, "\(datagrams)")
        #expect(datagrams.contains("STATUS=hci0: cycle: off for 2 s (1 of 2)"), "\(datagrams)")
        #expect(datagrams.contains("STATUS=hci0: cycle: off for 2 s (2 of 2)"), "\(datagrams)")
        #expect(r.err.contains("schedule done: removed our kernel advertising instances 5 on hci0"), "\(r.err)")
    }
}

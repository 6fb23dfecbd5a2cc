// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

/// Issue 10: failures are never silent, every input has one meaning.
@Suite struct HardeningTests {
    // MARK: lost stdout

    static let everyCommandLine: [[String]] = [
        ["--help"], ["--version"], ["help", "start"], ["start", "--help"], ["stop", "--help"], ["devices", "--help"],
        ["scan", "--help"], ["decode", "--help"], ["dump-config", "--help"], ["status", "--help"],
        ["start"] + goldenFlags + ["--dry-run"], ["start"] + goldenFlags + ["--dry-run", "--format", "hex"],
        ["start"] + goldenFlags + ["--dry-run", "--format", "hcitool"], ["start"] + goldenFlags + ["--dry-run", "--format", "btsnoop"],
        ["start"] + goldenFlags + ["--dry-run", "--format", "btsnoop", "--output", "-"],
        ["decode", Golden.advertisingDataHex], ["decode", "01030c00", "--json"], ["dump-config"] + goldenFlags,
    ]

    @Test(arguments: everyCommandLine)
    func lostStdoutExits74WithOneLine(_ args: [String]) {
        let r = tool(args, stdoutFails: "No space left on device")
        #expect(r.code == 74, "\(args): \(r.code) \(r.err)")
        #expect(r.err == "beacon-tx: cannot write to stdout: No space left on device\n", "\(args)")
    }

    @Test func lostStdoutInDevicesAndDecodeStdin() {
        let (h, _) = devicesHost()
        let d = tool(["devices"], host: h, stdoutFails: "Bad file descriptor")
        #expect(d.code == 74 && d.err == "beacon-tx: cannot write to stdout: Bad file descriptor\n", "\(d.err)")
        let s = tool(["decode", "-"], stdin: "01030c00\n01030c00\n", stdoutFails: "Broken pipe")
        #expect(s.code == 74 && s.err == "beacon-tx: cannot write to stdout: Broken pipe\n", "\(s.err)")
        // A command that already failed keeps its own code and line.
        let bad = tool(["decode", "zz"], stdoutFails: "No space left on device")
        #expect(bad.code == 65 && bad.err.split(separator: "\n").count == 1)
    }

    func devicesHost() -> (FakeHost, ScriptedController) {
        let fake = ScriptedController([])
        return (FakeHost(devices: [Controllers.device(0, up: false)], channels: [0: fake]), fake)
    }

    /// The shell command lines of realProcessReportsLostStdout. A static property, not a literal in
    /// `@Test(arguments:)`: Swift 6.0.3 (Debian 13's swiftlang) fails an assertion on a string
    /// interpolation inside the macro's arguments.
    static let realProcessCommandLines: [String] = [
        "--help", "--version", "decode 01030c00", "start --uuid \(Golden.uuidText) --major 1 --minor 2 --dry-run",
        "dump-config --uuid \(Golden.uuidText) --major 1 --minor 2", "start --help",
    ]

    /// The real binary, as a shell runs it: `> /dev/full` and a closed stdout (`>&-`).
    @Test(arguments: realProcessCommandLines)
    func realProcessReportsLostStdout(_ args: String) throws {
        for redirect in [">/dev/full", ">&-"] {
            let r = try shell("exec \"$BIN\" \(args) \(redirect)")
            #expect(r.code == 74, "\(args) \(redirect): \(r.code) \(r.err)")
            #expect(r.err.hasPrefix("beacon-tx: cannot write to stdout: "), "\(args) \(redirect): \(r.err)")
            #expect(r.err.split(separator: "\n").count == 1, "\(r.err)")
        }
    }

    /// A scan whose stdout is lost stops scanning (the stop commands are still sent) and exits 74;
    /// text timestamps end in Z (UTC).
    @Test func scanTimestampsSayUTCAndLostStdoutStopsTheScan() throws {
        let beacon = try #require(Golden.beacon)
        let p = try ScanPlan(family: .extended, options: ScanOptions())
        func conversation() -> ScriptedController {
            ScriptedController(Controllers.probe(extended: true) + Controllers.okSteps(p.start) + [
                .receive(.event(ScanTests.legacyReport(beacon.advertisingData, rssi: -65).packet)),
                .receive(.signal(2)),
            ] + Controllers.okSteps(p.stop))
        }
        let ok = conversation()
        let r = tool(["scan"], host: FakeHost(devices: [Controllers.device(0)], channels: [0: ok]))
        #expect(r.code == 0 && ok.isFullyConsumed, "\(r.err)")
        // 1_800_000_000 s since the epoch is 2027-01-15 08:00:00 UTC.
        #expect(r.out.hasPrefix("08:00:00Z range \(Golden.uuidText) major 1 minor 2"), "\(r.out)")
        let lost = ScriptedController(Controllers.probe(extended: true) + Controllers.okSteps(p.start) + [
            .receive(.event(ScanTests.legacyReport(beacon.advertisingData, rssi: -65).packet)),
        ] + Controllers.okSteps(p.stop))
        let l = tool(["scan"], host: FakeHost(devices: [Controllers.device(0)], channels: [0: lost]), stdoutFails: "Broken pipe")
        #expect(l.code == 74, "\(l.err)")
        #expect(lost.isFullyConsumed, "left: \(lost.remaining)")
        #expect(l.err.hasSuffix("beacon-tx: cannot write to stdout: Broken pipe\n") && !l.err.contains("scanning stopped"), "\(l.err)")
    }

    // MARK: devices without privileges

    @Test func devicesWithoutCapNetRawListsWhatTheKernelTellsAnyone() throws {
        let fake = ScriptedController([.commandFails(.readLocalVersionInformation, .permissionDenied(call: "write", device: "hci0"))])
        let h = FakeHost(devices: [Controllers.device(0), Controllers.device(1, up: false)], channels: [0: fake])
        let r = tool(["devices"], host: h)
        #expect(r.code == 0, "\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(r.out == """
            hci0  00:AA:01:00:00:00  up  Virtual  (HCI version, LE and advertising support need CAP_NET_RAW (they are read from the controller))
            hci1  00:AA:01:00:00:01  down  Virtual  (\(CLIError.downDeviceProblem("hci1")))

            """)
        #expect(r.err == "beacon-tx: without CAP_NET_RAW only name, address, bus and up/down are shown; run as root (sudo), or as the beacon-tx service, whose unit grants CAP_NET_RAW and CAP_NET_ADMIN\n")
        let again = ScriptedController([.commandFails(.readLocalVersionInformation, .permissionDenied(call: "write", device: "hci0"))])
        let j = tool(["devices", "--json"], host: FakeHost(devices: [Controllers.device(0)], channels: [0: again]))
        #expect(j.code == 0)
        #expect(try JSON.parse(j.out) == .array([.object([
            ("name", .string("hci0")), ("address", .string("00:AA:01:00:00:00")), ("publicAddress", .bool(true)), ("up", .bool(true)),
            ("bus", .string("Virtual")), ("rfkill", .null), ("error", .string(DevicesCommand.privilegeProblem)),
            ("needCapNetRaw", .array(DevicesCommand.controllerFields.map(JSON.string))),
        ])]))
    }

    // MARK: files that are not regular

    @Test func configAndOutputRefuseNonRegularFilesAtOnce() throws {
        let dir = NSTemporaryDirectory() + "beacon-tx-fifo-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        for (path, kind) in [(fifo, "a FIFO"), ("/dev/null", "a character device"), (dir, "a directory")] {
            let c = tool(["start", "--config", path, "--dry-run"])
            #expect(c.code == 66, "\(path): \(c.err)")
            #expect(c.err == "beacon-tx start: config \(path): is \(kind), not a regular file (use - for stdin/stdout)\n")
            let o = tool(["start"] + goldenFlags + ["--dry-run", "--output", path])
            #expect(o.code == 73, "\(path): \(o.err)")
            #expect(o.err == "beacon-tx start: --output \(path): is \(kind), not a regular file (use - for stdin/stdout)\n")
            let s = tool(["stop", "--config", path])
            #expect(s.code == 66, "\(s.err)")
        }
        // `-` and /dev/stdout are stdout.
        let plain = tool(["start"] + goldenFlags + ["--dry-run", "--format", "hex"])
        for dash in ["-", "/dev/stdout"] {
            let r = tool(["start"] + goldenFlags + ["--dry-run", "--format", "hex", "--output", dash])
            #expect(r.code == 0 && r.out == plain.out && r.err == "", "\(dash): \(r.err)")
        }
    }

    @Test func configFromStdinInTheRealProcess() throws {
        let r = try shell("printf '{\"beacons\": [{\"uuid\": \"\(Golden.uuidText)\", \"major\": 1, \"minor\": 2}]}' | \"$BIN\" start --config - --dry-run --format hex")
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out == tool(["start"] + goldenFlags + ["--dry-run", "--format", "hex"]).out)
    }

    // MARK: raw argv

    @Test func pathsReachOpenByteForByte() throws {
        let dir = NSTemporaryDirectory()
        let name: [UInt8] = Array(dir.utf8) + Array("beacon-tx-\(UUID().uuidString)-".utf8) + [0xFF, 0xC3, 0x28] + Array(".json".utf8)
        let config = Array("{\"beacons\": [{\"uuid\": \"\(Golden.uuidText)\", \"major\": 1, \"minor\": 2}]}".utf8)
        let fd = (name + [0]).withUnsafeBufferPointer { b in
            b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) { open($0, O_WRONLY | O_CREAT | O_EXCL, 0o600) }
        }
        #expect(fd >= 0)
        _ = config.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        defer { _ = (name + [0]).withUnsafeBufferPointer { b in b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) { unlink($0) } } }
        let r = tool(raw: [Array("start".utf8), Array("--config".utf8), name, Array("--dry-run".utf8), Array("--format".utf8), Array("hex".utf8)])
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out == tool(["start"] + goldenFlags + ["--dry-run", "--format", "hex"]).out)
        // The "repaired" name (U+FFFD for the bad bytes) is another file: it must not be found by accident.
        let repaired = tool(["start", "--config", String(decoding: name, as: UTF8.self), "--dry-run"])
        #expect(repaired.code == 66)
        // A missing non-UTF-8 name is shown escaped.
        var missing = name
        missing.removeLast(5)
        let m = tool(raw: [Array("start".utf8), Array("--config".utf8), missing, Array("--dry-run".utf8)])
        #expect(m.code == 66)
        #expect(m.err.contains("-\\xff\\xc3(: no such file"), "\(m.err)")
    }

    @Test func nonPathArgumentsMustBeUTF8() {
        let r = tool(raw: [Array("start".utf8), Array("--identifier".utf8), [0x6B, 0xFF]] + goldenFlags.map { Array($0.utf8) } + [Array("--dry-run".utf8)])
        #expect(r.code == 64)
        #expect(r.err == "beacon-tx start: --identifier: 'k\\xff' is not valid UTF-8\n")
        let d = tool(raw: [Array("decode".utf8), [0x30, 0x31, 0xC0]])
        #expect(d.code == 64 && d.err == "beacon-tx decode: argument: '01\\xc0' is not valid UTF-8\n", "\(d.err)")
        let o = tool(raw: [Array("start".utf8), [0x2D, 0x2D, 0xFF]])
        #expect(o.code == 64 && o.err.contains("unknown option --\\xff"), "\(o.err)")
    }

    // MARK: values, bounded quotes

    @Test func identifierCannotInjectLines() throws {
        for bad in ["kiosk\nstart:", "a\u{1B}[31mred", "left\u{202E}right", "tab\there", "nul\u{0}"] {
            let r = tool(["start"] + goldenFlags + ["--identifier", bad, "--dry-run"])
            #expect(r.code == 64, "\(r.err)")
            #expect(r.out.isEmpty)
            #expect(r.err.split(separator: "\n").count == 1 && !r.err.contains("\u{1B}") && !r.err.contains("\u{202E}"), "\(r.err)")
            #expect(r.err.contains("--identifier") && r.err.contains("unprintable character U+"), "\(r.err)")
        }
        let path = temp(#"{"beacons": [{"identifier": "a\nb", "uuid": "\#(Golden.uuidText)", "major": 1, "minor": 2}]}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let c = tool(["start", "--config", path, "--dry-run"])
        #expect(c.code == 65)
        #expect(c.err == "beacon-tx start: config \(path): beacons[0].identifier: 'a\\nb' contains the unprintable character U+000A (accepted: printable text)\n")
        // Printable Unicode is fine, and shown as is.
        let ok = tool(["start"] + goldenFlags + ["--identifier", "Café 👨‍👩‍👧", "--dry-run"])
        #expect(ok.code == 0 && ok.out.contains("beacon:   Café 👨‍👩‍👧 E2C56DB5"), "\(ok.err)")
    }

    @Test func errorLinesQuoteABoundedEscapedPrefix() {
        let huge = String(repeating: "x", count: 100_000)
        for args in [["start", "--uuid", huge], ["decode", huge], ["start", "--uuid", Golden.uuidText, "--minor", "1", "--major", huge], [huge],
                     ["start"] + goldenFlags + ["--controller", huge], ["start"] + goldenFlags + ["--device", huge]] {
            let r = tool(args)
            #expect(r.code == 64 || r.code == 65)
            #expect(r.err.utf8.count < 400, "\(r.err.utf8.count) bytes")
            #expect(r.err.contains(String(repeating: "x", count: Quote.limit) + "…'"), "\(r.err.prefix(200))")
        }
        let esc = tool(["decode", "01\u{1B}]0;pwned\u{07}"])
        #expect(esc.err == "beacon-tx decode: HEX: '01\\u{1b}]0;pwned\\u{7}' is not hex (\(DecodeCommand.hexHelp))\n")
        let key = temp("{\"dev\\u001bice\": 1}")
        defer { try? FileManager.default.removeItem(atPath: key) }
        #expect(tool(["start", "--config", key, "--dry-run"]).err.contains("unknown key \"dev\\u{1b}ice\""))
    }

    @Test func quoteEscapesEveryUnprintable() {
        #expect(Quote.user("a\r\n\t\\b") == #"'a\r\n\t\\b'"#)
        #expect(Quote.escaped("\u{7F}\u{85}\u{2028}\u{2066}\u{FEFF}") == #"\u{7f}\u{85}\u{2028}\u{2066}\u{feff}"#)
        #expect(Quote.bytes([0x41, 0xE2, 0x82, 0xAC, 0xE2, 0x82, 0x41, 0xED, 0xA0, 0x80]) == #"A€\xe2\x82A\xed\xa0\x80"#)
        #expect(Quote.bytes([0xC0, 0xAF, 0xF5, 0x80]) == #"\xc0\xaf\xf5\x80"#)   // overlong and out-of-range leads
        #expect(Quote.escaped("abcdef", limit: 3) == "abc…")
        // The bound counts escapes: 80 control characters are not 480 bytes of message.
        #expect(Quote.escaped(String(repeating: "\u{1C}", count: 100)) == String(repeating: "\\u{1c}", count: 13) + "…")
        #expect(Quote.bytes([UInt8](repeating: 0xFF, count: 100)) == String(repeating: "\\xff", count: 20) + "…")
        // Found by fuzz-argv: a --region of control characters made a 1326-byte error line.
        let region = tool(["scan", "--region", "E2C56DB5" + String(repeating: "\u{1C}", count: 300) + ":1:2"])
        #expect(region.code == 64 && region.err.utf8.count < 300, "\(region.err.utf8.count): \(region.err)")
        #expect(Quote.sanitized("ok \\n \u{1B}") == "ok \\n \\u{1b}")
        #expect(JSON.string("a\u{202E}b\u{7F}\n").compact == #""a\u202eb\u007f\n""#)
    }

    // MARK: messages

    @Test func oneUUIDMessageEverywhere() {
        let accepted = "is not a UUID (accepted: \(ProximityUUID.acceptedForms))"
        let flag = tool(["start", "--uuid", "E2C56DB5DFFB-48D2-B060-D0F5A71096E0", "--major", "1", "--minor", "2", "--dry-run"])
        #expect(flag.err == "beacon-tx start: --uuid: 'E2C56DB5DFFB-48D2-B060-D0F5A71096E0' \(accepted)\n")
        let region = tool(["scan", "--region", "E2C56DB5DFFB-48D2-B060-D0F5A71096E0:1"])
        #expect(region.err == "beacon-tx scan: --region: 'E2C56DB5DFFB-48D2-B060-D0F5A71096E0' \(accepted)\n")
        let path = temp(#"{"beacons": [{"uuid": "E2C56DB5DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2}]}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let config = tool(["start", "--config", path, "--dry-run"])
        #expect(config.err == "beacon-tx start: config \(path): beacons[0].uuid: 'E2C56DB5DFFB-48D2-B060-D0F5A71096E0' \(accepted)\n")
    }

    @Test(arguments: [
        ("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", true), ("e2c56db5dffb48d2b060d0f5a71096e0", true),
        ("E2C56DB5DFFB48D2B060D0F5A71096E0", true), ("E2C56DB5-DFFB48D2B060D0F5A71096E0", false),
        ("E2C56DB5-DFFB-48D2-B060D0F5A71096E0", false), ("E2C56DB5DFFB-48D2-B060-D0F5A71096E0", false),
        ("E2C5-6DB5DFFB-48D2-B060-D0F5A71096E0", false), ("E2C56DB5--DFFB-48D2-B060-D0F5A71096E", false),
        ("{E2C56DB5-DFFB-48D2-B060-D0F5A71096E0}", false), ("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-", false),
    ])
    func uuidTakesAllFourDashesOrNone(_ text: String, _ ok: Bool) {
        #expect((ProximityUUID(text) != nil) == ok, "\(text)")
    }

    @Test func verboseIsLiveOnly() {
        let r = tool(["start"] + goldenFlags + ["--dry-run", "--verbose"])
        #expect(r.code == 64 && r.err == "beacon-tx start: --verbose does nothing with --dry-run\n" && r.out.isEmpty, "\(r.err)")
    }

    // MARK: hex

    @Test(arguments: ["0201061aff4c00", "02 01 06 1a ff 4c 00", "02:01:06:1a:ff:4c:00", "02\t01\t06\t1a\tff\t4c\t00",
                      "0201\n061a\nff4c00", "0201\r\n061a\r\nff4c00\r\n", "0x0201061aff4c00", "02-01-06-1a-ff-4c-00", "  02 01 06 1A FF 4C 00\n"])
    func hexSeparators(_ text: String) {
        #expect(Hex.decode(text) == [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00], "\(text.debugDescription)")
    }

    @Test(arguments: ["02\r01", "0 201", "02 0", "02;01", "0x", "02 0x01", "٠١", "02\u{A0}01", "02\r\r\n01"])
    func hexRejects(_ text: String) {
        #expect(Hex.decode(text) == nil || Hex.decode(text) == [], "\(text.debugDescription)")
    }

    // MARK: decode

    @Test func autoNeverTurnsABrokenH4PacketIntoAdvertisingData() {
        let cmd = tool(["decode", "01030c01"])
        #expect(cmd.code == 65)
        #expect(cmd.err == "beacon-tx decode: HEX: starts like an H4 command packet (01) but is not one: length mismatch: header says 1 parameter byte(s), packet has 0; for advertising data use --as ad\n")
        let evt = tool(["decode", "040e0501"])
        #expect(evt.code == 65)
        #expect(evt.err == "beacon-tx decode: HEX: starts like an H4 event packet (04) but is not one: length mismatch: header says 5 parameter byte(s), packet has 1; for advertising data use --as ad\n")
        #expect(tool(["decode", "01"]).code == 65)
        #expect(tool(["decode", "04"]).code == 65)
        // Explicit --as ad still reads such bytes as advertising data.
        let ad = tool(["decode", "04094142 43", "--as", "ad"])
        #expect(ad.code == 0 && ad.out == "Complete Local Name (0x09): 414243\n", "\(ad.out) \(ad.err)")
    }

    @Test func zeroLengthIsPaddingOnly() {
        let padded = tool(["decode", Golden.advertisingDataHex + "00"])
        #expect(padded.code == 0 && padded.out == tool(["decode", Golden.advertisingDataHex]).out)
        let junk = tool(["decode", "0201060005ff"])
        #expect(junk.code == 65)
        #expect(junk.err == "beacon-tx decode: HEX: not advertising data, an H4 command (01...) or an H4 event (04...): a zero length at offset 3 ends the significant data, but offset 4 holds 0x05 (padding must be zero)\n")
    }

    @Test func theDryRunsSetAdvertisingDataParameterDecodesToItsIBeacon() throws {
        let dry = tool(["start"] + goldenFlags + ["--dry-run", "--format", "hcitool", "--controller", "legacy"])
        let line = try #require(dry.out.split(separator: "\n").first { $0.contains("cmd 0x08 0x0008 ") })
        let parameter = String(line.split(separator: " ", maxSplits: 6)[6])
        #expect(parameter.hasPrefix("1e 02 01 06 1a ff 4c 00"))
        let r = tool(["decode", parameter])
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out == """
            LE Set Advertising Data parameter: Advertising_Data_Length 30, then 30 of 31 bytes
              Flags: 0x06
                LE General Discoverable Mode
                BR/EDR Not Supported
              Company: Apple, Inc. (76)
                Type: iBeacon (2)
                UUID: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0
                Major: 1
                Minor: 2
                Measured power: -59 dBm

            """)
        let j = tool(["decode", parameter, "--json"])
        #expect(j.out.contains("\"kind\": \"advertisingDataParameter\"") && j.out.contains("\"major\": 1"), "\(j.out)")
    }

    @Test func decodeStdinOnePacketPerLine() throws {
        let dry = tool(["start"] + goldenFlags + ["--dry-run", "--format", "hex", "--controller", "legacy"])
        let r = tool(["decode", "-"], stdin: dry.out)
        #expect(r.code == 0, "\(r.err)")
        let packets = dry.out.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(r.out == packets.map { tool(["decode", String($0)]).out }.joined(separator: "\n"))
        let j = tool(["decode", "-", "--json"], stdin: "01030c00\r\n\n# comment\n040e0401030c00\n")
        #expect(j.code == 0)
        func compact(_ pretty: String) throws -> String { try JSON.parse(pretty).compact }
        let want = try compact(tool(["decode", "01030c00", "--json"]).out) + "\n" + compact(tool(["decode", "040e0401030c00", "--json"]).out) + "\n"
        #expect(j.out == want)
        let bad = tool(["decode", "-"], stdin: "01030c00\nzz\n01030c01\n")
        #expect(bad.code == 65)
        #expect(bad.err == """
            beacon-tx decode: line 2: HEX: 'zz' is not hex (\(DecodeCommand.hexHelp))
            beacon-tx decode: line 3: HEX: starts like an H4 command packet (01) but is not one: length mismatch: header says 1 parameter byte(s), packet has 0; for advertising data use --as ad

            """)
        #expect(bad.out == tool(["decode", "01030c00"]).out)
        #expect(tool(["decode", "-", "01"]).code == 64)
    }

    // MARK: JSON (RFC 8259 plus comments, trailing commas, one BOM)

    static let badJSON: [(String, String)] = [
        ("01", "invalid number '01': no leading zeros"),
        ("-01", "invalid number '-01': no leading zeros"),
        ("1.", "invalid number '1.': digits must follow '.'"),
        ("-.5", "invalid number '-.5': digits must come before any '.'"),
        (".5", "unexpected character '.'"),
        ("+1", "unexpected character '+'"),
        ("-", "invalid number '-': digits must come before any '.'"),
        ("1e", "invalid number '1e': digits must follow the exponent"),
        ("1e+", "invalid number '1e+': digits must follow the exponent"),
        ("1.5.2", "invalid number '1.5.2': unexpected '.'"),
        ("1-2", "invalid number '1-2': unexpected '-'"),
        ("1e400", "number '1e400' is out of range"),
        ("-2e308", "number '-2e308' is out of range"),
        (#""\u12""#, "invalid \\u escape (accepted: \\u and exactly four hex digits)"),
        (#""\u+123""#, "invalid \\u escape"),
        (#""\u-123""#, "invalid \\u escape"),
        (#""\u 123""#, "invalid \\u escape"),
        (#""\uDE00""#, "unpaired low surrogate \\uDE00"),
        (#""\uD83D\n""#, "unpaired high surrogate \\uD83D"),
        (#""\uD83D\uD83D""#, "unpaired high surrogate \\uD83D"),
        (#""\x41""#, "invalid escape '\\\\x'"),
        ("\"a\u{1}b\"", "control character 0x01 in string"),
        ("\"\u{FEFF}\u{FEFF}\"", ""),   // BOM characters inside a string are text (valid)
        ("\u{FEFF}\u{FEFF}{}", "unexpected character '\\u{feff}'"),
        ("nul", "invalid literal"),
        ("True", "unexpected character 'T'"),
        ("{\"a\": 1, \"a\": 2}", "duplicate key \"a\""),
        ("{\"a\\u0000\": 1, \"a\\u0000\": 2}", "duplicate key \"a\\u{0}\""),
        ("[1 2]", "expected ',' or ']'"),
        ("{\"a\" 1}", "expected ':' after key \"a\""),
        ("{,}", "expected a quoted key"),
        ("[,]", "unexpected character ','"),
        (String(repeating: "[", count: 100), "nested too deeply"),
        ("\"abc", "unterminated string"),
        ("'a'", "unexpected character '''"),
        ("NaN", "unexpected character 'N'"),
        ("Infinity", "unexpected character 'I'"),
    ]

    @Test func strictJSONGrammar() {
        for (text, message) in Self.badJSON {
            do {
                let v = try JSON.parse(text)
                #expect(message.isEmpty, "\(text.debugDescription) parsed as \(v)")
            } catch {
                #expect(!message.isEmpty && error.message.hasPrefix(message), "\(text.debugDescription): \(error.message)")
            }
        }
        #expect(throws: JSONParseError(message: "invalid UTF-8 byte 0xff in string", line: 1, column: 3)) { try JSON.parse(bytes: [0x22, 0x61, 0xFF, 0x22]) }
        #expect(throws: JSONParseError(message: "unexpected byte 0xc0 (not UTF-8)", line: 1, column: 1)) { try JSON.parse(bytes: [0xC0, 0x80]) }
    }

    @Test(arguments: [("0", 0.0), ("-0", -0.0), ("10", 10), ("1.5", 1.5), ("-1.25e2", -125), ("1E+2", 100), ("2e-2", 0.02),
                      ("1.7976931348623157e308", 1.7976931348623157e308), ("1e-400", 0)])
    func rfcNumbers(_ text: String, _ value: Double) throws {
        #expect(try JSON.parse(text) == .number(value))
    }

    @Test func numberOutOfRangeNamesTheUsersText() {
        let path = temp(#"{"beacons": [{"uuid": "\#(Golden.uuidText)", "major": 1e999, "minor": 2}]}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = tool(["start", "--config", path, "--dry-run"])
        #expect(r.code == 65)
        #expect(r.err == "beacon-tx start: config \(path): line 1, column 72: number '1e999' is out of range (a double holds at most ±1.7976931348623157e308)\n")
    }

    @Test func escapesAndSurrogatesRoundTrip() throws {
        #expect(try JSON.parse(#""\uD83D\uDE00\u00E9\/\b\f\n\r\t\"\\""#) == .string("😀é/\u{8}\u{C}\n\r\t\"\\"))
        #expect(try JSON.parse(#""\uD83D\uDE00\u0041""#) == .string("😀A"))   // the pair does not swallow the next escape
        for s in ["", "plain", "😀 é \u{1} \u{7F} \u{2028}", "\"\\/"] {
            #expect(try JSON.parse(JSON.string(s).compact) == .string(s))
        }
    }

    @Test func manyKeysAndDuplicatesAtTheEnd() throws {
        let n = 50_000
        let keys = (0..<n).map { "\"k\($0)\": \($0)" }
        let json = try JSON.parse("{" + keys.joined(separator: ",") + "}")
        guard case let .object(pairs) = json else { Issue.record("not an object"); return }
        #expect(pairs.count == n && pairs.last?.0 == "k\(n - 1)")
        #expect(throws: JSONParseError.self) { try JSON.parse("{" + keys.joined(separator: ",") + ", \"k0\": 1}") }
    }
}

/// Runs `/bin/sh -c script` with `$BIN` set to the built beacon-tx: `.build/debug/beacon-tx`, or
/// the executable BEACON_TX_TEST_BIN names (the aarch64 tests under qemu-user: scripts/test-arm64).
func shell(_ script: String) throws -> (code: Int32, out: String, err: String) {
    let bin = ProcessInfo.processInfo.environment["BEACON_TX_TEST_BIN"] ?? repoPath(".build/debug/beacon-tx")
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", script]
    p.environment = ["BIN": bin, "PATH": "/usr/bin:/bin", "SWIFT_BACKTRACE": "enable=no"]
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
}

func temp(_ text: String) -> String {
    let path = NSTemporaryDirectory() + "beacon-tx-hardening-\(UUID().uuidString).json"
    _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    return path
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// `beacon-tx verify CAPTURE`: checks a btsnoop capture (`btmon -w`, Wireshark, or a dry run's)
/// against what the config (or the same flags as `start`) should have put on air; see
/// `CaptureVerifier` for the rules. Exit 0 pass, 1 fail (the first failing field on stderr too).
enum VerifyCommand: Subcommand {
    static let name = "verify"
    static let summary = "check a btsnoop capture (btmon -w) against the config: data, parameters, answers, on air at the end (exit 0 pass, 1 fail)"
    static let usage = "beacon-tx verify CAPTURE (--config FILE | --uuid UUID --major N --minor N | --beacon/--altbeacon/--eddystone-uid/--eddystone-url/--data ...) [--device hciN] [--json]"
    /// The flags that describe what should be on air (as `start` takes them); run-time ones are left out.
    static let startFlags: [String] = ["--uuid", "--major", "--minor", "--power", "--identifier", "--config", "--eddystone-tlm"] + StartCommand.beaconListFlags
        + [Setting.device, .interval, .connectable, .txPower, .controller, .advertisingSet, .randomAddressPerSet, .rotation].flatMap(\.options).map(\.name)
    static let options: [OptionSpec] = StartCommand.options.filter { startFlags.contains($0.name) }.map { o in
        switch o.name {
        case "--device": return .value("--device", "hciN", "the controller to check in a btmon capture (default: the config's device, else hci0)")
        case "--config": return .path("--config", "FILE", "the JSON config start ran with (- reads stdin); flags override its values")
        default: return o
        }
    } + [
        .flag("--json", "print the report as JSON"),
    ]
    static let examples = [
        "btmon -w kiosk.snoop & beacon-tx start --config kiosk.json --duration 5; kill %1; beacon-tx verify kiosk.snoop --config kiosk.json",
        "beacon-tx verify /var/log/kiosk.snoop --config /etc/beacon-tx/kiosk.json --device hci1 --json",
        "beacon-tx start --config Config/kiosk.json --dry-run --format btsnoop --output plan.snoop && beacon-tx verify plan.snoop --config Config/kiosk.json",
    ]
    static let takesPositionals = true

    static func run(_ a: ParsedArguments, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        guard let path = a.positionals.first else { throw .usage("missing CAPTURE (a btsnoop file, e.g. from btmon -w); see beacon-tx verify --help") }
        guard a.positionals.count == 1 else { throw .usage("one CAPTURE only, got \(a.positionals.count) arguments") }
        let s = try StartCommand.settings(from: a, ctx)
        guard !s.beacons.isEmpty else {
            throw .usage("no beacon to look for: give --config FILE, --beacon UUID:MAJOR:MINOR, or --uuid, --major and --minor")
        }
        // Not through a symbolic link: the report shows what it decodes, and root verifies other
        // users' captures (see FileIO).
        let bytes = try FileIO.read(path, what: "CAPTURE", maximumSize: FileIO.maximumCaptureSize, links: .refuse)
        let capture: CaptureFile
        do { capture = try CaptureFile.read(bytes, .dropWithWarning) } catch { throw .data("CAPTURE \(path): \(error)") }
        // A capture names controllers by index only.
        guard let index = s.device.map({ $0.index }) ?? 0 else {
            throw .usage("--device \(s.deviceName ?? ""): a capture names its controller by index (hciN), not by address; give --device hciN")
        }
        let report = CaptureVerifier.verify(capture, expected: s.kiosk, controllerIndex: index)
        if a.has("--json") {
            ctx.stdout(VerifyReport.json(report, file: path).pretty)
        } else {
            VerifyReport.text(report, file: path).forEach(ctx.stdout)
        }
        if report.beacons.contains(where: { $0.found == nil }) {
            ctx.note("the capture holds no advertising data command for \(report.controller): start btmon -w before beacon-tx start (a capture begun later sees no configuration), and check --device")
        }
        if let failure = VerifyReport.firstFailureText(report), !report.passed {
            ctx.log(.error, "beacon-tx verify: FAIL: \(Quote.sanitized(failure))")
            return .differs
        }
        return .success
    }
}

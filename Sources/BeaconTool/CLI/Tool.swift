// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import BeaconKit

/// What a command run can touch: output sinks, the HCI host and clocks. `main.swift` passes the
/// real ones; tests pass captures and a scripted controller.
public struct ToolContext {
    public var stdout: (String) -> Void
    public var stderr: (String) -> Void
    /// Raw bytes to stdout (btsnoop without --output).
    public var stdoutBytes: ([UInt8]) -> Void
    public var stdoutIsTerminal: Bool
    public var makeHost: () throws(TransportError) -> HCIHost
    /// Milliseconds on a monotonic clock.
    public var monotonicMilliseconds: () -> Int64
    /// Seconds since the Unix epoch (scan timestamps).
    public var wallClockSeconds: () -> Double
    /// systemd integration: sd_notify, journal priorities, state files (all off by default).
    public var service: ServiceContext
    /// The first failed write to stdout (e.g. "No space left on device"), or nil while all writes
    /// succeeded. A command whose output was lost exits 74 instead of 0.
    public var stdoutError: () -> String?
    /// The next line of stdin without its line end (`decode -`), or nil at the end.
    public var readStdinLine: () throws(CLIError) -> [UInt8]?
    /// Files, rfkill switches, the uid and `systemctl` (`doctor`, `status`); `.none` answers nothing.
    var system: SystemProbe = .none

    public init(stdout: @escaping (String) -> Void, stderr: @escaping (String) -> Void,
                stdoutBytes: @escaping ([UInt8]) -> Void, stdoutIsTerminal: Bool,
                makeHost: @escaping () throws(TransportError) -> HCIHost,
                monotonicMilliseconds: @escaping () -> Int64, wallClockSeconds: @escaping () -> Double,
                service: ServiceContext = .none,
                stdoutError: @escaping () -> String? = { nil },
                readStdinLine: @escaping () throws(CLIError) -> [UInt8]? = { nil }) {
        self.stdoutError = stdoutError
        self.readStdinLine = readStdinLine
        self.stdout = stdout
        self.stderr = stderr
        self.stdoutBytes = stdoutBytes
        self.stdoutIsTerminal = stdoutIsTerminal
        self.makeHost = makeHost
        self.monotonicMilliseconds = monotonicMilliseconds
        self.wallClockSeconds = wallClockSeconds
        self.service = service
    }

    /// Every stderr line goes through here: with the journal as stderr, each line gets its
    /// syslog priority as a `<N>` prefix; otherwise the line is written unchanged.
    func log(_ priority: LogPriority, _ text: String) {
        stderr(service.stderrIsJournal ? Journal.prefixed(text, priority) : text)
    }

    /// An informational line (`<6>`).
    func note(_ line: String) { log(.info, "beacon-tx: " + line) }

    /// Something the user should look at, though the command goes on (`<4>`).
    func warn(_ line: String) { log(.warning, "beacon-tx: " + line) }
}

/// How the process is supervised: all of it from the environment in `ToolContext.system`;
/// `.none` (tests, the default) sends nothing, prefixes nothing and keeps no state files.
public struct ServiceContext {
    public var notifier: ServiceNotifier
    /// stderr is the journal (`$JOURNAL_STREAM` matches it): lines get `<N>` priority prefixes.
    public var stderrIsJournal: Bool
    /// Where state files are written (the first usable) and read (all); see `StateStore`.
    public var stateDirectories: [String]
    /// This process, as written into state files.
    public var pid: Int32
    /// Whether the process of a state file still runs (stale files are reported as not on air).
    public var isProcessAlive: (Int32) -> Bool
    /// Claims a device's owner lock (`DeviceLock`). `.none` (the unit tests) claims without a lock:
    /// tests run in parallel, and a real lock would make them fight over "hci0".
    var claimDevice: (String) -> DeviceLock.Claim = { _ in .claimed(nil) }
    /// Who holds a device's lock, as the kernel names it (`DeviceLock.holder`); `.none`: nobody.
    var lockHolder: (String) -> DeviceLock.Holder = { _ in .free }
    /// Signals the holder of a device's lock (pid, device, signal), only when it is that holder and
    /// runs beacon-tx (`DeviceLock.signalHolder`); `.none` signals nothing.
    var signalHolder: (Int32, String, Int32) -> DeviceLock.SignalOutcome = { _, _, _ in .gone }
    /// Sleeps between two looks at a lock (`stop` waiting for a session to finish); the tests do not sleep.
    var pause: (Int) -> Void = { _ in }
    /// Installs the seccomp filter that confines ioctl(2) to beacon-tx's own requests
    /// (`IoctlConfinement`), for the rest of the process. `.none` (the unit tests) installs nothing and
    /// answers nil: a filter would hold the whole test runner.
    var confineIoctls: () -> IoctlConfinement? = { nil }

    /// Run by systemd (stderr is the journal, or there is a notify socket): no terminal hints.
    var isSupervised: Bool { stderrIsJournal || notifier.isEnabled }

    public init(notifier: ServiceNotifier, stderrIsJournal: Bool, stateDirectories: [String], pid: Int32,
                isProcessAlive: @escaping (Int32) -> Bool) {
        self.notifier = notifier
        self.stderrIsJournal = stderrIsJournal
        self.stateDirectories = stateDirectories
        self.pid = pid
        self.isProcessAlive = isProcessAlive
    }

    public static var none: ServiceContext {
        ServiceContext(notifier: .disabled, stderrIsJournal: false, stateDirectories: [], pid: 0, isProcessAlive: { _ in false })
    }

    var stateStore: StateStore { StateStore(candidates: stateDirectories) }
}

/// A subcommand: parse → validate → run.
protocol Subcommand {
    static var name: String { get }
    static var summary: String { get }
    static var usage: String { get }
    static var options: [OptionSpec] { get }
    static var examples: [String] { get }
    /// Whether the command takes positional arguments (`decode`, `completions`).
    static var takesPositionals: Bool { get }
    /// The accepted positional arguments when they are a fixed list (for the shell completions).
    static var argumentChoices: [String] { get }
    static func run(_ args: ParsedArguments, _ ctx: ToolContext) throws(CLIError) -> ExitCode
}

extension Subcommand {
    static var takesPositionals: Bool { false }
    static var argumentChoices: [String] { [] }

    static var help: String {
        var lines = ["\(summary)", "", "usage: \(usage)", "", "options:"]
        let width = (options.map { $0.name.count + ($0.value.map { $0.count + 1 } ?? 0) }.max() ?? 0) + 2
        for o in options + [.flag("--help", "show this help")] {
            let left = o.name + (o.value.map { " " + $0 } ?? "")
            lines.append("  " + left + String(repeating: " ", count: max(1, width - left.count)) + o.help)
        }
        if !examples.isEmpty { lines += ["", "examples:"] + examples.map { "  " + $0 } }
        return lines.joined(separator: "\n")
    }
}

/// The `beacon-tx` root dispatcher.
public enum BeaconTX {
    /// The one place the version is set (semantic versioning: CHANGELOG.md); scripts/make-deb and
    /// the release scripts read it from this line.
    public static let version = "0.3.0"

    static var subcommands: [any Subcommand.Type] {
        [StartCommand.self, StopCommand.self, StatusCommand.self, DevicesCommand.self, DoctorCommand.self, ScanCommand.self, DecodeCommand.self,
         VerifyCommand.self, DumpConfigCommand.self, CompletionsCommand.self, ManCommand.self]
    }

    static let summary = "turns a Linux machine into an iBeacon base station over raw BlueZ HCI sockets."

    static let examples = [
        "beacon-tx start --uuid E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 --major 1 --minor 2 --dry-run",
        "sudo beacon-tx start --config /etc/beacon-tx/kiosk.json",
        "beacon-tx devices --json",
        "beacon-tx status --device hci0",
        "beacon-tx doctor   # why is nothing on air? one finding per line, with the remedy",
        "beacon-tx scan --region E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 --json",
    ]

    static let exitCodes: [(code: ExitCode, meaning: String)] = [
        (.success, "ok"), (.differs, "differs (start --check, verify) or a check failed (doctor)"), (.nothingOnAir, "nothing on air (status)"), (.usage, "usage"), (.dataError, "bad data"),
        (.noInput, "missing file"), (.unavailable, "unavailable"), (.software, "internal"),
        (.cantCreate, "cannot create output"), (.ioError, "cannot write output (stdout or --output)"),
        (.tempFail, "device in use by another beacon-tx session (start)"), (.noPermission, "permission"),
        (.config, "a configuration this controller cannot carry out"),
    ]

    static var help: String {
        var lines = [
            "beacon-tx \(version): \(summary)",
            "",
            "usage: beacon-tx <command> [options]",
            "",
            "commands:",
        ]
        for c in subcommands { lines.append("  " + c.name + String(repeating: " ", count: max(1, 13 - c.name.count)) + c.summary) }
        lines += [
            "",
            "Run 'beacon-tx <command> --help' for the options of one command;",
            "'beacon-tx --version' prints the version and the commit built from (--json: as JSON).",
            "",
            "examples:",
        ]
        lines += examples.map { "  " + $0 }
        // "exit codes: 0 ok, 3 …," wrapped before 120 columns, continuation lines aligned
        lines.append("")
        var line = "exit codes:"
        for (i, item) in exitCodes.enumerated() {
            let text = " \(item.code.rawValue) \(item.meaning)" + (i < exitCodes.count - 1 ? "," : "")
            if line.count + text.count > 120 {
                lines.append(line)
                line = String(repeating: " ", count: 11)
            }
            line += text
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    /// Runs one command line (without the program name) and returns the exit code.
    public static func run(_ arguments: [String], _ ctx: ToolContext) -> Int32 {
        run(raw: arguments.map { Array($0.utf8) }, ctx)
    }

    /// Runs one command line given as the kernel passed it (bytes, not necessarily UTF-8): paths
    /// reach open() byte for byte; other arguments must be UTF-8. Returns the exit code; a lost
    /// stdout write turns success into 74 with one error line.
    public static func run(raw arguments: [[UInt8]], _ ctx: ToolContext) -> Int32 {
        let code = dispatch(arguments, ctx)
        if code == 0, let e = ctx.stdoutError() {
            ctx.log(.error, "beacon-tx: cannot write to stdout: \(e)")
            return ExitCode.ioError.rawValue
        }
        return code
    }

    /// `beacon-tx --version [--json]`: the version and the commit built from (BuildIdentity).
    static func printVersion(_ rest: [String], _ ctx: ToolContext) -> Int32 {
        switch rest {
        case []: ctx.stdout(BuildIdentity.current.text)
        case ["--json"]: ctx.stdout(BuildIdentity.current.json.pretty)
        default:
            let extra = rest.first { $0 != "--json" } ?? "--json"
            ctx.log(.error, "beacon-tx --version: unexpected argument \(Quote.user(extra)) (accepted: --json)")
            return ExitCode.usage.rawValue
        }
        return 0
    }

    static func dispatch(_ raw: [[UInt8]], _ ctx: ToolContext) -> Int32 {
        let arguments = raw.map { String(decoding: $0, as: UTF8.self) }
        guard let first = arguments.first else {
            ctx.log(.error, "beacon-tx: missing command (\(subcommands.map { $0.name }.joined(separator: ", "))); see beacon-tx --help")
            return ExitCode.usage.rawValue
        }
        switch first {
        case "-h", "--help", "help":
            if arguments.count > 1, let c = subcommands.first(where: { $0.name == arguments[1] }) {
                ctx.stdout(c.help)
            } else {
                ctx.stdout(help)
            }
            return 0
        case "--version", "version":
            return printVersion(Array(arguments.dropFirst()), ctx)
        default:
            break
        }
        guard let command = subcommands.first(where: { $0.name == first }) else {
            ctx.log(.error, "beacon-tx: unknown command \(Quote.user(first)) (commands: \(subcommands.map { $0.name }.joined(separator: ", "))); see beacon-tx --help")
            return ExitCode.usage.rawValue
        }
        do throws(CLIError) {
            let parsed = try ParsedArguments(raw: Array(raw.dropFirst()), specs: command.options + [.flag("--help", "")], command: command.name)
            if parsed.has("--help") {
                ctx.stdout(command.help)
                return 0
            }
            if !command.takesPositionals, let extra = parsed.positionals.first {
                throw CLIError.usage("unexpected argument \(Quote.user(extra)); see beacon-tx \(command.name) --help")
            }
            return try command.run(parsed, ctx).rawValue
        } catch {
            ctx.log(.error, "beacon-tx \(command.name): \(Quote.sanitized(error.message))")
            return error.code.rawValue
        }
    }
}

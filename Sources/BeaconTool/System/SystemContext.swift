#if canImport(Glibc)
import Glibc
#endif
import BeaconKit
import HCISocket
import SystemCalls

extension ToolContext {
    /// The real process: stdout/stderr, the raw HCI socket host and the system clocks.
    public static var system: ToolContext {
        ToolContext(
            stdout: { line in writeLine(line, to: STDOUT_FILENO) },
            stderr: { line in writeLine(line, to: STDERR_FILENO) },
            stdoutBytes: { bytes in try? FileIO.writeAll(STDOUT_FILENO, bytes, what: "stdout") },
            stdoutIsTerminal: FileIO.isTerminal(STDOUT_FILENO),
            makeHost: { () throws(TransportError) -> HCIHost in RawHCIHost() },
            monotonicMilliseconds: { SystemCalls.live.monotonicMilliseconds() },
            wallClockSeconds: { SystemCalls.live.wallClockSeconds() },
            service: .system
        )
    }

    static func writeLine(_ line: String, to fd: Int32) {
        try? FileIO.writeAll(fd, Array((line + "\n").utf8), what: fd == STDOUT_FILENO ? "stdout" : "stderr")
    }
}

extension ServiceContext {
    /// From the environment systemd gives a service: `$NOTIFY_SOCKET`, `$WATCHDOG_USEC`/`$WATCHDOG_PID`,
    /// `$JOURNAL_STREAM`, `$RUNTIME_DIRECTORY` (and `$XDG_RUNTIME_DIR` outside systemd).
    static var system: ServiceContext {
        let environment = { (name: String) -> String? in getenv(name).map { String(cString: $0) } }
        let pid = getpid()
        return ServiceContext(
            notifier: ServiceNotifier(environment: environment, pid: pid),
            stderrIsJournal: Journal.isJournalStream(STDERR_FILENO, journalStream: environment("JOURNAL_STREAM")),
            stateDirectories: StateStore.fromEnvironment(environment).candidates,
            pid: pid,
            isProcessAlive: StateStore.isProcessAlive)
    }
}

// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import BeaconKit
import HCISocket
import SystemCalls

/// The first failed stdout write of the process (nil while every write succeeded), and the stdin
/// line buffer of `decode -`. One process, one stdout: a global guarded by the single thread that
/// runs a command.
final class StandardStreams: @unchecked Sendable {
    static let shared = StandardStreams()
    var stdoutError: String?
    private var pending: [UInt8] = []
    private var pendingStart = 0
    private var atEnd = false

    func writeStdout(_ bytes: [UInt8]) {
        guard stdoutError == nil else { return }   // one error, reported once, at exit
        do { try FileIO.writeAllOrErrno(STDOUT_FILENO, bytes) } catch { stdoutError = error.description }
    }

    /// The next line of stdin (LF or CRLF ended; the last line may lack its end).
    func readLine() throws(CLIError) -> [UInt8]? {
        while true {
            if let nl = pending[pendingStart...].firstIndex(of: 0x0A) {
                var line = Array(pending[pendingStart..<nl])
                pendingStart = nl + 1
                if line.last == 0x0D { line.removeLast() }
                return line
            }
            if atEnd {
                guard pendingStart < pending.count else { return nil }
                let line = Array(pending[pendingStart...])
                pendingStart = pending.count
                return line
            }
            pending.removeFirst(pendingStart)
            pendingStart = 0
            var buffer = [UInt8](repeating: 0, count: 65536)
            let n: Int
            do { n = try systemCall { buffer.withUnsafeMutableBytes { SystemCalls.live.read(STDIN_FILENO, $0) } } } catch {
                throw CLIError(.ioError, "stdin: \(error)")
            }
            if n == 0 { atEnd = true } else { pending += buffer[0..<n] }
            guard pending.count - pendingStart <= FileIO.maximumSize else {
                throw CLIError(.dataError, "stdin: a line longer than 16 MiB")
            }
        }
    }
}

extension ToolContext {
    /// The real process: stdout/stderr, the raw HCI socket host and the system clocks.
    public static var system: ToolContext {
        let streams = StandardStreams.shared
        var context = ToolContext(
            stdout: { line in streams.writeStdout(Array((line + "\n").utf8)) },
            stderr: { line in try? FileIO.writeAll(STDERR_FILENO, Array((line + "\n").utf8), what: "stderr") },
            stdoutBytes: { bytes in streams.writeStdout(bytes) },
            stdoutIsTerminal: FileIO.isTerminal(STDOUT_FILENO),
            makeHost: { () throws(TransportError) -> HCIHost in RawHCIHost() },
            monotonicMilliseconds: { SystemCalls.live.monotonicMilliseconds() },
            wallClockSeconds: { SystemCalls.live.wallClockSeconds() },
            service: .system,
            stdoutError: { streams.stdoutError },
            readStdinLine: { () throws(CLIError) -> [UInt8]? in try streams.readLine() }
        )
        context.system = .live
        return context
    }

    /// Keeps file descriptors 0, 1 and 2 taken before anything is opened. A process started with
    /// stdout closed would otherwise get its --output file or HCI socket as fd 1, and print into
    /// it. A closed descriptor gets /dev/null opened with the wrong direction (stdout/stderr
    /// read-only, stdin write-only), so writing stdout fails with EBADF and is reported, instead of
    /// vanishing.
    public static func reserveStandardDescriptors() {
        for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(fd, F_GETFD) < 0 && errno == EBADF {
            let got = open("/dev/null", (fd == STDIN_FILENO ? O_WRONLY : O_RDONLY))
            if got >= 0 && got != fd {
                _ = dup2(got, fd)
                close(got)
            }
        }
    }

    /// The command line as the kernel passed it, without the program name: bytes, not Strings
    /// (CommandLine.arguments would replace bytes that are not UTF-8, changing file names).
    public static var rawArguments: [[UInt8]] {
        var out: [[UInt8]] = []
        let argv = CommandLine.unsafeArgv
        for i in 1..<Int(max(1, CommandLine.argc)) {
            guard let p = argv[i] else { continue }
            out.append(Array(UnsafeBufferPointer(start: p, count: strlen(p))).map { UInt8(bitPattern: $0) })
        }
        return out
    }
}

extension ServiceContext {
    /// From the environment systemd gives a service: `$NOTIFY_SOCKET`, `$WATCHDOG_USEC`/`$WATCHDOG_PID`,
    /// `$JOURNAL_STREAM`, `$RUNTIME_DIRECTORY` (and `$XDG_RUNTIME_DIR` outside systemd).
    static var system: ServiceContext {
        let environment = { (name: String) -> String? in getenv(name).map { String(cString: $0) } }
        let pid = getpid()
        var context = ServiceContext(
            notifier: ServiceNotifier(environment: environment, pid: pid),
            stderrIsJournal: Journal.isJournalStream(STDERR_FILENO, journalStream: environment("JOURNAL_STREAM")),
            stateDirectories: StateStore.fromEnvironment(environment).candidates,
            pid: pid,
            isProcessAlive: StateStore.isProcessAlive)
        context.claimDevice = { DeviceLock.claim(device: $0) }
        context.lockHolder = { DeviceLock.holder(device: $0) }
        context.signalHolder = { DeviceLock.signalHolder($0, of: $1, $2) }
        context.pause = { milliseconds in _ = usleep(UInt32(clamping: milliseconds * 1000)) }
        context.confineIoctls = { IoctlConfinement.installNative() }
        return context
    }
}

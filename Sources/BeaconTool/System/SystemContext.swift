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
            wallClockSeconds: { SystemCalls.live.wallClockSeconds() }
        )
    }

    static func writeLine(_ line: String, to fd: Int32) {
        try? FileIO.writeAll(fd, Array((line + "\n").utf8), what: fd == STDOUT_FILENO ? "stdout" : "stderr")
    }
}

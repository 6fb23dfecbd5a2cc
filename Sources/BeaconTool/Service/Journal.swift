// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// The syslog priority of one stderr line. When stderr is the journal, `ToolContext.log` writes
/// it as a `<N>` prefix, which journald turns into the entry's priority (so
/// `journalctl -p err -u beacon-tx` shows the errors); on a terminal or a file nothing is added.
public enum LogPriority: Int, Sendable {
    case error = 3
    case warning = 4
    case info = 6
    case debug = 7

    var prefix: String { "<\(rawValue)>" }
}

enum Journal {
    /// Whether `fd` is the journal stream systemd connected: `$JOURNAL_STREAM` is `DEVICE:INODE`
    /// (decimal) of that stream, and `fd` must be the same file (not something the process's
    /// parent redirected it to after systemd started it).
    static func isJournalStream(_ fd: Int32, journalStream: String?) -> Bool {
        guard let journalStream else { return false }
        let parts = journalStream.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return false }
        return UInt64(st.st_dev) == device && UInt64(st.st_ino) == inode
    }

    /// `text` with `priority.prefix` before each of its lines.
    static func prefixed(_ text: String, _ priority: LogPriority) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { priority.prefix + $0 }
            .joined(separator: "\n")
    }
}

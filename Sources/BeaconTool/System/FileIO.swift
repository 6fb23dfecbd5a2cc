// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import SystemCalls

/// Whole-file reads and writes with errno turned into one-line errors (no Foundation).
///
/// Only regular files are opened: a FIFO, a device or a directory given as `--config` or
/// `--output` fails at once (open() on a FIFO would block until a writer or reader appears). `-`
/// is the one exception: stdin for `--config`, stdout for `--output`; `/dev/stdin` and
/// `/dev/stdout` mean the same. Paths reach open() byte for byte, as the kernel passed them.
///
/// Symbolic links:
/// - `--config FILE` and `--check FILE` follow them: the invoking user names the file, and a
///   config in /etc is often a link (configuration management, alternatives); what was opened is
///   checked with fstat.
/// - `verify CAPTURE` does not (`Links.refuse`): its report shows what it decodes, and root is
///   asked to verify captures other users made, so a capture that is a link (to root's own 0600
///   capture, say) is refused by name, before a byte is read.
/// - Files that a root reader takes from other users' directories (state files, the sessions'
///   metrics files) are read through `OwnedDirectory`: no link, the directory owner's file.
/// - Writes (`--output`, metrics and state files) go through `AtomicFile`: a new temporary file,
///   renamed over the target; a target that is a symbolic link is refused.
enum FileIO {
    static let maximumSize = 16 << 20

    /// `verify` captures: a btmon capture of a busy controller grows fast (16 MiB parse in about
    /// 0.1 s with about 60 MB resident, release build).
    static let maximumCaptureSize = 64 << 20

    static func read(_ path: String, what: String, maximumSize: Int = maximumSize, links: Links = .follow) throws(CLIError) -> [UInt8] {
        try read(FilePath(path), what: what, maximumSize: maximumSize, links: links)
    }

    static func write(_ bytes: [UInt8], to path: String, what: String) throws(CLIError) { try write(bytes, to: FilePath(path), what: what) }

    /// Whether a read follows a symbolic link in the last component of its path.
    enum Links {
        case follow
        case refuse
    }

    static func read(_ path: FilePath, what: String, maximumSize: Int = maximumSize, links: Links = .follow) throws(CLIError) -> [UInt8] {
        let name = "\(what) \(path.display)"
        if path.isDash || path.bytes == Array("/dev/stdin".utf8) {
            return try readAll(STDIN_FILENO, name: name, maximumSize: maximumSize)
        }
        // Looked at before opening: opening a device can have effects of its own.
        try requireRegularIfExists(path, name: name, code: .noInput, links: links)
        // O_NONBLOCK: if the path became a FIFO after the check, open() still returns at once.
        let flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | (links == .refuse ? O_NOFOLLOW : 0)
        let fd: Int32
        do { fd = try systemCall { withCPath(path) { open($0, flags) } } } catch {
            if error.code == ELOOP && links == .refuse { throw symbolicLink(name, code: .noInput) }
            throw openError(name, errno: error.code)
        }
        defer { SystemCalls.live.closeDescriptor(fd) }
        try requireRegular(fd, name: name, code: .noInput)
        return try readAll(fd, name: name, maximumSize: maximumSize)
    }

    /// The refusal of a symbolic link where a link is not followed: it names the path given,
    /// never the link's target or its bytes.
    static func symbolicLink(_ name: String, code: ExitCode) -> CLIError {
        CLIError(code, "\(name): is a symbolic link, which is not followed here; name the file itself")
    }

    static func readAll(_ fd: Int32, name: String, maximumSize: Int = maximumSize) throws(CLIError) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n: Int
            do { n = try systemCall { buffer.withUnsafeMutableBytes { SystemCalls.live.read(fd, $0) } } } catch {
                throw CLIError(.noInput, "\(name): \(error)")
            }
            if n == 0 { break }
            out += buffer[0..<n]
            guard out.count <= maximumSize else { throw CLIError(.dataError, "\(name): larger than \(maximumSize >> 20) MiB") }
        }
        return out
    }

    /// Whether `path` means stdout (`-` or `/dev/stdout`).
    static func isStdout(_ path: FilePath) -> Bool { path.isDash || path.bytes == Array("/dev/stdout".utf8) }

    /// Writes a file the user named (`--output`) through a new temporary file renamed over it
    /// (`AtomicFile`): a file or link another user planted at the path is never written through;
    /// a symbolic link is refused (exit 73). The new file's mode is 0644 less the umask.
    static func write(_ bytes: [UInt8], to path: FilePath, what: String) throws(CLIError) {
        let name = "\(what) \(path.display)"
        try requireRegularIfExists(path, name: name, code: .cantCreate, links: .refuse)
        try AtomicFile.write(bytes, to: path, what: what, mode: nil)
    }

    /// Writes everything; a failure is an I/O error (exit 74).
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], what: String) throws(CLIError) {
        do { try writeAllOrErrno(fd, bytes) } catch { throw CLIError(.ioError, "\(what): \(error)") }
    }

    static func writeAllOrErrno(_ fd: Int32, _ bytes: [UInt8]) throws(Errno) {
        var offset = 0
        while offset < bytes.count {
            offset += try systemCall {
                bytes.withUnsafeBytes { SystemCalls.live.write(fd, UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            }
        }
    }

    static func openError(_ name: String, errno e: Int32) -> CLIError {
        switch e {
        case ENOENT: return CLIError(.noInput, "\(name): no such file")
        case EACCES: return CLIError(.noInput, "\(name): permission denied")
        case EISDIR: return CLIError(.noInput, "\(name): is a directory, not a regular file")
        default: return CLIError(.noInput, "\(name): \(Errno(e))")
        }
    }

    /// "a directory", "a FIFO", ... for st_mode, or nil for a regular file.
    static func kind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "not a regular file"
        }
    }

    /// Refuses a path that exists and is not a regular file (with `.refuse`: a symbolic link too,
    /// looked at with lstat; with `.follow`: what it points to).
    static func requireRegularIfExists(_ path: FilePath, name: String, code: ExitCode, links: Links = .follow) throws(CLIError) {
        var st = stat()
        let found = withCPath(path) { links == .refuse ? lstat($0, &st) : stat($0, &st) }
        guard found == 0 else { return }   // missing: open() reports it
        if st.st_mode & S_IFMT == S_IFLNK { throw code == .cantCreate ? AtomicFile.symbolicLink(name) : symbolicLink(name, code: code) }
        if let k = kind(st.st_mode) {
            throw CLIError(code, "\(name): is \(k), not a regular file (use - for stdin/stdout)")
        }
    }

    /// The same check on the opened descriptor (the path may have changed in between).
    static func requireRegular(_ fd: Int32, name: String, code: ExitCode) throws(CLIError) {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return }
        if let k = kind(st.st_mode) {
            throw CLIError(code, "\(name): is \(k), not a regular file (use - for stdin/stdout)")
        }
        // Regular files ignore O_NONBLOCK, but clear it so nothing depends on that.
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
    }

    static func withCPath<R>(_ path: FilePath, _ body: (UnsafePointer<CChar>) -> R) -> R {
        (path.bytes + [0]).withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) { body($0.baseAddress ?? UnsafePointer(bitPattern: 1)!) }
        }
    }

    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
}

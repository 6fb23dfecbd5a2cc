// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import SystemCalls

/// Whole-file replacement that readers never see half done, and that never writes through what
/// another user left at the path: the bytes go to a new temporary file in the same directory
/// (`NAME.tmp-XXXXXXXX`, created with `O_CREAT | O_EXCL | O_NOFOLLOW`: a name that exists, a link
/// or a planted file, is never opened, another name is drawn), which is then renamed over `NAME`.
/// rename(2) replaces a symbolic link itself, never what it points to; even so, a target that is
/// a symbolic link is refused (exit 73) before anything is written, since a root run that
/// silently replaced someone's link would surprise as much as one that followed it. A temporary
/// file that cannot be written is removed again.
///
/// `mode` is the file's mode whatever the umask (0644: node_exporter and `beacon-tx status` read
/// these files as other users); nil leaves the umask to decide (0644 less the umask), as for any
/// file a command creates (`--output`).
enum AtomicFile {
    static func write(_ bytes: [UInt8], to path: FilePath, what: String, mode: mode_t? = 0o644) throws(CLIError) {
        let name = "\(what) \(path.display)"
        var st = stat()
        if FileIO.withCPath(path, { lstat($0, &st) }) == 0, st.st_mode & S_IFMT == S_IFLNK {
            throw symbolicLink(name)
        }
        let (fd, temporary) = try createTemporary(beside: path, name: name)
        if let mode { _ = fchmod(fd, mode) }
        do {
            try FileIO.writeAll(fd, bytes, what: name)
        } catch {
            SystemCalls.live.closeDescriptor(fd)
            _ = FileIO.withCPath(temporary) { unlink($0) }
            throw error
        }
        do { _ = try systemCall(retryOnInterrupt: false) { SystemCalls.live.close(fd) } } catch {
            _ = FileIO.withCPath(temporary) { unlink($0) }
            throw CLIError(.ioError, "\(name): \(error)")
        }
        do { _ = try systemCall { FileIO.withCPath(temporary) { t in FileIO.withCPath(path) { rename(t, $0) } } } } catch {
            _ = FileIO.withCPath(temporary) { unlink($0) }
            throw CLIError(.cantCreate, "\(name): \(error)")
        }
    }

    /// The refusal of a target that is a symbolic link: the link is named, never what it points to.
    static func symbolicLink(_ name: String) -> CLIError {
        CLIError(.cantCreate, "\(name): is a symbolic link; beacon-tx neither writes through it nor replaces it (remove it, or name the file itself)")
    }

    /// A new file beside `path`, opened for writing: its name is drawn until one does not exist.
    private static func createTemporary(beside path: FilePath, name: String) throws(CLIError) -> (Int32, FilePath) {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var last = Errno(EEXIST)
        for _ in 0..<16 {
            let suffix = (0..<8).map { _ in alphabet[Int.random(in: 0..<alphabet.count)] }
            let temporary = FilePath(path.bytes + Array(".tmp-".utf8) + suffix)
            do {
                return (try systemCall { FileIO.withCPath(temporary) { open($0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644) } }, temporary)
            } catch {
                last = error
                if error.code != EEXIST { break }
            }
        }
        throw CLIError(.cantCreate, "\(name): \(last)")
    }
}

// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import SystemCalls

/// Whole-file replacement that readers never see half done: the bytes go to `NAME.tmp` in the same
/// directory (same file system), which is then renamed over `NAME`. Mode 0644 whatever the umask
/// (node_exporter and `beacon-tx status` read these files as other users). A temporary file that
/// cannot be written is removed again.
enum AtomicFile {
    static func write(_ bytes: [UInt8], to path: FilePath, what: String) throws(CLIError) {
        let temporary = FilePath(path.bytes + Array(".tmp".utf8))
        let fd: Int32
        do {
            fd = try systemCall { FileIO.withCPath(temporary) { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o644) } }
        } catch {
            throw CLIError(.cantCreate, "\(what) \(temporary.display): \(error)")
        }
        _ = fchmod(fd, 0o644)
        do {
            try FileIO.writeAll(fd, bytes, what: "\(what) \(temporary.display)")
        } catch {
            SystemCalls.live.closeDescriptor(fd)
            _ = FileIO.withCPath(temporary) { unlink($0) }
            throw error
        }
        SystemCalls.live.closeDescriptor(fd)
        do { _ = try systemCall { FileIO.withCPath(temporary) { t in FileIO.withCPath(path) { rename(t, $0) } } } } catch {
            _ = FileIO.withCPath(temporary) { unlink($0) }
            throw CLIError(.cantCreate, "\(what) \(path.display): \(error)")
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
import SystemCalls

/// Whole-file reads and writes with errno turned into one-line errors (no Foundation).
enum FileIO {
    static func read(_ path: String, what: String) throws(CLIError) -> [UInt8] {
        let fd: Int32
        do { fd = try systemCall { open(path, O_RDONLY | O_CLOEXEC) } } catch {
            throw openError(path, what: what, errno: error.code)
        }
        defer { SystemCalls.live.closeDescriptor(fd) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n: Int
            do { n = try systemCall { buffer.withUnsafeMutableBytes { SystemCalls.live.read(fd, $0) } } } catch {
                throw CLIError(.noInput, "\(what) \(path): \(error)")
            }
            if n == 0 { break }
            out += buffer[0..<n]
            guard out.count <= 16 << 20 else { throw CLIError(.dataError, "\(what) \(path): larger than 16 MiB") }
        }
        return out
    }

    static func write(_ bytes: [UInt8], to path: String, what: String) throws(CLIError) {
        let fd: Int32
        do { fd = try systemCall { open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) } } catch {
            throw CLIError(.cantCreate, "\(what) \(path): \(error)")
        }
        defer { SystemCalls.live.closeDescriptor(fd) }
        try writeAll(fd, bytes, what: "\(what) \(path)")
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8], what: String) throws(CLIError) {
        var offset = 0
        while offset < bytes.count {
            let n: Int
            do {
                n = try systemCall {
                    bytes.withUnsafeBytes { SystemCalls.live.write(fd, UnsafeRawBufferPointer(rebasing: $0[offset...])) }
                }
            } catch {
                throw CLIError(.cantCreate, "\(what): \(error)")
            }
            offset += n
        }
    }

    static func openError(_ path: String, what: String, errno e: Int32) -> CLIError {
        switch e {
        case ENOENT: return CLIError(.noInput, "\(what) \(path): no such file")
        case EACCES: return CLIError(.noInput, "\(what) \(path): permission denied")
        case EISDIR: return CLIError(.noInput, "\(what) \(path): is a directory")
        default: return CLIError(.noInput, "\(what) \(path): \(Errno(e))")
        }
    }

    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
}

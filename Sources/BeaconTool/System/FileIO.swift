#if canImport(Glibc)
import Glibc
#endif

/// Whole-file reads and writes with errno turned into one-line errors (no Foundation).
enum FileIO {
    static func read(_ path: String, what: String) throws(CLIError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw openError(path, what: what, errno: errno) }
        defer { close(fd) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw CLIError(.noInput, "\(what) \(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            out += buffer[0..<n]
            guard out.count <= 16 << 20 else { throw CLIError(.dataError, "\(what) \(path): larger than 16 MiB") }
        }
        return out
    }

    static func write(_ bytes: [UInt8], to path: String, what: String) throws(CLIError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw CLIError(.cantCreate, "\(what) \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        try writeAll(fd, bytes, what: "\(what) \(path)")
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8], what: String) throws(CLIError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress.map { $0 + offset }, bytes.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw CLIError(.cantCreate, "\(what): \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }

    static func openError(_ path: String, what: String, errno e: Int32) -> CLIError {
        switch e {
        case ENOENT: return CLIError(.noInput, "\(what) \(path): no such file")
        case EACCES: return CLIError(.noInput, "\(what) \(path): permission denied")
        case EISDIR: return CLIError(.noInput, "\(what) \(path): is a directory")
        default: return CLIError(.noInput, "\(what) \(path): \(String(cString: strerror(e)))")
        }
    }

    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
}

// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import SystemCalls

/// `beacon-tx status --metrics FILE` also publishes the sessions' metrics files, which every
/// session keeps beside its state file (`hciN.prom` in its state directory: the packaged units run
/// as a transient user that cannot write node_exporter's directory, see `KioskMetricsFile`): each
/// is copied, atomically and only when it changed, to `beacon-tx-hciN.prom` beside FILE, after one
/// marker line. A published copy whose file has gone (the session stopped cleanly, or systemd
/// removed its runtime directory) is removed, so a stopped kiosk has no series, like its status.
/// Files without the marker are never touched.
///
/// The state directories belong to less privileged sessions and the publisher runs as root, so a
/// file is published only when it is a regular file that is not a symbolic link (`O_NOFOLLOW`),
/// readable by everyone already (mode o+r: nothing private becomes public), at most 1 MiB, and not
/// in FILE's own directory.
enum MetricsPublisher {
    static let marker = "# beacon-tx status: published from "
    static let maximumSize = 1 << 20

    /// The published name of `device`'s file.
    static func publishedName(device: String) -> String { "beacon-tx-" + StateStore.metricsFileName(device: device) }

    /// Publishes into the directory of `statusFile` the files of the sessions still `running` (a
    /// session killed with SIGKILL leaves its file behind: its beacons are not on air, and its copy is
    /// removed like that of a file that has gone); returns one warning per file it could not handle.
    static func publish(from store: StateStore, besides statusFile: FilePath, running: Set<String>) -> [String] {
        let (dir, own) = split(statusFile)
        var warnings: [String] = []
        var names = Set<String>()
        for source in store.metricsFiles() where running.contains(source.device) && !sameDirectory(split(FilePath(source.path)).directory, dir) {
            let name = publishedName(device: source.device)
            guard name != own else { continue }
            names.insert(name)
            let bytes: [UInt8]
            switch readPublic(source.path) {
            case let .success(b): bytes = b
            case let .failure(why): warnings.append("metrics file \(source.path) not published: \(why)"); continue
            }
            guard !bytes.starts(with: Array(marker.utf8)) else { continue }
            let copy = Array((marker + source.path + "\n").utf8) + bytes
            let target = dir + "/" + name
            if case let .success(current) = readPublic(target), current == copy { continue }
            do { try AtomicFile.write(copy, to: FilePath(target), what: "metrics file") } catch { warnings.append(error.message) }
        }
        // copies whose source has gone
        for name in StateStore.listing(dir).sorted() where name.hasSuffix(".prom") && name != own && !names.contains(name) {
            let path = dir + "/" + name
            guard case let .success(bytes) = readPublic(path), bytes.starts(with: Array(marker.utf8)) else { continue }
            if unlink(path) != 0 { warnings.append("metrics file \(path): cannot remove the copy of a file that has gone: \(Errno(errno))") }
        }
        return warnings
    }

    /// The directory and the name of `path` (`.` for a bare name).
    static func split(_ path: FilePath) -> (directory: String, name: String) {
        let text = String(decoding: path.bytes, as: UTF8.self)
        guard let slash = text.lastIndex(of: "/") else { return (".", text) }
        let dir = String(text[..<slash])
        return (dir.isEmpty ? "/" : dir, String(text[text.index(after: slash)...]))
    }

    static func sameDirectory(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return a == b }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    /// The bytes of a regular, world-readable file of at most `maximumSize` bytes, not opened through a symbolic link.
    static func readPublic(_ path: String) -> Result<[UInt8], PublishRefusal> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return .failure(PublishRefusal("\(Errno(errno))")) }
        defer { SystemCalls.live.closeDescriptor(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(PublishRefusal("\(Errno(errno))")) }
        guard st.st_mode & S_IFMT == S_IFREG else { return .failure(PublishRefusal("not a regular file")) }
        guard st.st_mode & S_IROTH != 0 else { return .failure(PublishRefusal("not readable by everyone (mode \(String(st.st_mode & 0o7777, radix: 8)))")) }
        guard st.st_size <= maximumSize else { return .failure(PublishRefusal("larger than 1 MiB")) }
        do { return .success(try FileIO.readAll(fd, name: path, maximumSize: maximumSize)) } catch {
            return .failure(PublishRefusal(error.message))
        }
    }

    struct PublishRefusal: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }
}

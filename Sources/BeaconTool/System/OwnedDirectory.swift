// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import SystemCalls

/// A directory whose files are read on another user's behalf: the state directories of the
/// sessions, which `status`, `doctor` and the publisher (root, from a timer) read while each
/// belongs to whoever runs that session (a unit's dynamic user, a user's `$XDG_RUNTIME_DIR`).
///
/// The directory is opened once, without following a symbolic link in its last component, and
/// its files are opened relative to it (`openat`) with `O_NOFOLLOW`: a link planted in place of a
/// file is refused before a byte is read. Each opened file is checked with `fstat` on its
/// descriptor (what was opened is what is checked): a regular file owned by the directory's owner,
/// within a size cap. Nothing that belongs to another user (root's files included) is read from a
/// directory someone else owns, and a refusal says why without quoting the file.
final class OwnedDirectory {
    let path: String
    let descriptor: Int32
    /// The directory's owner: the only uid whose files are read from it.
    let owner: uid_t

    private init(path: String, descriptor: Int32, owner: uid_t) {
        self.path = path
        self.descriptor = descriptor
        self.owner = owner
    }

    deinit { SystemCalls.live.closeDescriptor(descriptor) }

    /// `path`, when it is a directory that is not a symbolic link (nil when missing or unreadable).
    static func open(_ path: String) -> OwnedDirectory? {
        adopt(path: path, Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC))
    }

    /// The directory `name` inside this one, opened through this one's descriptor.
    func subdirectory(_ name: String) -> OwnedDirectory? {
        Self.adopt(path: path + "/" + name, openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC))
    }

    private static func adopt(path: String, _ fd: Int32) -> OwnedDirectory? {
        guard fd >= 0 else { return nil }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else {
            SystemCalls.live.closeDescriptor(fd)
            return nil
        }
        return OwnedDirectory(path: path, descriptor: fd, owner: st.st_uid)
    }

    /// The names in the directory, `.` and `..` left out.
    func names() -> [String] {
        let copy = dup(descriptor)   // closedir closes the descriptor it was given
        guard copy >= 0 else { return [] }
        guard let d = fdopendir(copy) else {
            SystemCalls.live.closeDescriptor(copy)
            return []
        }
        defer { closedir(d) }
        rewinddir(d)
        return StateStore.names(in: d)
    }

    /// What a file must be, beyond regular and owned by the directory's owner.
    struct Rules {
        var maximumSize: Int
        /// Refuse a file with more than one link: a hard link to one big file, named many times,
        /// would otherwise be read (and copied) once per name.
        var singleLink = false
        /// Refuse a file that is not readable by everyone (its copy would make it public).
        var worldReadable = false
    }

    /// The bytes of the regular file `name`, owned by the directory's owner and within `rules`.
    func read(_ name: String, _ rules: Rules) -> Result<[UInt8], FileRefusal> {
        let fd = openat(descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            switch e {
            case ENOENT: return .failure(FileRefusal(.missing, "no such file"))
            case ELOOP: return .failure(FileRefusal(.link, "a symbolic link"))
            default: return .failure(FileRefusal(.unreadable, "\(Errno(e))"))
            }
        }
        defer { SystemCalls.live.closeDescriptor(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(FileRefusal(.unreadable, "\(Errno(errno))")) }
        if let kind = FileIO.kind(st.st_mode) { return .failure(FileRefusal(.notRegular, "\(kind), not a regular file")) }
        guard st.st_uid == owner else {
            return .failure(FileRefusal(.owner, "owned by uid \(st.st_uid), not by the directory's owner (uid \(owner))"))
        }
        if rules.singleLink && st.st_nlink != 1 {
            return .failure(FileRefusal(.hardLink, "\(st.st_nlink) links to one file (a hard link): only a file with one link is read"))
        }
        if rules.worldReadable && st.st_mode & S_IROTH == 0 {
            return .failure(FileRefusal(.mode, "not readable by everyone (mode \(String(st.st_mode & 0o7777, radix: 8)))"))
        }
        let limit = "larger than " + FileRefusal.size(rules.maximumSize)
        guard st.st_size <= rules.maximumSize else { return .failure(FileRefusal(.size, limit)) }
        // The file may grow after fstat: read at most one byte more than allowed.
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: min(65536, rules.maximumSize + 1))
        while out.count <= rules.maximumSize {
            let n: Int
            do {
                let room = min(buffer.count, rules.maximumSize + 1 - out.count)
                n = try systemCall { buffer.withUnsafeMutableBytes { SystemCalls.live.read(fd, UnsafeMutableRawBufferPointer(rebasing: $0[0..<room])) } }
            } catch {
                return .failure(FileRefusal(.unreadable, "\(error)"))
            }
            if n == 0 { return .success(out) }
            out += buffer[0..<n]
        }
        return .failure(FileRefusal(.size, limit))
    }
}

/// Why a file of an `OwnedDirectory` was not read.
struct FileRefusal: Error, Equatable, CustomStringConvertible {
    enum Reason: String {
        /// Not there (not a refusal: nothing to read).
        case missing
        case link
        case notRegular = "not_regular"
        case hardLink = "hard_link"
        case owner
        case mode
        case size
        case unreadable
    }

    var reason: Reason
    var description: String

    init(_ reason: Reason, _ description: String) {
        self.reason = reason
        self.description = description
    }

    /// "64 KiB", "1 MiB".
    static func size(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes >> 10) KiB"
    }
}

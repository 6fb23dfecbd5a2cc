// SPDX-License-Identifier: Apache-2.0
/// A group's id read from `/etc/group` itself, never through getgrnam(3).
///
/// getgrnam goes through NSS, and in the static release binary NSS dlopens the system's
/// `libnss_*.so` modules, built against another copy of the C library: with `group: files systemd`
/// in nsswitch.conf (Debian's default with libnss-systemd) the static beacon-tx crashed inside
/// libnss_systemd.so.2 on its first live start as root. The one group beacon-tx looks up, the
/// package's `beacon-tx` system group, is made by the package's postinst in `/etc/group`.
enum GroupFile {
    static let path = "/etc/group"

    /// The id of the group `name` in group-file text (`name:password:GID:members` lines), or nil
    /// when no line names it or its GID field is not a decimal number below 2^32 - 1.
    static func gid(of name: String, in text: [UInt8]) -> UInt32? {
        for line in text.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
            guard fields.count >= 3, fields[0].elementsEqual(name.utf8) else { continue }
            // Digits only (UInt32's parser takes a sign); nil on overflow; 2^32 - 1 is (gid_t)-1, no group.
            let digits = fields[2]
            guard digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                  let value = UInt32(String(decoding: digits, as: UTF8.self)), value != .max else { return nil }
            return value
        }
        return nil
    }

    /// The id of the group `name` in `/etc/group`; nil when the file cannot be read or has no such group.
    static func gid(of name: String, path: String = path) -> UInt32? {
        guard let text = try? FileIO.read(path, what: "the group file", maximumSize: 1 << 20) else { return nil }
        return gid(of: name, in: text)
    }
}

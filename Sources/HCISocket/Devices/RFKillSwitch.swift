// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import Glibc
import SystemCalls

/// The rfkill switches of Bluetooth controllers: their state from sysfs
/// (`/sys/class/bluetooth/hciN/rfkillM/{soft,hard}`, readable by anyone) and their changes from
/// `/dev/rfkill` (one `struct rfkill_event` per read; see `RFKillEvent`).
public enum RFKillSwitch {
    /// The block of `hciN`'s switch; nil when it has none (a virtual controller) or sysfs is absent.
    public static func block(deviceID: UInt16, sysfs: String = "/sys/class/bluetooth") -> RFKillBlock? {
        let directory = sysfs + "/" + HCIDeviceInfo.name(of: deviceID)
        guard let entry = listDirectory(directory).first(where: { $0.hasPrefix("rfkill") }) else { return nil }
        let base = directory + "/" + entry
        guard let soft = readFlag(base + "/soft"), let hard = readFlag(base + "/hard") else { return nil }
        return RFKillBlock(soft: soft, hard: hard)
    }

    /// The names in `path` (without `.` and `..`), or [] when it cannot be read.
    public static func listDirectory(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw -> String in
                let bytes = raw.prefix { $0 != 0 }
                return String(decoding: bytes, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// A sysfs flag file: `0` or `1` and a newline. Nil for anything else.
    static func readFlag(_ path: String) -> Bool? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 8)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n >= 1 else { return nil }
        switch buffer[0] {
        case UInt8(ascii: "0"): return false
        case UInt8(ascii: "1"): return true
        default: return nil
        }
    }

    /// `/dev/rfkill` opened to be watched (non-blocking), or -1 when it cannot be (no rfkill in this
    /// kernel, no read permission): the wait then relies on the controller's device events alone.
    public static func openEvents(path: String = "/dev/rfkill") -> Int32 {
        open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    }

    /// Reads every pending event of `fd` (non-blocking): one `rfkill_event` per read. A read shorter
    /// than an event is dropped (not decoded); at most `limit` reads, so a flood cannot hold the caller.
    public static func drain(_ fd: Int32, system: SystemCalls = .live, limit: Int = 256) -> [RFKillEvent] {
        var events: [RFKillEvent] = []
        var buffer = [UInt8](repeating: 0, count: 32)
        for _ in 0..<limit {
            let n = buffer.withUnsafeMutableBytes { system.read(fd, $0) }
            guard n > 0 else { break }
            if let e = RFKillEvent(Array(buffer.prefix(min(n, buffer.count)))) { events.append(e) }
        }
        return events
    }
}

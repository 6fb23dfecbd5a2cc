// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import BeaconKit
import HCISocket
import SystemCalls

/// What `doctor` and `status` look at besides the Bluetooth sockets: small files (`/proc`, sysfs,
/// the installed units), directory listings, the rfkill switches, the effective uid and, for
/// `doctor` only, `systemctl show`. `.live` is the machine; the unit tests script each answer.
struct SystemProbe {
    /// The bytes of a small file (at most 1 MiB), or nil when it cannot be read.
    var readFile: (String) -> [UInt8]? = { _ in nil }
    /// The names in a directory (sorted), [] when it cannot be read.
    var listDirectory: (String) -> [String] = { _ in [] }
    /// Runs a program (absolute path, no shell) and returns its exit status and stdout, or nil when
    /// it could not be started.
    var run: ([String]) -> (status: Int32, output: String)? = { _ in nil }
    var effectiveUID: () -> UInt32 = { 0 }
    /// `hciN`'s rfkill switch (sysfs), nil when it has none.
    var rfkill: (UInt16) -> RFKillBlock? = { _ in nil }
    /// The kernel log as far as it reaches back (`/dev/kmsg`, one record per line), nil when it
    /// cannot be read (not root where kernel.dmesg_restrict is 1).
    var kernelLog: () -> String? = { nil }

    /// Answers nothing: what the unit tests of other commands see.
    static var none: SystemProbe { SystemProbe() }

    static var live: SystemProbe {
        SystemProbe(
            readFile: { path in try? FileIO.read(path, what: "file", maximumSize: 1 << 20) },
            listDirectory: { RFKillSwitch.listDirectory($0) },
            run: { Subprocess.run($0) },
            effectiveUID: { geteuid() },
            rfkill: { RFKillSwitch.block(deviceID: $0) },
            kernelLog: { KernelLog.read() })
    }

    func text(_ path: String) -> String? { readFile(path).map { String(decoding: $0, as: UTF8.self) } }
}

/// `/dev/kmsg` from its oldest record: each read(2) returns one record (`6,812,5019,-;text` and
/// its continuation lines); EPIPE says records were overwritten meanwhile (read on), EAGAIN that
/// there is no more. At most 4 MiB.
enum KernelLog {
    static func read() -> String? {
        let fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var log: [UInt8] = []
        var record = [UInt8](repeating: 0, count: 8192)
        while log.count < 4 << 20 {
            let n: Int
            do { n = try systemCall { record.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) } } } catch {
                if error.code == EPIPE { continue }
                break
            }
            guard n > 0 else { break }
            log += record[0..<n]
        }
        return String(decoding: log, as: UTF8.self)
    }
}

/// posix_spawn with stdout into a pipe, stdin and stderr on /dev/null; waits for the child.
enum Subprocess {
    static func run(_ argv: [String]) -> (status: Int32, output: String)? {
        guard let program = argv.first else { return nil }
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { return nil }
        _ = fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        let environment: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/sbin:/usr/bin:/sbin:/bin"), strdup("SYSTEMD_PAGER="),
                                                          strdup("LC_ALL=C"), nil]
        defer { environment.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, program, &actions, nil, cArgs, environment)
        close(pipeEnds[1])
        guard spawned == 0 else {
            close(pipeEnds[0])
            return nil
        }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while output.count < 1 << 20,
              let n = try? systemCall({ buffer.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress, $0.count) } }), n > 0 {
            output += buffer[0..<n]
        }
        close(pipeEnds[0])
        var status: Int32 = 0
        _ = try? systemCall { waitpid(pid, &status, 0) }
        // WIFEXITED / WEXITSTATUS, spelled out (the macros are not imported).
        let exited = status & 0x7f == 0
        return (exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), String(decoding: output, as: UTF8.self))
    }
}

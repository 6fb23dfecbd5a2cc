// SPDX-License-Identifier: Apache-2.0
@testable import BeaconTool
import Foundation
import Testing

/// The lock directory's group is read from /etc/group, never through NSS: the static release
/// binary crashed inside libnss_systemd.so.2 when getgrnam asked a module built for another libc.
@Suite struct GroupFileTests {
    static let text = Array("""
    root:x:0:
    # a comment line
    +nisgroups
    beacon-tx-old:x:900:
    bluetooth:x:112:pi
    beacon-tx:x:998:
    beacon-tx:x:997:
    """.utf8)

    @Test func theFirstLineNamingTheGroupGivesItsId() {
        #expect(GroupFile.gid(of: "beacon-tx", in: Self.text) == 998)
        #expect(GroupFile.gid(of: "bluetooth", in: Self.text) == 112)
        #expect(GroupFile.gid(of: "root", in: Self.text) == 0)
    }

    @Test func aMissingGroupOrAPrefixIsNotTheGroup() {
        #expect(GroupFile.gid(of: "beacon", in: Self.text) == nil)
        #expect(GroupFile.gid(of: "nobody", in: Self.text) == nil)
        #expect(GroupFile.gid(of: "beacon-tx", in: []) == nil)
    }

    @Test(arguments: ["beacon-tx:x::", "beacon-tx:x:-1:", "beacon-tx:x:12a:", "beacon-tx:x:4294967295:",
                      "beacon-tx:x:99999999999:", "beacon-tx:x", "beacon-tx"])
    func aMalformedIdIsNoId(_ line: String) {
        #expect(GroupFile.gid(of: "beacon-tx", in: Array(line.utf8)) == nil, "\(line)")
    }

    @Test func theLargestValidIdAndCRLFEndings() {
        #expect(GroupFile.gid(of: "g", in: Array("g:x:4294967294:".utf8)) == 4_294_967_294)
        #expect(GroupFile.gid(of: "g", in: Array("g:x:7\r\n".utf8)) == nil)
    }

    @Test func aFileOnDisk() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("groupfile-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("group")
        try Data(Self.text).write(to: file)
        #expect(GroupFile.gid(of: "beacon-tx", path: file.path) == 998)
        #expect(GroupFile.gid(of: "beacon-tx", path: dir.appendingPathComponent("absent").path) == nil)
    }

    /// The static binary must never reach NSS: no source calls the C library's name-service lookups.
    @Test func noSourceCallsTheNameService() throws {
        let calls = ["getgrnam", "getgrgid", "getpwnam", "getpwuid", "getgrent", "getpwent", "getgrouplist",
                     "initgroups", "getaddrinfo", "gethostbyname", "getservbyname", "getlogin"]
        let sources = repoRoot.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") || $0.hasSuffix(".h") || $0.hasSuffix(".c") }
        #expect(files.count > 50)
        for file in files {
            let code = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
                .split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
            for call in calls {
                let found = code.contains("\(call)(")
                #expect(!found, "\(file) calls \(call)")
            }
        }
    }
}

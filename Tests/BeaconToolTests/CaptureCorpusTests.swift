// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import BeaconTool

/// Every seed of the capture fuzzer (real btmon captures, and inputs that once trapped, such as
/// `overflow-mgmt-window`: timestamps far apart overflowed the MGMT window arithmetic) goes through
/// `verify` as a user would run it: a verdict (0 or 1) or one bad-data line (65), never a trap.
@Suite struct CaptureCorpusTests {
    @Test func everyFuzzSeedGetsAVerdictOrOneErrorLine() throws {
        let folder = repoPath("Fuzz/Corpus/fuzz-capture")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(names.contains("overflow-mgmt-window"))
        for name in names {
            let r = tool(["verify", folder + "/" + name, "--beacon", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:1",
                          "--beacon", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2"])
            #expect([0, 1, 65].contains(r.code), "\(name): exit \(r.code) \(r.err)")
            if r.code == 65 { #expect(r.out.isEmpty && r.err.split(separator: "\n").count == 1, "\(name)") }
        }
    }
}

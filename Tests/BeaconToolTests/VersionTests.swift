// SPDX-License-Identifier: Apache-2.0
@testable import BeaconTool
import Testing

/// `--version`: the version and the commit built from, taken from the source tree.
@Suite struct VersionTests {
    static let commit = "5d345d98bdff8a0f611b9bf5b057e0dee503897e"

    @Test func aStampedCommitIsNamedByTwelveDigits() {
        let id = BuildIdentity(version: "0.2.0", stamp: Self.commit)
        #expect(id.text == "beacon-tx 0.2.0 (5d345d98bdff)")
        #expect(id.json.compact == #"{"version":"0.2.0","commit":"5d345d98bdff8a0f611b9bf5b057e0dee503897e","modified":false}"#)
    }

    @Test func aModifiedTreeSaysSo() {
        let id = BuildIdentity(version: "0.2.0", stamp: Self.commit + "+modified")
        #expect(id.text == "beacon-tx 0.2.0 (5d345d98bdff, modified)")
        #expect(id.commit == Self.commit && id.modified)
    }

    /// The placeholder git archive did not fill in, and stamps that are not a full commit id, are
    /// a development build: the tool never prints a commit it cannot vouch for.
    /// A static property, not expressions in `@Test(arguments:)` (Swift 6.0.3, the aarch64
    /// toolchain, trips on some there).
    static let notCommits: [String] = [
        "$Format:%H$", "", "5d345d98bdff", commit.uppercased(), commit + "0", String(commit.dropLast()) + "g", "+modified", commit + "+dirty",
    ]

    @Test(arguments: notCommits)
    func anythingElseIsADevelopmentBuild(_ stamp: String) {
        let id = BuildIdentity(version: "0.2.0", stamp: stamp)
        #expect(id.text == "beacon-tx 0.2.0 (development build)", "\(stamp)")
        #expect(id.json.compact == #"{"version":"0.2.0","commit":null,"modified":null}"#)
    }

    /// The tool prints what this build's stamp says (a test build of a checkout: the placeholder).
    @Test func versionPrintsThisBuildsIdentity() {
        #expect(tool(["--version"]).out == BuildIdentity.current.text + "\n")
        #expect(tool(["version"]).out == BuildIdentity.current.text + "\n")
        #expect(BuildIdentity.current.text.hasPrefix("beacon-tx \(BeaconTX.version) ("))
        let json = tool(["--version", "--json"])
        #expect(json.code == 0 && json.out == BuildIdentity.current.json.pretty + "\n")
    }

    @Test(arguments: [["--version", "--bogus"], ["--version", "--json", "--json"], ["version", "start"]])
    func anotherArgumentIsAUsageError(_ args: [String]) {
        let r = tool(args)
        #expect(r.code == 64 && r.out.isEmpty, "\(args)")
        #expect(r.err.hasPrefix("beacon-tx --version: unexpected argument ") && r.err.hasSuffix(" (accepted: --json)\n"), "\(r.err)")
    }

    /// The version is set in one place and is a semantic version (CHANGELOG.md says the policy).
    @Test func theVersionIsSemantic() {
        let parts = BeaconTX.version.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) && ($0 == "0" || !$0.hasPrefix("0")) })
    }
}

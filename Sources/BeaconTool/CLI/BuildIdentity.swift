// SPDX-License-Identifier: Apache-2.0

/// What `beacon-tx --version` prints: the version and the commit the binary was built from.
/// The commit comes from the source tree (SourceCommit), so two builds of one commit are the same
/// bytes; nothing is read from the clock or the build machine.
struct BuildIdentity: Equatable {
    var version: String
    /// The full commit id (40 lowercase hex digits); nil for a development build.
    var commit: String?
    /// The tree built had changes that commit does not have.
    var modified: Bool

    static let current = BuildIdentity(version: BeaconTX.version, stamp: SourceCommit.stamp)

    /// A stamp is `<40 hex digits>` or `<40 hex digits>+modified`; anything else (the unfilled
    /// placeholder above all) is a development build.
    init(version: String, stamp: String) {
        self.version = version
        var id = Substring(stamp)
        modified = id.hasSuffix("+modified")
        if modified { id = id.dropLast("+modified".count) }
        let hex = id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        if id.utf8.count == 40 && hex {
            commit = String(id)
        } else {
            commit = nil
            modified = false
        }
    }

    /// `beacon-tx 0.2.0 (a1b2c3d4e5f6)`, `beacon-tx 0.2.0 (a1b2c3d4e5f6, modified)` or
    /// `beacon-tx 0.2.0 (development build)`: the commit shortened to 12 digits, as git does it.
    var text: String {
        guard let commit else { return "beacon-tx \(version) (development build)" }
        return "beacon-tx \(version) (\(commit.prefix(12))\(modified ? ", modified" : ""))"
    }

    /// `{"version": "0.2.0", "commit": "<40 hex>", "modified": false}`; commit and modified are
    /// null for a development build.
    var json: JSON {
        .object([
            ("version", .string(version)),
            ("commit", commit.map(JSON.string) ?? .null),
            ("modified", commit == nil ? .null : .bool(modified)),
        ])
    }
}

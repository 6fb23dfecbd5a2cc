// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

/// `dump-config --format swift`: a snapshot for Config/museum.json, string-literal escaping, and the
/// proof that the output compiles: `swiftc -typecheck` against a local `CoreLocation` module of
/// stubs (CoreLocation is not on Linux; Foundation's UUID is).
@Suite struct SwiftRegionsTests {
    @Test func museumSnapshot() {
        let r = tool(["dump-config", "--config", repoPath("Config/museum.json"), "--format", "swift"])
        #expect(r.code == 0, "\(r.err)")
        expectSnapshot(r.out, "dump-config-museum.swift")
    }

    @Test func jsonIsStillTheDefault() {
        let json = tool(["dump-config", "--config", repoPath("Config/museum.json")])
        let explicit = tool(["dump-config", "--config", repoPath("Config/museum.json"), "--format", "json"])
        #expect(json.code == 0 && explicit.code == 0)
        #expect(json.out == explicit.out && json.out.hasPrefix("{"))
    }

    @Test func identifiersAreSwiftStringLiterals() {
        #expect(SwiftRegions.literal("museum-hall") == #""museum-hall""#)
        #expect(SwiftRegions.literal("a \"b\" \\(c)\n\u{2028}\u{202E}é") == #""a \"b\" \\(c)\u{A}\u{2028}\u{202E}é""#)
        #expect(SwiftRegions.comment("x\ny") == #"x\u{A}y"#)
        #expect(SwiftRegions.defaultIdentifier(0) == "beacon-1")
    }

    @Test func noBeaconIsAUsageError() {
        let r = tool(["dump-config", "--format", "swift"])
        #expect(r.code == 64)
        #expect(r.err.contains("--format swift: no beacon in the effective config"), "\(r.err)")
    }

    @Test func outputTypeChecks() throws {
        let museum = tool(["dump-config", "--config", repoPath("Config/museum.json"), "--format", "swift"])
        // One beacon without an identifier (→ "beacon-1"), and one whose identifier needs escaping
        // (the CLI accepts printable text only; control characters are covered by identifiersAreSwiftStringLiterals).
        let plain = tool(["dump-config", "--uuid", Golden.uuidText, "--major", "7", "--minor", "65535", "--format", "swift"])
        let odd = tool(["dump-config", "--uuid", Golden.uuidText, "--major", "1", "--minor", "2", "--identifier", "hall \"B\" \\(x) \"\"\"# é", "--format", "swift"])
        for r in [museum, plain, odd] { #expect(r.code == 0, "\(r.err)") }
        #expect(plain.out.contains(#"identifier: "beacon-1")"#))
        // The pre-iOS 13 initializer, uncommented, must compile too.
        let old = museum.out.replacingOccurrences(of: "// Before iOS 13: ", with: "_ = ")
        #expect(old != museum.out)
        let result = try typeCheck([museum.out, plain.out, odd.out, old])
        #expect(result.code == 0, "swiftc -typecheck failed:\n\(result.output)")
    }

    /// Builds the stub CoreLocation module, then type-checks each source (its function renamed so
    /// they can share one module) against it.
    func typeCheck(_ sources: [String]) throws -> (code: Int32, output: String) {
        let swiftc = try #require(Self.swiftc(), "swiftc not found (SWIFTC, /opt/swift/usr/bin/swiftc or PATH)")
        let dir = NSTemporaryDirectory() + "beacon-tx-swift-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.coreLocationStub.write(toFile: dir + "/CoreLocation.swift", atomically: true, encoding: .utf8)
        let stub = run(swiftc, ["-parse-as-library", "-emit-module", "-module-name", "CoreLocation",
                                "-emit-module-path", dir + "/CoreLocation.swiftmodule", dir + "/CoreLocation.swift"])
        guard stub.code == 0 else { return (stub.code, "stub module: " + stub.output) }
        var files: [String] = []
        for (i, source) in sources.enumerated() {
            let path = dir + "/Regions\(i).swift"
            try source.replacingOccurrences(of: "func beaconTxRegions()", with: "func beaconTxRegions\(i)()")
                .write(toFile: path, atomically: true, encoding: .utf8)
            files.append(path)
        }
        return run(swiftc, ["-typecheck", "-parse-as-library", "-I", dir] + files)
    }

    func run(_ executable: String, _ arguments: [String]) -> (code: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        do { try p.run() } catch { return (-1, "\(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static func swiftc() -> String? {
        let env = ProcessInfo.processInfo.environment
        var candidates = [env["SWIFTC"], "/opt/swift/usr/bin/swiftc"].compactMap { $0 }
        candidates += (env["PATH"] ?? "").split(separator: ":").map { $0 + "/swiftc" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The CoreLocation API the output uses, with Apple's signatures (classes, UInt16 majors/minors).
    static let coreLocationStub = """
        @_exported import Foundation
        public typealias CLBeaconMajorValue = UInt16
        public typealias CLBeaconMinorValue = UInt16
        open class CLRegion {
            public let identifier: String
            open var notifyOnEntry = true
            open var notifyOnExit = true
            public init(identifier: String) { self.identifier = identifier }
        }
        open class CLBeaconIdentityConstraint {
            public let uuid: UUID
            public let major: CLBeaconMajorValue?
            public let minor: CLBeaconMinorValue?
            public init(uuid: UUID, major: CLBeaconMajorValue, minor: CLBeaconMinorValue) {
                self.uuid = uuid
                self.major = major
                self.minor = minor
            }
        }
        open class CLBeaconRegion: CLRegion {
            public let beaconIdentityConstraint: CLBeaconIdentityConstraint
            open var notifyEntryStateOnDisplay = false
            public init(beaconIdentityConstraint: CLBeaconIdentityConstraint, identifier: String) {
                self.beaconIdentityConstraint = beaconIdentityConstraint
                super.init(identifier: identifier)
            }
            @available(*, deprecated, message: "iOS 13: use init(beaconIdentityConstraint:identifier:)")
            public convenience init(proximityUUID: UUID, major: CLBeaconMajorValue, minor: CLBeaconMinorValue, identifier: String) {
                self.init(beaconIdentityConstraint: CLBeaconIdentityConstraint(uuid: proximityUUID, major: major, minor: minor),
                          identifier: identifier)
            }
        }
        """
}

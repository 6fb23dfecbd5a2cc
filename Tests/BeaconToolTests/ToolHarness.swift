import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

/// Runs `beacon-tx` in-process with captured output and an optional fake host.
struct ToolRun {
    var code: Int32
    var out: String
    var err: String
    var bytes: [UInt8]
}

final class Capture: @unchecked Sendable {
    var out = "", err = "", bytes: [UInt8] = []
}

/// A test clock: every read moves 1 ms; a scripted timeout moves it by the wait.
final class TestClock: @unchecked Sendable {
    var milliseconds: Int64 = 1_000_000
    func read() -> Int64 { milliseconds += 1; return milliseconds }
    func attach(_ c: ScriptedController) { c.onTimeout = { [unowned self] in self.milliseconds += Int64(max(0, $0)) } }
}

func tool(_ args: [String], host: FakeHost? = nil, terminal: Bool = false, clock: TestClock = TestClock(),
          service: ServiceContext = .none) -> ToolRun {
    let c = Capture()
    let ctx = ToolContext(
        stdout: { c.out += $0 + "\n" }, stderr: { c.err += $0 + "\n" },
        stdoutBytes: { c.bytes += $0; c.out += String(decoding: $0, as: UTF8.self) },
        stdoutIsTerminal: terminal,
        makeHost: { () throws(TransportError) -> HCIHost in
            guard let host else { throw .bluetoothUnsupported }
            return host
        },
        monotonicMilliseconds: { clock.read() },
        wallClockSeconds: { 1_800_000_000 },
        service: service)
    let code = BeaconTX.run(args, ctx)
    return ToolRun(code: code, out: c.out, err: c.err, bytes: c.bytes)
}

/// The repository root, from this file's path.
let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

func repoPath(_ relative: String) -> String { repoRoot.appendingPathComponent(relative).path }

/// Compares with Tests/BeaconToolTests/Snapshots/NAME; `UPDATE_SNAPSHOTS=1 swift test` rewrites them.
func expectSnapshot(_ actual: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let path = repoPath("Tests/BeaconToolTests/Snapshots/" + name)
    if ProcessInfo.processInfo.environment["UPDATE_SNAPSHOTS"] == "1" {
        try? actual.write(toFile: path, atomically: true, encoding: .utf8)
        return
    }
    guard let expected = try? String(contentsOfFile: path, encoding: .utf8) else {
        Issue.record("missing snapshot \(name); run UPDATE_SNAPSHOTS=1 swift test", sourceLocation: sourceLocation)
        return
    }
    #expect(actual == expected, "snapshot \(name) differs", sourceLocation: sourceLocation)
}

let goldenFlags = ["--uuid", Golden.uuidText, "--major", "1", "--minor", "2"]

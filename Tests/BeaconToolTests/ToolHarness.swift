// SPDX-License-Identifier: Apache-2.0
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
    var failedWrites = 0
}

/// A test clock: every read moves 1 ms; a scripted timeout moves it by the wait.
final class TestClock: @unchecked Sendable {
    var milliseconds: Int64 = 1_000_000
    func read() -> Int64 { milliseconds += 1; return milliseconds }
    func attach(_ c: ScriptedController) { c.onTimeout = { [unowned self] in self.milliseconds += Int64(max(0, $0)) } }
}

/// `stdin`: what `decode -` reads; `stdoutFails`: every stdout write fails with this error (as
/// `> /dev/full` would), so nothing is captured.
func tool(_ args: [String], host: FakeHost? = nil, terminal: Bool = false, clock: TestClock = TestClock(),
          service: ServiceContext = .none, stdin: String = "", stdoutFails: String? = nil, system: SystemProbe = .none) -> ToolRun {
    tool(raw: args.map { Array($0.utf8) }, host: host, terminal: terminal, clock: clock, service: service, stdin: stdin, stdoutFails: stdoutFails,
         system: system)
}

func tool(raw args: [[UInt8]], host: FakeHost? = nil, terminal: Bool = false, clock: TestClock = TestClock(),
          service: ServiceContext = .none, stdin: String = "", stdoutFails: String? = nil, system: SystemProbe = .none) -> ToolRun {
    let c = Capture()
    var lines = stdin.isEmpty ? [] : stdin.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0.utf8) }
    if stdin.hasSuffix("\n") { lines.removeLast() }
    var ctx = ToolContext(
        stdout: { line in if stdoutFails == nil { c.out += line + "\n" } else { c.failedWrites += 1 } },
        stderr: { c.err += $0 + "\n" },
        stdoutBytes: { bytes in
            if stdoutFails == nil { c.bytes += bytes; c.out += String(decoding: bytes, as: UTF8.self) } else { c.failedWrites += 1 }
        },
        stdoutIsTerminal: terminal,
        makeHost: { () throws(TransportError) -> HCIHost in
            guard let host else { throw .bluetoothUnsupported }
            return host
        },
        monotonicMilliseconds: { clock.read() },
        wallClockSeconds: { 1_800_000_000 },
        service: service,
        stdoutError: { c.failedWrites > 0 ? stdoutFails : nil },
        readStdinLine: { () throws(CLIError) -> [UInt8]? in lines.isEmpty ? nil : lines.removeFirst() })
    ctx.system = system
    let code = BeaconTX.run(raw: args, ctx)
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

// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTool

/// One in-process `beacon-tx` run with captured output and no Bluetooth (every live command gets
/// "no Bluetooth in the kernel", exit 69), for the CLI harnesses.
public struct ToolRun {
    public var code: Int32
    public var stdout: [UInt8] = []
    public var stderrLines: [String] = []

    public init(_ arguments: [[UInt8]], stdin: [[UInt8]] = []) {
        final class Box: @unchecked Sendable {
            var out: [UInt8] = []
            var err: [String] = []
            var stdin: [[UInt8]] = []
        }
        let box = Box()
        box.stdin = stdin
        let ctx = ToolContext(
            stdout: { box.out += Array(($0 + "\n").utf8) },
            stderr: { box.err.append($0) },
            stdoutBytes: { box.out += $0 },
            stdoutIsTerminal: false,
            makeHost: { () throws(TransportError) -> HCIHost in throw .bluetoothUnsupported },
            monotonicMilliseconds: { 0 },
            wallClockSeconds: { 1_800_000_000 },
            readStdinLine: { () throws(CLIError) -> [UInt8]? in box.stdin.isEmpty ? nil : box.stdin.removeFirst() })
        code = BeaconTX.run(raw: arguments, ctx)
        stdout = box.out
        stderrLines = box.err
    }

    /// The invariants every run keeps, whatever the input: a sysexits code or a verdict (1: `verify`
    /// and `start --check` differ, a `doctor` check failed, as it does with no Bluetooth; 3: nothing
    /// on air); every stderr line starts with `beacon-tx`, is printable and bounded; a failure prints
    /// at least one line on stderr; text on stdout is printable (binary btsnoop aside).
    public func checkCommonInvariants(_ context: @autoclosure () -> String) {
        require([0, 1, 3, 64, 65, 66, 69, 70, 73, 74, 77].contains(code), "exit \(code): \(context())")
        for line in stderrLines {
            require(line.hasPrefix("beacon-tx"), "stderr line without the program name: \(line.debugDescription) (\(context()))")
            require(line.unicodeScalars.allSatisfy(isPrintable), "unprintable on stderr: \(line.debugDescription) (\(context()))")
            require(line.utf8.count <= 1200, "unbounded error line (\(line.utf8.count) bytes): \(context())")
        }
        if ![0, 1, 3].contains(code) {
            require(!stderrLines.isEmpty, "exit \(code) without a message: \(context())")
        }
        if !stdout.starts(with: Array("btsnoop\0".utf8)) {
            let text = String(decoding: stdout, as: UTF8.self)
            require(text.unicodeScalars.allSatisfy { $0 == "\n" || isPrintable($0) }, "unprintable on stdout: \(text.debugDescription.prefix(300)) (\(context()))")
        }
    }
}

/// Printable as beacon-tx defines it: no C0/C1 controls or DEL, no line/paragraph separators, no
/// bidi controls, no BOM (U+FFFD, the replacement character, is printable).
public func isPrintable(_ u: Unicode.Scalar) -> Bool {
    switch u.value {
    case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0xFEFF: return false
    default: return true
    }
}

/// Splits fuzz input into at most `limit` arguments at NUL bytes.
public func arguments(_ input: [UInt8], limit: Int = 16) -> [[UInt8]] {
    Array(input.split(separator: 0, maxSplits: limit - 1, omittingEmptySubsequences: false).map(Array.init).prefix(limit))
}

// SPDX-License-Identifier: Apache-2.0
import CFuzzerDriver

nonisolated(unsafe) private var currentBody: ([UInt8]) -> Void = { _ in }

/// Runs libFuzzer with `body` as the test function; returns libFuzzer's exit code. A failed
/// `require` or any Swift trap is a crash libFuzzer reports (and saves as crash-<sha1>).
public func fuzzMain(_ body: @escaping ([UInt8]) -> Void) -> Int32 {
    currentBody = body
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        let bytes = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
        currentBody(bytes)
        return 0
    }
}

/// An invariant of the code under test: when it does not hold, the input is a finding.
public func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
                    file: StaticString = #fileID, line: UInt = #line) {
    if !condition() { fatalError("invariant failed: \(message())", file: file, line: line) }
}

// SPDX-License-Identifier: Apache-2.0
/// One field that differs between an expected and an actual command, named as the spec names it
/// (`Advertising_Interval_Min`, `Advertising_Handle[0]`) or, inside iBeacon data, `iBeacon minor`.
public struct FieldDifference: Hashable, Sendable, CustomStringConvertible {
    /// The command's spec name: `LE Set Advertising Data`.
    public let command: String
    public let field: String
    public let expected: String
    public let actual: String

    public init(command: String, field: String, expected: String, actual: String) {
        self.command = command
        self.field = field
        self.expected = expected
        self.actual = actual
    }

    /// `LE Set Advertising Data: iBeacon minor 2 ≠ 3` (expected first).
    public var description: String { "\(command): \(field) \(expected) ≠ \(actual)" }
}

/// Field by field comparison of commands and of command sequences (`start --check`, `verify`).
public enum CommandDiff {
    /// The fields in which `actual` differs from `expected`; empty when the packets are equal.
    public static func differences(expected: HCICommand, actual: HCICommand) -> [FieldDifference] {
        guard expected != actual else { return [] }
        let name = actual.opcode.name ?? "Unknown command \(Hex.word(actual.opcode.rawValue))"
        guard expected.opcode == actual.opcode else {
            return [FieldDifference(command: name, field: "opcode",
                                    expected: "\(expected.opcode.name ?? "Unknown") (\(Hex.word(expected.opcode.rawValue)))",
                                    actual: "\(name) (\(Hex.word(actual.opcode.rawValue)))")]
        }
        guard let d = CommandTable.description(actual.opcode),
              let e = try? d.decodeParameters(expected.parameters),
              let a = try? d.decodeParameters(actual.parameters) else {
            return [FieldDifference(command: name, field: "parameters",
                                    expected: Hex.encode(expected.parameters), actual: Hex.encode(actual.parameters))]
        }
        return differences(name, expected: HCIFieldValue.leaves(e, d.parameters), actual: HCIFieldValue.leaves(a, d.parameters))
    }

    /// Leaves compared by name, in the actual command's order; a leaf only one side has (a repeated
    /// group of another size) shows as `absent` on the other.
    static func differences(_ command: String, expected: [HCIFieldValue], actual: [HCIFieldValue]) -> [FieldDifference] {
        var out: [FieldDifference] = []
        let byName = Dictionary(expected.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let actualNames = Set(actual.map(\.name))
        for leaf in actual {
            guard let other = byName[leaf.name] else {
                out.append(FieldDifference(command: command, field: leaf.name, expected: "absent", actual: text(leaf)))
                continue
            }
            out += differences(command, expected: other, actual: leaf)
        }
        for leaf in expected where !actualNames.contains(leaf.name) {
            out.append(FieldDifference(command: command, field: leaf.name, expected: text(leaf), actual: "absent"))
        }
        return out
    }

    static func differences(_ command: String, expected: HCIFieldValue, actual: HCIFieldValue) -> [FieldDifference] {
        guard expected.value != actual.value else { return [] }
        if case .lengthPrefixed = actual.field.width, let e = expected.value.bytes, let a = actual.value.bytes {
            let beacon = iBeaconDifferences(command, expected: e, actual: a)
            if !beacon.isEmpty { return beacon }
        }
        return [FieldDifference(command: command, field: actual.name, expected: text(expected), actual: text(actual))]
    }

    /// `iBeacon minor 2 ≠ 3`, … when both sides carry an iBeacon; empty otherwise, or when the
    /// beacons are equal (then the data differs elsewhere and is shown whole).
    static func iBeaconDifferences(_ command: String, expected: [UInt8], actual: [UInt8]) -> [FieldDifference] {
        guard let e = IBeacon(advertisingData: expected), let a = IBeacon(advertisingData: actual) else { return [] }
        return iBeaconDifferences(command, expected: e, actual: a)
    }

    /// The iBeacon fields in which `actual` differs from `expected` (`verify` compares the
    /// configured beacon with the one found in a capture this way too).
    static func iBeaconDifferences(_ command: String, expected e: IBeacon, actual a: IBeacon) -> [FieldDifference] {
        BeaconFrame.iBeacon(e).differences(command, actual: .iBeacon(a))
    }

    /// A leaf's value as compared: `0x00a0` (the field's width), `-8` (signed), hex for octet runs and data.
    public static func text(_ leaf: HCIFieldValue) -> String {
        switch leaf.value {
        case let .integer(v): return leaf.field.integerText(v)
        case let .bytes(b): return b.isEmpty ? "(none)" : Hex.encode(b)
        case let .entries(entries): return "\(entries.count) entries"
        }
    }

    /// How an actual command sequence differs from an expected one.
    public enum Step: Hashable, Sendable {
        /// The expected command at `expectedIndex` has no counterpart.
        case missing(expectedIndex: Int, HCICommand)
        /// The actual command at `actualIndex` has no counterpart.
        case extra(actualIndex: Int, HCICommand)
        /// The same command in both, with different fields.
        case changed(actualIndex: Int, [FieldDifference])
    }

    /// Commands paired by the longest common run of opcodes (so one missing command is named as
    /// missing, not as every later command changed), then paired commands compared field by field.
    public static func compare(expected: [HCICommand], actual: [HCICommand]) -> [Step] {
        let n = expected.count, m = actual.count
        // lcs[i][j]: the longest common opcode run of expected[i...] and actual[j...].
        var lcs = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                lcs[i][j] = expected[i].opcode == actual[j].opcode ? lcs[i + 1][j + 1] + 1 : max(lcs[i + 1][j], lcs[i][j + 1])
            }
        }
        var steps: [Step] = []
        var i = 0, j = 0
        while i < n || j < m {
            if i < n, j < m, expected[i].opcode == actual[j].opcode, lcs[i][j] == lcs[i + 1][j + 1] + 1 {
                let d = differences(expected: expected[i], actual: actual[j])
                if !d.isEmpty { steps.append(.changed(actualIndex: j, d)) }
                i += 1
                j += 1
            } else if j < m, i == n || lcs[i][j + 1] >= lcs[i + 1][j] {
                steps.append(.extra(actualIndex: j, actual[j]))
                j += 1
            } else {
                steps.append(.missing(expectedIndex: i, expected[i]))
                i += 1
            }
        }
        return steps
    }
}

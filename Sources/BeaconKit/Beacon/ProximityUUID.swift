// SPDX-License-Identifier: Apache-2.0
/// A 128-bit UUID kept as 16 bytes in spec (big-endian, RFC 4122) order, parsed without Foundation.
public struct ProximityUUID: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// Exactly 16 bytes, or nil.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// What `init(_:)` accepts, for error messages (one wording for flags, regions and config keys).
    public static let acceptedForms = "32 hex digits, with all four dashes (8-4-4-4-12) or none, any case, e.g. E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"

    /// Accepts `E2C56DB5-DFFB-48D2-B060-D0F5A71096E0` with or without dashes, any case.
    /// Dashes, when present, must sit at the canonical 8-4-4-4-12 positions.
    public init?(_ text: String) {
        let t = text.trimmingWhitespace()
        let scalars = Array(t.unicodeScalars)
        let hasDashes = scalars.contains("-")
        if hasDashes {
            guard scalars.count == 36 else { return nil }
            for (i, s) in scalars.enumerated() where [8, 13, 18, 23].contains(i) != (s == "-") { return nil }
        } else if scalars.count != 32 {
            return nil
        }
        var out: [UInt8] = []
        var high: UInt8?
        for s in scalars where s != "-" {
            guard let v = Hex.nibble(s) else { return nil }
            if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
        }
        guard out.count == 16 else { return nil }
        bytes = out
    }

    /// Canonical uppercase 8-4-4-4-12 text, as CoreLocation prints it.
    public var description: String {
        let h = Hex.encode(bytes, uppercase: true)
        let c = Array(h)
        return [c[0..<8], c[8..<12], c[12..<16], c[16..<20], c[20..<32]].map { String($0) }.joined(separator: "-")
    }
}

/// Hex text <-> bytes, for dry-run output, the `decode` command and golden vectors.
public enum Hex {
    private static let digits: [Character] = Array("0123456789abcdef")

    /// Lowercase hex without separators, e.g. `01030c00`.
    public static func encode<S: Sequence>(_ bytes: S, separator: String = "") -> String where S.Element == UInt8 {
        var parts: [String] = []
        for b in bytes { parts.append(String([digits[Int(b >> 4)], digits[Int(b & 0x0f)]])) }
        return parts.joined(separator: separator)
    }

    /// Parses hex, ignoring spaces, colons, dashes and an optional `0x` prefix.
    /// Returns nil for an odd number of digits or a non-hex character.
    public static func decode(_ text: String) -> [UInt8]? {
        var t = Substring(text.trimmingWhitespace())
        if t.hasPrefix("0x") || t.hasPrefix("0X") { t = t.dropFirst(2) }
        var out: [UInt8] = []
        var high: UInt8?
        for ch in t.unicodeScalars {
            if ch == " " || ch == ":" || ch == "-" || ch == "\n" || ch == "\t" { continue }
            guard let v = nibble(ch) else { return nil }
            if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
        }
        return high == nil ? out : nil
    }

    static func nibble(_ c: Unicode.Scalar) -> UInt8? {
        switch c.value {
        case 0x30...0x39: return UInt8(c.value - 0x30)
        case 0x61...0x66: return UInt8(c.value - 0x61 + 10)
        case 0x41...0x46: return UInt8(c.value - 0x41 + 10)
        default: return nil
        }
    }

    /// `0x0c`-style text of one byte.
    public static func byte(_ b: UInt8) -> String { "0x" + encode([b]) }

    /// `0x2008`-style text of a 16-bit value.
    public static func word(_ w: UInt16) -> String { "0x" + encode([UInt8(w >> 8), UInt8(w & 0xff)]) }
}

extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}

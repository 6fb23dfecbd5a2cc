// SPDX-License-Identifier: Apache-2.0
/// Hex text <-> bytes, for dry-run output, the `decode` command and golden vectors.
public enum Hex {
    private static let lower: [UInt8] = Array("0123456789abcdef".utf8)
    private static let upper: [UInt8] = Array("0123456789ABCDEF".utf8)
    /// `0`…`9`, `A`…`F` as ASCII.
    static let upperDigits: [UInt8] = upper

    /// Lowercase hex, e.g. `01030c00`; `separator` goes between bytes (`"01 03 0c 00"`).
    public static func encode<S: Sequence>(_ bytes: S, separator: String = "", uppercase: Bool = false) -> String where S.Element == UInt8 {
        let digits = uppercase ? upper : lower
        let sep = Array(separator.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * (2 + sep.count))
        for b in bytes {
            if !out.isEmpty { out += sep }
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Parses hex as people paste it: separators between digits may be spaces, tabs, colons,
    /// dashes and line ends (LF or CRLF; a lone CR is not a line end), between bytes, never inside
    /// one; one `0x` prefix may lead.
    /// Returns nil for an odd number of digits or any other character.
    public static func decode(_ text: String) -> [UInt8]? {
        var t = Substring(text.trimmingWhitespace())
        if t.hasPrefix("0x") || t.hasPrefix("0X") { t = t.dropFirst(2) }
        var out: [UInt8] = []
        var high: UInt8?
        var afterCR = false
        for ch in t.unicodeScalars {
            if afterCR {
                guard ch == "\n" else { return nil }
                afterCR = false
                continue
            }
            if ch == "\r" || ch == " " || ch == ":" || ch == "-" || ch == "\n" || ch == "\t" {
                guard high == nil else { return nil }   // separators go between bytes, not inside one
                afterCR = ch == "\r"
                continue
            }
            guard let v = nibble(ch) else { return nil }
            if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
        }
        return high == nil && !afterCR ? out : nil
    }

    /// The value of one hex digit, or nil.
    public static func nibble(_ c: Unicode.Scalar) -> UInt8? {
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

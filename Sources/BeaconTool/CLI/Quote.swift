// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// How user input appears in messages and output: unprintable characters escaped, at most a
/// bounded prefix. Every error that quotes a flag value, a config key or value, a path or a
/// `decode` argument goes through here, so a newline or an escape sequence in input can never
/// reach stdout or stderr raw, and a megabyte argument cannot become a megabyte error line.
enum Quote {
    /// A quote of user input shows at most this many characters, escapes included (`\u{1b}`
    /// counts 6); longer input ends in `…`.
    static let limit = 80

    /// `'value'`, escaped and bounded.
    static func user(_ s: String) -> String { "'" + escaped(s) + "'" }

    /// The text escaped and bounded, without quotes.
    static func escaped(_ s: String, limit: Int = limit) -> String {
        var out = ""
        var count = 0
        for u in s.unicodeScalars {
            let e = escape(u)
            count += e.unicodeScalars.count
            if count > limit { return out + "…" }
            out += e
        }
        return out
    }

    /// Raw argument or path bytes: valid UTF-8 as text, other bytes as `\xNN`; escaped and bounded.
    static func bytes(_ b: [UInt8], limit: Int = limit) -> String {
        var out = ""
        var count = 0
        var i = 0
        while i < b.count {
            let e: String, width: Int
            if let (scalar, w) = decodeScalar(b, at: i) {
                (e, width) = (escape(scalar), w)
            } else {
                (e, width) = ("\\x" + Hex.encode([b[i]]), 1)
            }
            count += e.unicodeScalars.count
            if count > limit { return out + "…" }
            out += e
            i += width
        }
        return out
    }

    /// A whole message with any unprintable character escaped (backslashes kept as they are): the
    /// last line of defence for error lines, whose user-input parts are already quoted.
    static func sanitized(_ message: String) -> String {
        guard firstUnprintable(message) != nil else { return message }
        var out = ""
        for u in message.unicodeScalars { out += isPrintable(u) ? String(u) : escape(u) }
        return out
    }

    /// Whether a character may be printed raw: not a C0/C1 control or DEL, not a line or paragraph
    /// separator, not a bidirectional formatting character (which can reorder a terminal line).
    static func isPrintable(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x00...0x1F, 0x7F...0x9F: return false
        case 0x2028, 0x2029: return false
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return false
        case 0xFEFF: return false
        default: return true
        }
    }

    /// The first unprintable character of `s`, if any.
    static func firstUnprintable(_ s: String) -> Unicode.Scalar? { s.unicodeScalars.first { !isPrintable($0) } }

    /// `U+000A`-style name of a scalar.
    static func codePoint(_ u: Unicode.Scalar) -> String {
        let h = String(u.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - h.count)) + h
    }

    static func escape(_ u: Unicode.Scalar) -> String {
        switch u {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        case "\\": return "\\\\"
        default:
            if isPrintable(u) { return String(u) }
            return "\\u{" + String(u.value, radix: 16) + "}"
        }
    }

    /// One UTF-8 scalar at `i` (shortest form, no surrogates), or nil for an invalid sequence.
    static func decodeScalar(_ b: [UInt8], at i: Int) -> (Unicode.Scalar, Int)? {
        let lead = b[i]
        let width: Int, minimum: UInt32
        var value: UInt32
        switch lead {
        case 0x00...0x7F: return (Unicode.Scalar(lead), 1)
        case 0xC2...0xDF: width = 2; minimum = 0x80; value = UInt32(lead & 0x1F)
        case 0xE0...0xEF: width = 3; minimum = 0x800; value = UInt32(lead & 0x0F)
        case 0xF0...0xF4: width = 4; minimum = 0x10000; value = UInt32(lead & 0x07)
        default: return nil
        }
        guard i + width <= b.count else { return nil }
        for k in 1..<width {
            let c = b[i + k]
            guard c & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(c & 0x3F)
        }
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, width)
    }
}

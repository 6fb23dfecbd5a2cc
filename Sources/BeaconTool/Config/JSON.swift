// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// A small JSON reader and writer for config files and `--json` output, without Foundation
/// (the start path stays light). The reader is RFC 8259 plus `//` and `/* */` comments, trailing
/// commas and one leading byte order mark, and reports errors with line and column.
public indirect enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    /// Keys keep their order.
    case object([(String, JSON)])

    public static func == (a: JSON, b: JSON) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return x == y
        case let (.string(x), .string(y)): return x == y
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)): return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    public subscript(key: String) -> JSON? {
        if case let .object(pairs) = self { return pairs.first { $0.0 == key }?.1 }
        return nil
    }

    /// What kind of value this is, for error messages.
    public var kind: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "a list"
        case .object: return "an object"
        }
    }

    // MARK: writing

    /// Compact one-line JSON (JSON Lines friendly).
    public var compact: String {
        var out = ""
        write(to: &out, indent: nil, level: 0)
        return out
    }

    /// Indented JSON, two spaces.
    public var pretty: String {
        var out = ""
        write(to: &out, indent: "  ", level: 0)
        return out
    }

    private func write(to out: inout String, indent: String?, level: Int) {
        let nl = indent == nil ? "" : "\n"
        let pad = { (l: Int) in String(repeating: indent ?? "", count: l) }
        switch self {
        case .null: out += "null"
        case let .bool(b): out += b ? "true" : "false"
        case let .number(n): out += JSON.format(n)
        case let .string(s): out += JSON.quote(s)
        case let .array(items):
            if items.isEmpty { out += "[]"; return }
            out += "[" + nl
            for (i, item) in items.enumerated() {
                out += pad(level + 1)
                item.write(to: &out, indent: indent, level: level + 1)
                out += (i + 1 < items.count ? "," : "") + nl
            }
            out += pad(level) + "]"
        case let .object(pairs):
            if pairs.isEmpty { out += "{}"; return }
            out += "{" + nl
            for (i, (k, v)) in pairs.enumerated() {
                out += pad(level + 1) + JSON.quote(k) + (indent == nil ? ":" : ": ")
                v.write(to: &out, indent: indent, level: level + 1)
                out += (i + 1 < pairs.count ? "," : "") + nl
            }
            out += pad(level) + "}"
        }
    }

    static func format(_ n: Double) -> String {
        guard n.isFinite else { return "null" }
        if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
        return String(n)
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if !Quote.isPrintable(u) {
                    // Controls, DEL, line separators and bidi controls never reach output raw.
                    out += "\\u" + Hex.encode([UInt8(u.value >> 8), UInt8(u.value & 0xFF)])
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }

    // MARK: reading

    /// Parses JSON text as RFC 8259 defines it, with three documented extensions for hand-written
    /// config files: `//` and `/* */` comments, a trailing comma before `]` or `}`, and one UTF-8
    /// byte order mark at the very start. Everything else is strict: numbers follow the RFC grammar
    /// (no leading zeros, no `1.`, no `.5`, no `+1`) and must fit a double, `\u` takes exactly four
    /// hex digits and surrogates must come in pairs, the text must be UTF-8, keys must be unique.
    public static func parse(bytes: [UInt8]) throws(JSONParseError) -> JSON {
        var p = Parser(bytes)
        p.skipSpace()
        let value = try p.value(depth: 0)
        p.skipSpace()
        guard !p.unterminatedComment else { throw p.error("unterminated /* comment") }
        guard p.i == p.b.count else { throw p.error("unexpected text after the JSON value") }
        return value
    }

    public static func parse(_ text: String) throws(JSONParseError) -> JSON { try parse(bytes: Array(text.utf8)) }

    struct Parser {
        let b: [UInt8]
        var i = 0
        var unterminatedComment = false
        /// Skips one UTF-8 byte order mark.
        init(_ b: [UInt8]) {
            self.b = b
            if b.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        }

        func error(_ message: String, at position: Int? = nil) -> JSONParseError {
            // A /* comment that never ends swallowed the rest of the file: that is the error.
            let message = unterminatedComment && position == nil ? "unterminated /* comment" : message
            var line = 1, column = 1
            for c in b[0..<min(position ?? i, b.count)] { if c == 0x0A { line += 1; column = 1 } else { column += 1 } }
            return JSONParseError(message: message, line: line, column: column)
        }

        var peek: UInt8? { i < b.count ? b[i] : nil }

        mutating func skipSpace() {
            while i < b.count {
                switch b[i] {
                case 0x20, 0x09, 0x0A, 0x0D: i += 1
                case 0x2F where i + 1 < b.count && b[i + 1] == 0x2F:
                    while i < b.count && b[i] != 0x0A { i += 1 }
                case 0x2F where i + 1 < b.count && b[i + 1] == 0x2A:
                    i += 2
                    while i + 1 < b.count && !(b[i] == 0x2A && b[i + 1] == 0x2F) { i += 1 }
                    if i + 1 >= b.count { unterminatedComment = true; i = b.count; return }
                    i += 2
                default: return
                }
            }
        }

        mutating func expect(_ c: UInt8, _ what: String) throws(JSONParseError) {
            skipSpace()
            guard peek == c else { throw error("expected \(what)") }
            i += 1
        }

        /// The character at `i` for a message: escaped, or `byte 0xNN` when it is not UTF-8.
        func describeCharacter() -> String {
            guard i < b.count else { return "end of file" }
            if let (scalar, _) = Quote.decodeScalar(b, at: i) { return "character " + Quote.user(String(scalar)) }
            return "byte \(Hex.byte(b[i])) (not UTF-8)"
        }

        mutating func value(depth: Int) throws(JSONParseError) -> JSON {
            guard depth < 64 else { throw error("nested too deeply") }
            skipSpace()
            guard let c = peek else { throw error("unexpected end of file") }
            switch c {
            case 0x7B: return try object(depth: depth)
            case 0x5B: return try array(depth: depth)
            case 0x22: return .string(try string())
            case 0x74: return try literal("true", .bool(true))
            case 0x66: return try literal("false", .bool(false))
            case 0x6E: return try literal("null", .null)
            case 0x2D, 0x30...0x39: return .number(try number())
            default: throw error("unexpected \(describeCharacter())")
            }
        }

        mutating func literal(_ word: String, _ v: JSON) throws(JSONParseError) -> JSON {
            let w = Array(word.utf8)
            guard i + w.count <= b.count, Array(b[i..<(i + w.count)]) == w else { throw error("invalid literal (accepted: true, false, null)") }
            i += w.count
            return v
        }

        /// RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, and finite as a double.
        mutating func number() throws(JSONParseError) -> Double {
            let start = i
            // The whole token as the user wrote it (for messages), then the grammar over it.
            var end = i
            while end < b.count, (0x30...0x39).contains(b[end]) || [0x2E, 0x65, 0x45, 0x2B, 0x2D].contains(b[end]) { end += 1 }
            let token = Array(b[start..<end])
            let text = String(decoding: token, as: UTF8.self)
            func digits(_ k: inout Int) -> Int {
                let s = k
                while k < token.count, (0x30...0x39).contains(token[k]) { k += 1 }
                return k - s
            }
            var k = 0
            if k < token.count, token[k] == 0x2D { k += 1 }
            let intStart = k
            let intDigits = digits(&k)
            var problem: String?
            if intDigits == 0 {
                problem = "digits must come before any '.'"
            } else if intDigits > 1 && token[intStart] == 0x30 {
                problem = "no leading zeros"
            }
            if problem == nil, k < token.count, token[k] == 0x2E {
                k += 1
                if digits(&k) == 0 { problem = "digits must follow '.'" }
            }
            if problem == nil, k < token.count, token[k] == 0x65 || token[k] == 0x45 {
                k += 1
                if k < token.count, token[k] == 0x2B || token[k] == 0x2D { k += 1 }
                if digits(&k) == 0 { problem = "digits must follow the exponent" }
            }
            if problem == nil, k != token.count { problem = "unexpected '\(String(decoding: token[k...k], as: UTF8.self))'" }
            if let problem { throw error("invalid number \(Quote.user(text)): \(problem)", at: start) }
            guard let d = Double(text) else { throw error("invalid number \(Quote.user(text))", at: start) }
            guard d.isFinite else {
                throw error("number \(Quote.user(text)) is out of range (a double holds at most ±1.7976931348623157e308)", at: start)
            }
            i = end
            return d
        }

        mutating func string() throws(JSONParseError) -> String {
            i += 1
            var out: [UInt8] = []
            while true {
                guard let c = peek else { throw error("unterminated string") }
                if c == 0x22 { i += 1; break }
                if c == 0x5C {
                    let escapeStart = i
                    i += 1
                    guard let e = peek else { throw error("unterminated string") }
                    i += 1
                    switch e {
                    case 0x22, 0x5C, 0x2F: out.append(e)
                    case 0x6E: out.append(0x0A)
                    case 0x74: out.append(0x09)
                    case 0x72: out.append(0x0D)
                    case 0x62: out.append(0x08)
                    case 0x66: out.append(0x0C)
                    case 0x75:
                        var v = try hex4()
                        if (0xDC00..<0xE000).contains(v) {
                            throw error("unpaired low surrogate \\u\(hexText(v)) (a surrogate pair is \\uD800–\\uDBFF then \\uDC00–\\uDFFF)", at: escapeStart)
                        }
                        if (0xD800..<0xDC00).contains(v) {
                            // A UTF-16 surrogate pair (\uD83D\uDE00) is one scalar; the next escape
                            // is taken only when it is the low half.
                            guard i + 6 <= b.count, b[i] == 0x5C, b[i + 1] == 0x75,
                                  let low = Self.hex4(b, i + 2), (0xDC00..<0xE000).contains(low) else {
                                throw error("unpaired high surrogate \\u\(hexText(v)) (a surrogate pair is \\uD800–\\uDBFF then \\uDC00–\\uDFFF)", at: escapeStart)
                            }
                            i += 6
                            v = 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let scalar = Unicode.Scalar(v) else { throw error("invalid \\u escape", at: escapeStart) }
                        out += Array(String(scalar).utf8)
                    default:
                        throw error("invalid escape \(Quote.user("\\" + String(decoding: [e], as: UTF8.self))) (accepted: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)", at: escapeStart)
                    }
                } else if c < 0x20 {
                    throw error("control character \(Hex.byte(c)) in string (write it as an escape)")
                } else if c < 0x80 {
                    out.append(c)
                    i += 1
                } else {
                    guard let (_, width) = Quote.decodeScalar(b, at: i) else { throw error("invalid UTF-8 byte \(Hex.byte(c)) in string") }
                    out += b[i..<(i + width)]
                    i += width
                }
            }
            return String(decoding: out, as: UTF8.self)
        }

        func hexText(_ v: UInt32) -> String { Hex.encode([UInt8(v >> 8), UInt8(v & 0xFF)], uppercase: true) }

        /// Exactly four hex digits at `at` (no sign, no prefix), or nil.
        static func hex4(_ b: [UInt8], _ at: Int) -> UInt32? {
            guard at + 4 <= b.count else { return nil }
            var v: UInt32 = 0
            for k in at..<(at + 4) {
                guard let n = Hex.nibble(Unicode.Scalar(b[k])) else { return nil }
                v = v << 4 | UInt32(n)
            }
            return v
        }

        /// Four hex digits after `\\u`.
        mutating func hex4() throws(JSONParseError) -> UInt32 {
            guard let v = Self.hex4(b, i) else { throw error("invalid \\u escape (accepted: \\u and exactly four hex digits)") }
            i += 4
            return v
        }

        mutating func array(depth: Int) throws(JSONParseError) -> JSON {
            i += 1
            var items: [JSON] = []
            while true {
                skipSpace()
                if peek == 0x5D { i += 1; return .array(items) }
                items.append(try value(depth: depth + 1))
                skipSpace()
                if peek == 0x2C { i += 1; continue }
                try expect(0x5D, "',' or ']'")
                return .array(items)
            }
        }

        /// Linear in the number of keys: the duplicate check is a hash set, not a scan.
        mutating func object(depth: Int) throws(JSONParseError) -> JSON {
            i += 1
            var pairs: [(String, JSON)] = []
            var seen = Set<String>()
            while true {
                skipSpace()
                if peek == 0x7D { i += 1; return .object(pairs) }
                guard peek == 0x22 else { throw error("expected a quoted key") }
                let keyStart = i
                let key = try string()
                guard seen.insert(key).inserted else { throw error("duplicate key \("\"" + Quote.escaped(key) + "\"")", at: keyStart) }
                try expect(0x3A, "':' after key \("\"" + Quote.escaped(key) + "\"")")
                pairs.append((key, try value(depth: depth + 1)))
                skipSpace()
                if peek == 0x2C { i += 1; continue }
                try expect(0x7D, "',' or '}'")
                return .object(pairs)
            }
        }
    }
}

public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public let line: Int
    public let column: Int
    public var description: String { "line \(line), column \(column): \(message)" }
}

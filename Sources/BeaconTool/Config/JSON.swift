/// A small JSON reader and writer for config files and `--json` output, without Foundation
/// (the start path stays light; DESIGN §4). The reader accepts `//` and `/* */` comments and
/// trailing commas, and reports errors with line and column.
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
                if u.value < 0x20 {
                    let h = Array("0123456789abcdef")
                    out += "\\u00" + String(h[Int(u.value >> 4)]) + String(h[Int(u.value & 0xf)])
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }

    // MARK: reading

    public static func parse(_ text: String) throws(JSONParseError) -> JSON {
        var p = Parser(Array(text.utf8))
        p.skipSpace()
        let value = try p.value(depth: 0)
        p.skipSpace()
        guard !p.unterminatedComment else { throw p.error("unterminated /* comment") }
        guard p.i == p.b.count else { throw p.error("unexpected text after the JSON value") }
        return value
    }

    struct Parser {
        let b: [UInt8]
        var i = 0
        var unterminatedComment = false
        /// Skips a UTF-8 byte order mark.
        init(_ b: [UInt8]) {
            self.b = b
            if b.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        }

        func error(_ message: String) -> JSONParseError {
            var line = 1, column = 1
            for c in b[0..<min(i, b.count)] { if c == 0x0A { line += 1; column = 1 } else { column += 1 } }
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
            default: throw error("unexpected character '\(Character(Unicode.Scalar(c)))'")
            }
        }

        mutating func literal(_ word: String, _ v: JSON) throws(JSONParseError) -> JSON {
            let w = Array(word.utf8)
            guard i + w.count <= b.count, Array(b[i..<(i + w.count)]) == w else { throw error("invalid literal") }
            i += w.count
            return v
        }

        mutating func number() throws(JSONParseError) -> Double {
            let start = i
            if peek == 0x2D { i += 1 }
            while let c = peek, (0x30...0x39).contains(c) || c == 0x2E || c == 0x65 || c == 0x45 || c == 0x2B || c == 0x2D { i += 1 }
            let text = String(decoding: b[start..<i], as: UTF8.self)
            guard let d = Double(text) else { throw error("invalid number '\(text)'") }
            return d
        }

        mutating func string() throws(JSONParseError) -> String {
            i += 1
            var out: [UInt8] = []
            while true {
                guard let c = peek else { throw error("unterminated string") }
                i += 1
                if c == 0x22 { break }
                if c == 0x5C {
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
                        // A UTF-16 surrogate pair (\uD83D\uDE00) is one scalar.
                        if (0xD800..<0xDC00).contains(v), i + 6 <= b.count, b[i] == 0x5C, b[i + 1] == 0x75 {
                            i += 2
                            let low = try hex4()
                            v = (0xDC00..<0xE000).contains(low) ? 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00) : 0xFFFD
                        }
                        out += Array(String(Unicode.Scalar(v).map(Character.init) ?? "\u{FFFD}").utf8)
                    default: throw error("invalid escape")
                    }
                } else if c < 0x20 {
                    throw error("control character in string")
                } else {
                    out.append(c)
                }
            }
            return String(decoding: out, as: UTF8.self)
        }

        /// Four hex digits after `\\u`.
        mutating func hex4() throws(JSONParseError) -> UInt32 {
            guard i + 4 <= b.count, let v = UInt32(String(decoding: b[i..<(i + 4)], as: UTF8.self), radix: 16) else {
                throw error("invalid \\u escape")
            }
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

        mutating func object(depth: Int) throws(JSONParseError) -> JSON {
            i += 1
            var pairs: [(String, JSON)] = []
            while true {
                skipSpace()
                if peek == 0x7D { i += 1; return .object(pairs) }
                guard peek == 0x22 else { throw error("expected a quoted key") }
                let key = try string()
                guard !pairs.contains(where: { $0.0 == key }) else { throw error("duplicate key \"\(key)\"") }
                try expect(0x3A, "':' after key \"\(key)\"")
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

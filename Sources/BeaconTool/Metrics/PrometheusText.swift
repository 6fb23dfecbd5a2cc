// SPDX-License-Identifier: Apache-2.0
/// The Prometheus text exposition format (version 0.0.4), as node_exporter's textfile collector
/// reads it: per metric family one `# HELP`, one `# TYPE`, then its samples, one per line.
///
/// - Names are `[a-zA-Z_:][a-zA-Z0-9_:]*`, label names `[a-zA-Z_][a-zA-Z0-9_]*` (callers pass
///   literals; `isValidName` is for the tests).
/// - Label values escape `\`, `"` and line feeds; HELP text escapes `\` and line feeds.
/// - Values: integers without a fraction, other numbers as Swift's shortest round-trip text,
///   `NaN`, `+Inf`, `-Inf`.
/// No timestamps on samples: the textfile collector refuses them.
struct PrometheusFamily: Equatable {
    enum Kind: String { case gauge, counter }

    struct Sample: Equatable {
        var labels: [(String, String)]
        var value: Double

        init(_ labels: [(String, String)] = [], _ value: Double) {
            self.labels = labels
            self.value = value
        }

        static func == (a: Sample, b: Sample) -> Bool {
            a.value == b.value && a.labels.map(\.0) == b.labels.map(\.0) && a.labels.map(\.1) == b.labels.map(\.1)
        }
    }

    var name: String
    var help: String
    var kind: Kind
    var samples: [Sample]

    init(_ name: String, _ kind: Kind, _ help: String, _ samples: [Sample]) {
        self.name = name
        self.kind = kind
        self.help = help
        self.samples = samples
    }
}

enum PrometheusText {
    /// The whole file: every family with at least one sample, in the order given.
    static func render(_ families: [PrometheusFamily]) -> String {
        var out = ""
        for f in families where !f.samples.isEmpty {
            out += "# HELP \(f.name) \(escapeHelp(f.help))\n"
            out += "# TYPE \(f.name) \(f.kind.rawValue)\n"
            for s in f.samples {
                out += f.name
                if !s.labels.isEmpty {
                    out += "{" + s.labels.map { "\($0.0)=\"\(escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
                }
                out += " " + value(s.value) + "\n"
            }
        }
        return out
    }

    /// A label value: backslash, double quote and line feed escaped.
    static func escapeLabel(_ s: String) -> String { escape(s, quotes: true) }

    /// HELP text: backslash and line feed escaped (quotes stay as they are).
    static func escapeHelp(_ s: String) -> String { escape(s, quotes: false) }

    private static func escape(_ s: String, quotes: Bool) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"" where quotes: out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    static func value(_ v: Double) -> String {
        if v.isNaN { return "NaN" }
        if v.isInfinite { return v > 0 ? "+Inf" : "-Inf" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return String(v)
    }

    /// A metric or label name as the format allows it (`label: true` forbids `:`).
    static func isValidName(_ s: String, label: Bool = false) -> Bool {
        guard let first = s.unicodeScalars.first else { return false }
        func letter(_ c: Unicode.Scalar) -> Bool { (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c == "_" || (!label && c == ":") }
        return letter(first) && s.unicodeScalars.allSatisfy { letter($0) || ($0 >= "0" && $0 <= "9") }
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// One option a subcommand accepts. `--help`, the man page and the shell completions are all
/// generated from these tables.
struct OptionSpec: Sendable {
    let name: String
    let value: String?      // placeholder when the option takes a value, nil for a flag
    let help: String
    var repeatable = false
    /// The value is a file name: kept as raw bytes for open(), never required to be UTF-8.
    var isPath = false
    /// The accepted values when they are a fixed list (offered by the shell completions).
    var choices: [String] = []

    static func flag(_ name: String, _ help: String) -> OptionSpec { OptionSpec(name: name, value: nil, help: help) }
    static func value(_ name: String, _ placeholder: String, _ help: String, repeatable: Bool = false,
                      choices: [String] = []) -> OptionSpec {
        OptionSpec(name: name, value: placeholder, help: help, repeatable: repeatable, choices: choices)
    }

    /// What the shells should offer for the value.
    var valueKind: ValueKind {
        guard let value else { return .none }
        if !choices.isEmpty { return .choices(choices) }
        if isPath { return .file }
        switch value {
        case "FILE": return .file
        case "hciN": return .device
        default: return .text(value)
        }
    }

    enum ValueKind: Equatable {
        case none               // a flag
        case file
        case device             // a controller name: hci0, hci1, ...
        case choices([String])
        case text(String)       // free text; the placeholder names it
    }
    static func path(_ name: String, _ placeholder: String, _ help: String, repeatable: Bool = false) -> OptionSpec {
        OptionSpec(name: name, value: placeholder, help: help, repeatable: repeatable, isPath: true)
    }
}

/// A file name exactly as given on the command line (bytes for open()) and how messages show it.
struct FilePath: Equatable, Sendable {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    init(_ text: String) { bytes = Array(text.utf8) }
    /// Escaped and bounded, for messages.
    var display: String { Quote.bytes(bytes) }
    /// `-`: stdin for --config, stdout for --output.
    var isDash: Bool { bytes == [0x2D] }
}

/// Parsed command line of one subcommand: `--name value`, `--name=value`, flags, positionals.
struct ParsedArguments {
    private(set) var values: [String: [String]] = [:]
    private(set) var paths: [String: FilePath] = [:]
    /// Every value of a repeatable path option, in order.
    private(set) var pathLists: [String: [FilePath]] = [:]
    private(set) var positionals: [String] = []
    /// Every value of the repeatable options, in command-line order (`--beacon` and `--altbeacon`
    /// mixed keep their order).
    private(set) var repeated: [(name: String, value: String)] = []
    /// The options the command declares: looking up any other name is a programming error (a
    /// misspelt flag would otherwise compile and silently read nothing), caught by every test that
    /// runs the command.
    private var declared: Set<String> = []

    init(_ args: [String], specs: [OptionSpec], command: String) throws(CLIError) {
        try self.init(raw: args.map { Array($0.utf8) }, specs: specs, command: command)
    }

    /// Arguments as the kernel passed them. Path values stay bytes; every other argument must be
    /// UTF-8 (a "repaired" value would silently mean something else).
    init(raw args: [[UInt8]], specs: [OptionSpec], command: String) throws(CLIError) {
        func text(_ bytes: [UInt8], _ what: @autoclosure () -> String) throws(CLIError) -> String {
            guard let s = String(validating: bytes, as: UTF8.self) else {
                throw .usage("\(what()): '\(Quote.bytes(bytes))' is not valid UTF-8")
            }
            return s
        }
        declared = Set(specs.map(\.name))
        var i = 0
        var onlyPositionals = false
        while i < args.count {
            let raw = args[i]
            i += 1
            let lossy = String(decoding: raw, as: UTF8.self)
            if onlyPositionals || !lossy.hasPrefix("-") || lossy == "-" || Self.isNegativeNumber(lossy) {
                positionals.append(try text(raw, "argument"))
                continue
            }
            if lossy == "--" { onlyPositionals = true; continue }
            var nameBytes = raw[...], inline: [UInt8]?
            if let eq = raw.firstIndex(of: 0x3D) {
                nameBytes = raw[..<eq]
                inline = Array(raw[(eq + 1)...])
            }
            var name = String(decoding: nameBytes, as: UTF8.self)
            if name == "-h" { name = "--help" }
            guard let spec = specs.first(where: { Array($0.name.utf8) == Array(nameBytes) || ($0.name == "--help" && name == "--help") }) else {
                throw .usage("unknown option \(Quote.bytes(Array(nameBytes))); see beacon-tx \(command) --help")
            }
            let value: [UInt8]
            if spec.value == nil {
                guard inline == nil else { throw .usage("\(name) takes no value") }
                value = Array("true".utf8)
            } else if let inline {
                value = inline
            } else {
                guard i < args.count else { throw .usage("\(name) needs a value (\(spec.value ?? "VALUE")); see beacon-tx \(command) --help") }
                value = args[i]
                i += 1
            }
            if !spec.repeatable, values[name] != nil {
                throw .usage("\(name) given more than once")
            }
            if spec.isPath {
                guard !value.isEmpty, !value.contains(0) else { throw .usage("\(name): empty file name") }
                paths[name] = FilePath(value)
                pathLists[name, default: []].append(FilePath(value))
                values[name, default: []].append(String(decoding: value, as: UTF8.self))
            } else {
                let t = try text(value, name)
                values[name, default: []].append(t)
                if spec.repeatable { repeated.append((name, t)) }
            }
        }
    }

    static func isNegativeNumber(_ s: String) -> Bool {
        s.count > 1 && s.hasPrefix("-") && s.dropFirst().allSatisfy { $0.isNumber || $0 == "." }
    }

    func has(_ name: String) -> Bool { checked(name); return values[name] != nil }
    /// The raw file name of a path option.
    func path(_ name: String) -> FilePath? { checked(name); return paths[name] }
    /// Every file name a repeatable path option was given, in order.
    func allPaths(_ name: String) -> [FilePath] { checked(name); return pathLists[name] ?? [] }
    func value(_ name: String) -> String? { checked(name); return values[name]?.last }
    func all(_ name: String) -> [String] { checked(name); return values[name] ?? [] }
    /// The values of `names` (repeatable options) in command-line order.
    func all(of names: [String]) -> [(name: String, value: String)] {
        names.forEach(checked)
        return repeated.filter { names.contains($0.name) }
    }

    /// Whether the command declares the option (settings tables are shared by commands that take
    /// only some of their flags).
    func declares(_ name: String) -> Bool { declared.contains(name) }

    private func checked(_ name: String) {
        assert(declared.contains(name), "option \(name) is looked up but not declared by the command")
    }
}

/// Value checks shared by flags and config keys: every failure names the field, the value and the range.
enum Validate {
    /// Decimal integers only (an optional leading minus), the same syntax as `--region`'s fields.
    static func integer(_ field: String, _ text: String, _ range: ClosedRange<Int>, code: ExitCode = .usage) throws(CLIError) -> Int {
        let t = text.trimmingCharacters()
        let digits = t.hasPrefix("-") ? t.dropFirst() : Substring(t)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (48...57).contains($0) }) else {
            throw CLIError(code, "\(field): \(Quote.user(text)) is not an integer (accepted \(rangeText(range)))")
        }
        guard let n = Int(t), range.contains(n) else {
            throw CLIError(code, "\(field): \(Quote.escaped(t)) is out of range (accepted \(rangeText(range)))")
        }
        return n
    }

    /// A config-file number that must be an integer.
    static func integer(_ field: String, _ value: Double, _ range: ClosedRange<Int>) throws(CLIError) -> Int {
        guard value == value.rounded(), value.isFinite else {
            throw CLIError(.dataError, "\(field): \(JSON.format(value)) is not an integer (accepted \(rangeText(range)))")
        }
        guard value >= Double(range.lowerBound), value <= Double(range.upperBound) else {
            throw CLIError(.dataError, "\(field): \(JSON.format(value)) is out of range (accepted \(rangeText(range)))")
        }
        return Int(value)
    }

    /// Decimal numbers (no hex floats, no inf/nan).
    static func number(_ field: String, _ text: String, _ range: ClosedRange<Double>, unit: String, code: ExitCode = .usage) throws(CLIError) -> Double {
        let t = text.trimmingCharacters()
        guard !t.isEmpty, t.utf8.allSatisfy({ (48...57).contains($0) || $0 == 46 || $0 == 45 || $0 == 43 || $0 == 101 || $0 == 69 }),
              let n = Double(t), n.isFinite else {
            throw CLIError(code, "\(field): \(Quote.user(text)) is not a number (accepted \(rangeText(range, unit)))")
        }
        return try number(field, n, range, unit: unit, code: code)
    }

    static func number(_ field: String, _ n: Double, _ range: ClosedRange<Double>, unit: String, code: ExitCode = .dataError) throws(CLIError) -> Double {
        guard n.isFinite, range.contains(n) else {
            throw CLIError(code, "\(field): \(JSON.format(n))\(unit.isEmpty ? "" : " " + unit) is out of range (accepted \(rangeText(range, unit)))")
        }
        return n
    }

    static func rangeText(_ r: ClosedRange<Int>) -> String { "\(r.lowerBound)–\(r.upperBound)" }

    static func rangeText(_ r: ClosedRange<Double>, _ unit: String) -> String {
        "\(JSON.format(r.lowerBound))–\(JSON.format(r.upperBound))" + (unit.isEmpty ? "" : " " + unit)
    }

    static func uuid(_ field: String, _ text: String, code: ExitCode = .usage) throws(CLIError) -> ProximityUUID {
        guard let u = ProximityUUID(text) else {
            throw CLIError(code, "\(field): \(Quote.user(text)) is not a UUID (accepted: \(ProximityUUID.acceptedForms))")
        }
        return u
    }

    /// Hex as people paste it (`Hex.decode`: separators between bytes, one `0x` prefix), `bytes` long.
    static func hex(_ field: String, _ text: String, bytes: ClosedRange<Int>, code: ExitCode = .usage) throws(CLIError) -> [UInt8] {
        let what = bytes.count == 1 ? "\(bytes.lowerBound) bytes as \(2 * bytes.lowerBound) hex digits" : "\(bytes.lowerBound)–\(bytes.upperBound) bytes as hex"
        guard let b = Hex.decode(text) else { throw CLIError(code, "\(field): \(Quote.user(text)) is not hex (accepted: \(what))") }
        guard bytes.contains(b.count) else { throw CLIError(code, "\(field): \(b.count) bytes (accepted: \(what))") }
        return b
    }

    /// An Eddystone-URL: the scheme, the printable ASCII and the 17-byte limit checked by the encoder.
    static func eddystoneURL(_ field: String, _ text: String, rangingData: Int8, code: ExitCode = .usage) throws(CLIError) -> Eddystone.URL {
        do { return try Eddystone.URL(text, txPower: rangingData) } catch {
            throw CLIError(code, "\(field): \(Quote.user(text)) \(error)")
        }
    }

    /// Raw advertising data: hex, then AD structures of at most 31 bytes (`BeaconFrame.checkedData`).
    static func advertisingData(_ field: String, _ text: String, code: ExitCode = .usage) throws(CLIError) -> BeaconFrame {
        let bytes = try hex(field, text, bytes: 1...BeaconFrame.maximumDataLength, code: code)
        do { return try BeaconFrame.checkedData(bytes) } catch {
            throw CLIError(code, "\(field): \(error)")
        }
    }

    static let identifierLength = 256

    /// A region identifier: printable text only (it is shown in dry runs and logs, one line each).
    static func identifier(_ field: String, _ text: String, code: ExitCode = .usage) throws(CLIError) -> String {
        if let u = Quote.firstUnprintable(text) {
            throw CLIError(code, "\(field): \(Quote.user(text)) contains the unprintable character \(Quote.codePoint(u)) (accepted: printable text)")
        }
        guard text.unicodeScalars.count <= identifierLength else {
            throw CLIError(code, "\(field): \(Quote.user(text)) is longer than \(identifierLength) characters")
        }
        return text
    }

    static func choice<T>(_ field: String, _ text: String, _ options: [(String, T)], code: ExitCode = .usage) throws(CLIError) -> T {
        guard let hit = options.first(where: { $0.0 == text.lowercased() }) else {
            throw CLIError(code, "\(field): \(Quote.user(text)) is not one of \(options.map(\.0).joined(separator: ", "))")
        }
        return hit.1
    }

    /// `hci0`, `hci1`, ... (or a bare index).
    static func device(_ field: String, _ text: String, code: ExitCode = .usage) throws(CLIError) -> DeviceSelector {
        guard let selector = DeviceSelector(text) else {
            throw CLIError(code, "\(field): \(Quote.user(text)) is not a device name (accepted \(deviceRange))")
        }
        return selector
    }

    static let deviceRange = "hci0–hci65534, or a controller's address AA:BB:CC:DD:EE:FF"
}

extension String {
    func trimmingCharacters() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}

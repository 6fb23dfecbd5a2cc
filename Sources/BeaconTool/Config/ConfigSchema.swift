// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// Docs/config.schema.json (`beacon-tx dump-config --schema`): the JSON Schema (draft 2020-12) of
/// config files, generated from the `Setting` table and the beacon keys of `ConfigFile`, so an
/// editor validates what the reader accepts. Where the schema cannot say all (ranges inside a
/// cycle string, one beacon identity per list, choices in another case), the description does
/// and the reader decides.
enum ConfigSchema {
    static let draft = "https://json-schema.org/draft/2020-12/schema"
    /// Where the packages and `make install` put it (`$PREFIX/share/beacon-tx`).
    static let installedPath = "/usr/share/beacon-tx/config.schema.json"
    /// The same as a URL, the form editors resolve for a file outside the workspace ("$schema").
    static var installedURL: String { "file://" + installedPath }

    static var document: JSON {
        .object([
            ("$schema", .string(draft)),
            ("title", .string("beacon-tx config file")),
            ("description", .string("A config file of beacon-tx start --config FILE; see beacon-tx.json(5). The reader also takes "
                                    + "// and /* */ comments and trailing commas, which a schema validator may not.")),
            ("type", .string("object")),
            ("properties", .object([(ConfigFile.schemaKey, .object([
                ("type", .string("string")),
                ("description", .string("the JSON Schema this file follows, for editors (e.g. \(installedPath)); beacon-tx ignores it")),
            ]))] + Setting.topLevel.map { ($0.key, schema($0)) } + [("beacons", beacons)])),
            ("additionalProperties", .bool(false)),
        ])
    }

    static var beacons: JSON {
        .object([
            ("description", .string("the beacons, 1 or more; no two with the same uuid, major and minor")),
            ("type", .string("array")),
            ("minItems", .number(1)),
            ("items", .object([
                ("type", .string("object")),
                ("properties", .object(ConfigFile.beaconFields.map { ($0.key, fieldSchema($0)) }
                    + ConfigFile.beaconOverrides.map { ($0.setting.key, schema($0.setting, override: true)) })),
                ("allOf", .array(ConfigFile.configurableKinds.map(kindRequirements))),
                ("additionalProperties", .bool(false)),
            ])),
        ])
    }

    /// One setting: its type (or null), range, choices, default and help.
    static func schema(_ s: Setting, override: Bool = false) -> JSON {
        var pairs: [(String, JSON)] = [("description", .string(s.help + "; null: " + (override ? "the top-level value" : s.nullMeans)))]
        switch s.kind {
        case let .integer(r, _):
            pairs += [("type", types("integer")), ("minimum", .number(Double(r.lowerBound))), ("maximum", .number(Double(r.upperBound)))]
        case let .number(r, _):
            pairs += [("type", types("number")), ("minimum", .number(r.lowerBound)), ("maximum", .number(r.upperBound))]
        case .bool:
            pairs.append(("type", types("boolean")))
        case let .choice(c):
            pairs.append(("enum", .array(c.map(JSON.string) + [.null])))
        case .device:
            pairs += [("type", types("string")), ("pattern", .string(devicePattern))]
        case .cycle:
            pairs += [("type", types("string")), ("pattern", .string(cyclePattern))]
        case .path:
            pairs += [("type", types("string")), ("minLength", .number(1))]
        }
        if !override { pairs.append(("default", s.read(Settings()))) }
        return .object(pairs)
    }

    /// A beacon of `kind` (`type` absent or null is an iBeacon) has that type's required keys and
    /// none of another type's.
    static func kindRequirements(_ kind: BeaconFrame.Kind) -> JSON {
        let typeIs: JSON = kind == .iBeacon
            ? .object([("properties", .object([("type", .object([("enum", .array([.string(kind.rawValue), .null]))]))]))])
            : .object([("required", .array([.string("type")])), ("properties", .object([("type", .object([("const", .string(kind.rawValue))]))]))])
        let foreign = ConfigFile.beaconFields.filter { !$0.takes(kind) }.map { JSON.string($0.key) }
        return .object([
            ("if", typeIs),
            ("then", .object([
                ("required", .array(ConfigFile.beaconFields.filter { $0.required && $0.takes(kind) }.map { .string($0.key) })),
                ("not", .object([("anyOf", .array(foreign.map { .object([("required", .array([$0]))]) }))])),
            ])),
        ])
    }

    static func fieldSchema(_ f: ConfigFile.BeaconField) -> JSON {
        var pairs: [(String, JSON)] = [("description", .string(f.meaning))]
        switch f.type {
        case let .integer(r):
            pairs += [("type", f.required ? .string("integer") : types("integer")),
                      ("minimum", .number(Double(r.lowerBound))), ("maximum", .number(Double(r.upperBound)))]
        case .uuid:
            pairs += [("type", .string("string")), ("pattern", .string(uuidPattern))]
        case let .text(maximum):
            pairs += [("type", types("string")), ("maxLength", .number(Double(maximum)))]
        case .hex:
            pairs += [("type", .string("string")), ("pattern", .string(hexPattern))]
        case .url:
            pairs += [("type", .string("string")), ("pattern", .string("^https?://"))]
        case .reference:
            pairs += [("type", .array([.string("string"), .string("integer")])), ("minimum", .number(0))]
        case .thermalZone:
            pairs += [("type", types("string")), ("pattern", .string("^(/.*|[A-Za-z0-9_]+)$"))]
        case .type:
            pairs.append(("enum", .array(ConfigFile.configurableKinds.map { .string($0.rawValue) } + [.null])))
        }
        if let d = f.defaultValue { pairs.append(("default", d)) }
        return .object(pairs)
    }

    /// Hex digits, separators between bytes (spaces, colons, dashes), one `0x` prefix: the reader
    /// checks the byte count.
    static let hexPattern = "^(0[xX])?[0-9A-Fa-f]{2}([ :-]?[0-9A-Fa-f]{2})*$"

    static func types(_ type: String) -> JSON { .array([.string(type), .string("null")]) }

    /// `hci0`–`hci65534` or the bare index (the schema bounds the digits; the reader, the value).
    static let devicePattern = "^((hci)?[0-9]{1,5}|[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5})$"
    /// `ON:OFF[:COUNT]` in seconds (1–86400, COUNT 1–100000: the reader checks the ranges).
    static let cyclePattern = "^[0-9]{1,5}:[0-9]{1,5}(:[0-9]{1,6})?$"
    /// 32 hex digits, with the four dashes at 8-4-4-4-12 or none.
    static let uuidPattern = "^([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}|[0-9A-Fa-f]{32})$"
}

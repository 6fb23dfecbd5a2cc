// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// `beacon-tx dump-config`: the effective settings (defaults < file < flags) as JSON, or its
/// beacons as CoreLocation regions in Swift (`--format swift`) or Android Beacon Library regions in
/// Kotlin (`--format kotlin`).
enum DumpConfigCommand: Subcommand {
    static let name = "dump-config"
    static let summary = "print the effective config (defaults < file < flags) as JSON, or its beacons as regions in Swift (iOS) or Kotlin (Android)"
    static let usage = "beacon-tx dump-config [--config FILE] [--format json|swift|kotlin] [start flags] | beacon-tx dump-config --schema"
    // The output is a config `start --config` accepts and that yields the same plan; null = the default.
    // start's configuration options only (an inclusion list: a start option that does not shape the
    // config, such as --check or --detach, is refused here with exit 64).
    static let options: [OptionSpec] = StartCommand.configurationOptions + [
        .value("--format", "FORMAT", "json (the config, default), swift (CLBeaconRegion code for an iOS receiver) or kotlin (Android Beacon Library code: the iBeacon BeaconParser layout and a Region per beacon)",
               choices: Format.allCases.map(\.rawValue)),
        .flag("--schema", "print the JSON Schema (draft 2020-12) of config files instead, from the same table as the reader (Docs/config.schema.json; beacon-tx.json(5)); takes no other option"),
    ]
    static let examples = [
        "beacon-tx dump-config --config Config/kiosk.json --minor 7",
        "beacon-tx dump-config --config Config/museum.json --format swift > BeaconRegions.swift",
        "beacon-tx dump-config --config Config/museum.json --format kotlin > BeaconRegions.kt",
        "beacon-tx dump-config --schema > config.schema.json   # for an editor: \"$schema\": \"./config.schema.json\"",
    ]

    static func run(_ a: ParsedArguments, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        if a.has("--schema") {
            for other in options where other.name != "--schema" && a.has(other.name) {
                throw .usage("--schema prints the schema of every config and takes no other option; drop \(other.name)")
            }
            ctx.stdout(ConfigSchema.document.pretty)
            return .success
        }
        let format = try Validate.choice("--format", a.value("--format") ?? "json", Format.allCases.map { ($0.rawValue, $0) })
        let settings = try StartCommand.settings(from: a, ctx)
        if format != .json, settings.beacons.isEmpty {
            throw .usage("--format \(format.rawValue): no beacon in the effective config (give --config FILE, --beacon or --uuid)")
        }
        switch format {
        case .json: ctx.stdout(settings.json.pretty)
        case .swift: ctx.stdout(SwiftRegions.source(settings.beacons))
        case .kotlin: ctx.stdout(KotlinRegions.source(settings.beacons))
        }
        return .success
    }

    enum Format: String, CaseIterable { case json, swift, kotlin }
}

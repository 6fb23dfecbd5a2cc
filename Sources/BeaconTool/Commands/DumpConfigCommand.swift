import BeaconKit

/// `beacon-tx dump-config`: the effective settings (defaults < file < flags) as JSON.
enum DumpConfigCommand: Subcommand {
    static let name = "dump-config"
    static let summary = "print the effective config (defaults < file < flags) as JSON"
    static let usage = "beacon-tx dump-config [--config FILE] [start flags]"
    // The output is a config `start --config` accepts and that yields the same plan; null = the default.
    static let options: [OptionSpec] = StartCommand.options.filter {
        !["--dry-run", "--format", "--output", "--detach", "--reset", "--verbose"].contains($0.name)
    }
    static let examples = ["beacon-tx dump-config --config Config/kiosk.json --minor 7"]

    static func run(_ a: ParsedArguments, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        ctx.stdout(try StartCommand.settings(from: a, ctx).json.pretty)
        return .success
    }
}

// SPDX-License-Identifier: Apache-2.0
/// `beacon-tx completions bash|zsh|fish`: prints the shell completion script (see `ShellCompletion`).
enum CompletionsCommand: Subcommand {
    static let name = "completions"
    static let summary = "print the bash, zsh or fish completion script"
    static let usage = "beacon-tx completions bash|zsh|fish"
    static let options: [OptionSpec] = []
    static let examples = [
        "beacon-tx completions bash > ~/.local/share/bash-completion/completions/beacon-tx",
        "beacon-tx completions fish > ~/.config/fish/completions/beacon-tx.fish",
    ]
    static var takesPositionals: Bool { true }
    static var argumentChoices: [String] { ShellCompletion.Shell.allCases.map(\.rawValue) }

    static func run(_ a: ParsedArguments, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        let accepted = argumentChoices.joined(separator: ", ")
        guard let name = a.positionals.first else { throw .usage("SHELL: missing (accepted \(accepted))") }
        guard a.positionals.count == 1 else { throw .usage("unexpected argument '\(a.positionals[1])'; see beacon-tx completions --help") }
        guard let shell = ShellCompletion.Shell(rawValue: name) else { throw .usage("SHELL: '\(name)' is not one of \(accepted)") }
        ctx.stdout(ShellCompletion.script(for: shell))
        return .success
    }
}

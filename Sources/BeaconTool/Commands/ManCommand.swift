// SPDX-License-Identifier: Apache-2.0
/// `beacon-tx man`: prints a manual page as roff: beacon-tx(1), the commands (`ManPage`), or with
/// `--section 5` beacon-tx.json(5), the config file format (`ConfigReference`).
enum ManCommand: Subcommand {
    static let name = "man"
    static let summary = "print the manual page beacon-tx(1), or the config file reference beacon-tx.json(5), as roff"
    static let usage = "beacon-tx man [--section 1|5]"
    static let options: [OptionSpec] = [
        .value("--section", "N", "1: beacon-tx(1), the commands (default); 5: beacon-tx.json(5), the config file format", choices: ["1", "5"]),
    ]
    static let examples = ["beacon-tx man | man -l -", "beacon-tx man --section 5 | man -l -"]

    static func run(_ a: ParsedArguments, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        let five = try Validate.choice("--section", a.value("--section") ?? "1", [("1", false), ("5", true)])
        ctx.stdout(five ? ConfigReference.render() : ManPage.render())
        return .success
    }
}

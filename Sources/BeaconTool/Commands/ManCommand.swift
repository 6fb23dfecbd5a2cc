// SPDX-License-Identifier: Apache-2.0
/// `beacon-tx man`: prints the beacon-tx(1) manual page as roff (see `ManPage`).
enum ManCommand: Subcommand {
    static let name = "man"
    static let summary = "print the manual page beacon-tx(1) as roff"
    static let usage = "beacon-tx man"
    static let options: [OptionSpec] = []
    static let examples = ["beacon-tx man | man -l -"]

    static func run(_ a: ParsedArguments, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        ctx.stdout(ManPage.render())
        return .success
    }
}

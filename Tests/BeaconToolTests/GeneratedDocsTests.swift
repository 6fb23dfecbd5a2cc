// SPDX-License-Identifier: Apache-2.0
import BeaconKit
@testable import BeaconTool
import Foundation
import Testing

/// The man pages, the config schema and the shell completions are generated from the option
/// tables of `--help` and the Setting table; Docs/ holds the committed copies (`make docs`
/// regenerates them).
@Suite struct GeneratedDocsTests {
    static let copies: [(args: [String], path: String)] = [
        (["man"], "Docs/beacon-tx.1"),
        (["man", "--section", "5"], "Docs/beacon-tx.json.5"),
        (["dump-config", "--schema"], "Docs/config.schema.json"),
        (["completions", "bash"], "Docs/completions/beacon-tx.bash"),
        (["completions", "zsh"], "Docs/completions/_beacon-tx"),
        (["completions", "fish"], "Docs/completions/beacon-tx.fish"),
    ]

    /// Fails when a committed copy differs from what the binary prints: run `make docs`
    /// (or UPDATE_SNAPSHOTS=1 swift test).
    @Test(arguments: copies.map(\.path)) func committedCopyIsCurrent(path: String) throws {
        let args = try #require(Self.copies.first { $0.path == path }).args
        let r = tool(args)
        #expect(r.code == 0 && r.err.isEmpty, "\(args): \(r.err)")
        let file = repoPath(path)
        if ProcessInfo.processInfo.environment["UPDATE_SNAPSHOTS"] == "1" {
            try r.out.write(toFile: file, atomically: true, encoding: .utf8)
            return
        }
        let committed = try? String(contentsOfFile: file, encoding: .utf8)
        #expect(committed == r.out, "\(path) is stale: run make docs")
    }

    /// Every command and every option of every command (new ones too) is in all four outputs.
    @Test func everyOptionEverywhere() {
        let man = ManPage.render(), bash = ShellCompletion.bash(), zsh = ShellCompletion.zsh(), fish = ShellCompletion.fish()
        #expect(!BeaconTX.subcommands.isEmpty)
        for command in BeaconTX.subcommands {
            #expect(man.contains(".SS " + ManPage.quoted(command.name) + "\n" + ManPage.roff(command.summary) + ".\n"), "man: \(command.name)")
            #expect(man.contains(".B Usage:\n" + ManPage.roff(command.usage)), "man: \(command.name) usage")
            for example in command.examples { #expect(man.contains("\n" + ManPage.roff(example) + "\n"), "man: \(example)") }
            let bashWords = ShellCompletion.bashWords(ShellCompletion.options(of: command).map(\.name) + command.argumentChoices)
            #expect(bash.contains("    \(command.name))\n") && bash.contains("COMPREPLY=($(compgen -W \(bashWords) -- \"$cur\")) ;;"), "bash: \(command.name)")
            #expect(zsh.contains(ShellCompletion.shellQuoted(command.name + ":" + command.summary)), "zsh: \(command.name)")
            #expect(fish.contains("-n __fish_use_subcommand -a \(command.name) -d \(ShellCompletion.fishQuoted(command.summary))"), "fish: \(command.name)")
            for option in command.options {
                #expect(man.contains(".TP\n" + ManPage.optionTag(option) + "\n" + ManPage.roff(option.help) + "\n"), "man: \(command.name) \(option.name)")
                #expect(zsh.contains(ShellCompletion.shellQuoted(ShellCompletion.zshSpec(option))), "zsh: \(command.name) \(option.name)")
                #expect(fish.contains("-n '__fish_seen_subcommand_from \(command.name)' -l \(option.name.dropFirst(2))"), "fish: \(command.name) \(option.name)")
            }
        }
        for (code, meaning) in BeaconTX.exitCodes { #expect(man.contains(".TP\n.B \(code.rawValue)\n\(ManPage.roff(meaning))\n")) }
    }

    /// What each kind of value completes to, in each shell.
    @Test func valueKinds() {
        let spec = { (command: String, option: String) -> OptionSpec? in
            BeaconTX.subcommands.first { $0.name == command }?.options.first { $0.name == option }
        }
        #expect(spec("start", "--config")?.valueKind == .file)
        #expect(spec("start", "--device")?.valueKind == .device)
        #expect(spec("start", "--controller")?.valueKind == .choices(["auto", "legacy", "extended"]))
        #expect(spec("start", "--major")?.valueKind == .text("N"))
        #expect(spec("start", "--dry-run")?.valueKind == OptionSpec.ValueKind.none)
        let repeatable = OptionSpec.value("--region", "UUID[:MAJOR[:MINOR]]", "a [region]", repeatable: true)
        #expect(ShellCompletion.zshSpec(repeatable) == "*--region=[a \\[region\\]]:UUID[\\:MAJOR[\\:MINOR]]: ")
        #expect(ShellCompletion.zshSpec(spec("start", "--format")!)
            == "--format=[dry-run output: text, hex, hcitool, json or btsnoop (default text)]:FORMAT:(text hex hcitool json btsnoop)")
        let bash = ShellCompletion.bash()
        #expect(bash.contains("        --config|--metrics|--output|--check) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"))
        #expect(bash.contains("        --format) COMPREPLY=($(compgen -W 'text hex hcitool json btsnoop' -- \"$cur\")); return ;;\n"))
        let fish = ShellCompletion.fish()
        #expect(fish.contains("complete -c beacon-tx -n '__fish_seen_subcommand_from start' -l device -x -a '(__beacon_tx_devices)' -d 'controller: hciN, or its address AA:BB:CC:DD:EE:FF (default: the first LE controller; hci0 in dry runs)'\n"))
        #expect(fish.contains("complete -c beacon-tx -n '__fish_seen_subcommand_from completions' -a 'bash zsh fish'"))
        #expect(ShellCompletion.fishQuoted("it's a \\") == "'it\\'s a \\\\'")
        #expect(ShellCompletion.shellQuoted("jq '.[]'") == "'jq '\\''.[]'\\'''")
    }

    /// The accepted values the completions offer are the ones the commands accept.
    @Test func choicesAreWhatTheCommandsAccept() {
        let g = ["--uuid", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "--major", "1", "--minor", "2", "--dry-run"]
        let lines: [(command: String, option: String, args: [String])] = [
            ("start", "--controller", ["start"] + g + ["--controller"]),
            ("start", "--format", ["start"] + g + ["--format"]),
            ("decode", "--as", ["decode", "0201", "--as"]),
        ]
        for line in lines {
            let choices = BeaconTX.subcommands.first { $0.name == line.command }?.options.first { $0.name == line.option }?.choices ?? []
            #expect(!choices.isEmpty, "\(line.option) lists no choices")
            let r = tool(line.args + ["bogus"])
            #expect(r.code == 64 && r.err.contains("'bogus' is not one of \(choices.joined(separator: ", "))"), "\(line.option): \(r.err)")
        }
    }

    @Test func roffEscaping() {
        #expect(ManPage.roff("-127–20 × a\\b") == "\\-127\\[u2013]20 \\[u00D7] a\\eb")
        #expect(ManPage.roff(".hidden") == "\\&.hidden")
        #expect(ManPage.roff("'quoted'") == "\\&'quoted'")
        #expect(ManPage.quoted("say \"hi\"") == "\"say \\(dqhi\\(dq\"")
    }

    @Test func completionsArguments() {
        #expect(tool(["completions", "bash"]).out == ShellCompletion.bash() + "\n")
        let missing = tool(["completions"])
        #expect(missing.code == 64 && missing.out.isEmpty && missing.err == "beacon-tx completions: SHELL: missing (accepted bash, zsh, fish)\n")
        let tcsh = tool(["completions", "tcsh"])
        #expect(tcsh.code == 64 && tcsh.err == "beacon-tx completions: SHELL: 'tcsh' is not one of bash, zsh, fish\n")
        let two = tool(["completions", "bash", "zsh"])
        #expect(two.code == 64 && two.err == "beacon-tx completions: unexpected argument 'zsh'; see beacon-tx completions --help\n")
        let man = tool(["man", "extra"])
        #expect(man.code == 64 && man.err == "beacon-tx man: unexpected argument 'extra'; see beacon-tx man --help\n")
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import FuzzSupport
#if canImport(Glibc)
import Glibc
#endif

// `beacon-tx decode`: the input as hex text (exercising the hex reader) and as bytes (hex-encoded,
// exercising the decoders), with each --as kind, --json and `decode -`. Exit 0 prints something and
// no error; 65 prints one error line and nothing on stdout; nothing else happens.
exit(fuzzMain { input in
    guard let selector = input.first else { return }
    let body = Array(input.dropFirst())
    let kinds = ["auto", "ad", "command", "event"]
    var args: [[UInt8]] = [Array("decode".utf8)]
    if selector & 0x01 != 0 { args.append(Array("--json".utf8)) }
    args += [Array("--as".utf8), Array(kinds[Int(selector >> 1) & 3].utf8)]
    let asText = selector & 0x08 != 0
    let argument = asText ? body : Array(Hex.encode(body).utf8)
    if selector & 0x10 != 0 {
        let lines = argument.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        let run = ToolRun(args + [Array("-".utf8)], stdin: lines)
        run.checkCommonInvariants("decode - \(Hex.encode(input))")
        require([0, 64, 65].contains(run.code), "decode - exit \(run.code)")
        return
    }
    guard argument != [0x2D] else { return }   // `-` means stdin: covered above
    let run = ToolRun(args + [Array("--".utf8), argument])
    run.checkCommonInvariants("decode \(Hex.encode(input))")
    switch run.code {
    case 0:
        require(!run.stdout.isEmpty && run.stderrLines.isEmpty, "decode succeeded silently or with errors")
    case 64:
        require(asText || body.isEmpty, "usage error for well-formed hex")
    case 65:
        require(run.stdout.isEmpty && run.stderrLines.count == 1, "decode error is one line and no output")
    default:
        require(false, "decode exit \(run.code)")
    }
    if !asText && !body.isEmpty && kinds[Int(selector >> 1) & 3] == "auto", body[0] == 0x01 || body[0] == 0x04 {
        // Auto mode never turns a broken H4 packet into advertising data.
        let parses = body[0] == 0x01 ? (try? HCICommand(packet: body)) != nil : (try? HCIEvent(packet: body)) != nil
        require(parses == (run.code == 0), "auto mode and the H4 decoders disagree on \(Hex.encode(body))")
    }
})

// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import FuzzSupport
#if canImport(Glibc)
import Glibc
#endif

// Whole command lines (NUL-separated arguments, any bytes) through the dispatcher, with no
// Bluetooth: every outcome is a sysexits code with bounded, printable messages. Arguments that
// would touch files (--config, --output) are left out: the harness must not write or block.
exit(fuzzMain { input in
    var args = arguments(input)
    if let first = args.first, first.count == 1 {
        // Steer the first argument to a real command most of the time.
        let commands = ["start", "stop", "devices", "scan", "decode", "dump-config", "status", "--help", "help", "--version"]
        args[0] = Array(commands[Int(first[0]) % commands.count].utf8)
    }
    for a in args {
        let text = String(decoding: a, as: UTF8.self)
        if text.hasPrefix("--c") || text.hasPrefix("--o") || text.hasPrefix("--ou") { return }
    }
    let run = ToolRun(args)
    run.checkCommonInvariants(args.map { String(decoding: $0, as: UTF8.self) }.debugDescription)
    if run.code == 64 || run.code == 65 {
        require(run.stdout.isEmpty, "usage/data error with output")
    }
})

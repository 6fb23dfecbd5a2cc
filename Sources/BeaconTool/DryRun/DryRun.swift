import BeaconKit

/// The four dry-run formats of a plan. Pure functions of (beacon, settings, plan) so tests can
/// snapshot them whole.
enum DryRun {
    /// btmon-like text of the start and stop commands, with the beacon decoded.
    static func text(_ entry: BeaconEntry, _ s: Settings, _ plan: AdvertisingPlan, device: String) -> String {
        let b = entry.beacon
        var lines = [
            "beacon-tx dry run: nothing is sent",
            "beacon:   \(entry.identifier.map { $0 + " " } ?? "")\(b.uuid) major \(b.major) minor \(b.minor) measured power \(b.measuredPower) dBm",
            "data:     \(Hex.encode(b.advertisingData)) (\(b.advertisingData.count) bytes)",
            "device:   \(device), \(plan.family) advertising commands, interval \(s.interval.text), \(s.connectable ? "connectable" : "non-connectable")"
                + (s.txPower.map { ", tx power \($0) dBm" } ?? ""),
        ]
        if s.controller == nil {
            lines.append("          (live start probes the controller and uses extended commands when supported; --controller extended shows them)")
        }
        if s.txPower != nil && plan.family == .legacy {
            lines.append("          (--tx-power applies to extended advertising only; legacy commands carry no tx power)")
        }
        lines += ["", "start:"]
        for step in plan.start { lines += CommandText.describe(step.command) }
        lines += ["", "stop:"]
        for step in plan.stop { lines += CommandText.describe(step.command) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One H4 packet per line, lowercase, no spaces: `# start:`, the start packets, `# stop:`, the
    /// stop packets (`beacon-tx decode -` skips the comment lines).
    static func hex(_ plan: AdvertisingPlan) -> String {
        "# start:\n" + plan.start.map { Hex.encode($0.command.packet) + "\n" }.joined()
            + "# stop:\n" + plan.stop.map { Hex.encode($0.command.packet) + "\n" }.joined()
    }

    /// Lines runnable as is: `hcitool -i hci0 cmd 0x08 0x0008 1e 02 01 ...`.
    static func hcitool(_ entry: BeaconEntry, _ plan: AdvertisingPlan, device: String) -> String {
        let b = entry.beacon
        var lines = ["# beacon-tx dry run: \(b.uuid) major \(b.major) minor \(b.minor) measured power \(b.measuredPower) dBm, \(plan.family) commands",
                     "# start:"]
        lines += plan.start.map { hcitoolLine($0.command, device: device) }
        lines.append("# stop:")
        lines += plan.stop.map { "# " + hcitoolLine($0.command, device: device) }
        return lines.joined(separator: "\n") + "\n"
    }

    static func hcitoolLine(_ c: HCICommand, device: String) -> String {
        let params = c.parameters.isEmpty ? "" : " " + Hex.encode(c.parameters, separator: " ")
        return "hcitool -i \(device) cmd \(Hex.byte(c.opcode.ogf)) \(Hex.word(c.opcode.ocf))\(params)"
    }

    /// A btsnoop capture of the start commands, then the stop commands, each answered by a
    /// synthetic successful Command Complete (what a start followed by Ctrl-C sends).
    static func btsnoop(_ plan: AdvertisingPlan) -> [UInt8] {
        BTSnoop.encode(BTSnoop.syntheticCapture(of: (plan.start + plan.stop).map(\.command)))
    }
}

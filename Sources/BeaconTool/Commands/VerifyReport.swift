// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// `verify`'s report, rendered: the text people read and the JSON scripts read, side by side, from
/// the one `CaptureReport` BeaconKit's verifier builds.
enum VerifyReport {
    /// The report as `verify` prints it.
    static func text(_ r: CaptureReport, file: String) -> [String] {
        var lines = [
            "capture: \(file)",
            "datalink: \(CaptureFile.datalinkName(r.datalink)), \(r.recordCount) records",
            "controller: " + (r.datalink == CaptureFile.datalinkMonitor ? "\(r.controller) (index \(r.controllerIndex))" : "the capture's only controller (no index in this datalink)"),
        ]
        if let warning = r.warning { lines.append("warning: \(warning)") }
        if r.noteNoRecords { lines.append("warning: the capture has no record of \(r.controller)") }
        if let share = r.share {
            lines.append("mode: shared through the kernel (beacon-tx's MGMT commands on its control socket, the HCI commands the kernel derived): "
                         + "instances \(share.instances.map(String.init).joined(separator: ", ")), \(methodText(share.method)), Duration \(share.durationSeconds) s")
            if let note = share.note { lines.append("note: \(note)") }
        }
        for b in r.beacons {
            let e = b.expected.beacon
            lines.append("")
            lines.append("beacon \(b.number): \(e.identifier.map { $0 + " " } ?? "")\(e.uuid) major \(e.major) minor \(e.minor) power \(e.measuredPower) dBm")
            if let f = b.found, let instance = b.instance {
                lines.append("  found: \(f.uuid) major \(f.major) minor \(f.minor) power \(f.measuredPower) dBm, kernel advertising instance \(instance)"
                             + (b.placement.map { ", written by the kernel on the \($0.text) (\(b.family?.rawValue ?? "?") commands)" } ?? ""))
            } else if let f = b.found, let p = b.placement {
                lines.append("  found: \(f.uuid) major \(f.major) minor \(f.minor) power \(f.measuredPower) dBm, \(b.family?.rawValue ?? "?") commands, \(p.text)" + (b.rotation ? " (rotation: beacons share it)" : ""))
            } else {
                lines.append("  found: nothing")
            }
            if let lo = b.intervalMin, let hi = b.intervalMax {
                let ms = { (u: UInt32) in Milliseconds.format(Double(u) * 0.625) }
                var line = "  parameters\(b.instance == nil ? "" : " (the kernel's)"): interval \(ms(lo))–\(ms(hi)) ms, " + ((b.connectable ?? false) ? "connectable" : "non-connectable")
                if let s = b.parameterSummary { line += " (\(s))" }
                if let tx = b.txPower { line += ", Advertising_TX_Power " + (tx == HCICommand.txPowerNoPreference ? "no preference" : "\(tx) dBm") }
                lines.append(line)
            }
            if b.instance != nil, let c = b.configuredSeconds {
                var line = "  added at \(CaptureReport.seconds(c)) s"
                line += b.enabledSeconds.map { ", on air at \(CaptureReport.seconds($0)) s" } ?? ", never on air"
                line += "; the kernel wrote its data \(b.kernelWrites) time(s)"
                if b.placement == .legacy { line += " (once per turn in its rotation)" }
                lines.append(line)
            } else if let c = b.configuredSeconds { lines.append("  configured at \(CaptureReport.seconds(c)) s" + (b.enabledSeconds.map { ", on air at \(CaptureReport.seconds($0)) s" } ?? ", never on air")) }
            if b.found != nil {
                lines.append("  commands: \(b.commandCount)" + (b.instance.map { " MGMT for instance \($0)" } ?? "") + (b.failedCommands.isEmpty ? ", all answered Success" : ", \(b.failedCommands.count) failed"))
                lines += b.failedCommands.map { "    " + $0 }
            }
            lines += b.events.map { "  " + $0.text }
            lines.append("  at the end: \(endState(b))")
            lines.append("  " + (b.passed ? "ok" : "FAIL: " + (b.failures.first ?? "")))
        }
        lines.append("")
        if r.share != nil {
            lines.append(r.passed ? "PASS: \(r.beacons.count) beacon(s) shared through the kernel as planned, our bytes exactly"
                                    + (r.beacons.allSatisfy(\.onAirAtEnd) ? ", kernel instances at the end" : ", removed by beacon-tx at the end")
                                  : "FAIL: \(r.firstFailure ?? "")")
            return lines
        }
        lines.append(r.passed ? "PASS: \(r.beacons.count) beacon(s) configured as expected" + (r.beacons.allSatisfy(\.onAirAtEnd) ? " and on air at the end" : " and on air until stopped by beacon-tx")
                            : "FAIL: \(r.firstFailure ?? "")")
        return lines
    }

    /// `Add Extended Advertising Parameters + Data` / `Add Advertising`.
    static func methodText(_ m: SharePlan.Method) -> String {
        m == .extended ? "MGMT Add Extended Advertising Parameters + Data" : "MGMT Add Advertising (the kernel's interval)"
    }

    /// A share-mode beacon's end: its instance still in the kernel's rotation, or removed.
    static func endState(_ b: CaptureReport.BeaconReport) -> String {
        guard b.instance != nil else { return b.endState }
        if b.onAirAtEnd { return "kernel instance \(b.instance ?? 0) in the kernel's rotation (beacon-tx still running)" }
        if let removed = b.removedSeconds { return "removed by beacon-tx's stop plan at \(CaptureReport.seconds(removed)) s" }
        return b.events.last.map { "removed since \(CaptureReport.seconds($0.seconds)) s" } ?? "never added"
    }

    static func seconds(_ s: Double?) -> JSON { s.map { .number(($0 * 1000).rounded() / 1000) } ?? .null }

    /// The report as `verify --json` prints it: the same facts as `text`, as data.
    static func json(_ r: CaptureReport, file: String) -> JSON {
        let monitor = r.datalink == CaptureFile.datalinkMonitor
        var share: [(String, JSON)] = []
        if let s = r.share {
            share = [("share", .object([
                ("method", .string(s.method.rawValue)), ("instances", .array(s.instances.map { .number(Double($0)) })),
                ("durationSeconds", .number(Double(s.durationSeconds))), ("note", s.note.map(JSON.string) ?? .null),
            ]))]
        }
        var pairs: [(String, JSON)] = [
            ("capture", .string(file)),
            ("datalink", .number(Double(r.datalink))),
            ("datalinkName", .string(CaptureFile.datalinkName(r.datalink))),
            ("records", .number(Double(r.recordCount))),
            ("controller", monitor ? .string(r.controller) : .null),
            ("controllerIndex", monitor ? .number(Double(r.controllerIndex)) : .null),
            ("warning", r.warning.map(JSON.string) ?? .null),
            ("passed", .bool(r.passed)),
            ("firstFailure", r.passed ? .null : r.firstFailure.map(JSON.string) ?? .null),
        ]
        pairs += share
        pairs.append(("beacons", .array(r.beacons.map(beaconJSON))))
        return .object(pairs)
    }

    static func beaconJSON(_ b: CaptureReport.BeaconReport) -> JSON {
        let e = b.expected
        var handle: JSON = .null
        if case let .set(h)? = b.placement { handle = .number(Double(h)) }
        let expected: [(String, JSON)] = e.beacon.jsonFields + [
            ("intervalUnits", .number(Double(e.options.interval.units))), ("connectable", .bool(e.options.connectable)),
            ("txPower", e.options.txPower.map { .number(Double($0)) } ?? .null),
        ]
        let events: [JSON] = b.events.map { (ev: CaptureReport.Event) -> JSON in
            let who: JSON = ev.who.map(JSON.string) ?? .null
            return .object([("at", seconds(ev.seconds)), ("state", .string(ev.on ? "on" : "off")), ("cause", .string(ev.cause)),
                            ("who", who), ("byStopPlan", .bool(ev.byStopPlan))])
        }
        var pairs: [(String, JSON)] = [("number", .number(Double(b.number))), ("expected", .object(expected))]
        pairs.append(("found", b.found.map { .object($0.jsonFields) } ?? .null))
        pairs.append(("family", b.family.map { .string($0.rawValue) } ?? .null))
        pairs.append(("placement", b.placement.map { .string($0.text) } ?? .null))
        pairs.append(("advertisingHandle", handle))
        pairs.append(("rotation", .bool(b.rotation)))
        pairs.append(("intervalMinUnits", b.intervalMin.map { .number(Double($0)) } ?? .null))
        pairs.append(("intervalMaxUnits", b.intervalMax.map { .number(Double($0)) } ?? .null))
        pairs.append(("connectable", b.connectable.map(JSON.bool) ?? .null))
        pairs.append(("txPower", b.txPower.map { .number(Double($0)) } ?? .null))
        pairs.append(("configuredAt", seconds(b.configuredSeconds)))
        pairs.append(("onAirAt", seconds(b.enabledSeconds)))
        pairs.append(("commands", .number(Double(b.commandCount))))
        pairs.append(("failedCommands", .array(b.failedCommands.map(JSON.string))))
        pairs.append(("events", .array(events)))
        pairs.append(("onAirAtEnd", .bool(b.onAirAtEnd)))
        pairs.append(("stoppedByStopPlan", .bool(b.stoppedByStopPlan)))
        if b.instance != nil {
            pairs.append(("instance", b.instance.map { .number(Double($0)) } ?? .null))
            pairs.append(("kernelWrites", .number(Double(b.kernelWrites))))
            pairs.append(("removedAt", seconds(b.removedSeconds)))
        }
        pairs.append(("atEnd", .string(endState(b))))
        pairs.append(("passed", .bool(b.passed)))
        pairs.append(("failures", .array(b.failures.map(JSON.string))))
        return .object(pairs)
    }
}

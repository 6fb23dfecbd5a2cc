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
            if let refusal = share.extendedRefusal { lines.append("note: \(refusalText(refusal))") }
        }
        for b in r.beacons {
            let e = b.expected.frame
            lines.append("")
            lines.append("beacon \(b.number): \(e.iBeacon?.identifier.map { $0 + " " } ?? "")\(e.summary)")
            if let f = b.found, let instance = b.instance {
                lines.append("  found: \(f.summary), kernel advertising instance \(instance)"
                             + (b.placement.map { ", written by the kernel on the \($0.text) (\(b.family?.rawValue ?? "?") commands)" } ?? ""))
            } else if let f = b.found, let p = b.placement {
                lines.append("  found: \(f.summary), \(b.family?.rawValue ?? "?") commands, \(p.text)" + (b.rotation ? " (rotation: beacons share it)" : ""))
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
                lines += b.failedCommands.map { "    " + text($0) }
            }
            lines += b.events.map { "  " + $0.text }
            lines.append("  at the end: \(endState(b))")
            lines.append("  " + (b.passed ? "ok" : "FAIL: " + (b.failures.first.map(text) ?? "")))
        }
        lines.append("")
        if r.share != nil {
            lines.append(r.passed ? "PASS: \(r.beacons.count) beacon(s) shared through the kernel as planned, our bytes exactly"
                                    + (r.beacons.allSatisfy(\.onAirAtEnd) ? ", kernel instances at the end" : ", removed by beacon-tx at the end")
                                  : "FAIL: \(firstFailureText(r) ?? "")")
            return lines
        }
        lines.append(r.passed ? "PASS: \(r.beacons.count) beacon(s) configured as expected" + (r.beacons.allSatisfy(\.onAirAtEnd) ? " and on air at the end" : " and on air until stopped by beacon-tx")
                            : "FAIL: \(firstFailureText(r) ?? "")")
        return lines
    }

    /// `beacon 2: LE Set Extended Advertising Data: iBeacon minor 2 ≠ 3 (config ≠ capture)`; nil when the report passes.
    static func firstFailureText(_ r: CaptureReport) -> String? {
        switch r.firstFailure {
        case nil: return nil
        case .noBeaconsConfigured?: return "no beacons configured"
        case let .beacon(number, failure)?: return "beacon \(number): \(text(failure))"
        }
    }

    /// One failed check, as `verify` words it: what differs is `config ≠ capture` (or `plan ≠ capture`), expected first.
    static func text(_ f: VerifyFailure) -> String {
        let seconds = { (s: Double) in CaptureReport.seconds(s) }
        switch f {
        case let .noDataCommand(family, index):
            let what: String
            switch family {
            case .legacy?: what = "LE Set Advertising Data (0x2008)"
            case .extended?: what = "LE Set Extended Advertising Data (0x2037)"
            case nil: what = "LE Set Advertising Data (0x2008) or LE Set Extended Advertising Data (0x2037)"
            }
            return "no \(what) with iBeacon data on \(HCIDeviceInfo.name(of: index)) in the capture"
        case let .configDiffers(d):
            return "\(d) (config ≠ capture)"
        case let .txPowerDiffers(opcode, expected, actual):
            return "\(opcode.name ?? "parameters"): Advertising_TX_Power \(expected) ≠ \(actual) dBm (config ≠ capture)"
        case let .familyDiffers(expected, actual):
            return "controller \(expected.rawValue) ≠ \(actual?.rawValue ?? "?") (config ≠ capture)"
        case let .noParameters(p):
            return "\(p == .legacy ? "LE Set Advertising Parameters" : "LE Set Extended Advertising Parameters"): none for the \(p.text) in the capture"
        case let .parametersTooShort(opcode, count):
            return "\(opcode.name ?? "parameters"): \(count) parameter bytes, too short"
        case let .neverEnabled(p, rotation):
            return rotation ? "never on air: its data was never set on the \(p.text) while it was enabled"
                            : "never on air: the \(p.text) was never enabled with its data"
        case let .offAirAtEnd(event):
            return "off air at the end of the capture: \(event.text)"
        case let .commandFailed(c):
            return text(c)
        case let .noAddCommand(index):
            return "no MGMT Add Extended Advertising Data (0x0055) or Add Advertising (0x003e) from beacon-tx with iBeacon data for \(HCIDeviceInfo.name(of: index)) in the capture"
        case let .addedBeaconDiffers(d):
            return "MGMT \(d) (config ≠ capture)"
        case let .planCommandMissing(opcode, instance):
            return "MGMT \(opcode) for instance \(instance): not sent by beacon-tx before its data (plan ≠ capture)"
        case let .planDiffers(opcode, instance, field, expected, actual):
            return "MGMT \(opcode) for instance \(instance): \(field.map { $0 + " " } ?? "")\(expected) ≠ \(actual) (plan ≠ capture)"
        case let .kernelChangedData(opcode, at, written, added):
            return "\(opcode) at \(seconds(at)) s carries \(Hex.encode(written)), not the \(Hex.encode(added)) beacon-tx added (the kernel changed our bytes)"
        case let .connectableDiffers(opcode, expected, actual):
            let word = { (c: Bool) in c ? "connectable" : "non-connectable" }
            return "\(opcode): \(word(expected)) ≠ \(word(actual)) (config ≠ capture)"
        case let .kernelNeverEnabled(p):
            return "never on air: the kernel wrote its data but never enabled the \(p.text) with it"
        case let .kernelNeverWrote(instance):
            return "never on air: the kernel wrote no LE Set Advertising Data (0x2008) or LE Set Extended Advertising Data (0x2037) with its data after beacon-tx added instance \(instance)"
        case let .neverAdded(instance):
            return "never added: no MGMT command of beacon-tx with its data for instance \(instance) was answered Success"
        case let .writtenAfterRemoval(opcode, at, instance, removed):
            return "\(opcode) at \(seconds(at)) s wrote its data again after beacon-tx's Remove Advertising of instance \(instance) at \(seconds(removed)) s"
        case let .onAirAfterRemoval(instance, removed):
            return "still on air at the end of the capture after beacon-tx's Remove Advertising of instance \(instance) at \(seconds(removed)) s (the kernel left its data enabled)"
        case let .removedByOther(event):
            return "removed at \(seconds(event.seconds)) s: \(event.cause) \(event.who ?? ""), and not added again by the end of the capture"
        case let .notRemoved(instance, added):
            return "no MGMT Remove Advertising (0x003f) of instance \(instance) from beacon-tx after it was added at \(seconds(added)) s: beacon-tx's MGMT socket closed with the instance still in the kernel's rotation"
        }
    }

    /// `LE Set Extended Advertising Enable (0x2039) on set 239 at 1.009 s failed: Unspecified Error (0x1f)`.
    static func text(_ c: FailedCommand) -> String {
        let noAnswer = "no Command Complete or Command Status in the capture"
        switch c {
        case let .hci(opcode, p, at, status):
            let head = "\(opcode) \(p == .legacy ? "on the legacy instance" : "on " + p.text) at \(CaptureReport.seconds(at)) s"
            return status.map { head + " failed: \($0)" } ?? head + ": " + noAnswer
        case let .mgmt(opcode, instance, at, status):
            let head = "MGMT \(opcode) for instance \(instance) at \(CaptureReport.seconds(at)) s"
            return status.map { head + " failed: \($0)" } ?? head + ": " + noAnswer
        }
    }

    /// The note of a share-mode capture in which beacon-tx fell back to Add Advertising.
    static func refusalText(_ r: CaptureReport.Share.Refusal) -> String {
        "the kernel refused MGMT Add Extended Advertising Data (0x0055) with \(r.status) at \(CaptureReport.seconds(r.seconds)) s: beacon-tx used Add Advertising (0x003e) instead (the kernel's interval)"
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
                ("durationSeconds", .number(Double(s.durationSeconds))), ("note", s.extendedRefusal.map { .string(refusalText($0)) } ?? .null),
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
            ("firstFailure", r.passed ? .null : firstFailureText(r).map(JSON.string) ?? .null),
        ]
        pairs += share
        pairs.append(("beacons", .array(r.beacons.map(beaconJSON))))
        return .object(pairs)
    }

    static func beaconJSON(_ b: CaptureReport.BeaconReport) -> JSON {
        let e = b.expected
        var handle: JSON = .null
        if case let .set(h)? = b.placement { handle = .number(Double(h)) }
        let expected: [(String, JSON)] = e.frame.configJSONFields + [
            ("intervalUnits", .number(Double(e.options.interval.units))), ("connectable", .bool(e.options.connectable)),
            ("txPower", e.options.txPower.map { .number(Double($0)) } ?? .null),
        ]
        let events: [JSON] = b.events.map { (ev: CaptureReport.Event) -> JSON in
            let who: JSON = ev.who.map(JSON.string) ?? .null
            return .object([("at", seconds(ev.seconds)), ("state", .string(ev.on ? "on" : "off")), ("cause", .string(ev.cause)),
                            ("who", who), ("byStopPlan", .bool(ev.byStopPlan))])
        }
        var pairs: [(String, JSON)] = [("number", .number(Double(b.number))), ("expected", .object(expected))]
        pairs.append(("found", b.found.map { .object($0.configJSONFields) } ?? .null))
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
        pairs.append(("failedCommands", .array(b.failedCommands.map { .string(text($0)) })))
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
        pairs.append(("failures", .array(b.failures.map { .string(text($0)) })))
        return .object(pairs)
    }
}

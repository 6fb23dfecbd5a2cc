// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// The dry-run formats of a plan (`Format`: text, hex, hcitool, json, btsnoop). Pure functions of (settings, plan) so tests can
/// snapshot them whole.
enum DryRun {
    /// Every dry-run format, in the order `--help` lists them: `start` takes its choices, its
    /// dispatch and what the `--share always` plan can show from here, so a new format is a case
    /// and its renderer in this file.
    enum Format: String, CaseIterable {
        case text, hex, hcitool, json, btsnoop

        /// The output of the HCI plan.
        func render(_ s: Settings, _ plan: KioskPlan, device: String) -> [UInt8] {
            switch self {
            case .text: return Array(DryRun.text(s, plan, device: device).utf8)
            case .hex: return Array(DryRun.hex(plan).utf8)
            case .hcitool: return Array(DryRun.hcitool(s, plan, device: device).utf8)
            case .json: return Array((DryRun.json(s, plan, device: device).pretty + "\n").utf8)
            case .btsnoop: return DryRun.btsnoop(plan)
            }
        }

        /// The output of the `--share always` plan (MGMT commands), nil for the formats that show HCI commands only.
        func render(_ s: Settings, _ plan: SharePlan, device: String) -> [UInt8]? {
            switch self {
            case .text: return Array(ShareDryRun.text(s, plan, device: device).utf8)
            case .json: return Array((ShareDryRun.json(s, plan, device: device).pretty + "\n").utf8)
            case .hex, .hcitool, .btsnoop: return nil
            }
        }

        /// Binary output (refused on a terminal).
        var isBinary: Bool { self == .btsnoop }

        static var names: [String] { allCases.map(\.rawValue) }
    }

    /// A beacon as the dry runs name it: an iBeacon's region and measured power, another type's
    /// identity and calibrated power.
    static func describe(_ frame: BeaconFrame) -> String {
        guard case let .iBeacon(b) = frame else { return frame.summary }
        return "\(b.uuid) major \(b.major) minor \(b.minor) measured power \(b.measuredPower) dBm"
    }

    /// The text formats' first lines, raw HCI and shared alike: a line per beacon (its identity, then
    /// `detail`: its overrides and the like) and its advertising data.
    static func header(_ s: Settings, detail: (Int, BeaconEntry) -> String) -> [String] {
        var lines = ["beacon-tx dry run: nothing is sent"]
        for (i, entry) in s.beacons.enumerated() {
            let data = entry.frame.advertisingData
            let label = s.beacons.count == 1 ? "beacon:   " : "beacon \(i + 1): "
            lines.append(label + "\(entry.identifier.map { $0 + " " } ?? "")\(describe(entry.frame))" + detail(i, entry))
            lines.append((s.beacons.count == 1 ? "data:     " : "  data:   ") + "\(Hex.encode(data)) (\(data.count) bytes)")
            if case let .telemetry(t) = entry.frame {
                lines.append("          (as at the start: the PDU count and time since start are written live, once a second, 10 s sharing"
                             + (t.temperatureSource.map { "; the temperature from \($0)" } ?? "") + ")")
            }
        }
        return lines
    }

    /// btmon-like text of the start commands, the rotation steps and the stop commands, with the beacons decoded.
    static func text(_ s: Settings, _ plan: KioskPlan, device: String) -> String {
        let rotating = plan.layout.isRotation && s.beacons.count > 1
        let ignored = rotating ? plan.configuration.ignoredUnderRotation : []
        var lines = header(s) { i, entry in overrides(entry, ignored: ignored.filter { $0.beacon == i }.map(\.key)) }
        // A rotated instance has one interval, connectability and tx power for every beacon.
        let shown = rotating ? plan.configuration.rotationOptions
            : AdvertisingOptions(interval: s.interval, connectable: s.connectable, txPower: s.txPower)
        lines.append("device:   \(device), \(plan.family) advertising commands, interval \(shown.interval.text), \(shown.connectable ? "connectable" : "non-connectable")"
                     + (shown.txPower.map { ", tx power \($0) dBm" } ?? "") + placement(plan, s))
        for warning in rotationWarnings(plan, s) { lines.append("warning:  " + warning) }
        if s.controller == nil {
            lines.append("          (live start probes the controller and uses extended commands when supported; --controller extended shows them)")
        }
        if let own = StaticRandomAddress.derived(for: plan.configuration) {
            lines.append("          (on a controller without a public address, 00:00:00:00:00:00, live start advertises from random static address "
                         + "\(StaticRandomAddress.text(own)), or the kernel's: \(plan.family == .legacy ? "LE Set Random Address after the disable" : "LE Set Advertising Set Random Address"), Own_Address_Type Random)")
        }
        if s.txPower != nil && plan.family == .legacy {
            lines.append("          (--tx-power applies to extended advertising only; legacy commands carry no tx power)")
        }
        lines += ["", "start:"]
        for step in plan.start { lines += CommandText.describe(step.command) }
        if !plan.rotationSteps.isEmpty {
            lines += ["", "rotation: every \(s.rotationMilliseconds) ms the data is replaced while advertising stays enabled (each beacon on air every \(plan.configuration.rotationCycleMilliseconds) ms):"]
            for (i, step) in plan.rotationSteps.enumerated() {
                lines.append("  step \(i + 1) (beacon \(i + 1)):")
                lines += CommandText.describe(step.command)
            }
        }
        if let schedule = scheduleText(s) { lines += ["", "schedule: " + schedule] }
        lines += ["", "stop:"]
        for step in plan.stop { lines += CommandText.describe(step.command) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `, sets 239, 238` / `, one instance rotated every 200 ms` / nothing for one legacy beacon.
    static func placement(_ plan: KioskPlan, _ s: Settings) -> String {
        switch plan.layout {
        case let .sets(handles):
            return s.beacons.count == 1 ? "" : ", sets " + handles.map(String.init).joined(separator: ", ")
        case .rotation:
            return s.beacons.count == 1 ? "" : ", one instance rotated every \(s.rotationMilliseconds) ms"
        }
    }

    /// `on 2 s (start commands), off 2 s (disable), ... 2 times, then stop` / `stop after 3 s`; nil
    /// without a schedule. The off phase sends the first commands of the stop plan (disable only).
    static func scheduleText(_ s: Settings) -> String? {
        let schedule = s.schedule
        guard !schedule.isEmpty else { return nil }
        var parts: [String] = []
        if let c = schedule.cycle {
            parts.append("on \(c.onMilliseconds / 1000) s (the start commands), off \(c.offMilliseconds / 1000) s (disable, sets kept)"
                         + (c.count.map { ", \($0) time\($0 == 1 ? "" : "s"), then stop" } ?? ", forever"))
            let phases = schedule.phases(limit: 6)
            var changes = phases.map { "\($0.on ? "on" : "off") at \($0.at / 1000) s" }
            if c.count != nil, let last = phases.last, phases.count < 6 { changes.append("stop at \((last.at + c.offMilliseconds) / 1000) s") }
            parts.append("phase changes: " + changes.joined(separator: ", ") + (phases.count == 6 ? ", ..." : ""))
        }
        if let d = schedule.durationMilliseconds { parts.append("stop after \(d / 1000) s") }
        return parts.joined(separator: "; ")
    }

    /// `(interval 200.000 msec (0x0140))`; an override a rotation does not apply (`ignored` keys) says so.
    static func overrides(_ e: BeaconEntry, ignored: [String] = []) -> String {
        var parts: [String] = []
        func mark(_ key: String) -> String { ignored.contains(key) ? " not applied" : "" }
        if let i = e.interval { parts.append("interval \(i.text)" + mark("interval")) }
        if let c = e.connectable { parts.append((c ? "connectable" : "non-connectable") + mark("connectable")) }
        if let t = e.txPower { parts.append("tx power \(t) dBm" + mark("txPower")) }
        return parts.isEmpty ? "" : " (" + parts.joined(separator: ", ") + ")"
    }

    /// Home Assistant's iBeacon integration ignores an address that broadcasts this many identities or
    /// more (`MAX_IDS` in homeassistant/components/ibeacon/const.py).
    static let homeAssistantMaximumIdentities = 10
    /// iOS ranges about once a second: a beacon absent for longer comes and goes in CoreLocation.
    static let rangingPeriodMilliseconds = 1000

    /// What a plan cannot do that the config asks for, or that phones will not follow: per-beacon
    /// values a rotation does not apply, a rotation cycle longer than iOS's ranging period, and ten or
    /// more identities on one address. The dry-run text and the live start print the same lines.
    static func rotationWarnings(_ plan: KioskPlan, _ s: Settings) -> [String] {
        let c = plan.configuration
        var out: [String] = []
        let rotating = plan.layout.isRotation && c.beacons.count > 1
        if rotating {
            for o in c.ignoredUnderRotation {
                let name = s.beacons.indices.contains(o.beacon) ? s.beacons[o.beacon].identifier.map { " (\($0))" } ?? "" : ""
                out.append("beacon \(o.beacon + 1)\(name): \(o.key) \(o.configured) is not applied: rotated beacons share one advertising instance, which uses \(o.applied) (the top-level \(o.key))")
            }
            let cycle = c.rotationCycleMilliseconds
            if cycle > rangingPeriodMilliseconds {
                out.append("rotation cycle \(cycle) ms (\(c.beacons.count) beacons x \(c.rotationMilliseconds) ms) is longer than iOS's 1 s ranging period: phones lose each beacon between its turns; rotate fewer beacons or shorten --rotation")
            }
        }
        let sharedAddress = rotating || !c.addressPerSet
        let identities = Set(c.beacons.map(\.frame.advertisingData)).count
        if sharedAddress, identities >= homeAssistantMaximumIdentities {
            out.append("\(identities) identities on one address: Home Assistant's iBeacon integration ignores an address with \(homeAssistantMaximumIdentities) or more (MAX_IDS)"
                       + (plan.family == .extended && !rotating ? "; --random-address-per-set gives each set its own address" : "; on an extended controller, --controller extended --random-address-per-set gives each beacon its own address"))
        }
        return out
    }

    /// One H4 packet per line, lowercase, no spaces: `# start:`, the start packets, `# rotation:` and
    /// its steps when beacons rotate, `# stop:`, the stop packets (`beacon-tx decode -` skips the
    /// comment lines).
    static func hex(_ plan: KioskPlan) -> String {
        func lines(_ steps: [PlannedCommand]) -> String { steps.map { Hex.encode($0.command.packet) + "\n" }.joined() }
        return "# start:\n" + lines(plan.start)
            + (plan.rotationSteps.isEmpty ? "" : "# rotation:\n" + lines(plan.rotationSteps))
            + "# stop:\n" + lines(plan.stop)
    }

    /// The plan's `beacons` (both modes): each configured entry's identifier with the beacon as
    /// advertised, its advertising data and options.
    static func beaconsJSON(_ entries: [BeaconEntry], _ advertised: [BeaconAdvertisement]) -> JSON {
        .array(zip(entries, advertised).map { entry, advertised in
            let f = advertised.frame, o = advertised.options
            return .object([("identifier", entry.identifier.map(JSON.string) ?? .null)] + Settings.naming(f.configJSONFields, entry, in: entries) + [
                ("advertisingData", .string(Hex.encode(f.advertisingData))),
                ("intervalMilliseconds", .number(o.interval.milliseconds)), ("connectable", .bool(o.connectable)),
                ("txPower", o.txPower.map { .number(Double($0)) } ?? .null),
            ])
        })
    }

    /// The whole plan as JSON (schema: Docs/plan.schema.json; keys always in this order):
    /// `format`, `formatVersion`, `device`, `family`, `layout`, `beacons`, `start`, `rotation`,
    /// `schedule`, `stop`. Every command is `HCIJSON.command`: opcode, spec name, fields, H4 hex.
    static func json(_ s: Settings, _ plan: KioskPlan, device: String) -> JSON {
        func commands(_ steps: [PlannedCommand]) -> JSON { .array(steps.map { HCIJSON.command($0.command) }) }
        func number<T: BinaryInteger>(_ v: T) -> JSON { .number(Double(v)) }
        let layout: JSON
        switch plan.layout {
        case let .sets(handles):
            layout = .object([("kind", .string("sets")), ("handles", .array(handles.map(number)))])
        case let .rotation(handle):
            layout = .object([("kind", .string("rotation")), ("handle", plan.family == .extended ? number(handle) : .null),
                              ("dwellMilliseconds", number(s.rotationMilliseconds)),
                              ("cycleMilliseconds", number(plan.configuration.rotationCycleMilliseconds))])
        }
        let schedule = s.schedule
        let scheduleJSON: JSON = schedule.isEmpty ? .null : .object([
            ("durationMilliseconds", schedule.durationMilliseconds.map(number) ?? .null),
            ("cycle", schedule.cycle.map { c in
                .object([("onMilliseconds", number(c.onMilliseconds)), ("offMilliseconds", number(c.offMilliseconds)),
                         ("count", c.count.map(number) ?? .null)])
            } ?? .null),
        ])
        return .object([
            ("format", .string(planFormat)), ("formatVersion", number(planFormatVersion)),
            ("device", .string(device)), ("family", .string(plan.family.rawValue)), ("layout", layout),
            ("beacons", beaconsJSON(s.beacons, plan.advertised)),
            ("start", commands(plan.start)), ("rotation", commands(plan.rotationSteps)),
            ("schedule", scheduleJSON), ("stop", commands(plan.stop)),
        ])
    }

    /// The JSON plan's `format` and `formatVersion` (bumped when a key changes meaning or goes away).
    static let planFormat = "beacon-tx plan"
    static let planFormatVersion = 1

    /// Lines runnable as is: `hcitool -i hci0 cmd 0x08 0x0008 1e 02 01 ...`.
    static func hcitool(_ s: Settings, _ plan: KioskPlan, device: String) -> String {
        var lines: [String] = []
        for entry in s.beacons {
            lines.append("# beacon-tx dry run: \(describe(entry.frame)), \(plan.family) commands")
        }
        lines.append("# start:")
        lines += plan.start.map { hcitoolLine($0.command, device: device) }
        if !plan.rotationSteps.isEmpty {
            lines.append("# rotation, one step every \(s.rotationMilliseconds) ms:")
            lines += plan.rotationSteps.map { "# " + hcitoolLine($0.command, device: device) }
        }
        if let schedule = scheduleText(s) { lines.append("# schedule: " + schedule) }
        lines.append("# stop:")
        lines += plan.stop.map { "# " + hcitoolLine($0.command, device: device) }
        return lines.joined(separator: "\n") + "\n"
    }

    static func hcitoolLine(_ c: HCICommand, device: String) -> String {
        let params = c.parameters.isEmpty ? "" : " " + Hex.encode(c.parameters, separator: " ")
        return "hcitool -i \(device) cmd \(Hex.byte(c.opcode.ogf)) \(Hex.word(c.opcode.ocf))\(params)"
    }

    /// A btsnoop capture of the start commands, the rotation steps, then the stop commands, each
    /// answered by a synthetic successful Command Complete (what a start followed by Ctrl-C sends).
    static func btsnoop(_ plan: KioskPlan) -> [UInt8] {
        BTSnoop.encode(BTSnoop.syntheticCapture(of: (plan.start + plan.rotationSteps + plan.stop).map(\.command)))
    }
}

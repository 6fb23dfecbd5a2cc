/// Checks a capture against what a kiosk configuration should have put on air (`beacon-tx verify`).
///
/// It looks at one controller (by index in monitor captures; 1001/1002 captures hold one), finds
/// each configured beacon by its iBeacon data in LE Set (Extended) Advertising Data commands,
/// replays the successful advertising commands to know when each set (or the legacy instance) was on
/// air, and checks the parameters, the answers, and the state at the end. Pure: records in, report out.
public enum CaptureVerifier {
    /// Where a beacon sits on the controller: the legacy instance or an extended set.
    public typealias Placement = ControllerAdvertisingState.Placement

    /// The window in which an MGMT command counts as the reason for the kernel's next HCI command.
    public static let mgmtWindowMicroseconds: Int64 = 1_000_000

    public static func verify(_ capture: CaptureFile, expected: KioskConfiguration, controllerIndex: UInt16) -> CaptureReport {
        var v = Run(capture: capture, expected: expected, index: controllerIndex)
        return v.run()
    }

    /// One HCI command on our controller with its answer.
    struct Command {
        var position: Int
        var time: Int64
        var command: HCICommand
        var status: Status?
        /// Who made the kernel send it, or which raw sockets were open (monitor captures only).
        var who: String?
        /// A raw socket of a program called beacon-tx was open (always true without a monitor).
        var beaconTxOpen = true
    }

    /// The program name the kernel reports for beacon-tx's raw sockets (the task's comm).
    public static let programName = "beacon-tx"

    /// What changed the controller's advertising state (a command, or the controller closing).
    struct Change {
        var time: Int64
        var command: Int?
        var text: String
        var who: String?
    }

    struct Run {
        let capture: CaptureFile
        let expected: KioskConfiguration
        let index: UInt16
        var base: UInt64 = 0
        var commands: [Command] = []
        /// Index events (Close/Delete Index) by record position, as changes.
        var indexChanges: [(position: Int, change: Change)] = []

        init(capture: CaptureFile, expected: KioskConfiguration, index: UInt16) {
            self.capture = capture
            self.expected = expected
            self.index = index
            base = capture.records.first?.unixMicroseconds ?? 0
        }

        func time(_ us: UInt64) -> Int64 { Int64(bitPattern: us &- base) }

        func onIndex(_ r: CaptureRecord) -> Bool { r.controllerIndex == nil || r.controllerIndex == index }

        var isMonitor: Bool { capture.datalink == CaptureFile.datalinkMonitor }

        /// Pairs commands with their Command Complete / Status and notes who sent them.
        mutating func collect() {
            var pending: [Opcode: [Int]] = [:]
            var sockets: [UInt32: (open: CaptureRecord.ControlOpen, index: UInt16?)] = [:]
            // The program is looked up when the MGMT command is sent: its socket may close before
            // the kernel's HCI commands follow (and cookies are reused).
            var lastMGMT: (time: Int64, program: String?, opcode: UInt16)?
            for (position, r) in capture.records.enumerated() {
                let t = time(r.unixMicroseconds)
                switch r.kind {
                case let .controlOpen(o):
                    sockets[o.cookie] = (o, r.controllerIndex)
                    continue
                case let .controlClose(cookie):
                    sockets[cookie] = nil
                    continue
                case let .controlCommand(cookie, opcode, _) where onIndex(r) && MGMTCommand.names[opcode] != nil:
                    lastMGMT = (t, sockets[cookie]?.open.comm, opcode)
                    continue
                default:
                    break
                }
                guard onIndex(r) else { continue }
                func rawSockets() -> [String] {
                    var raw: [String] = []
                    for (_, s) in sockets.sorted(by: { $0.key < $1.key })
                    where s.open.format == CaptureRecord.ControlOpen.formatRaw && (s.index == index || s.index == CaptureFile.noIndex) {
                        let name = s.open.comm ?? "unknown"
                        if !raw.contains(name) { raw.append(name) }
                    }
                    return raw
                }
                func who() -> String? {
                    guard isMonitor else { return nil }
                    if let m = lastMGMT, withinMGMTWindow(t, after: m.time) {
                        let program = m.program.map { " from \($0)" } ?? ""
                        return "sent by the kernel for MGMT \(MGMTCommand.text(m.opcode))\(program)"
                    }
                    let raw = rawSockets()
                    return "sent on a raw HCI socket" + (raw.isEmpty ? "" : " (raw sockets open: \(raw.joined(separator: ", ")))")
                }
                /// A controller closed or removed: after an MGMT command (Set Powered), or with the
                /// raw sockets open then (HCIDEVDOWN is an ioctl on one; an unplug has none).
                func indexWho() -> String? {
                    guard isMonitor else { return nil }
                    if let text = lastMGMTText(lastMGMT, t) { return text }
                    let raw = rawSockets()
                    return raw.isEmpty ? nil : "raw sockets open then: \(raw.joined(separator: ", "))"
                }
                switch r.kind {
                case let .command(c):
                    pending[c.opcode, default: []].append(commands.count)
                    let ours = !isMonitor || sockets.values.contains {
                        $0.open.format == CaptureRecord.ControlOpen.formatRaw && $0.open.comm == programName
                    }
                    commands.append(Command(position: position, time: t, command: c, status: nil, who: who(), beaconTxOpen: ours))
                case let .event(e):
                    var answered: (Opcode, Status?)?
                    if let cc = try? CommandComplete(e) { answered = (cc.opcode, cc.status) }
                    if let cs = try? CommandStatus(e) { answered = (cs.opcode, cs.status) }
                    if let (opcode, status) = answered, var queue = pending[opcode], !queue.isEmpty {
                        let i = queue.removeFirst()
                        pending[opcode] = queue
                        commands[i].status = status ?? .success
                    }
                case .closeIndex:
                    indexChanges.append((position, Change(time: t, command: nil, text: "Close Index (device down)", who: indexWho())))
                case .deleteIndex:
                    indexChanges.append((position, Change(time: t, command: nil, text: "Delete Index (controller removed)", who: indexWho())))
                default:
                    break
                }
            }
        }

        /// `t` is at most the MGMT window after `start`; timestamps come from a file, so no overflow.
        func withinMGMTWindow(_ t: Int64, after start: Int64) -> Bool {
            let (elapsed, overflow) = t.subtractingReportingOverflow(start)
            return t >= start && !overflow && elapsed <= CaptureVerifier.mgmtWindowMicroseconds
        }

        func lastMGMTText(_ m: (time: Int64, program: String?, opcode: UInt16)?, _ t: Int64) -> String? {
            guard let m, withinMGMTWindow(t, after: m.time) else { return nil }
            return "after MGMT \(MGMTCommand.text(m.opcode))" + (m.program.map { " from \($0)" } ?? "")
        }

        /// A candidate data command: where, what, which iBeacon.
        struct Candidate {
            var command: Int
            var placement: Placement
            var data: [UInt8]
            var beacon: IBeacon
        }

        func candidates() -> [Candidate] {
            commands.indices.compactMap { i in
                let c = commands[i].command
                guard c.opcode == .leSetAdvertisingData || c.opcode == .leSetExtendedAdvertisingData,
                      let data = c.carriedAdvertisingData, let b = IBeacon(advertisingData: data) else { return nil }
                guard let placement = ControllerAdvertisingState.placements(of: c).first else { return nil }
                return Candidate(command: i, placement: placement, data: data, beacon: b)
            }
        }

        static func sameRegion(_ a: IBeacon, _ b: IBeacon) -> Bool { a.uuid == b.uuid && a.major == b.major && a.minor == b.minor }
        static func equalFields(_ a: IBeacon, _ b: IBeacon) -> Int {
            (a.uuid == b.uuid ? 1 : 0) + (a.major == b.major ? 1 : 0) + (a.minor == b.minor ? 1 : 0) + (a.measuredPower == b.measuredPower ? 1 : 0)
        }

        /// Whether an advertising command touches the placement (set or legacy instance).
        func touches(_ c: HCICommand, _ p: Placement) -> Bool {
            if p == .legacy, c.opcode == .leSetRandomAddress || c.opcode == .leSetScanResponseData { return false }
            if case .set = p, c.opcode == .leSetExtendedScanResponseData { return false }
            return ControllerAdvertisingState.placements(of: c).contains(p)
        }

        /// Statuses a step may answer and still count as done: disabling or removing what is not there.
        static func tolerated(_ c: HCICommand) -> Set<Status> {
            switch c.opcode {
            case .leSetAdvertisingEnable where LESetAdvertisingEnable(c)?.advertisingEnable == false: return [.commandDisallowed]
            case .leSetExtendedAdvertisingEnable where LESetExtendedAdvertisingEnable(c)?.enable == false, .leRemoveAdvertisingSet:
                return [.unknownAdvertisingIdentifier, .commandDisallowed]
            default: return []
            }
        }

        /// `LE Set Extended Advertising Enable (0x2039) disabling all sets`.
        static func changeText(_ c: HCICommand, _ p: Placement, turnedOff: Bool) -> String {
            switch c.opcode {
            case .leSetExtendedAdvertisingEnable:
                let e = LESetExtendedAdvertisingEnable(c)
                let sets = e?.handles ?? []
                if e?.enable == true { return "\(c.opcode) enabling " + sets.map { "set \($0)" }.joined(separator: ", ") }
                return "\(c.opcode) disabling " + (sets.isEmpty ? "all sets (Number_of_Sets 0)" : sets.map { "set \($0)" }.joined(separator: ", "))
            case .leSetAdvertisingEnable:
                return "\(c.opcode) " + (LESetAdvertisingEnable(c)?.advertisingEnable == true ? "enabling" : "disabling") + " the legacy instance"
            case .leRemoveAdvertisingSet: return "\(c.opcode) of \(p.text)"
            case .leSetAdvertisingData, .leSetExtendedAdvertisingData:
                return turnedOff ? "\(c.opcode) replaced the data with other data" : "\(c.opcode) set our data"
            default: return c.opcode.description
            }
        }

        mutating func run() -> CaptureReport {
            collect()
            let index = self.index
            var name = HCIDeviceInfo.name(of: index)
            for r in capture.records {
                if case let .newIndex(n) = r.kind, r.controllerIndex == index, !n.name.isEmpty { name = n.name; break }
            }
            var report = CaptureReport(datalink: capture.datalink, recordCount: capture.records.count, controllerIndex: index,
                                       controller: name, warning: capture.warning, beacons: [])
            if isMonitor, !capture.records.contains(where: { $0.controllerIndex == index }) {
                report.noteNoRecords = true
            }

            // 1. Which data command is each configured beacon's.
            let cands = candidates()
            var chosen: [Candidate?] = Array(repeating: nil, count: expected.beacons.count)
            var claimed = Set<Int>()
            for (i, b) in expected.beacons.enumerated() {
                if let c = cands.last(where: { Self.sameRegion($0.beacon, b.beacon) && $0.beacon.measuredPower == b.beacon.measuredPower }) {
                    chosen[i] = c
                    claimed.insert(c.command)
                }
            }
            for (i, b) in expected.beacons.enumerated() where chosen[i] == nil {
                func score(_ c: Candidate) -> (Int, Int, Int) {
                    (Self.sameRegion(c.beacon, b.beacon) ? 1 : 0, claimed.contains(c.command) ? 0 : 1, Self.equalFields(c.beacon, b.beacon))
                }
                var best: Candidate?
                for c in cands {
                    if let b0 = best, score(c) < score(b0) { continue }
                    best = c
                }
                chosen[i] = best
            }
            var ourData: [Placement: Set<[UInt8]>] = [:]
            for c in chosen.compactMap({ $0 }) { ourData[c.placement, default: []].insert(c.data) }
            let shared = Dictionary(grouping: chosen.compactMap { $0?.placement }, by: { $0 }).filter { $0.value.count > 1 }.keys

            // 2. Replay: when was each placement on air (enabled with our data), and what changed it.
            var events: [Placement: [CaptureReport.Event]] = [:]
            var onNow: [Placement: Bool] = [:]
            var beaconOnAt: [Int64?] = Array(repeating: nil, count: expected.beacons.count)
            var enableParams: [Placement: HCICommand] = [:]
            var state = ControllerAdvertisingState()
            var changes: [(position: Int, command: Int?, change: Change?)] = commands.indices.map { (commands[$0].position, $0, nil) }
            changes += indexChanges.map { ($0.position, nil, $0.change) }
            changes.sort { $0.position < $1.position }
            for step in changes {
                var cause: Change
                if let ci = step.command {
                    let c = commands[ci]
                    guard c.status == .success else { continue }
                    state.apply(c.command)
                    cause = Change(time: c.time, command: ci, text: "", who: c.who)
                } else if let change = step.change {
                    state = ControllerAdvertisingState()
                    cause = change
                } else { continue }
                for (p, datas) in ourData {
                    let inst = state[p] ?? ControllerAdvertisingState.Instance()
                    let on = inst.enabled && datas.contains(inst.data)
                    for (i, c) in chosen.enumerated() where beaconOnAt[i] == nil && c?.placement == p && inst.enabled && inst.data == c?.data {
                        beaconOnAt[i] = cause.time
                    }
                    guard on != (onNow[p] ?? false) else { continue }
                    onNow[p] = on
                    if let ci = cause.command {
                        cause.text = Self.changeText(commands[ci].command, p, turnedOff: !on)
                    }
                    if on, let parameters = inst.parameters {
                        enableParams[p] = HCICommand(p == .legacy ? .leSetAdvertisingParameters : .leSetExtendedAdvertisingParameters, parameters)
                    }
                    events[p, default: []].append(CaptureReport.Event(seconds: Double(cause.time) / 1_000_000, on: on, cause: cause.text,
                                                                       who: on ? nil : cause.who, commandIndex: cause.command))
                }
            }

            // 3. beacon-tx's own stop plan, as the capture's family and layout make it.
            var stopPlanCommands = Set<Int>()
            let placements = Set(chosen.compactMap { $0?.placement })
            if let family: AdvertisingFamily = placements.contains(.legacy) ? .legacy : (placements.isEmpty ? nil : .extended),
               let plan = try? KioskPlan(expected, family: family, rotate: !shared.isEmpty || family == .legacy) {
                let ours = commands.indices.filter { i in placements.contains { touches(commands[i].command, $0) } }
                let stop = plan.stop.map(\.command)
                if !stop.isEmpty, ours.count >= stop.count {
                    for s in 0...(ours.count - stop.count) {
                        let window = Array(ours[s..<(s + stop.count)])
                        // In a monitor capture the stop plan is beacon-tx's only while its raw socket is open:
                        // another program's identical legacy disable is not.
                        if window.map({ commands[$0].command }) == stop, window.allSatisfy({ commands[$0].beaconTxOpen }) {
                            stopPlanCommands.formUnion(window)
                        }
                    }
                }
            }

            // 4. One report per configured beacon.
            // Beacons sharing one instance (a rotation) are checked against the shared options the
            // plan gives that instance (KioskConfiguration.rotationOptions), not their own overrides.
            let rotated = expected.rotatedBeacons
            for (i, b) in expected.beacons.enumerated() {
                let isShared = chosen[i].map { shared.contains($0.placement) } ?? false
                report.beacons.append(beaconReport(i, isShared ? rotated[i] : b, chosen[i], events: chosen[i].map { events[$0.placement] ?? [] } ?? [],
                                                   onAt: beaconOnAt[i], shared: chosen[i].map { shared.contains($0.placement) } ?? false,
                                                   paramsAtEnable: chosen[i].flatMap { enableParams[$0.placement] },
                                                   stopPlan: stopPlanCommands))
            }
            return report
        }

        func beaconReport(_ i: Int, _ b: BeaconAdvertisement, _ found: Candidate?, events: [CaptureReport.Event], onAt: Int64?,
                          shared: Bool, paramsAtEnable: HCICommand?, stopPlan: Set<Int>) -> CaptureReport.BeaconReport {
            var r = CaptureReport.BeaconReport(number: i + 1, expected: b)
            guard let found else {
                let what: String
                switch expected.family {
                case .legacy?: what = "LE Set Advertising Data (0x2008)"
                case .extended?: what = "LE Set Extended Advertising Data (0x2037)"
                case nil: what = "LE Set Advertising Data (0x2008) or LE Set Extended Advertising Data (0x2037)"
                }
                r.failures.append("no \(what) with iBeacon data on \(HCIDeviceInfo.name(of: index)) in the capture")
                return r
            }
            let firstData = commands.first { c in
                touches(c.command, found.placement) && c.command.carriedAdvertisingData == found.data
            } ?? commands[found.command]
            let dataCommand = commands[found.command]
            r.found = found.beacon
            r.placement = found.placement
            r.rotation = shared
            r.family = found.placement == .legacy ? .legacy : .extended
            r.configuredSeconds = Double(firstData.time) / 1_000_000
            let name = dataCommand.command.opcode.name ?? "data"
            r.failures += CommandDiff.iBeaconDifferences(name, expected: b.beacon, actual: found.beacon).map { "\($0) (config ≠ capture)" }
            if let want = expected.family, want != r.family {
                r.failures.append("controller \(want.rawValue) ≠ \(r.family?.rawValue ?? "?") (config ≠ capture)")
            }

            // Parameters: the ones in force when the set last went on air, else the last ones sent.
            let p = found.placement
            let params = paramsAtEnable ?? commands.last { c in
                touches(c.command, p) && (c.command.opcode == .leSetAdvertisingParameters || c.command.opcode == .leSetExtendedAdvertisingParameters)
            }?.command
            let paramsName = p == .legacy ? "LE Set Advertising Parameters" : "LE Set Extended Advertising Parameters"
            if let params {
                checkParameters(params, b, into: &r)
            } else {
                r.failures.append("\(paramsName): none for the \(p.text) in the capture")
            }

            // Every command on our set (or the legacy instance, from our first configuration on) answered Success.
            var firstOurs = 0
            if p == .legacy {
                // The legacy instance is shared by every program: ours from our first configuration on
                // (the parameters before our first data, and the disable right before them).
                let firstData = commands.indices.first { ci in
                    commands[ci].command.opcode == .leSetAdvertisingData && commands[ci].command.carriedAdvertisingData == found.data
                } ?? found.command
                firstOurs = commands.indices.last { $0 <= firstData && commands[$0].command.opcode == .leSetAdvertisingParameters } ?? firstData
                if let prev = commands.indices.last(where: { $0 < firstOurs && touches(commands[$0].command, .legacy) }),
                   commands[prev].command == .leSetAdvertisingEnable(false) {
                    firstOurs = prev
                }
            }
            for ci in commands.indices where ci >= firstOurs && touches(commands[ci].command, p) {
                let c = commands[ci]
                r.commandCount += 1
                if let s = c.status {
                    if s != .success && !Self.tolerated(c.command).contains(s) {
                        r.failedCommands.append("\(c.command.opcode) \(p == .legacy ? "on the legacy instance" : "on " + p.text) at \(CaptureReport.seconds(c.time)) s failed: \(s)")
                    }
                } else {
                    r.failedCommands.append("\(c.command.opcode) \(p == .legacy ? "on the legacy instance" : "on " + p.text) at \(CaptureReport.seconds(c.time)) s: no Command Complete or Command Status in the capture")
                }
            }
            r.failures += r.failedCommands

            // On air over time.
            r.events = events.map { ev in
                var ev = ev
                if !ev.on, let ci = ev.commandIndex, stopPlan.contains(ci) {
                    ev.who = "stopped by beacon-tx's stop plan"
                    ev.byStopPlan = true
                }
                return ev
            }
            let onceOnAir = onAt != nil
            r.enabledSeconds = onAt.map { Double($0) / 1_000_000 }
            if !onceOnAir {
                r.failures.append(shared
                    ? "never on air: its data was never set on the \(p.text) while it was enabled"
                    : "never on air: the \(p.text) was never enabled with its data")
            }
            if let last = r.events.last {
                r.onAirAtEnd = last.on
                r.stoppedByStopPlan = !last.on && last.byStopPlan
                if !last.on && !last.byStopPlan && onceOnAir {
                    r.failures.append("off air at the end of the capture: went off at \(CaptureReport.seconds(last.seconds)) s: \(last.cause)" + (last.who.map { ", \($0)" } ?? ""))
                }
            }
            return r
        }

        /// The parameters command's fields, read with its description in `CommandTable` (octets after
        /// the last field are ignored), checked against the configured beacon's options.
        func checkParameters(_ c: HCICommand, _ b: BeaconAdvertisement, into r: inout CaptureReport.BeaconReport) {
            let name = c.opcode.name ?? "parameters"
            var rd = ByteReader(c.parameters)
            guard let d = CommandTable.description(c.opcode), let values = try? HCICommandDescription.decode(&rd, d.parameters) else {
                r.failures.append("\(name): \(c.parameters.count) parameter bytes, too short")
                return
            }
            let leaves = Dictionary(HCIFieldValue.leaves(values, d.parameters).map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
            func value(_ field: String) -> UInt32 { leaves[field]?.value.integer ?? 0 }
            /// `Name: Advertising_Interval_Min 0x00a0 ≠ 0x0140 (config ≠ capture)`, in the field's width.
            func expect(_ field: String, _ want: UInt32) {
                guard let leaf = leaves[field], let got = leaf.value.integer, got != want else { return }
                r.failures.append("\(name): \(field) \(leaf.field.integerText(want)) ≠ \(leaf.field.integerText(got)) (config ≠ capture)")
            }
            let legacy = c.opcode == .leSetAdvertisingParameters
            let interval = legacy ? "Advertising_Interval_" : "Primary_Advertising_Interval_"
            r.intervalMin = value(interval + "Min")
            r.intervalMax = value(interval + "Max")
            let want = UInt32(b.options.interval.units)
            expect(interval + "Min", want)
            expect(interval + "Max", want)
            if legacy {
                let type = UInt8(truncatingIfNeeded: value("Advertising_Type"))
                r.connectable = type == AdvertisingType.advInd.rawValue
                r.parameterSummary = "Advertising_Type \(AdvertisingType(rawValue: type))"
                expect("Advertising_Type", UInt32((b.options.connectable ? AdvertisingType.advInd : .advNonconnInd).rawValue))
            } else {
                let props = UInt16(truncatingIfNeeded: value("Advertising_Event_Properties"))
                let power = Int8(truncatingIfNeeded: value("Advertising_TX_Power"))
                r.connectable = props & AdvertisingEventProperties.connectable.rawValue != 0
                r.txPower = power
                r.parameterSummary = "Advertising_Event_Properties \(Hex.word(props))"
                let wantProps: AdvertisingEventProperties = b.options.connectable ? .legacyConnectable : .legacyNonconnectable
                expect("Advertising_Event_Properties", UInt32(wantProps.rawValue))
                if let tx = b.options.txPower, tx != power {
                    r.failures.append("\(name): Advertising_TX_Power \(tx) ≠ \(power) dBm (config ≠ capture)")
                }
            }
        }
    }
}

/// What `verify` found, per configured beacon, and the verdict.
public struct CaptureReport: Hashable, Sendable {
    public var datalink: UInt32
    public var recordCount: Int
    public var controllerIndex: UInt16
    /// `hci0` (from the capture's New Index, else by number).
    public var controller: String
    public var warning: String?
    /// A monitor capture with no record of this controller at all.
    public var noteNoRecords = false
    public var beacons: [BeaconReport]

    public struct Event: Hashable, Sendable {
        /// Seconds since the first record of the capture.
        public var seconds: Double
        public var on: Bool
        /// The command (or index event) that made the change.
        public var cause: String
        /// Who sent it (off events of monitor captures), or "stopped by beacon-tx's stop plan".
        public var who: String?
        public var byStopPlan = false
        var commandIndex: Int?

        public init(seconds: Double, on: Bool, cause: String, who: String? = nil, byStopPlan: Bool = false) {
            self.seconds = seconds
            self.on = on
            self.cause = cause
            self.who = who
            self.byStopPlan = byStopPlan
        }

        init(seconds: Double, on: Bool, cause: String, who: String?, commandIndex: Int?) {
            self.init(seconds: seconds, on: on, cause: cause, who: who)
            self.commandIndex = commandIndex
        }

        /// `went off at 3.204 s: … , sent by …` / `on at 1.002 s: …`.
        public var text: String {
            (on ? "on at \(CaptureReport.seconds(seconds)) s: " : "went off at \(CaptureReport.seconds(seconds)) s: ") + cause + (who.map { ", \($0)" } ?? "")
        }
    }

    public struct BeaconReport: Hashable, Sendable {
        /// 1-based, in config order.
        public var number: Int
        public var expected: BeaconAdvertisement
        /// The iBeacon of the data command that matched best; nil when there was none.
        public var found: IBeacon?
        public var placement: CaptureVerifier.Placement?
        /// Several beacons share the placement (data swapped on one instance).
        public var rotation = false
        public var family: AdvertisingFamily?
        public var intervalMin: UInt32?
        public var intervalMax: UInt32?
        public var connectable: Bool?
        /// Advertising_TX_Power as requested (extended only).
        public var txPower: Int8?
        /// `Advertising_Type …` / `Advertising_Event_Properties 0x0010`.
        public var parameterSummary: String?
        public var configuredSeconds: Double?
        public var enabledSeconds: Double?
        public var commandCount = 0
        public var failedCommands: [String] = []
        public var events: [Event] = []
        public var onAirAtEnd = false
        public var stoppedByStopPlan = false
        /// Every failed check, in order: data fields, family, parameters, commands, on air.
        public var failures: [String] = []

        public init(number: Int, expected: BeaconAdvertisement) {
            self.number = number
            self.expected = expected
        }

        public var passed: Bool { failures.isEmpty }

        /// `on air`, `stopped by beacon-tx's stop plan at 4.100 s`, `off since 3.204 s`, `never on air`.
        public var endState: String {
            if onAirAtEnd { return "on air" }
            guard let last = events.last else { return "never on air" }
            return stoppedByStopPlan ? "stopped by beacon-tx's stop plan at \(CaptureReport.seconds(last.seconds)) s"
                                     : "off since \(CaptureReport.seconds(last.seconds)) s"
        }
    }

    public var passed: Bool { !beacons.isEmpty && beacons.allSatisfy(\.passed) }

    /// `beacon 2: LE Set Extended Advertising Data: iBeacon minor 2 ≠ 3 (config ≠ capture)`.
    public var firstFailure: String? {
        for b in beacons { if let f = b.failures.first { return "beacon \(b.number): \(f)" } }
        return beacons.isEmpty ? "no beacons configured" : nil
    }

    /// Three decimals: 3.2041 → "3.204".
    /// A record may be stamped before the first one (clocks step, files are hand-made): the sign is
    /// kept outside the formatting, which expects a non-negative value.
    public static func seconds(_ s: Double) -> String {
        guard s.isFinite else { return "?" }
        return s < 0 ? "-" + Milliseconds.format(-s) : Milliseconds.format(s)
    }
    static func seconds(_ microseconds: Int64) -> String { seconds(Double(microseconds) / 1_000_000) }

    /// The report as `verify` prints it.
    public func text(file: String) -> [String] {
        var lines = [
            "capture: \(file)",
            "datalink: \(CaptureFile.datalinkName(datalink)), \(recordCount) records",
            "controller: " + (datalink == CaptureFile.datalinkMonitor ? "\(controller) (index \(controllerIndex))" : "the capture's only controller (no index in this datalink)"),
        ]
        if let warning { lines.append("warning: \(warning)") }
        if noteNoRecords { lines.append("warning: the capture has no record of \(controller)") }
        for b in beacons {
            let e = b.expected.beacon
            lines.append("")
            lines.append("beacon \(b.number): \(e.identifier.map { $0 + " " } ?? "")\(e.uuid) major \(e.major) minor \(e.minor) power \(e.measuredPower) dBm")
            if let f = b.found, let p = b.placement {
                lines.append("  found: \(f.uuid) major \(f.major) minor \(f.minor) power \(f.measuredPower) dBm, \(b.family?.rawValue ?? "?") commands, \(p.text)" + (b.rotation ? " (rotation: beacons share it)" : ""))
            } else {
                lines.append("  found: nothing")
            }
            if let lo = b.intervalMin, let hi = b.intervalMax {
                let ms = { (u: UInt32) in Milliseconds.format(Double(u) * 0.625) }
                var line = "  parameters: interval \(ms(lo))–\(ms(hi)) ms, " + ((b.connectable ?? false) ? "connectable" : "non-connectable")
                if let s = b.parameterSummary { line += " (\(s))" }
                if let tx = b.txPower { line += ", Advertising_TX_Power " + (tx == HCICommand.txPowerNoPreference ? "no preference" : "\(tx) dBm") }
                lines.append(line)
            }
            if let c = b.configuredSeconds { lines.append("  configured at \(Self.seconds(c)) s" + (b.enabledSeconds.map { ", on air at \(Self.seconds($0)) s" } ?? ", never on air")) }
            if b.found != nil {
                lines.append("  commands: \(b.commandCount)" + (b.failedCommands.isEmpty ? ", all answered Success" : ", \(b.failedCommands.count) failed"))
                lines += b.failedCommands.map { "    " + $0 }
            }
            lines += b.events.map { "  " + $0.text }
            lines.append("  at the end: \(b.endState)")
            lines.append("  " + (b.passed ? "ok" : "FAIL: " + (b.failures.first ?? "")))
        }
        lines.append("")
        lines.append(passed ? "PASS: \(beacons.count) beacon(s) configured as expected" + (beacons.allSatisfy(\.onAirAtEnd) ? " and on air at the end" : " and on air until stopped by beacon-tx")
                            : "FAIL: \(firstFailure ?? "")")
        return lines
    }
}

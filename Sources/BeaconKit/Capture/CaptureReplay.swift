// SPDX-License-Identifier: Apache-2.0
/// `verify`, part 3: replay. The successful commands through `ControllerAdvertisingState` (the model
/// the session uses) say when each placement was on air and what changed it; beacon-tx's own stop
/// plan is told apart.
extension CaptureVerifier.Run {
    /// Whether an advertising command touches the placement (set or legacy instance). Scan response
    /// data and the device's random address (LE Set Random Address, which scanning uses too) are
    /// left out, as the on-air projection leaves them out.
    func touches(_ c: HCICommand, _ p: Placement) -> Bool {
        switch CommandTable.advertisingEffect(c.opcode) {
        case .scanResponse?, .randomAddress?: return false
        default: return ControllerAdvertisingState.placements(of: c).contains(p)
        }
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

    /// When each placement was on air (one of our beacons on it on air, `OnAir`) and what changed it; when each beacon
    /// first went on air; the parameters in force when each placement last went on air.
    func replay(_ chosen: [Candidate?]) -> (events: [Placement: [CaptureReport.Event]], beaconOnAt: [Int64?], enableParams: [Placement: HCICommand]) {
        let placed = chosen.enumerated().map { i, c in
            c.map { BeaconPlacement($0.placement, data: $0.data, telemetry: expected.beacons.indices.contains(i) ? expected.beacons[i].frame.telemetry : nil) }
        }
        let ourPlacements = Set(placed.compactMap { $0?.placement })
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
            let beaconsOn = OnAir.beacons(placed, in: state)
            for (i, on) in beaconsOn.enumerated() where on && beaconOnAt[i] == nil { beaconOnAt[i] = cause.time }
            for p in ourPlacements {
                let inst = state[p] ?? ControllerAdvertisingState.Instance()
                // The placement is on air while one of our beacons on it is.
                let on = placed.indices.contains { placed[$0]?.placement == p && beaconsOn[$0] }
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
        return (events, beaconOnAt, enableParams)
    }

    /// The commands that are beacon-tx's own stop plan, as the capture's family and layout make it.
    func stopPlan(_ chosen: [Candidate?], shared: Set<Placement>) -> Set<Int> {
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
        return stopPlanCommands
    }
}

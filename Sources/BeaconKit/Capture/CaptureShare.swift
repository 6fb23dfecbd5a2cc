// SPDX-License-Identifier: Apache-2.0
/// `verify`, share mode: a capture of `start --share` (`always`, or `auto` next to kernel instances).
/// beacon-tx sent MGMT commands on its control socket (btmon records them with the socket's cookie
/// and program); the kernel derived the HCI commands. Checked per beacon: beacon-tx's Add commands
/// for its instance against the share plan for the same config (`SharePlan`, the MGMT dry run, with
/// the instances found in the capture), the kernel's HCI data carrying our bytes exactly (our own
/// Flags AD, nothing added), on air in the kernel's rotation, and at the stop Remove Advertising of
/// our instance with no data of ours written after it.
extension CaptureVerifier {
    /// One MGMT advertising command on our controller, with its answer on the same socket.
    struct MGMTSent {
        var position: Int
        var time: Int64
        var command: MGMTCommand
        var status: MGMTStatus?
        /// The program of the socket (nil when btmon recorded none).
        var program: String?
        /// Sent on a control socket of a program called beacon-tx.
        var ours: Bool
    }

    /// The MGMT commands that change advertising instances.
    static let instanceCommands: Set<MGMTOpcode> = [.addAdvertising, .removeAdvertising, .addExtendedAdvertisingParameters, .addExtendedAdvertisingData]
}

extension CaptureVerifier.Run {
    typealias MGMTSent = CaptureVerifier.MGMTSent

    /// The instance commands on our controller and whether a control socket of beacon-tx was still
    /// open at the end of the capture (beacon-tx still running).
    func mgmtSent() -> (sent: [MGMTSent], ourSocketOpenAtEnd: Bool) {
        var sockets: [UInt32: CaptureRecord.ControlOpen] = [:]
        var pending: [UInt32: [Int]] = [:]
        var sent: [MGMTSent] = []
        for (position, r) in capture.records.enumerated() {
            switch r.kind {
            case let .controlOpen(o):
                sockets[o.cookie] = o
            case let .controlClose(cookie):
                sockets[cookie] = nil
                pending[cookie] = nil
            case let .controlCommand(cookie, code, parameters) where r.controllerIndex == index:
                let opcode = MGMTOpcode(rawValue: code)
                guard CaptureVerifier.instanceCommands.contains(opcode), let open = sockets[cookie], open.format == CaptureRecord.ControlOpen.formatMGMT
                else { continue }
                pending[cookie, default: []].append(sent.count)
                sent.append(MGMTSent(position: position, time: time(r.unixMicroseconds), command: MGMTCommand(opcode, index: index, parameters),
                                     status: nil, program: open.comm, ours: open.comm == CaptureVerifier.programName))
            case let .controlEvent(cookie, code, parameters) where r.controllerIndex == index:
                // Command Complete and Command Status: the command answered and its status.
                let event = MGMTEvent(MGMTEventCode(rawValue: code), index: index, parameters)
                guard let opcode = event.answeredOpcode, let status = event.answeredStatus, var queue = pending[cookie] else { continue }
                guard let k = queue.firstIndex(where: { sent[$0].command.opcode == opcode }) else { continue }
                sent[queue.remove(at: k)].status = status
                pending[cookie] = queue
            default:
                break
            }
        }
        return (sent, sockets.values.contains { $0.format == CaptureRecord.ControlOpen.formatMGMT && $0.comm == CaptureVerifier.programName })
    }

    /// A capture of the sharing mode: beacon-tx added an instance with advertising data.
    func isShareCapture(_ sent: [MGMTSent]) -> Bool {
        isMonitor && sent.contains { $0.ours && $0.command.advertisingData != nil }
    }

    /// The field differences of `actual` from the plan's `want` (same opcode), as a failure of
    /// `instance`: `Duration` `1 s` ≠ `2 s`; the parameters as hex when they do not decode.
    static func planDifferences(_ want: MGMTCommand, _ actual: MGMTCommand, instance: UInt8, skipData: Bool) -> [VerifyFailure] {
        guard want.parameters != actual.parameters else { return [] }
        guard let d = MGMTCommandTable.description(want.opcode), let w = want.values, let a = actual.values else {
            return [.planDiffers(want.opcode, instance: instance, field: nil,
                                 expected: Hex.encode(want.parameters), actual: Hex.encode(actual.parameters))]
        }
        var out: [VerifyFailure] = []
        for (f, (wv, av)) in zip(d.parameters, zip(w, a)) where wv != av {
            if case .data = f.width, skipData { continue }
            if case .lengthOf = f.width, skipData { continue }
            out.append(.planDiffers(want.opcode, instance: instance, field: f.name, expected: f.valueText(wv), actual: f.valueText(av)))
        }
        return out
    }

    /// The report of a share-mode capture: one beacon report per configured beacon.
    func shareReport(_ sent: [MGMTSent], ourSocketOpenAtEnd: Bool, into report: inout CaptureReport) {
        let ours = sent.filter(\.ours)
        let dataCommands = ours.indices.filter { ours[$0].command.advertisingData != nil }
        let found = dataCommands.compactMap { ours[$0].command.advertisingData.map { BeaconFrame(parsing: $0) ?? .data($0) } }
        let picks = Self.pick(expected.beacons.map(\.frame), among: found).map { $0.map { dataCommands[$0] } }

        // The method: Add Advertising once the kernel refused Add Extended Advertising Data.
        let refused = ours.first { $0.command.opcode == .addExtendedAdvertisingData && $0.status == .invalidParameters }
        let fellBack = ours.contains { $0.command.opcode == .addAdvertising }
        let method: SharePlan.Method = fellBack ? .addAdvertising : .extended
        let instances = picks.map { $0.flatMap { ours[$0].command.instance } ?? 0 }
        let plan = SharePlan(index: index, beacons: expected.beacons, instances: instances,
                             dwellMilliseconds: expected.rotationMilliseconds, method: method)
        var share = CaptureReport.Share(method: method, instances: picks.compactMap { $0.flatMap { ours[$0].command.instance } },
                                        durationSeconds: plan.durationSeconds)
        if let refused, fellBack, let status = refused.status {
            share.extendedRefusal = .init(status: status, seconds: Double(refused.time) / 1_000_000)
        }
        report.share = share

        // HCI data writes of the kernel on our controller: (command, data, beacon).
        let writes: [(ci: Int, data: [UInt8], beacon: BeaconFrame)] = commands.indices.compactMap { ci in
            let c = commands[ci]
            guard c.status == .success, CommandTable.advertisingEffect(c.command.opcode) == .data,
                  let data = DescribedCommand(c.command)?.data else { return nil }
            return (ci, data, BeaconFrame(parsing: data) ?? .data(data))
        }
        let ourPayloads = Set(ours.compactMap(\.command.advertisingData))

        for (i, b) in expected.beacons.enumerated() {
            var r = CaptureReport.BeaconReport(number: i + 1, expected: b)
            guard let pick = picks[i], let instance = ours[pick].command.instance, let data = ours[pick].command.advertisingData else {
                r.failures.append(.noAddCommand(controllerIndex: index))
                report.beacons.append(r)
                continue
            }
            let picked = ours[pick]
            let beacon = BeaconFrame(parsing: data) ?? .data(data)
            r.found = beacon
            r.instance = instance
            let firstAdd = ours.first { $0.command.instance == instance && $0.command.advertisingData == data && $0.status == .success } ?? picked
            r.configuredSeconds = Double(firstAdd.time) / 1_000_000
            r.failures += b.frame.differences(picked.command.opcode.name ?? "data", actual: beacon).map(VerifyFailure.addedBeaconDiffers)

            // beacon-tx's Add commands for the instance against the plan's.
            let mine = ours.filter { $0.command.instance == instance }
            for want in plan.add(i) {
                guard let actual = mine.last(where: { $0.command.opcode == want.opcode && $0.position <= picked.position }) else {
                    r.failures.append(.planCommandMissing(want.opcode, instance: instance))
                    continue
                }
                r.failures += Self.planDifferences(want, actual.command, instance: instance, skipData: true)
            }
            // Every MGMT command of ours for the instance answered Success (a refused extended add
            // before the Add Advertising fallback, a removal of what was already gone, excepted).
            for s in mine {
                let failed = FailedCommand.mgmt(s.command.opcode, instance: instance, seconds: Double(s.time) / 1_000_000, status: s.status)
                guard let status = s.status else {
                    r.commandCount += 1
                    r.failedCommands.append(failed)
                    continue
                }
                let tolerated = (s.command.opcode == .removeAdvertising && status == .invalidParameters)
                    || (fellBack && status == .invalidParameters && s.command.opcode != .addAdvertising)
                if status != .success && !tolerated { r.failedCommands.append(failed) }
                if !tolerated { r.commandCount += 1 }
            }
            r.failures += r.failedCommands.map(VerifyFailure.commandFailed)

            var dataOnAtEnd = false
            // The kernel's HCI data for our instance: our bytes exactly, and on air in its rotation.
            for w in writes where Self.sameRegion(w.beacon, beacon) && !ourPayloads.contains(w.data) {
                r.failures.append(.kernelChangedData(commands[w.ci].command.opcode, seconds: Double(commands[w.ci].time) / 1_000_000,
                                                     written: w.data, added: data))
            }
            let first = writes.first { $0.data == data && commands[$0.ci].position > firstAdd.position }
            r.kernelWrites = writes.filter { $0.data == data }.count
            if let first, let placement = ControllerAdvertisingState.placements(of: commands[first.ci].command).first {
                r.placement = placement
                r.family = placement == .legacy ? .legacy : .extended
                var chosen: [Candidate?] = Array(repeating: nil, count: expected.beacons.count)
                chosen[i] = Candidate(command: first.ci, placement: placement, data: data, beacon: beacon)
                let replayed = replay(chosen)
                let turns = replayed.events[placement] ?? []
                r.enabledSeconds = replayed.beaconOnAt[i].map { Double($0) / 1_000_000 }
                if let p = replayed.enableParams[placement] {
                    var scratch = CaptureReport.BeaconReport(number: i + 1, expected: b)
                    checkParameters(p, b, into: &scratch)
                    (r.intervalMin, r.intervalMax, r.connectable, r.txPower, r.parameterSummary) =
                        (scratch.intervalMin, scratch.intervalMax, scratch.connectable, scratch.txPower, scratch.parameterSummary)
                    if let c = scratch.connectable, c != b.options.connectable {
                        r.failures.append(.connectableDiffers(p.opcode, expected: b.options.connectable, actual: c))
                    }
                }
                if r.enabledSeconds == nil {
                    r.failures.append(.kernelNeverEnabled(placement))
                }
                dataOnAtEnd = turns.last?.on ?? false
            } else {
                r.failures.append(.kernelNeverWrote(instance: instance))
            }

            // History: added, removed by others, re-added, removed by beacon-tx. The kernel's
            // instances as the commands answered Success leave them; on air (`OnAir`) while the
            // kernel holds our instance with data beacon-tx added.
            var kernel = KernelAdvertisingInstances()
            var added = false
            var lastAdd: MGMTSent?
            var lastData: [UInt8]?
            /// The record of beacon-tx's last Remove Advertising of the instance (order, not clock: stamps come from a file).
            var removedPosition: Int?
            for s in sent where s.command.instance == instance || (s.command.opcode == .removeAdvertising && s.command.instance == 0) {
                guard s.status == .success else { continue }
                kernel.apply(s.command)
                let on = ourPayloads.contains { OnAir.isOnAir(KernelInstancePlacement(instance: instance, data: $0), in: kernel) }
                let at = Double(s.time) / 1_000_000
                if s.ours, s.command.advertisingData != nil { lastAdd = s }
                if on, !added {
                    r.events.append(CaptureReport.Event(seconds: at, on: true, cause: "MGMT \(s.command.opcode) added instance \(instance)"))
                } else if on, kernel.data[instance] != lastData {
                    r.events.append(CaptureReport.Event(seconds: at, on: true, cause: "MGMT \(s.command.opcode) replaced instance \(instance)'s data (a reload)"))
                } else if !on, added {
                    var ev = CaptureReport.Event(seconds: at, on: false, cause: "MGMT \(s.command.opcode) of instance \(s.command.instance == 0 ? "0 (all)" : "\(instance)")",
                                                 who: s.ours ? "stopped by beacon-tx's stop plan" : "from \(s.program ?? "an unnamed program")")
                    ev.byStopPlan = s.ours && s.command.opcode == .removeAdvertising
                    removedPosition = ev.byStopPlan ? s.position : nil
                    r.events.append(ev)
                }
                added = on
                lastData = on ? kernel.data[instance] : nil
            }
            if r.events.isEmpty {
                r.failures.append(.neverAdded(instance: instance))
            } else if let last = r.events.last, !last.on, last.byStopPlan, let removedPosition {
                r.stoppedByStopPlan = true
                r.removedSeconds = last.seconds
                if let ghost = writes.first(where: { $0.data == data && commands[$0.ci].position > removedPosition }) {
                    r.failures.append(.writtenAfterRemoval(commands[ghost.ci].command.opcode, seconds: Double(commands[ghost.ci].time) / 1_000_000,
                                                           instance: instance, removedSeconds: last.seconds))
                } else if dataOnAtEnd {
                    r.failures.append(.onAirAfterRemoval(instance: instance, removedSeconds: last.seconds))
                }
            } else if let last = r.events.last, !last.on {
                r.failures.append(.removedByOther(last))
            } else if added, !ourSocketOpenAtEnd, let lastAdd {
                r.failures.append(.notRemoved(instance: instance, addedSeconds: Double(lastAdd.time) / 1_000_000))
            }
            // At the end: our instance still in the kernel's rotation (beacon-tx running).
            r.onAirAtEnd = added
            report.beacons.append(r)
        }
    }
}

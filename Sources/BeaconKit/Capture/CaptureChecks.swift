// SPDX-License-Identifier: Apache-2.0
/// `verify`, part 4: the report of one beacon: its data, family, parameters, answers and on-air
/// history checked against the configuration.
extension CaptureVerifier.Run {
    func beaconReport(_ i: Int, _ b: BeaconAdvertisement, _ found: Candidate?, events: [CaptureReport.Event], onAt: Int64?,
                      shared: Bool, paramsAtEnable: HCICommand?, stopPlan: Set<Int>) -> CaptureReport.BeaconReport {
        var r = CaptureReport.BeaconReport(number: i + 1, expected: b)
        guard let found else {
            r.failures.append(.noDataCommand(family: expected.family, controllerIndex: index))
            return r
        }
        let firstData = commands.first { c in
            touches(c.command, found.placement) && DescribedCommand(c.command)?.data == found.data
        } ?? commands[found.command]
        let dataCommand = commands[found.command]
        r.found = found.beacon
        r.placement = found.placement
        r.rotation = shared
        r.family = found.placement == .legacy ? .legacy : .extended
        r.configuredSeconds = Double(firstData.time) / 1_000_000
        let name = dataCommand.command.opcode.name ?? "data"
        r.failures += b.frame.differences(name, actual: found.beacon).map(VerifyFailure.configDiffers)
        if let want = expected.family, want != r.family {
            r.failures.append(.familyDiffers(expected: want, actual: r.family))
        }

        // Parameters: the ones in force when the set last went on air, else the last ones sent.
        let p = found.placement
        let params = paramsAtEnable ?? commands.last { c in
            touches(c.command, p) && CommandTable.advertisingEffect(c.command.opcode) == .parameters
        }?.command
        if let params {
            checkParameters(params, b, into: &r)
        } else {
            r.failures.append(.noParameters(p))
        }

        // Every command on our set (or the legacy instance, from our first configuration on) answered Success.
        var firstOurs = 0
        if p == .legacy {
            // The legacy instance is shared by every program: ours from our first configuration on
            // (the parameters before our first data, and the disable right before them).
            let firstData = commands.indices.first { ci in
                commands[ci].command.opcode == .leSetAdvertisingData && DescribedCommand(commands[ci].command)?.data == found.data
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
            // No answer in the capture fails too.
            if c.status.map({ $0 != .success && !Self.tolerated(c.command).contains($0) }) ?? true {
                r.failedCommands.append(.hci(c.command.opcode, on: p, seconds: Double(c.time) / 1_000_000, status: c.status))
            }
        }
        r.failures += r.failedCommands.map(VerifyFailure.commandFailed)

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
            r.failures.append(.neverEnabled(p, rotation: shared))
        }
        if let last = r.events.last {
            r.onAirAtEnd = last.on
            r.stoppedByStopPlan = !last.on && last.byStopPlan
            if !last.on && !last.byStopPlan && onceOnAir {
                r.failures.append(.offAirAtEnd(last))
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
            r.failures.append(.parametersTooShort(c.opcode, byteCount: c.parameters.count))
            return
        }
        let leaves = Dictionary(HCIFieldValue.leaves(values, d.parameters).map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        func value(_ field: String) -> UInt32 { leaves[field]?.value.integer ?? 0 }
        /// `Name: Advertising_Interval_Min 0x00a0 ≠ 0x0140`, in the field's width.
        func expect(_ field: String, _ want: UInt32) {
            guard let leaf = leaves[field], let got = leaf.value.integer, got != want else { return }
            r.failures.append(.configDiffers(FieldDifference(command: name, field: field, expected: leaf.field.integerText(want),
                                                             actual: leaf.field.integerText(got))))
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
                r.failures.append(.txPowerDiffers(c.opcode, expected: tx, actual: power))
            }
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// `beacon-tx scan --calibrate`: the RSSI of one beacon held at 1 m, and the `measuredPower` it
/// should advertise so that receivers like this one estimate distances right.
enum Calibrate {
    static let defaultDuration = 10.0

    static func run(_ opened: OpenedDevice, _ setup: ScanCommand.Setup, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        let region = setup.regions[0]
        var calibration = Calibration(region: region, deviceID: opened.info.id)
        let plan = try ScanCommand.startScanning(opened, setup, ctx)
        let duration = setup.duration ?? defaultDuration
        ctx.note("calibrating \(region) on \(opened.name) for \(JSON.format(duration)) s: hold the beacon 1 m from this receiver")
        let end = ctx.monotonicMilliseconds() + Int64(duration * 1000)
        var signal = opened.runner.pendingSignal
        func feed(_ receive: () throws(ControllerFailure) -> Void) throws(CLIError) {
            do { try receive() } catch { throw CLIError(error, device: opened.name, while: "calibrating") }
        }
        for event in opened.runner.takeUnrelatedEvents() {
            try feed { () throws(ControllerFailure) in try calibration.receive(event) }
        }
        while signal == nil, calibration.identities.count < 2 {
            let wait = max(0, end - ctx.monotonicMilliseconds())
            if wait == 0 { break }
            let received: HCIReceive
            do { received = try opened.runner.receive(timeoutMilliseconds: Int(clamping: wait)) } catch { throw CLIError(error) }
            switch received {
            case let .signal(n): signal = n
            case let .event(bytes): try feed { () throws(ControllerFailure) in try calibration.receive(bytes) }
            case .timedOut, .command: break
            }
        }
        do {
            for step in plan.stop { try opened.runner.run(step) }
        } catch { throw CLIError(error) }
        if let signal { ctx.note("signal \(signal): calibration ended early") }

        if calibration.identities.count > 1 {
            let ids = calibration.identities.prefix(2).map(\.description)
            throw .usage("--calibrate measures one beacon, but region \(region) matched two: \(ids[0]) and \(ids[1]); "
                         + "give --region UUID:MAJOR:MINOR of the one held at 1 m, or switch the other off")
        }
        guard let id = calibration.identities.first else {
            throw CLIError(.unavailable, "no iBeacon in region \(region) heard on \(opened.name) in \(JSON.format(duration)) s "
                           + "(\(calibration.reportCount) other advertising report(s)): is the beacon on, in range, and advertising this UUID/major/minor?")
        }
        guard let stats = calibration.statistics else {
            throw CLIError(.unavailable, "\(opened.name) heard \(id) \(calibration.unavailableCount) time(s) but reported its RSSI as not available (127) "
                           + "every time: this controller does not measure signal strength (virtual controllers such as btvirt always report 127); calibrate with a real adapter")
        }
        if calibration.unavailableCount > 0 {
            ctx.warn("\(calibration.unavailableCount) report(s) with RSSI not available (127) left out")
        }
        let configLine = "\"measuredPower\": \(stats.suggestedMeasuredPower)"
        let r = ScanCommand.rounded
        if setup.json {
            ctx.stdout(JSON.object([
                ("event", .string("calibration")), ("region", .string(region.description)),
            ] + ScanCommand.identityJSON(id).dropFirst() + [
                ("samples", .number(Double(stats.sampleCount))),
                ("rssiNotAvailable", .number(Double(calibration.unavailableCount))),
                ("mean", .number(r(stats.mean, 2))), ("median", .number(r(stats.median, 2))),
                ("trimmedMean", .number(r(stats.trimmedMean, 2))), ("trimmedPerEnd", .number(Double(stats.trimmedPerEnd))),
                ("advertisedMeasuredPower", calibration.advertisedMeasuredPower.map { .number(Double($0)) } ?? .null),
                ("measuredPower", .number(Double(stats.suggestedMeasuredPower))),
                ("configLine", .string(configLine)),
            ]).compact)
        } else {
            ctx.stdout("""
                beacon: \(id)
                samples: \(stats.sampleCount)
                mean: \(r(stats.mean, 2)) dBm
                median: \(r(stats.median, 2)) dBm
                trimmed mean: \(r(stats.trimmedMean, 2)) dBm (\(stats.trimmedPerEnd) lowest and \(stats.trimmedPerEnd) highest dropped)
                advertised measuredPower: \(calibration.advertisedMeasuredPower.map(String.init) ?? "?")
                suggested measuredPower: \(stats.suggestedMeasuredPower)
                config line: \(configLine)
                """)
        }
        return .success
    }
}

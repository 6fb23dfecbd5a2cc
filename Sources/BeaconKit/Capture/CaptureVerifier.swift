// SPDX-License-Identifier: Apache-2.0
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

    struct Run {
        // The parts live in extensions in their own files (Capture*.swift), outside this lexical scope.
        typealias Placement = CaptureVerifier.Placement
        typealias Command = CaptureVerifier.Command
        typealias Change = CaptureVerifier.Change
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

            let (sent, ourSocketOpenAtEnd) = mgmtSent()
            if isShareCapture(sent) {
                shareReport(sent, ourSocketOpenAtEnd: ourSocketOpenAtEnd, into: &report)
                return report
            }

            let (chosen, shared) = match()
            let replayed = replay(chosen)
            let stopPlanCommands = stopPlan(chosen, shared: shared)
            let (events, beaconOnAt, enableParams) = (replayed.events, replayed.beaconOnAt, replayed.enableParams)

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

    }
}

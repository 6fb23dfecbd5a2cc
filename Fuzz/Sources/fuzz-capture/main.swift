// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import FuzzSupport
#if canImport(Glibc)
import Glibc
#endif

// `verify CAPTURE` and `start --check GOLDEN.btsnoop`: a capture file from anywhere (btmon -w,
// Wireshark, a truncated or hand-made one) is read and verified against a two-beacon kiosk without
// trapping, for every datalink: the input as a whole file, and as the records after a valid header
// of each datalink. Every configured beacon gets a report; a pass is on air (or stopped by its own
// stop plan) with its data found and every command answered Success.
let uuid = ProximityUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0") ?? ProximityUUID(bytes: [UInt8](repeating: 1, count: 16))
let options = AdvertisingOptions(interval: .standard)
let kiosk = KioskConfiguration(beacons: [1, 2].compactMap { minor in
    uuid.map { BeaconAdvertisement(frame: .iBeacon(IBeacon(uuid: $0, major: 1, minor: minor)), options: options) }
})

func header(_ datalink: UInt32) -> [UInt8] {
    BTSnoop.magic + [0, 0, 0, 1] + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: datalink >> $0) }
}

exit(fuzzMain { input in
    var files = [input]
    if let selector = input.first {
        let datalinks: [UInt32] = [CaptureFile.datalinkMonitor, CaptureFile.datalinkHCI, BTSnoop.datalinkH4]
        files.append(header(datalinks[Int(selector) % 3]) + input.dropFirst())
    }
    for file in files {
        guard let capture = try? CaptureFile.read(file, .dropWithWarning) else { continue }
        require(capture.records.count <= file.count / 24, "more records than the bytes can hold")
        for index: UInt16 in [0, 1] {
            let report = CaptureVerifier.verify(capture, expected: kiosk, controllerIndex: index)
            require(report.beacons.count == kiosk.beacons.count, "one report per configured beacon")
            for b in report.beacons where b.passed {
                require(b.onAirAtEnd || b.stoppedByStopPlan, "a passing beacon that is neither on air at the end nor stopped by its stop plan")
                require(b.found != nil && b.failedCommands.isEmpty, "a passing beacon without data found, or with failed commands")
            }
            require(report.passed == (report.firstFailure == nil), "the verdict and the first failure disagree")
        }
    }
})

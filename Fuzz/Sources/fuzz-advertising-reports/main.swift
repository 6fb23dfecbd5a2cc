// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import FuzzSupport
#if canImport(Glibc)
import Glibc
#endif

// LE Meta events with (extended) advertising reports, as a scan receives them from the air: the
// partial decoder keeps every report before a framing error, the strict decoder agrees with it,
// and every report becomes an observation or nothing, without trapping.
exit(fuzzMain { input in
    guard input.count <= 255 else { return }
    let event = HCIEvent(code: .leMeta, parameters: input)
    guard let batch = AdvertisingReports.decodePartial(event: event) else { return }
    require(batch.subevent.rawValue == input.first, "subevent")
    require(AdvertisingReports.decodePartial(eventPacket: event.packet) == batch, "packet and event decoders disagree")
    do throws(AdvertisingReportError) {
        let strict = try AdvertisingReports.decode(eventPacket: event.packet)
        require(batch.error == nil && strict == batch.reports, "strict decode disagrees with partial")
    } catch {
        require(batch.error == error, "strict error \(error) vs partial \(String(describing: batch.error))")
    }
    var total = 0
    for report in batch.reports {
        total += report.data.count
        require(report.address.utf8.count == 17, "address text \(report.address)")
        if let observation = BeaconObservation(report: report, timestamp: 1) {
            // The identity of the frame the data parses to (iBeacon, AltBeacon, Eddystone-UID or -URL).
            require(BeaconFrame(parsing: report.data).flatMap(BeaconIdentity.init) == observation.identity, "observation identity")
            require(observation.frame.powerAtOneMetre == observation.measuredPower, "observation power at 1 m")
        }
    }
    require(total <= input.count, "reports carry more data than the event")
})

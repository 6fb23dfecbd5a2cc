// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import BeaconKit

private let uuid = ProximityUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!

private func report(minor: UInt16, rssi: Int8?, measuredPower: Int8 = -59, uuid: ProximityUUID = uuid) -> AdvertisingReport {
    AdvertisingReport(eventType: .legacy(.advNonconnInd), addressType: .publicDevice, address: "AA:01:00:00:00:00",
                      rssi: rssi, data: IBeacon(uuid: uuid, major: 1, minor: minor, measuredPower: measuredPower).advertisingData)
}

@Suite struct CalibrationStatisticsTests {
    @Test func tenSamplesTrimOneAtEachEnd() throws {
        // Sorted: -75 -63 -62 -61 -61 -60 -60 -59 -58 -45 (n = 10).
        // Sum = -604, mean = -60.4. Median = (-61 + -60) / 2 = -60.5.
        // 10 % of 10 = 1 dropped at each end (-75 and -45): sum -484 over 8 = -60.5.
        // Rounded half away from zero: -61.
        let s = try #require(CalibrationStatistics(samples: [-60, -62, -58, -61, -75, -59, -60, -63, -45, -61]))
        #expect(s == CalibrationStatistics(sampleCount: 10, mean: -60.4, median: -60.5, trimmedMean: -60.5,
                                           trimmedPerEnd: 1, suggestedMeasuredPower: -61))
    }

    @Test func twentyOneSamplesTrimTwoAtEachEnd() throws {
        // -70 once, -64 ×2, -62 ×5, -61 ×6, -60 ×5, -50 ×2 (n = 21; sorted index 10 is the median).
        // Sum = -70 - 128 - 310 - 366 - 300 - 100 = -1274; mean = -1274 / 21 = -60.666…
        // Median: indices 0 (-70), 1–2 (-64), 3–7 (-62), 8–13 (-61) → index 10 = -61.
        // floor(21 / 10) = 2 dropped at each end (-70, -64 and -50, -50):
        // kept 17: -64 - 310 - 366 - 300 = -1040; -1040 / 17 = -61.176… → -61.
        var samples: [Int8] = [-70] + Array(repeating: -64, count: 2) + Array(repeating: -62, count: 5)
        samples += Array(repeating: -61, count: 6) + Array(repeating: -60, count: 5) + Array(repeating: -50, count: 2)
        let s = try #require(CalibrationStatistics(samples: samples.reversed()))
        #expect(s.sampleCount == 21 && s.trimmedPerEnd == 2)
        #expect(s.mean == -1274.0 / 21 && s.median == -61 && s.trimmedMean == -1040.0 / 17)
        #expect(s.suggestedMeasuredPower == -61)
    }

    @Test func fewSamplesKeepAllAndClampToTheConfigRange() throws {
        // Below 10 samples nothing is trimmed: (-128 + -128 + -127) / 3 = -127.67 → -128 → clamped to -127.
        let low = try #require(CalibrationStatistics(samples: [-128, -128, -127]))
        #expect(low.trimmedPerEnd == 0 && low.median == -128 && low.suggestedMeasuredPower == -127)
        // (30 + 26) / 2 = 28 → clamped to +20.
        let high = try #require(CalibrationStatistics(samples: [30, 26]))
        #expect(high.median == 28 && high.trimmedMean == 28 && high.suggestedMeasuredPower == 20)
        #expect(CalibrationStatistics(samples: []) == nil)
    }
}

@Suite struct CalibrationTests {
    @Test func keepsTheFirstBeaconsSamplesAndCountsNotAvailable() throws {
        var c = Calibration(region: BeaconRegion(uuid: uuid, major: 1))
        c.observe(report(minor: 2, rssi: -61, measuredPower: -59))
        c.observe(report(minor: 2, rssi: nil))                       // 127: not available
        c.observe(report(minor: 2, rssi: -63, measuredPower: -58))
        c.observe(AdvertisingReport(eventType: .legacy(.advInd), addressType: .publicDevice, address: "AA:02:00:00:00:00",
                                    rssi: -40, data: [0x02, 0x01, 0x06]))   // not an iBeacon
        c.observe(report(minor: 2, rssi: -30, uuid: ProximityUUID("00000000-0000-0000-0000-000000000001")!))  // other region
        #expect(c.samples == [-61, -63])
        #expect(c.unavailableCount == 1 && c.reportsOfBeacon == 3 && c.reportCount == 5)
        #expect(c.advertisedMeasuredPower == -58)
        #expect(c.identities == [BeaconIdentity(uuid: uuid, major: 1, minor: 2)])
        #expect(c.statistics?.mean == -62)
        // A second beacon in the region is recorded (the caller refuses it) and its samples are not mixed in.
        c.observe(report(minor: 3, rssi: -20))
        #expect(c.identities == [BeaconIdentity(uuid: uuid, major: 1, minor: 2), BeaconIdentity(uuid: uuid, major: 1, minor: 3)])
        #expect(c.samples == [-61, -63])
    }

    @Test func controllerFailureEndsIt() {
        var c = Calibration(region: BeaconRegion(uuid: uuid), deviceID: 0)
        #expect(throws: ControllerFailure.hardwareError(code: 5)) {
            try c.receive(HCIEvent(code: .hardwareError, parameters: [0x05]))
        }
    }
}

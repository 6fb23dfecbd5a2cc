// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import BeaconKit

private func close(_ a: Double?, _ b: Double, relative: Double = 4e-15) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= relative * abs(b)
}

private let uuid = ProximityUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!

private func sighting(minor: UInt16, rssi: Int8?, at t: Double, measuredPower: Int8 = -59, major: UInt16 = 1) -> BeaconObservation {
    BeaconObservation(beacon: IBeacon(uuid: uuid, major: major, minor: minor, measuredPower: measuredPower),
                      address: "C0:11:22:33:44:\(minor)", rssi: rssi, timestamp: t)
}

@Suite("Scanning: path loss, proximity and ranging")
struct ScanningRangingTests {
    /// Reference values computed with Python's `decimal` at 50 digits and rounded to Double.
    @Test func pow10MatchesHighPrecisionReferences() {
        let references: [(Double, Double)] = [
            (0.5, 3.1622776601683795), (0.25, 1.7782794100389228), (-0.3, 0.5011872336272722),
            (1, 10.0), (2, 100.0), (-1.7, 0.019952623149688795), (3.14159, 1385.4472660972247),
            (12.3456, 2216154325959.7197), (-7.25, 5.6234132519034905e-08), (0.1, 1.2589254117941673),
        ]
        for (x, expected) in references {
            #expect(close(DecimalPower.pow10(x), expected), "10^\(x) = \(DecimalPower.pow10(x)), want \(expected)")
        }
    }

    /// Independent checks: integer powers by repeated multiplication (exact up to 10^22), square roots.
    @Test func pow10AgreesWithExactArithmetic() {
        var power = 1.0
        for n in 0...22 {
            #expect(close(DecimalPower.pow10(Double(n)), power, relative: 2.3e-16), "10^\(n)")
            #expect(close(DecimalPower.pow10(-Double(n)), 1 / power, relative: 4.5e-16), "10^-\(n)")
            power *= 10
        }
        let root10 = 10.0.squareRoot()
        #expect(close(DecimalPower.pow10(0.5), root10, relative: 2.3e-16))
        #expect(close(DecimalPower.pow10(0.25), root10.squareRoot(), relative: 4.5e-16))
        #expect(close(DecimalPower.pow10(1.5), 10 * root10, relative: 4.5e-16))
        // 10^x · 10^−x = 1 and 10^(x+1) = 10 · 10^x over the range distances use.
        var x = -12.0
        while x <= 12 {
            let a = DecimalPower.pow10(x), b = DecimalPower.pow10(-x)
            #expect(close(a * b, 1, relative: 1e-15), "x = \(x)")
            #expect(close(DecimalPower.pow10(x + 1), 10 * a, relative: 1e-15), "x = \(x)")
            x += 0.0625 + 1.0 / 1024
        }
    }

    @Test func expEdgeCases() {
        #expect(DecimalPower.exp(0) == 1)
        #expect(close(DecimalPower.exp(1), 2.718281828459045, relative: 2.3e-16))
        #expect(close(DecimalPower.exp(-1), 0.36787944117144233, relative: 2.3e-16))
        #expect(DecimalPower.exp(710) == .infinity)
        #expect(DecimalPower.exp(-750) == 0)
        #expect(DecimalPower.exp(.nan).isNaN)
        #expect(DecimalPower.pow10(400) == .infinity)
        #expect(DecimalPower.pow10(-400) == 0)
        #expect(close(DecimalPower.pow10(300), 1e300, relative: 1e-14))
        #expect(close(DecimalPower.pow10(-300), 1e-300, relative: 1e-14))
    }

    @Test func logDistanceFormula() throws {
        let free = PathLossModel.freeSpace
        #expect(free.distance(measuredPower: -59, rssi: -59) == 1)
        #expect(close(free.distance(measuredPower: -59, rssi: -79), 10))                 // 20 dB, n = 2
        #expect(close(free.distance(measuredPower: -59, rssi: -69), 3.1622776601683795)) // 10 dB
        #expect(close(free.distance(measuredPower: -59, rssi: -49), 0.31622776601683794))
        let indoor = try #require(PathLossModel(exponent: 3))
        #expect(close(indoor.distance(measuredPower: -59, rssi: -89), 10))               // 30 dB, n = 3
        #expect(close(indoor.distance(measuredPower: -65, rssi: -70.5), 1.525222956539019))  // 10^(5.5/30), Python decimal
    }

    @Test func noRSSIOrUncalibratedBeaconMeansNoDistance() {
        #expect(PathLossModel.freeSpace.distance(measuredPower: -59, rssi: nil) == nil)
        #expect(PathLossModel.freeSpace.distance(measuredPower: 0, rssi: -70) == nil)
        #expect(PathLossModel.freeSpace.distance(measuredPower: -59, rssi: .nan) == nil)
    }

    @Test func pathLossExponentRange() {
        #expect(PathLossModel(exponent: 2)?.exponent == 2)
        #expect(PathLossModel(exponent: 0) == nil)
        #expect(PathLossModel(exponent: 0.5) == nil)
        #expect(PathLossModel(exponent: 7) == nil)
        #expect(PathLossModel(exponent: .infinity) == nil)
    }

    @Test func proximityClasses() {
        let t = ProximityThresholds.standard
        #expect(t.classify(nil) == .unknown)
        #expect(t.classify(.nan) == .unknown)
        #expect(t.classify(-1) == .unknown)
        #expect(t.classify(0.1) == .immediate)
        #expect(t.classify(0.4999) == .immediate)
        #expect(t.classify(0.5) == .near)
        #expect(t.classify(2.99) == .near)
        #expect(t.classify(3) == .far)
        #expect(t.classify(40) == .far)
        #expect(Proximity.allCases.map(\.rawValue) == [0, 1, 2, 3])   // CLProximity raw values
        #expect(Proximity.allCases.map(\.description) == ["unknown", "immediate", "near", "far"])
    }

    @Test func rangingSmoothsOverTheTimeWindow() throws {
        var ranger = BeaconRanger(configuration: RangingConfiguration(smoothingWindow: 5))
        ranger.observe(sighting(minor: 1, rssi: -90, at: 0))     // falls out of the window by t = 6
        ranger.observe(sighting(minor: 1, rssi: -75, at: 2))
        ranger.observe(sighting(minor: 1, rssi: -81, at: 4))
        ranger.observe(sighting(minor: 1, rssi: -81, at: 6))
        let beacons = ranger.range(now: 6)
        let b = try #require(beacons.first)
        #expect(beacons.count == 1)
        #expect(b.rssi == -81)
        #expect(b.smoothedRSSI == -79)        // mean of −75, −81, −81
        #expect(b.sampleCount == 3)
        #expect(close(b.distance, 10))        // measured −59, 20 dB below, n = 2
        #expect(b.proximity == .far)
        #expect(b.lastSeen == 6)
        #expect(b.address == "C0:11:22:33:44:1")
        #expect(b.identity.description == "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:1")

        // Later with no new samples: −75 leaves the window at t = 7.
        #expect(ranger.range(now: 7.5).first?.smoothedRSSI == -81)
        // Nothing within the window: distance unknown, never a stale number.
        let stale = try #require(ranger.range(now: 11.5).first)
        #expect(stale.smoothedRSSI == nil && stale.distance == nil && stale.proximity == .unknown)
        #expect(stale.rssi == -81)            // the latest reading is still reported
    }

    @Test func rssiNotAvailableGivesUnknownProximity() throws {
        var ranger = BeaconRanger()
        ranger.observe(sighting(minor: 7, rssi: nil, at: 1))
        let b = try #require(ranger.range(now: 1).first)
        #expect(b.rssi == nil && b.smoothedRSSI == nil && b.distance == nil && b.proximity == .unknown)
        #expect(b.sampleCount == 0 && b.lastSeen == 1)
        // A later reading brings a distance; a further 127 keeps the smoothed value but clears `rssi`.
        ranger.observe(sighting(minor: 7, rssi: -59, at: 2))
        ranger.observe(sighting(minor: 7, rssi: nil, at: 3))
        let c = try #require(ranger.range(now: 3).first)
        #expect(c.rssi == nil && c.smoothedRSSI == -59 && c.distance == 1 && c.proximity == .near && c.lastSeen == 3)
    }

    @Test func rangedBeaconsSortClosestFirstAndForget() {
        var ranger = BeaconRanger(configuration: RangingConfiguration(forgetAfter: 10))
        ranger.observe(sighting(minor: 1, rssi: -80, at: 0))
        ranger.observe(sighting(minor: 2, rssi: -50, at: 0))
        ranger.observe(sighting(minor: 3, rssi: nil, at: 0))
        ranger.observe(sighting(minor: 4, rssi: -65, at: 0, major: 2))
        #expect(ranger.range(now: 1).map(\.identity.description.minorField) == [2, 4, 1, 3])
        #expect(ranger.range(now: 1).map(\.proximity) == [.immediate, .near, .far, .unknown])
        #expect(ranger.range(now: 1, in: BeaconRegion(uuid: uuid, major: 1)).map(\.identity.description.minorField) == [2, 1, 3])
        ranger.observe(sighting(minor: 1, rssi: -80, at: 9))
        #expect(ranger.range(now: 10).map(\.identity.description.minorField) == [1])
        #expect(ranger.count == 1)
    }

    @Test func sampleCapBoundsMemory() throws {
        var ranger = BeaconRanger(configuration: RangingConfiguration(smoothingWindow: 100, maximumSamples: 3))
        for (i, rssi) in [Int8(-40), -60, -60, -60].enumerated() {
            ranger.observe(sighting(minor: 1, rssi: rssi, at: Double(i)))
        }
        let b = try #require(ranger.range(now: 4).first)
        #expect(b.sampleCount == 3 && b.smoothedRSSI == -60)
    }
}

extension String {
    /// The last `:` field of `UUID:MAJOR:MINOR` (a test's shorthand for an iBeacon identity's minor).
    var minorField: UInt16? { split(separator: ":").last.flatMap { UInt16($0) } }
}

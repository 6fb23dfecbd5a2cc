// SPDX-License-Identifier: Apache-2.0
/// CoreLocation's proximity classes (`CLProximity`), same raw values.
///
/// Apple publishes no thresholds ("Getting Started with iBeacon", 2014: immediate "within a few
/// centimeters", near "within a couple of meters", far "further away"); observed CoreLocation behaviour
/// switches at roughly 0.3–0.5 m and 3 m. `ProximityThresholds.standard` uses 0.5 m and 3 m.
public enum Proximity: Int, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// No distance estimate: no RSSI (127 = not available), no recent sample, or an uncalibrated beacon.
    case unknown = 0
    case immediate = 1
    case near = 2
    case far = 3

    public var description: String {
        switch self {
        case .unknown: return "unknown"
        case .immediate: return "immediate"
        case .near: return "near"
        case .far: return "far"
        }
    }
}

/// Distance limits between the proximity classes, in meters: below `immediate` → immediate, below
/// `near` → near, else far.
public struct ProximityThresholds: Hashable, Sendable {
    public var immediate: Double
    public var near: Double

    public init(immediate: Double, near: Double) {
        self.immediate = immediate
        self.near = near
    }

    /// 0.5 m and 3 m (see `Proximity`).
    public static let standard = ProximityThresholds(immediate: 0.5, near: 3.0)

    /// `unknown` for nil or a value that is not a finite, non-negative distance.
    public func classify(_ distance: Double?) -> Proximity {
        guard let d = distance, d.isFinite, d >= 0 else { return .unknown }
        if d < immediate { return .immediate }
        if d < near { return .near }
        return .far
    }
}

/// Log-distance path loss model: RSSI(d) = measuredPower − 10·n·log10(d), so
/// d = 10^((measuredPower − RSSI) / (10·n)) meters, with measuredPower the RSSI at 1 m (Apple Proximity
/// Beacon spec "Measured Power") and n the path-loss exponent (≈ 2 in free space, 2–4 indoors).
public struct PathLossModel: Hashable, Sendable {
    public let exponent: Double

    /// Accepted path-loss exponents.
    public static let exponentRange: ClosedRange<Double> = 1.0...6.0

    /// nil unless `exponent` lies in `exponentRange`.
    public init?(exponent: Double) {
        guard exponent.isFinite, Self.exponentRange.contains(exponent) else { return nil }
        self.exponent = exponent
    }

    private init(checkedExponent: Double) { exponent = checkedExponent }

    /// n = 2, free space.
    public static let freeSpace = PathLossModel(checkedExponent: 2.0)

    /// Meters, or nil when there is nothing to compute from: no RSSI, or a measured power of 0 (a beacon
    /// that was never calibrated; iOS does no distance calculation for it either). Never a made-up number.
    public func distance(measuredPower: Int8, rssi: Double?) -> Double? {
        guard let rssi, rssi.isFinite, measuredPower != 0 else { return nil }
        return DecimalPower.pow10((Double(measuredPower) - rssi) / (10 * exponent))
    }
}

/// 10^x and e^x in pure Swift: the standard library has no `exp` or `pow` without Glibc or Foundation.
///
/// e^x: Cody–Waite range reduction x = k·ln 2 + r with |r| ≤ ln 2 / 2 (ln 2 split into a 33-bit head and
/// a tail so k·ln2Hi is exact), a degree-17 Taylor polynomial in Horner form for e^r (truncation error
/// below 1e-19 relative), and an exact scaling by 2^k. 10^x = e^(x·ln 10), with x·ln 10 carried as a
/// double-double (fused multiply-add) so the reduction loses nothing. Measured error: a few ulps.
enum DecimalPower {
    static let ln2Hi = 6.93147180369123816490e-01
    static let ln2Lo = 1.90821492927058770002e-10
    static let log2e = 1.44269504088896338700e+00
    /// ln 10 = 2.302585092994045684017991454684364…, as head + tail.
    static let ln10Hi = 2.302585092994046
    static let ln10Lo = -2.1707562233822494e-16
    static let log2of10 = 3.321928094887362

    /// Beyond these e^x overflows to +∞ or underflows to 0.
    static let expOverflow = 709.782712893384
    static let expUnderflow = -745.1332191019412

    static func exp(_ x: Double) -> Double {
        if x.isNaN { return x }
        if x > expOverflow { return .infinity }
        if x < expUnderflow { return 0 }
        let k = (x * log2e).rounded()
        let r = (x - k * ln2Hi) - k * ln2Lo
        return scale(expReduced(r), k)
    }

    static func pow10(_ x: Double) -> Double {
        if x.isNaN { return x }
        if x > expOverflow / ln10Hi { return .infinity }
        if x < expUnderflow / ln10Hi { return 0 }
        let k = (x * log2of10).rounded()
        // x·ln10 = p + e exactly (head) plus x·ln10Lo (tail); subtract k·ln2 in the same split.
        let p = x * ln10Hi
        let e = (-p).addingProduct(x, ln10Hi)
        let r = (p - k * ln2Hi) + (e + x * ln10Lo - k * ln2Lo)
        return scale(expReduced(r), k)
    }

    /// e^r for |r| ≲ 0.35: 1 + r(1 + r/2(1 + r/3(…))).
    static func expReduced(_ r: Double) -> Double {
        var p = 1.0
        for n in stride(from: 17, through: 1, by: -1) {
            p = 1 + p * r / Double(n)
        }
        return p
    }

    /// value · 2^k, exact while the result is a normal number.
    static func scale(_ value: Double, _ k: Double) -> Double {
        Double(sign: .plus, exponent: Int(k), significand: value)
    }
}

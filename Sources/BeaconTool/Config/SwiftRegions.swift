// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// `dump-config --format swift`: the beacons of the effective config as CoreLocation regions an iOS
/// receiver can paste (`CLBeaconIdentityConstraint` + `CLBeaconRegion`, iOS 13 and later; the older
/// initializer in a comment). The identity is byte for byte the one beacon-tx advertises.
enum SwiftRegions {
    /// The identifier of the beacon at `index` (0-based) without one in the config.
    static func defaultIdentifier(_ index: Int) -> String { "beacon-\(index + 1)" }

    /// The comment for a beacon CoreLocation cannot see (CLBeaconRegion is iBeacon only).
    static func skipped(_ entry: BeaconEntry, _ index: Int, reader: String = "not an iBeacon") -> String {
        "    // skipped: \(comment(entry.identifier ?? defaultIdentifier(index))) is \(entry.frame.kind.rawValue) (\(comment(entry.frame.identityText))), \(reader)"
    }

    static func source(_ beacons: [BeaconEntry]) -> String {
        var lines = [
            "// The iBeacon regions of beacon-tx's effective config (beacon-tx dump-config --format swift).",
            "// Monitor them with CLLocationManager.startMonitoring(for:) (at most 20 regions per app), and",
            "// range a region's beacons with startRangingBeacons(satisfying: region.beaconIdentityConstraint).",
            "import CoreLocation",
            "",
            "func beaconTxRegions() -> [CLBeaconRegion] {",
            "    var regions: [CLBeaconRegion] = []",
        ]
        for (i, entry) in beacons.enumerated() {
            let n = i + 1
            guard let b = entry.iBeacon else { lines += ["", skipped(entry, i)]; continue }
            let identifier = literal(b.identifier ?? defaultIdentifier(i))
            let uuid = "UUID(uuidString: \"\(b.uuid)\")!"
            lines += [
                "",
                "    // \(comment(b.identifier ?? defaultIdentifier(i))): \(b.uuid) major \(b.major) minor \(b.minor), measuredPower \(b.measuredPower) dBm",
                "    let constraint\(n) = CLBeaconIdentityConstraint(uuid: \(uuid), major: \(b.major), minor: \(b.minor))",
                "    let region\(n) = CLBeaconRegion(beaconIdentityConstraint: constraint\(n), identifier: \(identifier))",
                "    // Before iOS 13: CLBeaconRegion(proximityUUID: \(uuid), major: \(b.major), minor: \(b.minor), identifier: \(identifier))",
                "    region\(n).notifyOnEntry = true",
                "    region\(n).notifyOnExit = true",
                "    region\(n).notifyEntryStateOnDisplay = true",
                "    regions.append(region\(n))",
            ]
        }
        lines += ["    return regions", "}"]
        return lines.joined(separator: "\n")
    }

    /// A Swift string literal with `text`'s characters: `\` and `"` escaped, and control, line- or
    /// direction-changing and invisible characters written as `\u{…}`.
    static func literal(_ text: String) -> String {
        var out = "\""
        for s in text.unicodeScalars {
            switch s {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            default:
                if needsEscape(s) { out += "\\u{" + hex(s.value) + "}" } else { out.unicodeScalars.append(s) }
            }
        }
        return out + "\""
    }

    /// Text safe inside a `//` comment: one line, nothing invisible.
    static func comment(_ text: String) -> String {
        var out = ""
        for s in text.unicodeScalars {
            if needsEscape(s) { out += "\\u{" + hex(s.value) + "}" } else { out.unicodeScalars.append(s) }
        }
        return out
    }

    static func needsEscape(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0..<0x20, 0x7F...0x9F, 0x200B...0x200F, 0x2028...0x202E, 0x2060...0x206F, 0xFEFF: return true
        default: return false
        }
    }

    static func hex(_ v: UInt32) -> String {
        let digits = Array("0123456789ABCDEF")
        var v = v, out = ""
        repeat { out = String(digits[Int(v % 16)]) + out; v /= 16 } while v > 0
        return out
    }
}

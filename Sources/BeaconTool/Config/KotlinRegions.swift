// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// `dump-config --format kotlin`: the beacons of the effective config as Android Beacon Library
/// regions (`org.altbeacon.beacon`, 2.19 or later), with the `BeaconParser` layout that reads the
/// bytes beacon-tx advertises. The library parses only AltBeacon frames until it is given another
/// layout, so the iBeacon one comes with the regions.
enum KotlinRegions {
    /// The iBeacon layout in the library's terms: byte offsets into the manufacturer-specific data,
    /// counted from the company identifier (`4C 00`, not matched: offsets 0–1). `m` is the beacon
    /// type code (`02 15`), `i` the identifiers (UUID, major, minor), `p` the measured power.
    static let iBeaconLayout = "m:2-3=0215,i:4-19,i:20-21,i:22-23,p:24-24"

    static func source(_ beacons: [BeaconEntry]) -> String {
        var lines = [
            "// The iBeacon regions of beacon-tx's effective config (beacon-tx dump-config --format kotlin),",
            "// for the Android Beacon Library (org.altbeacon:android-beacon-library 2.19 or later). The library",
            "// reads only AltBeacon frames until it is given a layout: startBeaconTx adds the iBeacon one,",
            "// then monitors every region (didEnterRegion/didExitRegion) and ranges it (about once a second).",
            "import org.altbeacon.beacon.BeaconManager",
            "import org.altbeacon.beacon.BeaconParser",
            "import org.altbeacon.beacon.Identifier",
            "import org.altbeacon.beacon.Region",
            "",
            "// Offsets into the manufacturer data from Apple's company id (4C 00): 02 15, UUID, major, minor, measured power.",
            "const val BEACON_TX_IBEACON_LAYOUT = \(literal(iBeaconLayout))",
            "",
            "fun beaconTxRegions(): List<Region> {",
            "    val regions = mutableListOf<Region>()",
        ]
        for (i, entry) in beacons.enumerated() {
            guard let b = entry.iBeacon else { lines += ["", SwiftRegions.skipped(entry, i)]; continue }
            let name = b.identifier ?? SwiftRegions.defaultIdentifier(i)
            lines += [
                "",
                "    // \(SwiftRegions.comment(name)): \(b.uuid) major \(b.major) minor \(b.minor), measuredPower \(b.measuredPower) dBm",
                "    regions.add(Region(\(literal(name)), Identifier.parse(\"\(b.uuid)\"), Identifier.fromInt(\(b.major)), Identifier.fromInt(\(b.minor))))",
            ]
        }
        lines += [
            "    return regions",
            "}",
            "",
            "fun startBeaconTx(beaconManager: BeaconManager) {",
            "    val parser = BeaconParser().setBeaconLayout(BEACON_TX_IBEACON_LAYOUT)",
            "    parser.setHardwareAssistManufacturerCodes(intArrayOf(0x004C))  // Apple's company id, for the hardware scan filter",
            "    beaconManager.beaconParsers.add(parser)",
            "    for (region in beaconTxRegions()) {",
            "        beaconManager.startMonitoring(region)",
            "        beaconManager.startRangingBeacons(region)",
            "    }",
            "}",
        ]
        return lines.joined(separator: "\n")
    }

    /// A Kotlin string literal with `text`'s characters: `\`, `"` and `$` (a template) escaped, and
    /// control, line- or direction-changing and invisible characters written as `\uXXXX` (all of
    /// them in the Basic Multilingual Plane, which is all that escape can name).
    static func literal(_ text: String) -> String {
        var out = "\""
        for s in text.unicodeScalars {
            switch s {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "$": out += "\\$"
            default:
                if SwiftRegions.needsEscape(s) {
                    let digits = SwiftRegions.hex(s.value)
                    out += "\\u" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
                } else {
                    out.unicodeScalars.append(s)
                }
            }
        }
        return out + "\""
    }
}

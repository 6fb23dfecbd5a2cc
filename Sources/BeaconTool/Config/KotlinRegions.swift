// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// `dump-config --format kotlin`: the beacons of the effective config as Android Beacon Library
/// regions (`org.altbeacon.beacon`, 2.19 or later), with the `BeaconParser` layouts that read the
/// bytes beacon-tx advertises. The library parses only AltBeacon frames until it is given another
/// layout: the iBeacon one comes with the regions, the Eddystone ones are the library's own
/// constants (`BeaconParser.EDDYSTONE_UID_LAYOUT`, `EDDYSTONE_URL_LAYOUT`).
enum KotlinRegions {
    /// The iBeacon layout in the library's terms: byte offsets into the manufacturer-specific data,
    /// counted from the company identifier (`4C 00`, not matched: offsets 0–1). `m` is the beacon
    /// type code (`02 15`), `i` the identifiers (UUID, major, minor), `p` the measured power.
    static let iBeaconLayout = "m:2-3=0215,i:4-19,i:20-21,i:22-23,p:24-24"

    /// The region of one beacon (its comment and `regions.add` line), nil for raw data.
    static func region(_ entry: BeaconEntry, _ index: Int) -> [String]? {
        let name = entry.identifier ?? SwiftRegions.defaultIdentifier(index)
        let head = "    // \(SwiftRegions.comment(name)): "
        func add(_ ids: [String]) -> String {
            "    regions.add(Region(\(literal(name)), " + (ids + Array(repeating: "null", count: max(0, 3 - ids.count))).joined(separator: ", ") + "))"
        }
        func bytes(_ b: [UInt8]) -> String { "Identifier.parse(\"0x\(Hex.encode(b))\")" }
        switch entry.frame {
        case let .iBeacon(b):
            return [head + "\(b.uuid) major \(b.major) minor \(b.minor), measuredPower \(b.measuredPower) dBm",
                    add(["Identifier.parse(\"\(b.uuid)\")", "Identifier.fromInt(\(b.major))", "Identifier.fromInt(\(b.minor))"])]
        case let .altBeacon(b):
            return [head + "AltBeacon id1 \(b.id1) id2 \(b.id2) id3 \(b.id3), referenceRSSI \(b.referenceRSSI) dBm",
                    add(["Identifier.parse(\"\(b.id1)\")", "Identifier.fromInt(\(b.id2))", "Identifier.fromInt(\(b.id3))"])]
        case let .eddystone(.uid(f)):
            return [head + "Eddystone-UID namespace \(Hex.encode(f.namespace)) instance \(Hex.encode(f.instance)), ranging data \(f.txPower) dBm",
                    add([bytes(f.namespace), bytes(f.instance)])]
        case let .eddystone(.url(f)):
            return [head + "Eddystone-URL \(SwiftRegions.comment(f.url)) (id1: the URL as the frame encodes it), ranging data \(f.txPower) dBm",
                    add([bytes([f.scheme] + f.encoded)])]
        case let .telemetry(t):
            // The library reads a TLM frame as extra data of the beacon from its address: no region.
            return [head + "Eddystone-TLM of \(SwiftRegions.comment(t.of.identityText)): read with EDDYSTONE_TLM_LAYOUT as that beacon's extraDataFields"]
        case .eddystone(.tlm), .data:
            return nil
        }
    }

    static func source(_ beacons: [BeaconEntry]) -> String {
        let kinds = Set(beacons.map(\.frame.kind))
        var lines = [
            "// The beacon regions of beacon-tx's effective config (beacon-tx dump-config --format kotlin),",
            "// for the Android Beacon Library (org.altbeacon:android-beacon-library 2.19 or later). The library",
            "// reads only AltBeacon frames until it is given a layout: startBeaconTx adds the ones these beacons",
            "// need, then monitors every region (didEnterRegion/didExitRegion) and ranges it (about once a second).",
            "import org.altbeacon.beacon.BeaconManager",
            "import org.altbeacon.beacon.BeaconParser",
            "import org.altbeacon.beacon.Identifier",
            "import org.altbeacon.beacon.Region",
            "",
        ]
        if kinds.contains(.iBeacon) {
            lines += [
                "// Offsets into the manufacturer data from Apple's company id (4C 00): 02 15, UUID, major, minor, measured power.",
                "const val BEACON_TX_IBEACON_LAYOUT = \(literal(iBeaconLayout))",
                "",
            ]
        }
        lines += ["fun beaconTxRegions(): List<Region> {", "    val regions = mutableListOf<Region>()"]
        for (i, entry) in beacons.enumerated() {
            lines += [""] + (region(entry, i) ?? [SwiftRegions.skipped(entry, i, reader: "the Android Beacon Library reads no layout from it")])
        }
        lines += ["    return regions", "}", "", "fun startBeaconTx(beaconManager: BeaconManager) {"]
        if kinds.contains(.iBeacon) {
            lines += [
                "    val parser = BeaconParser().setBeaconLayout(BEACON_TX_IBEACON_LAYOUT)",
                "    parser.setHardwareAssistManufacturerCodes(intArrayOf(0x004C))  // Apple's company id, for the hardware scan filter",
                "    beaconManager.beaconParsers.add(parser)",
            ]
        }
        if kinds.contains(.eddystoneUID) {
            lines.append("    beaconManager.beaconParsers.add(BeaconParser().setBeaconLayout(BeaconParser.EDDYSTONE_UID_LAYOUT))")
        }
        if kinds.contains(.eddystoneURL) {
            lines.append("    beaconManager.beaconParsers.add(BeaconParser().setBeaconLayout(BeaconParser.EDDYSTONE_URL_LAYOUT))")
        }
        if kinds.contains(.eddystoneTLM) {
            lines.append("    beaconManager.beaconParsers.add(BeaconParser().setBeaconLayout(BeaconParser.EDDYSTONE_TLM_LAYOUT))  // telemetry: extraDataFields")
        }
        lines += [
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

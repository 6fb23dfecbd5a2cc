// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

/// `dump-config --format kotlin`: a snapshot for Config/museum.json, Kotlin string literals, and the
/// proof that the layout reads what beacon-tx sends: the printed BeaconParser layout is applied, the
/// way the Android Beacon Library applies one, to the manufacturer data of the same config's dry run,
/// and each Region's identifiers must be the bytes it finds there. No Kotlin compiler or Android
/// library is reachable here, so the Kotlin itself is checked only by the snapshot.
@Suite struct KotlinRegionsTests {
    @Test func museumSnapshot() {
        let r = tool(["dump-config", "--config", repoPath("Config/museum.json"), "--format", "kotlin"])
        #expect(r.code == 0, "\(r.err)")
        expectSnapshot(r.out, "dump-config-museum.kt")
    }

    @Test func identifiersAreKotlinStringLiterals() {
        #expect(KotlinRegions.literal("museum-hall") == #""museum-hall""#)
        // A template ($name, ${x}) must stay text; Kotlin's \u takes exactly four hex digits.
        #expect(KotlinRegions.literal("a \"b\" \\ $x ${y}\n\u{2028}é") == #""a \"b\" \\ \$x \${y}\u000A\u2028é""#)
    }

    @Test func noBeaconIsAUsageError() {
        let r = tool(["dump-config", "--format", "kotlin"])
        #expect(r.code == 64)
        #expect(r.err.contains("--format kotlin: no beacon in the effective config"), "\(r.err)")
        let bad = tool(["dump-config", "--format", "java"])
        #expect(bad.code == 64 && bad.err.contains("is not one of json, swift, kotlin"), "\(bad.err)")
    }

    /// Config/museum.json and a beacon given by flags with the largest values and an identifier to
    /// escape: every Region names the identifiers the layout reads from that beacon's advertised bytes.
    @Test(arguments: [
        ["--config", repoPath("Config/museum.json")],
        ["--uuid", "FFFFFFFF-0000-4000-8000-00000000FFFF", "--major", "65535", "--minor", "0", "--power", "-127", "--identifier", "hall $1 \"B\""],
    ]) func theLayoutReadsTheAdvertisedIdentifiers(_ config: [String]) throws {
        let kotlin = tool(["dump-config"] + config + ["--format", "kotlin"])
        let dryRun = tool(["start", "--dry-run", "--controller", "legacy", "--format", "hex"] + config)
        #expect(kotlin.code == 0 && dryRun.code == 0, "\(kotlin.err)\(dryRun.err)")
        let layout = try #require(Self.layout(in: kotlin.out))
        let regions = Self.regions(in: kotlin.out)
        let advertised = Self.manufacturerData(inDryRun: dryRun.out)
        #expect(!regions.isEmpty && regions.count == advertised.count, "\(regions.count) regions, \(advertised.count) beacons")
        for (region, data) in zip(regions, advertised) {
            let read = try #require(Self.apply(layout, to: data), "the layout \(layout) does not match \(Hex.encode(data))")
            #expect(read.identifiers == region, "layout read \(read.identifiers.map { Hex.encode($0) }), region says \(region.map { Hex.encode($0) })")
        }
        // The measured power the layout's p term reads is the configured one.
        let powers = try advertised.map { try #require(Self.apply(layout, to: $0)).power }
        let configured = kotlin.out.split(separator: "\n").compactMap { line -> Int8? in
            guard let r = line.range(of: "measuredPower ") else { return nil }
            return Int8(line[r.upperBound...].split(separator: " ")[0])
        }
        #expect(powers == configured)
    }

    /// The Android Beacon Library's own layouts (its BeaconParser constants, which the printed
    /// code names) read each AltBeacon and Eddystone region's identifiers from the bytes beacon-tx
    /// advertises; the raw data beacon gets no region.
    static let libraryLayouts: [BeaconFrame.Kind: String] = [
        .altBeacon: "m:2-3=beac,i:4-19,i:20-21,i:22-23,p:24-24,d:25-25",      // ALTBEACON_LAYOUT
        .eddystoneUID: "s:0-1=feaa,m:2-2=00,p:3-3:-41,i:4-13,i:14-19",      // EDDYSTONE_UID_LAYOUT
        .eddystoneURL: "s:0-1=feaa,m:2-2=10,p:3-3:-41,i:4-21v",             // EDDYSTONE_URL_LAYOUT
    ]

    @Test func theLibrarysLayoutsReadEachTypesIdentifiers() throws {
        let path = kioskFile(BeaconTypesTests.config)
        let kotlin = tool(["dump-config", "--config", path, "--format", "kotlin"])
        #expect(kotlin.code == 0)
        #expect(kotlin.out.contains("BeaconParser().setBeaconLayout(BeaconParser.EDDYSTONE_UID_LAYOUT)"))
        #expect(kotlin.out.contains("BeaconParser().setBeaconLayout(BeaconParser.EDDYSTONE_URL_LAYOUT)"))
        #expect(kotlin.out.contains("    // skipped: beacon-5 is data (data 0201060303aafe), the Android Beacon Library reads no layout from it"))
        let regions = Self.regions(in: kotlin.out)
        var s = Settings()
        _ = try ConfigFile.apply(try JSON.parse(BeaconTypesTests.config), into: &s, prefix: "config")
        #expect(regions.count == 4)
        for (region, entry) in zip(regions, s.beacons) {
            let structures = try ADStructure.parse(entry.frame.advertisingData)
            let layout: String, data: [UInt8]
            switch entry.frame.kind {
            case .iBeacon: layout = KotlinRegions.iBeaconLayout; data = try #require(structures.first { $0.type == .manufacturerSpecificData }).data
            case .altBeacon: layout = try #require(Self.libraryLayouts[.altBeacon]); data = try #require(structures.first { $0.type == .manufacturerSpecificData }).data
            default: layout = try #require(Self.libraryLayouts[entry.frame.kind]); data = try #require(structures.first { $0.type == .serviceData16BitUUID }).data
            }
            let read = try #require(Self.apply(layout, to: data), "\(layout) does not match \(Hex.encode(data))")
            #expect(read.identifiers == region, "\(entry.frame.kind): layout read \(read.identifiers.map { Hex.encode($0) }), region says \(region.map { Hex.encode($0) })")
        }
        // Proof that the check can fail: the UID layout against the URL frame.
        let url = try ADStructure.parse(s.beacons[3].frame.advertisingData).first { $0.type == .serviceData16BitUUID }?.data ?? []
        let uidLayout = try #require(Self.libraryLayouts[.eddystoneUID])
        #expect(Self.apply(uidLayout, to: url) == nil)
    }

    @Test func aLayoutThatMissesTheTypeCodeReadsNothing() throws {
        // Proof that the check can fail: AltBeacon's code (BE AC) against an iBeacon's 02 15.
        let ibeacon = try #require(Golden.beacon).manufacturerData
        #expect(Self.apply("m:2-3=beac,i:4-19,i:20-21,i:22-23,p:24-24", to: ibeacon) == nil)
        #expect(Self.apply(KotlinRegions.iBeaconLayout, to: ibeacon) != nil)
    }

    // MARK: - the Android Beacon Library's layout terms, as its BeaconParser documents them

    /// Applies `m:START-END=HEX` (must match), `s:START-END=HEX` (the 16-bit service UUID, little-endian
    /// on air, must match), `i:START-END[v]` (an identifier; `v`: up to the data's end),
    /// `p:START-END[:CORRECTION]` (the power, signed) and `d:START-END` (data, ignored) to
    /// manufacturer data counted from the company id, or service data counted from the UUID; nil
    /// when a match fails or a term runs past the data. A leading `x` (a frame without identifiers)
    /// is not handled.
    static func apply(_ layout: String, to data: [UInt8]) -> (identifiers: [[UInt8]], power: Int8)? {
        var identifiers: [[UInt8]] = []
        var power: Int8?
        for term in layout.split(separator: ",") {
            let parts = term.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            let body = parts[1].split(separator: "=", maxSplits: 1)
            var span = String(body[0].split(separator: ":")[0])
            let variable = span.hasSuffix("v")
            if variable { span.removeLast() }
            var range = span.split(separator: "-").compactMap { Int($0) }
            guard range.count == 2, range[0] <= range[1] else { return nil }
            if variable { range[1] = min(range[1], data.count - 1) }
            guard range[1] < data.count else { return nil }
            let bytes = Array(data[range[0]...range[1]])
            switch parts[0] {
            case "m": guard body.count == 2, Hex.decode(String(body[1])) == bytes else { return nil }
            case "s": guard body.count == 2, Hex.decode(String(body[1])) == bytes.reversed() else { return nil }
            case "i": identifiers.append(bytes)
            case "p": power = Int8(bitPattern: bytes[0])
            case "d": continue
            default: return nil
            }
        }
        return power.map { (identifiers, $0) }
    }

    static func layout(in source: String) -> String? {
        guard let line = source.split(separator: "\n").first(where: { $0.hasPrefix("const val BEACON_TX_IBEACON_LAYOUT = ") }) else { return nil }
        return line.split(separator: "\"").dropFirst().first.map(String.init)
    }

    /// Each `Region(…)` line's identifiers as the library makes them: `Identifier.parse` of a UUID is
    /// its 16 bytes, `Identifier.fromInt` two bytes big-endian.
    static func regions(in source: String) -> [[[UInt8]]] {
        source.split(separator: "\n").filter { $0.contains("regions.add(Region(") }.map { line in
            var ids: [[UInt8]] = []
            var rest = Substring(line)
            while let r = rest.range(of: "Identifier.") {
                rest = rest[r.upperBound...]
                let argument = rest.drop { $0 != "(" }.dropFirst().prefix { $0 != ")" }
                if rest.hasPrefix("parse(") {
                    let text = argument.filter { $0 != "\"" }
                    ids.append(Hex.decode((text.hasPrefix("0x") ? String(text.dropFirst(2)) : String(text)).filter { $0.isHexDigit }) ?? [])
                } else if let n = UInt16(argument) {
                    ids.append([UInt8(n >> 8), UInt8(n & 0xFF)])
                }
            }
            return ids
        }
    }

    /// The manufacturer-specific data of each LE Set Advertising Data of a hex dry run: its rotation's
    /// (one per beacon), or its start's when one beacon needs no rotation.
    static func manufacturerData(inDryRun hex: String) -> [[UInt8]] {
        let all = hex.split(separator: "\n")
        let section = all.contains("# rotation:") ? "# rotation:" : "# start:"
        let lines = all.drop { $0 != section }.dropFirst().prefix { !$0.hasPrefix("#") }
        return lines.compactMap { line -> [UInt8]? in
            guard let bytes = Hex.decode(String(line)), bytes.count == 36, bytes[1] == 0x08, bytes[2] == 0x20 else { return nil }
            let significant = Array(bytes[5..<(5 + Int(bytes[4]))])
            return (try? ADStructure.parse(significant))?.first { $0.type == .manufacturerSpecificData }?.data
        }
    }
}

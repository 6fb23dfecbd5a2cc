// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import FuzzSupport
#if canImport(Glibc)
import Glibc
#endif

// Advertising data, iBeacons, AltBeacons, Eddystone frames, UUIDs, regions and hex: parse → encode
// → parse is the identity.
exit(fuzzMain { input in
    if let structures = try? ADStructure.parse(input) {
        let encoded = structures.flatMap(\.encoded)
        require(encoded.count <= input.count, "AD structures longer than the input")
        require(encoded + [UInt8](repeating: 0, count: input.count - encoded.count) == input,
                "AD round trip (significant part + zero padding): \(Hex.encode(input))")
    }
    if let beacon = IBeacon(advertisingData: input) {
        require(IBeacon(advertisingData: beacon.advertisingData) == beacon, "iBeacon round trip")
        require(beacon.advertisingData.count == 30, "iBeacon advertising data is 30 bytes")
    }
    if let beacon = AltBeacon(advertisingData: input) {
        require(AltBeacon(advertisingData: beacon.advertisingData) == beacon, "AltBeacon round trip")
        require(beacon.advertisingData.count == 31, "AltBeacon advertising data is 31 bytes")
    }
    if let frame = Eddystone.Frame(advertisingData: input) {
        require(Eddystone.Frame(advertisingData: frame.advertisingData) == frame, "Eddystone round trip: \(Hex.encode(input))")
        require(frame.advertisingData.count <= 31, "Eddystone advertising data over 31 bytes: \(Hex.encode(input))")
        if case let .url(u) = frame {
            // The decoded text encodes again within the limit, to the same URL (maybe shorter).
            let again = try? Eddystone.URL(u.url, txPower: u.txPower)
            require(again?.url == u.url && (again?.encoded.count ?? 99) <= u.encoded.count, "URL text re-encodes: \(u.url.debugDescription)")
        }
    }
    let url = String(decoding: input, as: UTF8.self)
    if let u = try? Eddystone.URL(url, txPower: 0) {
        require(Eddystone.Frame(serviceData: Eddystone.Frame.url(u).serviceData) == .url(u), "encoded URL decodes to itself: \(url.debugDescription)")
    }
    if input.count >= 21 {
        let uuid = ProximityUUID(bytes: Array(input[0..<16]))
        require(uuid != nil, "16 bytes are a UUID")
        if let uuid {
            let major = UInt16(input[16]) << 8 | UInt16(input[17]), minor = UInt16(input[18]) << 8 | UInt16(input[19])
            let beacon = IBeacon(uuid: uuid, major: major, minor: minor, measuredPower: Int8(bitPattern: input[20]))
            require(IBeacon(advertisingData: beacon.advertisingData) == beacon, "built iBeacon round trip")
            require(IBeacon(manufacturerData: beacon.manufacturerData) == beacon, "manufacturer data round trip")
            require(ProximityUUID(uuid.description) == uuid, "UUID text round trip")
            require(ProximityUUID(Hex.encode(uuid.bytes)) == uuid, "UUID without dashes")
            let region = BeaconRegion(uuid: uuid, major: major, minor: minor)
            require((try? BeaconRegion(parsing: region.description)) == region, "region round trip")
            require(region.matches(beacon), "region matches its beacon")
        }
    }
    let text = String(decoding: input, as: UTF8.self)
    if let uuid = ProximityUUID(text) {
        require(ProximityUUID(uuid.description) == uuid, "parsed UUID round trip")
        let t = text.unicodeScalars.filter { !$0.properties.isWhitespace }
        require(t.count == 32 || t.count == 36, "UUID text with a partial set of dashes was accepted: \(text.debugDescription)")
    }
    if let region = try? BeaconRegion(parsing: text) {
        require((try? BeaconRegion(parsing: region.description)) == region, "parsed region round trip")
    }
    if let bytes = Hex.decode(text) {
        require(Hex.decode(Hex.encode(bytes)) == bytes, "hex round trip")
    }
    if let first = input.first {
        let separator = ["", " ", ":", "\n", "\r\n", "\t", "-", " : "][Int(first) % 8]
        require(Hex.decode(Hex.encode(input, separator: separator)) == input, "hex with \(separator.debugDescription)")
    }
})

// SPDX-License-Identifier: Apache-2.0
/// A random static address (Core spec Vol 6, Part B, §1.3.2.1: the two most significant bits 0b11,
/// the other 46 bits neither all 0 nor all 1), derived from a beacon's region so it stays the same
/// across restarts and reloads: a scanner that keys on the address sees each beacon on its own.
public enum StaticRandomAddress {
    /// Display order (`C3:…`): FNV-1a of the UUID, major and minor; the top two bits set.
    public static func derived(for beacon: IBeacon) -> [UInt8] {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in beacon.uuid.bytes + [UInt8(beacon.major >> 8), UInt8(beacon.major & 0xff), UInt8(beacon.minor >> 8), UInt8(beacon.minor & 0xff)] {
            h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        var a = (0..<6).map { UInt8(truncatingIfNeeded: h >> (8 * UInt64(5 - $0))) }
        a[0] |= 0xC0
        let rest = [a[0] & 0x3F] + a[1...]
        if rest.allSatisfy({ $0 == 0 }) { a[5] = 1 }
        if a[0] & 0x3F == 0x3F && a[1...].allSatisfy({ $0 == 0xFF }) { a[5] = 0xFE }
        return a
    }

    /// `C3:11:22:33:44:55`.
    public static func text(_ a: [UInt8]) -> String {
        a.map { Hex.encode([$0]).uppercased() }.joined(separator: ":")
    }
}

// SPDX-License-Identifier: Apache-2.0
/// A random static address (Core spec Vol 6, Part B, §1.3.2.1: the two most significant bits 0b11,
/// the other 46 bits neither all 0 nor all 1), derived from a beacon's region so it stays the same
/// across restarts and reloads: a scanner that keys on the address sees each beacon on its own.
public enum StaticRandomAddress {
    /// Display order (`C3:…`): FNV-1a of the beacon's identity (an iBeacon's UUID, major and minor;
    /// `BeaconFrame.identity` without its type); the top two bits set.
    public static func derived(for frame: BeaconFrame) -> [UInt8] {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in frame.identityFields {
            h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        var a = (0..<6).map { UInt8(truncatingIfNeeded: h >> (8 * UInt64(5 - $0))) }
        a[0] |= 0xC0
        let rest = [a[0] & 0x3F] + a[1...]
        if rest.allSatisfy({ $0 == 0 }) { a[5] = 1 }
        if a[0] & 0x3F == 0x3F && a[1...].allSatisfy({ $0 == 0xFF }) { a[5] = 0xFE }
        return a
    }

    /// The address a controller without a public address advertises from when the kernel knows none:
    /// the first beacon's (so a fleet that shares a UUID and differs in minors gets one address per box),
    /// nil without beacons.
    public static func derived(for configuration: KioskConfiguration) -> [UInt8]? {
        configuration.beacons.first.map { derived(for: $0.frame) }
    }

    /// A BD_ADDR of all zeros: the controller has no public address (an LE-only controller such as
    /// Zephyr's hci_uart on an nRF52); advertising from it would send AdvA 00:00:00:00:00:00.
    public static func isMissingPublicAddress(_ text: String) -> Bool {
        parse(text).map { $0.allSatisfy { $0 == 0 } } ?? false
    }

    /// A random static address: top two bits 0b11, the other 46 bits neither all 0 nor all 1.
    public static func isStatic(_ a: [UInt8]) -> Bool {
        guard a.count == 6, a[0] & 0xC0 == 0xC0 else { return false }
        let rest = [a[0] & 0x3F] + a[1...]
        return !rest.allSatisfy { $0 == 0 } && !(rest[0] == 0x3F && rest[1...].allSatisfy { $0 == 0xFF })
    }

    /// `C3:11:22:33:44:55` (either case) in display order; nil unless six colon-separated octets.
    /// Any BD_ADDR parses (public ones too: `--device 00:1A:7D:DA:71:13`).
    public static func parse(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var out: [UInt8] = []
        for p in parts {
            guard p.utf8.count == 2, let b = Hex.decode(String(p))?.first else { return nil }
            out.append(b)
        }
        return out
    }

    /// `C3:11:22:33:44:55`.
    public static func text(_ a: [UInt8]) -> String {
        a.map { Hex.encode([$0]).uppercased() }.joined(separator: ":")
    }
}

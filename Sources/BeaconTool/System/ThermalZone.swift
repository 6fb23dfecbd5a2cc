// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// An Eddystone-TLM's temperature: a thermal zone's `temp` (sysfs, millidegrees Celsius, e.g.
/// `48312`), or any file that holds such a number.
enum ThermalZone {
    /// In 1/256 °C, Eddystone-TLM's 8.8 fixed point; nil when the file cannot be read or holds no
    /// temperature the frame can carry (-128 °C, 0x8000, means "not supported").
    static func read(_ path: String) -> Int16? {
        guard let bytes = try? FileIO.read(path, what: "thermal zone", maximumSize: 64) else { return nil }
        return parse(bytes)
    }

    static func parse(_ bytes: [UInt8]) -> Int16? {
        var text = Substring(String(decoding: bytes, as: UTF8.self))
        while let last = text.last, last == "\n" || last == " " || last == "\r" { text = text.dropLast() }
        guard let milli = Int(text), abs(milli) <= 1_000_000 else { return nil }
        let fixed = milli * 256 / 1000
        guard let value = Int16(exactly: fixed), value != Eddystone.TLM.temperatureNotSupported else { return nil }
        return value
    }

    /// The sources of the Eddystone-TLM beacons of `s` that cannot be read now: `start` refuses them
    /// before the controller is touched.
    static func unreadable(_ s: Settings) -> [(beacon: Int, path: String)] {
        s.beacons.enumerated().compactMap { i, entry in
            guard case let .telemetry(t) = entry.frame, let path = t.temperatureSource, read(path) == nil else { return nil }
            return (i, path)
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit
@testable import BeaconTool
import FuzzSupport
#if canImport(Glibc)
import Glibc
#endif

// The config reader: RFC 8259 JSON (plus comments, trailing commas, one BOM) and the config keys.
// Whatever parses prints back (compact and pretty) to the same value; applying a config never
// traps, and its errors are one printable line.
exit(fuzzMain { input in
    guard let value = try? JSON.parse(bytes: input) else { return }
    let compact = value.compact, pretty = value.pretty
    require((try? JSON.parse(compact)) == value, "compact round trip: \(compact.prefix(200))")
    require((try? JSON.parse(pretty)) == value, "pretty round trip")
    require(!compact.contains("\n") && compact.unicodeScalars.allSatisfy(isPrintable), "compact JSON is one printable line")
    var settings = Settings()
    do throws(CLIError) {
        _ = try ConfigFile.apply(value, into: &settings, prefix: "config")
        for beacon in settings.beacons {
            require(IBeacon(advertisingData: beacon.beacon.advertisingData) == IBeacon(uuid: beacon.uuid, major: beacon.major, minor: beacon.minor, measuredPower: beacon.measuredPower),
                    "configured beacon round trip")
            if let identifier = beacon.identifier { require(identifier.unicodeScalars.allSatisfy(isPrintable), "unprintable identifier accepted") }
        }
    } catch {
        require(!error.message.isEmpty && error.message.unicodeScalars.allSatisfy(isPrintable), "config error not one printable line: \(error.message.debugDescription)")
        require(error.code == .dataError, "config error with exit \(error.code)")
    }
})

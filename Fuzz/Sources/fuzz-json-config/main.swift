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
            // Every type's advertising data parses back to the configured frame; data stays AD structures.
            let data = beacon.frame.advertisingData
            switch beacon.frame {
            case var .iBeacon(b):
                b.identifier = nil
                require(IBeacon(advertisingData: data) == b, "configured iBeacon round trip")
            case let .altBeacon(b): require(AltBeacon(advertisingData: data) == b, "configured AltBeacon round trip")
            case let .eddystone(f): require(Eddystone.Frame(advertisingData: data) == f, "configured Eddystone round trip")
            case let .data(d): require((try? BeaconFrame.checkedData(d)) == beacon.frame && d.count <= 31, "configured data not AD structures")
            case let .telemetry(t):
                // As at the start; with a thermal zone the session writes the measured temperature in.
                var measured = t
                measured.tlm.temperature = t.temperatureSource == nil ? Eddystone.TLM.temperatureNotSupported : 0
                require(t.isSent(as: data) == (t.temperatureSource == nil) && t.isSent(as: BeaconFrame.telemetry(measured).advertisingData),
                        "configured TLM round trip")
                require([.eddystoneUID, .eddystoneURL].contains(t.of.kind), "a TLM of a \(t.of.kind.rawValue) beacon accepted")
            }
            if let identifier = beacon.identifier { require(identifier.unicodeScalars.allSatisfy(isPrintable), "unprintable identifier accepted") }
        }
    } catch {
        require(!error.message.isEmpty && error.message.unicodeScalars.allSatisfy(isPrintable), "config error not one printable line: \(error.message.debugDescription)")
        require(error.code == .dataError, "config error with exit \(error.code)")
    }
})

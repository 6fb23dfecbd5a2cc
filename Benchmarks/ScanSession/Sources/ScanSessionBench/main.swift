// SPDX-License-Identifier: Apache-2.0
// Scan-session cost with a crowd: IDENTITIES distinct iBeacons, each advertising once per simulated
// second for SECONDS seconds, fed as H4 LE Advertising Report events to `ScanSession.receive` (parse,
// health check, ranging, monitoring, 1 Hz throttle) with a `tick` after every event, as `scan` pumps.
// Then a second crowd of as many new identities replaces the first: the first must be pruned, so the
// beacons tracked stay at IDENTITIES, not twice that. Each crowd has its region (enter, then exit).
//
// Prints one line per phase: reports, seconds, reports/s, beacons tracked at the end; then the
// process's peak RSS (VmHWM). Usage: scan-session-bench [IDENTITIES [SECONDS]]
import BeaconKit
import Glibc

let arguments = CommandLine.arguments
let identities = arguments.count > 1 ? Int(arguments[1]) ?? 10_000 : 10_000
let seconds = arguments.count > 2 ? Int(arguments[2]) ?? 30 : 30

func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// VmHWM of /proc/self/status in KiB.
func peakRSSKiB() -> Int {
    guard let file = fopen("/proc/self/status", "r") else { return -1 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("VmHWM:") {
            return Int(text.dropFirst(6).filter { $0.isNumber }) ?? -1
        }
    }
    return -1
}

/// One LE Advertising Report event (ADV_NONCONN_IND) carrying the iBeacon of identity `n` of `crowd`.
func packet(crowd: UInt8, n: Int) -> [UInt8] {
    var uuid = [UInt8](repeating: 0, count: 16)
    uuid[0] = 0xE2
    uuid[15] = crowd
    let beacon = IBeacon(uuid: ProximityUUID(bytes: uuid)!, major: UInt16(truncatingIfNeeded: n >> 16),
                         minor: UInt16(truncatingIfNeeded: n), measuredPower: -59)
    let data = beacon.advertisingData
    let address: [UInt8] = [UInt8(truncatingIfNeeded: n), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n >> 16), 0, crowd, 0xC0]
    var p: [UInt8] = [0x02, 0x01, 0x03, 0x01] + address + [UInt8(data.count)] + data
    p.append(UInt8(bitPattern: Int8(-50 - n % 40)))
    return HCIEvent(code: .leMeta, parameters: p).packet
}

var configuration = ScanConfiguration(
    regions: [1, 2].map { BeaconRegion(uuid: ProximityUUID(bytes: [0xE2] + [UInt8](repeating: 0, count: 14) + [$0])!) })
configuration.exitTimeout = 5
var session = ScanSession(configuration)
var clock = 0.0
var updates = 0

for crowd in [UInt8(1), 2] {
    let packets = (0..<identities).map { packet(crowd: crowd, n: $0) }
    let start = monotonicSeconds()
    for second in 0..<seconds {
        for (n, p) in packets.enumerated() {
            clock = Double(seconds) * Double(crowd - 1) * 2 + Double(second) + Double(n) / Double(identities)
            do { updates += try session.receive(p, at: clock).count } catch { print("controller failure: \(error)"); exit(1) }
            updates += session.tick(at: clock).count
        }
    }
    let elapsed = monotonicSeconds() - start
    let reports = identities * seconds
    print("crowd \(crowd): \(reports) reports from \(identities) identities in \(Double(Int(elapsed * 1000)) / 1000) s: "
          + "\(Int(Double(reports) / elapsed)) reports/s; \(session.ranger.count) beacons tracked")
    // The next crowd starts after this one has been silent for longer than the ranging window.
}
print("ranging updates and region events: \(updates); beacons that entered the window: \(session.beaconCount)")
print("peak RSS: \(peakRSSKiB()) KiB")

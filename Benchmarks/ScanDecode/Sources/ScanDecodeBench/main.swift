// SPDX-License-Identifier: Apache-2.0
// The Swift side of the scan-decode benchmark (see ../../RESULTS.md and scripts/bench-scan).
//
// Reads the payload file of gen_payloads.py (one advertisement a line: kind, H4 event hex,
// advertising data hex) and times, on CLOCK_MONOTONIC, RUNS runs of PASSES passes over the set:
//   decodePartial(event)  AdvertisingReports.decodePartial(eventPacket:): full LE (Extended)
//                         Advertising Report decoding, every field of every report.
//   observations(event)   BeaconObservation.observations(inEventPacket:timestamp:): the above, then
//                         IBeacon(advertisingData:) on each report: what `beacon-tx scan` does per event.
//   IBeacon(ad)           IBeacon(advertisingData:) on the advertising data alone: the like-for-like
//                         counterpart of beacontools.parse_packet.
// Prints one line per measurement:
//   ROW <name> <payloads decoded per run> <median s> <min s> <max s> <iBeacons per pass, or ->
// BeaconKit is Foundation-free; so is this program (Glibc for the file and the clock).
import BeaconKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

struct Payload {
    var event: [UInt8]
    var advertisingData: [UInt8]
}

/// Writes a line to standard error (file descriptor 2).
func printError(_ line: String) {
    var bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
    printError("scan-decode-bench: \(message)")
    exit(1)
}

/// Every line of a text file, without its newline.
func readLines(_ path: String) -> [String] {
    guard let file = fopen(path, "r") else { fail("cannot open \(path): errno \(errno)") }
    defer { fclose(file) }
    var lines: [String] = []
    var buffer: UnsafeMutablePointer<CChar>?
    var capacity = 0
    defer { free(buffer) }
    while true {
        let length = getline(&buffer, &capacity, file)
        if length < 0 { break }
        var line = String(cString: buffer!)
        if line.hasSuffix("\n") { line.removeLast() }
        lines.append(line)
    }
    return lines
}

/// The payloads, and the iBeacon count the generator says a correct decoder finds.
func loadPayloads(_ path: String) -> (payloads: [Payload], expectedBeacons: Int?) {
    var payloads: [Payload] = []
    var expected: Int?
    for line in readLines(path) {
        if line.hasPrefix("#") {
            for field in line.split(separator: " ") where field.hasPrefix("ibeacons=") {
                expected = Int(field.dropFirst("ibeacons=".count))
            }
            continue
        }
        let fields = line.split(separator: " ")
        guard fields.count == 3, let event = Hex.decode(String(fields[1])),
              let data = Hex.decode(String(fields[2])) else { fail("bad payload line: \(line.prefix(60))") }
        payloads.append(Payload(event: event, advertisingData: data))
    }
    if payloads.isEmpty { fail("no payloads in \(path)") }
    return (payloads, expected)
}

/// Untimed check that the set is what the benchmark claims: every event decodes, without error, to
/// exactly one report whose data is the line's advertising data.
func validate(_ payloads: [Payload]) {
    for (index, payload) in payloads.enumerated() {
        guard let batch = AdvertisingReports.decodePartial(eventPacket: payload.event) else {
            fail("payload \(index + 1): not an advertising report event")
        }
        if let error = batch.error { fail("payload \(index + 1): \(error)") }
        guard batch.reports.count == 1, batch.reports[0].data == payload.advertisingData else {
            fail("payload \(index + 1): expected one report carrying the line's advertising data")
        }
    }
}

func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Times `runs` calls of `once` (each making `passes` passes) and prints the ROW line. `once` returns
/// what one pass found; every pass of every run must find the same.
func measure(_ name: String, payloads: Int, runs: Int, passes: Int, showCount: Bool, _ once: () -> Int) -> Int {
    var seconds: [Double] = []
    var found: Int?
    for _ in 0..<runs {
        let start = monotonicSeconds()
        var counts: [Int] = []
        counts.reserveCapacity(passes)
        for _ in 0..<passes { counts.append(once()) }
        seconds.append(monotonicSeconds() - start)
        for count in counts {
            if let f = found, f != count { fail("\(name): passes disagree (\(f) vs \(count))") }
            found = count
        }
    }
    seconds.sort()
    let median = seconds.count % 2 == 1 ? seconds[seconds.count / 2]
        : (seconds[seconds.count / 2 - 1] + seconds[seconds.count / 2]) / 2
    let count = found ?? 0
    print("ROW \(name) \(payloads * passes) \(median) \(seconds.first!) \(seconds.last!) \(showCount ? String(count) : "-")")
    return count
}

func usage() -> Never {
    printError("usage: scan-decode-bench PAYLOAD_FILE [RUNS] [PASSES]")
    exit(64)
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else { usage() }
let runs = arguments.count > 2 ? Int(arguments[2]) ?? 0 : 5
let passes = arguments.count > 3 ? Int(arguments[3]) ?? 0 : 10
guard runs > 0, passes > 0 else { usage() }

let (payloads, expectedBeacons) = loadPayloads(arguments[1])
validate(payloads)
let events = payloads.map(\.event)
let datas = payloads.map(\.advertisingData)

let reports = measure("BeaconKit.decodePartial(event)", payloads: events.count, runs: runs, passes: passes,
                      showCount: false) {
    var reports = 0
    for event in events {
        if let batch = AdvertisingReports.decodePartial(eventPacket: event) { reports += batch.reports.count }
    }
    return reports
}
if reports != events.count { fail("decodePartial found \(reports) reports in \(events.count) events") }

let fromEvents = measure("BeaconKit.observations(event)", payloads: events.count, runs: runs, passes: passes,
                         showCount: true) {
    var found = 0
    for event in events {
        found += BeaconObservation.observations(inEventPacket: event, timestamp: 0).observations.count
    }
    return found
}

let fromData = measure("BeaconKit.IBeacon(ad)", payloads: datas.count, runs: runs, passes: passes, showCount: true) {
    var found = 0
    for data in datas where IBeacon(advertisingData: data) != nil { found += 1 }
    return found
}

if fromEvents != fromData { fail("event path found \(fromEvents) iBeacons, advertising-data path \(fromData)") }
if let expected = expectedBeacons, expected != fromData {
    fail("found \(fromData) iBeacons, the generator wrote \(expected)")
}

// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import SystemCalls

/// `beacon-tx status --metrics FILE` also publishes the sessions' metrics files, which every
/// session keeps beside its state file (`hciN.prom` in its state directory: the packaged units run
/// as a transient user that cannot write node_exporter's directory, see `KioskMetricsFile`): each
/// is copied, atomically and only when it changed, to `beacon-tx-hciN.prom` beside FILE, after one
/// marker line. A published copy whose file has gone (the session stopped cleanly, or systemd
/// removed its runtime directory) is removed, so a stopped kiosk has no series, like its status.
/// Files without the marker are never touched.
///
/// The publisher runs as root and the state directories belong to less privileged sessions, so
/// what it copies is bounded and checked:
/// - only the metrics file beside a running session's state file (its pid holds the device's
///   lock, see `StateStore.sessions`), so only canonical device names and one file per device;
/// - opened without following links (`OwnedDirectory`) and checked on its descriptor: a regular
///   file owned by its directory's owner, with one link (a hard link to one big file under many
///   names is never copied once per name), readable by everyone already (mode o+r: nothing private
///   becomes public), at most `maximumFileSize`, and all files of a run together at most
///   `maximumTotalSize`; not in FILE's own directory;
/// - only `beacon_tx_*` series whose `device` label is that file's device, with their `# HELP`
///   and `# TYPE` lines (`filter`): a file cannot publish another device's series, another
///   program's (`node_systemd_unit_state`), or the status series this run writes itself.
///
/// A file refused, or a series left out, is a counted event, not a silent skip: one warning line
/// (stderr, the journal) naming the file and why, and `beacon_tx_publish_refused_total{device,
/// reason}` in FILE. A refused file's earlier copy is removed: what is published passed the checks
/// of this run.
enum MetricsPublisher {
    static let marker = "# beacon-tx status: published from "
    /// What `readPublic` takes in (FILE's previous run, the published copies: root's own files).
    static let maximumSize = 1 << 20
    /// A session's metrics file is about 4 KiB with three beacons and grows by about 200 bytes per
    /// beacon: 64 KiB holds some 300 beacons, more than a controller's advertising sets or a
    /// rotation that phones can follow, while a flood stays small.
    static let maximumFileSize = 64 << 10
    /// All files of one run: 16 full-size files (a host has one or a few adapters); what the
    /// timer can make root write every 15 s, whatever the sessions put in their directories.
    static let maximumTotalSize = 1 << 20

    /// Why a file (or some of its series) was not published: the `reason` label.
    enum Reason: String, CaseIterable {
        /// A symbolic link.
        case link
        /// A FIFO, a directory, a device.
        case notRegular = "not_regular"
        /// More than one link to the file.
        case hardLink = "hard_link"
        /// Not owned by its directory's owner.
        case owner
        /// Not readable by everyone.
        case mode
        /// Larger than `maximumFileSize`.
        case size
        /// Past `maximumTotalSize` with the files before it.
        case totalSize = "total_size"
        /// Series that are not `beacon_tx_*` of its device were left out (the rest is published).
        case foreignSeries = "foreign_series"
        /// It could not be read (permissions, I/O).
        case unreadable

        /// A file refusal's label: the same raw value (a missing file, never published, counts as
        /// unreadable).
        init(_ r: FileRefusal.Reason) {
            self = Reason(rawValue: r.rawValue) ?? .unreadable
        }
    }

    /// A running session's state directory, where its metrics file is.
    struct Source: Equatable {
        var device: String
        var directory: String
    }

    struct Refusal: Equatable {
        var device: String
        var reason: Reason
    }

    struct Outcome {
        var warnings: [String] = []
        var refusals: [Refusal] = []
    }

    /// The published name of `device`'s file.
    static func publishedName(device: String) -> String { "beacon-tx-" + StateStore.metricsFileName(device: device) }

    /// Publishes into the directory of `statusFile` the metrics files of `sources` (the running
    /// sessions; a session killed with SIGKILL leaves its file behind: its beacons are not on air,
    /// and its copy is removed like that of a file that has gone).
    static func publish(_ sources: [Source], besides statusFile: FilePath) -> Outcome {
        let (dir, own) = split(statusFile)
        var outcome = Outcome()
        var names = Set<String>()
        var total = 0
        let sorted = sources.sorted { (StateStore.deviceNumber($0.device) ?? 0) < (StateStore.deviceNumber($1.device) ?? 0) }
        for source in sorted where StateStore.deviceNumber(source.device) != nil && !sameDirectory(source.directory, dir) {
            let name = publishedName(device: source.device)
            guard name != own, let place = OwnedDirectory.open(source.directory) else { continue }
            let path = StateStore.metricsPath(device: source.device, in: source.directory)
            func refuse(_ reason: Reason, _ why: String) {
                outcome.refusals.append(Refusal(device: source.device, reason: reason))
                outcome.warnings.append(Quote.sanitized("metrics file \(path) not published: \(why)"))
            }
            let bytes: [UInt8]
            let rules = OwnedDirectory.Rules(maximumSize: maximumFileSize, singleLink: true, worldReadable: true)
            switch place.read(StateStore.metricsFileName(device: source.device), rules) {
            case let .success(b): bytes = b
            case let .failure(refusal) where refusal.reason == .missing: continue
            case let .failure(refusal): refuse(Reason(refusal.reason), refusal.description); continue
            }
            guard total + bytes.count <= maximumTotalSize else {
                refuse(.totalSize, "the files before it already hold \(total) bytes, and all files together may hold \(FileRefusal.size(maximumTotalSize))")
                continue
            }
            total += bytes.count
            guard !bytes.starts(with: Array(marker.utf8)) else { continue }
            let kept = filter(bytes, device: source.device)
            if kept.dropped > 0 {
                outcome.refusals.append(Refusal(device: source.device, reason: .foreignSeries))
                outcome.warnings.append(Quote.sanitized("metrics file \(path): \(kept.dropped) line\(kept.dropped == 1 ? "" : "s") left out (only beacon_tx_* series of \(source.device) are published)"))
            }
            names.insert(name)
            let copy = Array((marker + path + "\n").utf8) + kept.bytes
            let target = dir + "/" + name
            if case let .success(current) = readPublic(target), current == copy { continue }
            do { try AtomicFile.write(copy, to: FilePath(target), what: "metrics file") } catch { outcome.warnings.append(error.message) }
        }
        // copies whose source has gone (or was refused)
        for name in StateStore.listing(dir).sorted() where name.hasSuffix(".prom") && name != own && !names.contains(name) {
            let path = dir + "/" + name
            guard case let .success(bytes) = readPublic(path), bytes.starts(with: Array(marker.utf8)) else { continue }
            if unlink(path) != 0 { outcome.warnings.append("metrics file \(path): cannot remove the copy of a file that has gone: \(Errno(errno))") }
        }
        return outcome
    }

    /// The families that `status --metrics` writes itself: a session's file never carries them.
    static let ownFamilies = ["beacon_tx_status_", "beacon_tx_publish_", "beacon_tx_build_info"]

    /// The lines of a session's metrics file that may be republished: samples of `beacon_tx_*`
    /// families (not `ownFamilies`) with exactly one `device` label, equal to `device`, and
    /// no timestamp; the `# HELP` and `# TYPE` lines of the families kept. Every line kept is
    /// valid UTF-8 without control characters. `dropped` counts the other lines (blank lines and
    /// other comments are not counted).
    static func filter(_ bytes: [UInt8], device: String) -> (bytes: [UInt8], dropped: Int) {
        var samples: [(index: Int, name: String)] = []
        var comments: [(index: Int, name: String)] = []
        var dropped = 0
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { Array($0) }
        for (i, raw) in lines.enumerated() {
            guard let line = String(validating: raw, as: UTF8.self), Quote.firstUnprintable(line) == nil else {
                if !raw.isEmpty { dropped += 1 }
                continue
            }
            if line.trimmingCharacters().isEmpty { continue }
            if line.hasPrefix("#") {
                let words = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: true)
                guard words.count >= 3, words[0] == "#", words[1] == "HELP" || words[1] == "TYPE" else { continue }
                comments.append((i, String(words[2])))
                continue
            }
            if let name = sampleName(line, device: device) { samples.append((i, name)) } else { dropped += 1 }
        }
        let families = Set(samples.map(\.name))
        var keep = Set(samples.map(\.index))
        for c in comments {
            if families.contains(c.name) { keep.insert(c.index) } else if allowed(c.name) { continue } else { dropped += 1 }
        }
        var out: [UInt8] = []
        for (i, raw) in lines.enumerated() where keep.contains(i) { out += raw + [UInt8(ascii: "\n")] }
        return (out, dropped)
    }

    /// Whether a family may come from a session's file.
    static func allowed(_ name: String) -> Bool {
        name.hasPrefix("beacon_tx_") && PrometheusText.isValidName(name) && !ownFamilies.contains { name.hasPrefix($0) }
    }

    /// The family of a sample line that may be republished for `device`, or nil.
    static func sampleName(_ line: String, device: String) -> String? {
        let scalars = Array(line.unicodeScalars)
        var i = 0
        while i < scalars.count, scalars[i] != "{", scalars[i] != " " { i += 1 }
        let name = String(String.UnicodeScalarView(scalars[0..<i]))
        guard allowed(name), i < scalars.count, scalars[i] == "{" else { return nil }
        // The label set: name="value" pairs, values with \\, \" and \n escapes.
        i += 1
        var labels: [(String, String)] = []
        while i < scalars.count, scalars[i] != "}" {
            var key = ""
            while i < scalars.count, scalars[i] != "=" { key.unicodeScalars.append(scalars[i]); i += 1 }
            guard PrometheusText.isValidName(key, label: true), i + 1 < scalars.count, scalars[i + 1] == "\"" else { return nil }
            i += 2
            var value = ""
            while i < scalars.count, scalars[i] != "\"" {
                if scalars[i] == "\\" {
                    guard i + 1 < scalars.count else { return nil }
                    switch scalars[i + 1] {
                    case "\\": value += "\\"
                    case "\"": value += "\""
                    case "n": value += "\n"
                    default: return nil
                    }
                    i += 2
                } else {
                    value.unicodeScalars.append(scalars[i])
                    i += 1
                }
            }
            guard i < scalars.count else { return nil }
            i += 1   // the closing quote
            labels.append((key, value))
            if i < scalars.count, scalars[i] == "," { i += 1 }
        }
        guard i < scalars.count else { return nil }
        i += 1   // }
        guard Set(labels.map(\.0)).count == labels.count, labels.filter({ $0.0 == "device" }).map(\.1) == [device] else { return nil }
        // One value, no timestamp (the textfile collector refuses them).
        let rest = String(String.UnicodeScalarView(scalars[i...]))
        guard rest.hasPrefix(" ") else { return nil }
        let value = rest.dropFirst()
        guard !value.contains(" "), value == "NaN" || value == "+Inf" || value == "-Inf" || (Double(value)?.isFinite ?? false) else { return nil }
        return name
    }

    /// The directory and the name of `path` (`.` for a bare name).
    static func split(_ path: FilePath) -> (directory: String, name: String) {
        let text = String(decoding: path.bytes, as: UTF8.self)
        guard let slash = text.lastIndex(of: "/") else { return (".", text) }
        let dir = String(text[..<slash])
        return (dir.isEmpty ? "/" : dir, String(text[text.index(after: slash)...]))
    }

    static func sameDirectory(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return a == b }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    /// The bytes of a regular, world-readable file of at most `maximumSize` bytes, not opened
    /// through a symbolic link: FILE and the published copies, in root's own directory.
    static func readPublic(_ path: String) -> Result<[UInt8], PublishRefusal> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return .failure(PublishRefusal("\(Errno(errno))")) }
        defer { SystemCalls.live.closeDescriptor(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(PublishRefusal("\(Errno(errno))")) }
        guard st.st_mode & S_IFMT == S_IFREG else { return .failure(PublishRefusal("not a regular file")) }
        guard st.st_mode & S_IROTH != 0 else { return .failure(PublishRefusal("not readable by everyone (mode \(String(st.st_mode & 0o7777, radix: 8)))")) }
        guard st.st_size <= maximumSize else { return .failure(PublishRefusal("larger than 1 MiB")) }
        do { return .success(try FileIO.readAll(fd, name: path, maximumSize: maximumSize)) } catch {
            return .failure(PublishRefusal(error.message))
        }
    }

    struct PublishRefusal: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    // MARK: the refusal counter

    /// `beacon_tx_publish_refused_total`: FILE's previous counts (`previous`, FILE's bytes) plus
    /// this run's refusals; every reason of every device published now starts at 0, so that
    /// `increase()` sees the first refusal. A device that no longer runs keeps only its counts
    /// above 0.
    static func refusedCounts(previous: [UInt8]?, now: [Refusal], devices: [String]) -> [PrometheusFamily.Sample] {
        var counts: [String: [Reason: Double]] = [:]
        let prefix = "beacon_tx_publish_refused_total{device=\""
        for line in String(decoding: previous ?? [], as: UTF8.self).split(separator: "\n") where line.hasPrefix(prefix) {
            // beacon_tx_publish_refused_total{device="hci0",reason="owner"} 3
            let rest = line.dropFirst(prefix.count)
            guard let quote = rest.firstIndex(of: "\"") else { continue }
            let device = String(rest[..<quote])
            let tail = rest[rest.index(after: quote)...]
            guard tail.hasPrefix(",reason=\""), let end = tail.dropFirst(9).firstIndex(of: "\""),
                  let reason = Reason(rawValue: String(tail.dropFirst(9)[..<end])),
                  tail[end...].hasPrefix("\"} "), let value = Double(tail[end...].dropFirst(3)), value.isFinite, value > 0,
                  StateStore.deviceNumber(device) != nil else { continue }
            counts[device, default: [:]][reason] = value
        }
        for device in devices where StateStore.deviceNumber(device) != nil {
            for reason in Reason.allCases where counts[device]?[reason] == nil { counts[device, default: [:]][reason] = 0 }
        }
        for r in now { counts[r.device, default: [:]][r.reason, default: 0] += 1 }
        return counts.keys.sorted { (StateStore.deviceNumber($0) ?? 0) < (StateStore.deviceNumber($1) ?? 0) }.flatMap { device in
            Reason.allCases.compactMap { reason in counts[device]?[reason].map { .init([("device", device), ("reason", reason.rawValue)], $0) } }
        }
    }

    static let refusedHelp = "Metrics files of running sessions that beacon-tx status --metrics did not publish (or published without some series: foreign_series), by device and reason; each refusal is also a warning in the journal."
}

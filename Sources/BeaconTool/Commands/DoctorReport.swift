// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// `beacon-tx doctor`'s report: findings with a verdict, what was seen, and what to do. Pure: the
/// rules here take what `DoctorCommand` gathered (files, sockets, `systemctl`) and decide; the
/// schema of `json` is Docs/doctor.schema.json.
struct DoctorFinding: Equatable {
    enum Verdict: String, CaseIterable {
        case ok, warn, fail
    }

    /// Stable identifier (`rfkill`, `power`, …): scripts and Docs/troubleshooting.md use it.
    var id: String
    /// `hciN` for a finding about one adapter, nil for the machine.
    var device: String? = nil
    var verdict: Verdict
    /// One line: what was found.
    var summary: String
    /// What was looked at, and what could not be seen and why ("" when nothing more to say).
    var detail: String = ""
    /// What to do ("" for ok findings that need nothing).
    var remedy: String = ""

    var json: JSON {
        .object([
            ("id", .string(id)), ("device", device.map(JSON.string) ?? .null), ("verdict", .string(verdict.rawValue)),
            ("summary", .string(summary)), ("detail", .string(detail)), ("remedy", .string(remedy)),
        ])
    }
}

struct DoctorReport {
    /// Bumped when a key changes meaning or goes; new keys and finding ids may be added within a version.
    static let schemaVersion = 1
    /// Every finding id, in report order: the schema's enum and the man page's list.
    static let findingIDs = ["kernel-bluetooth", "adapters", "firmware", "adapter", "rfkill", "power", "privileges", "unit-capabilities",
                             "bluetoothd", "kernel-instances", "share-auto", "owner", "session", "config", "units"]

    var findings: [DoctorFinding]

    var failed: Bool { findings.contains { $0.verdict == .fail } }

    func count(_ v: DoctorFinding.Verdict) -> Int { findings.filter { $0.verdict == v }.count }

    var json: JSON {
        .object([
            ("schemaVersion", .number(Double(Self.schemaVersion))),
            ("version", .string(BeaconTX.version)),
            ("ok", .bool(!failed)),
            ("counts", .object(DoctorFinding.Verdict.allCases.map { ($0.rawValue, .number(Double(count($0)))) })),
            ("findings", .array(findings.map(\.json))),
        ])
    }

    /// One line per finding (verdict, id, device, summary), aligned; the detail and the remedy of
    /// findings that are not ok indented below. Pasteable into an issue as it is. Findings quote
    /// what other users wrote (state files, unit names), so every line is sanitised: no control
    /// character reaches the terminal.
    var text: [String] { lines.map(Quote.sanitized) }

    private var lines: [String] {
        let idWidth = (findings.map(\.id.count).max() ?? 0) + 2
        let deviceWidth = (findings.compactMap { $0.device?.count }.max() ?? 0) + 2
        var lines = ["beacon-tx doctor \(BeaconTX.version): \(count(.ok)) ok, \(count(.warn)) warn, \(count(.fail)) fail"]
        let indent = String(repeating: " ", count: 6 + idWidth + deviceWidth)
        for f in findings {
            let device = f.device ?? "-"
            lines.append(f.verdict.rawValue.uppercased().padded(6) + f.id.padded(idWidth) + device.padded(deviceWidth) + f.summary)
            if !f.detail.isEmpty { lines.append(indent + f.detail) }
            if !f.remedy.isEmpty { lines.append(indent + "remedy: " + f.remedy) }
        }
        return lines
    }
}

extension String {
    func padded(_ width: Int) -> String { self + String(repeating: " ", count: max(1, width - count)) }
}

/// The rules of the findings that need no socket: each takes what was read and decides.
enum DoctorRules {
    static let capNetAdmin = 12
    static let capNetRaw = 13

    /// The effective capabilities from `/proc/self/status` (`CapEff:\t0000003fffffffff`), nil when absent.
    static func effectiveCapabilities(procStatus: String) -> UInt64? {
        for line in procStatus.split(separator: "\n") where line.hasPrefix("CapEff:") {
            return UInt64(String(line.dropFirst("CapEff:".count)).trimmingCharacters(), radix: 16)
        }
        return nil
    }

    static func privileges(uid: UInt32, capEff: UInt64?) -> DoctorFinding {
        let has = { (bit: Int) in capEff.map { $0 & (UInt64(1) << UInt64(bit)) != 0 } ?? (uid == 0) }
        let raw = has(capNetRaw), admin = has(capNetAdmin)
        let who = uid == 0 ? "root" : "uid \(uid)"
        if raw && admin {
            return DoctorFinding(id: "privileges", verdict: .ok, summary: "\(who) with CAP_NET_RAW and CAP_NET_ADMIN: start may open raw HCI and MGMT sockets")
        }
        let missing = [raw ? nil : "CAP_NET_RAW", admin ? nil : "CAP_NET_ADMIN"].compactMap { $0 }.joined(separator: " and ")
        return DoctorFinding(
            id: "privileges", verdict: .warn,
            summary: "\(who) lacks \(missing): start, stop and scan would exit 77 as this user",
            detail: capEff == nil ? "/proc/self/status has no CapEff line" : "CapEff \(String(capEff ?? 0, radix: 16)); what needs them is marked below",
            remedy: "run as root (sudo beacon-tx doctor sees everything), or run beacon-tx as the packaged service, whose unit grants CAP_NET_RAW and CAP_NET_ADMIN")
    }

    /// The installed unit's `AmbientCapabilities=` (the packaged units grant exactly CAP_NET_RAW and
    /// CAP_NET_ADMIN); nil `unit`: not installed.
    static func unitCapabilities(path: String?, unit: String?) -> DoctorFinding {
        guard let path, let unit else {
            return DoctorFinding(id: "unit-capabilities", verdict: .ok, summary: "no beacon-tx.service installed (looked in \(unitDirectories.joined(separator: ", ")))")
        }
        var granted: [String] = []
        for line in unit.split(separator: "\n").map({ String($0).trimmingCharacters() }) where line.hasPrefix("AmbientCapabilities=") {
            let value = line.dropFirst("AmbientCapabilities=".count)
            if value.isEmpty { granted = [] } else { granted += value.split(separator: " ").map(String.init) }
        }
        let missing = ["CAP_NET_RAW", "CAP_NET_ADMIN"].filter { !granted.contains($0) }
        guard missing.isEmpty else {
            return DoctorFinding(id: "unit-capabilities", verdict: .warn,
                                 summary: "\(path) grants \(granted.isEmpty ? "no capabilities" : granted.joined(separator: " ")): the service lacks \(missing.joined(separator: " and "))",
                                 detail: "AmbientCapabilities= of \(path) (drop-ins in /etc/systemd/system/beacon-tx.service.d are not read)",
                                 remedy: "restore AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN (the packaged unit's), then systemctl daemon-reload")
        }
        return DoctorFinding(id: "unit-capabilities", verdict: .ok, summary: "\(path) grants \(granted.joined(separator: " "))")
    }

    static let unitDirectories = ["/etc/systemd/system", "/lib/systemd/system", "/usr/lib/systemd/system"]

    static func bluetoothd(pids: [Int32]) -> DoctorFinding {
        guard let pid = pids.first else {
            return DoctorFinding(id: "bluetoothd", verdict: .ok, summary: "bluetoothd is not running: beacon-tx has the controllers to itself",
                                 detail: "looked at /proc/*/comm")
        }
        return DoctorFinding(
            id: "bluetoothd", verdict: .ok, summary: "bluetoothd runs (pid \(pid)): it powers the adapters and may put kernel advertising instances on them",
            detail: "on a controller with one advertising instance its advertising and beacon-tx's take turns or replace each other: see kernel-instances and share-auto")
    }

    /// `systemctl show … -p Id,LoadState,UnitFileState,ActiveState,Result,ExecMainStatus`: blocks of
    /// `Key=value` lines separated by blank lines.
    static func units(pid1: String?, show: (status: Int32, output: String)?) -> DoctorFinding {
        guard pid1 == "systemd" else {
            return DoctorFinding(id: "units", verdict: .ok, summary: "systemd is not PID 1 (\(pid1 ?? "unknown")): no units to look at")
        }
        guard let show else {
            return DoctorFinding(id: "units", verdict: .warn, summary: "systemctl could not be run", detail: "looked for /usr/bin/systemctl and /bin/systemctl",
                                 remedy: "systemctl status 'beacon-tx*'")
        }
        var units: [[String: String]] = []
        var fields: [String: String] = [:]
        // One block per unit; a blank line (or the end) closes it.
        for line in show.output.split(separator: "\n", omittingEmptySubsequences: false) + [Substring("")] {
            if line.isEmpty {
                if fields["Id"] != nil, fields["LoadState"] != "not-found" { units.append(fields) }
                fields = [:]
            } else if let eq = line.firstIndex(of: "=") {
                fields[String(line[..<eq])] = String(line[line.index(after: eq)...])
            }
        }
        guard !units.isEmpty else {
            return DoctorFinding(id: "units", verdict: .ok, summary: "no beacon-tx unit is installed or loaded")
        }
        let described = units.map { u in
            "\(u["Id"] ?? "?") \(u["UnitFileState"].map { $0.isEmpty ? "" : $0 + ", " } ?? "")\(u["ActiveState"] ?? "?")"
                + (u["Result"].map { $0 == "success" ? "" : ", result \($0)" } ?? "")
                + (u["ExecMainStatus"].map { $0 == "0" || $0.isEmpty ? "" : ", last exit \($0)" } ?? "")
        }
        let failed = units.filter { $0["ActiveState"] == "failed" || (($0["Result"].map { $0 != "success" } ?? false) && $0["ActiveState"] != "active") }
        if let f = failed.first, let id = f["Id"] {
            return DoctorFinding(id: "units", verdict: .fail, summary: "\(id) failed (result \(f["Result"] ?? "?"), last exit \(f["ExecMainStatus"] ?? "?"))",
                                 detail: described.joined(separator: "; "),
                                 remedy: "journalctl -u \(id) -n 20 shows why; fix it, then systemctl reset-failed \(id) && systemctl restart \(id)")
        }
        return DoctorFinding(id: "units", verdict: .ok, summary: described.joined(separator: "; "))
    }

    /// The unit of a process from `/proc/PID/cgroup` (`0::/system.slice/beacon-tx.service`).
    static func unitName(cgroup: String) -> String? {
        for line in cgroup.split(separator: "\n") {
            guard let last = line.split(separator: "/").last else { continue }
            if last.hasSuffix(".service") || last.hasSuffix(".scope") { return String(last) }
        }
        return nil
    }

    static func rfkill(_ device: String, _ block: RFKillBlock?) -> DoctorFinding {
        guard let block else {
            return DoctorFinding(id: "rfkill", device: device, verdict: .ok, summary: "no rfkill switch", detail: "/sys/class/bluetooth/\(device)/rfkill* is absent")
        }
        guard block.isBlocked else {
            return DoctorFinding(id: "rfkill", device: device, verdict: .ok, summary: "not blocked by rfkill")
        }
        return DoctorFinding(id: "rfkill", device: device, verdict: .fail, summary: "blocked by rfkill (\(block.text)): it cannot be brought up",
                             detail: "start exits 69 at once, or with --device-timeout waits until the adapter is unblocked",
                             remedy: block.remedy)
    }
}

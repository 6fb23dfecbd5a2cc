// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import SystemCalls

/// Where the foreground session keeps its state files (one per device, `hciN.json`) and where
/// `beacon-tx status` looks for them. Candidate directories, in order:
/// 1. `$RUNTIME_DIRECTORY` (the units' own directory below `/run/beacon-tx`: `kiosk/` for
///    `beacon-tx.service`, `hciN/` for `beacon-tx@hciN`);
/// 2. `/run/beacon-tx` (root; created when missing);
/// 3. `$XDG_RUNTIME_DIR/beacon-tx` (a user's own session, e.g. `/run/user/1000/beacon-tx`).
///
/// The session writes into the first candidate it can write to (creating the last path
/// component, mode 0755) and removes its file when it stops cleanly. `status` reads every
/// candidate, and in each also the `hciN.json` files of its instance directories (`kiosk/` and
/// `hciN/`: each unit has its own, so that stopping one unit, which removes its directory, never
/// removes another's state); a device found twice is reported from the first.
///
/// Files are written whole to `hciN.json.tmp` and renamed over `hciN.json` (readers never see
/// half a file), mode 0644 whatever the umask (`UMask=0077` in the unit) so that an operator
/// can run `beacon-tx status` without root.
struct StateStore {
    var candidates: [String]

    /// The candidates from the environment.
    static func fromEnvironment(_ environment: (String) -> String?) -> StateStore {
        var dirs: [String] = []
        if let r = environment("RUNTIME_DIRECTORY"), let first = r.split(separator: ":").first, !first.isEmpty {
            dirs.append(String(first))
        }
        dirs.append("/run/beacon-tx")
        if let x = environment("XDG_RUNTIME_DIR"), !x.isEmpty {
            dirs.append((x.hasSuffix("/") ? String(x.dropLast()) : x) + "/beacon-tx")
        }
        var seen = Set<String>()
        return StateStore(candidates: dirs.filter { seen.insert($0).inserted })
    }

    static func fileName(device: String) -> String { device + ".json" }

    /// The session's metrics file beside its state file: `<directory>/hciN.prom` (see
    /// `KioskMetricsFile`), published by `beacon-tx status --metrics` (`MetricsPublisher`).
    static func metricsFileName(device: String) -> String { device + ".prom" }

    static func metricsPath(device: String, in directory: String) -> String { directory + "/" + metricsFileName(device: device) }

    /// Every session's metrics file in the candidates (each directory and its `hciN/` directories),
    /// by device, the first found winning, sorted by device number.
    func metricsFiles() -> [(device: String, path: String)] {
        var found: [String: String] = [:]
        for dir in candidates {
            var places = [dir]
            for sub in Self.listing(dir).sorted() where Self.isInstanceDirectory(sub) { places.append(dir + "/" + sub) }
            for place in places {
                for name in Self.listing(place).sorted() where name.hasSuffix(".prom") {
                    let device = String(name.dropLast(5))
                    guard Self.deviceNumber(device) != nil, found[device] == nil else { continue }
                    found[device] = place + "/" + name
                }
            }
        }
        return found.map { (device: $0.key, path: $0.value) }.sorted { (Self.deviceNumber($0.device) ?? 0) < (Self.deviceNumber($1.device) ?? 0) }
    }

    /// The first candidate that exists as a writable directory or can be created; nil when none.
    func writableDirectory() -> String? {
        for dir in candidates {
            if access(dir, W_OK | X_OK) == 0 { return dir }
            if mkdir(dir, 0o755) == 0 {
                chmod(dir, 0o755)   // the umask must not hide the directory from status
                return dir
            }
        }
        return nil
    }

    /// Writes `state` atomically into `directory`.
    func write(_ state: SessionState, into directory: String) throws(CLIError) {
        let path = directory + "/" + Self.fileName(device: state.device)
        let temporary = path + ".tmp"
        let fd: Int32
        do { fd = try systemCall { open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644) } } catch {
            throw CLIError(.cantCreate, "state file \(temporary): \(error)")
        }
        _ = fchmod(fd, 0o644)
        do {
            try FileIO.writeAll(fd, Array((state.json.pretty + "\n").utf8), what: "state file \(temporary)")
        } catch {
            SystemCalls.live.closeDescriptor(fd)
            unlink(temporary)
            throw error
        }
        SystemCalls.live.closeDescriptor(fd)
        do { _ = try systemCall { rename(temporary, path) } } catch {
            unlink(temporary)
            throw CLIError(.cantCreate, "state file \(path): \(error)")
        }
    }

    /// Removes the state file of `device` from `directory` (missing is fine).
    func remove(device: String, from directory: String) {
        unlink(directory + "/" + Self.fileName(device: device))
    }

    /// One state file as found by `status`.
    struct Entry {
        var device: String
        var path: String
        var state: Result<SessionState, StateFileError>
    }

    /// The directory of the kiosk unit (`beacon-tx.service`) below `/run/beacon-tx`; its device is
    /// the config's, so the directory is not named after one.
    static let kioskDirectory = "kiosk"

    /// Whether `name`, in a candidate directory, is a unit's own directory (`kiosk`, `hciN`).
    static func isInstanceDirectory(_ name: String) -> Bool {
        name == kioskDirectory || deviceNumber(name) != nil
    }

    /// Every `hciN.json` in the candidates and their instance directories, sorted by device number;
    /// the first directory wins.
    func readAll() -> [Entry] {
        var entries: [String: Entry] = [:]
        for base in candidates {
            let names = Self.listing(base).sorted()
            let dirs = [base] + names.filter(Self.isInstanceDirectory).map { base + "/" + $0 }
            for dir in dirs {
                for name in (dir == base ? names : Self.listing(dir).sorted()) where name.hasSuffix(".json") {
                    let device = String(name.dropLast(5))
                    guard Self.deviceNumber(device) != nil, entries[device] == nil else { continue }
                    let path = dir + "/" + name
                    entries[device] = Entry(device: device, path: path, state: Self.read(path))
                }
            }
        }
        return entries.values.sorted { (Self.deviceNumber($0.device) ?? 0) < (Self.deviceNumber($1.device) ?? 0) }
    }

    static func read(_ path: String) -> Result<SessionState, StateFileError> {
        let bytes: [UInt8]
        do { bytes = try FileIO.read(FilePath(path), what: "state file") } catch { return .failure(StateFileError(error.message)) }
        let json: JSON
        do { json = try JSON.parse(bytes: bytes) } catch {
            return .failure(StateFileError("not JSON (\(error))"))
        }
        do { return .success(try SessionState(json: json)) } catch { return .failure(error) }
    }

    /// 0 for "hci0"; nil for other names.
    static func deviceNumber(_ name: String) -> UInt16? {
        guard name.hasPrefix("hci") else { return nil }
        return UInt16(name.dropFirst(3))
    }

    /// File names in `dir` (none when it is missing or unreadable).
    static func listing(_ dir: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var names: [String] = []
        while let entry = readdir(d) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Whether `pid` exists (EPERM: it exists but belongs to another user, e.g. systemd's DynamicUser).
    static func isProcessAlive(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }
}

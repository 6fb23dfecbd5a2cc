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
/// candidate, and in each also its instance directories (`kiosk/` and `hciN/`: each unit has its
/// own, so that stopping one unit, which removes its directory, never removes another's state).
///
/// The directories belong to different users (root, each unit's dynamic user, a user), and root
/// reads them all, so a file is believed only where it belongs:
/// - names are canonical: `hci` and the device number in decimal, without sign or leading zeros
///   (`hci0`, `hci12`; never `hci00`, `hci+0`, `hci0007`), so one device has one name;
/// - a candidate and `kiosk/` may hold any device's file (the kiosk's device comes from its
///   config); an instance directory `hciN/` holds only `hciN.json`;
/// - the file is opened without following links and must be a regular file owned by the owner of
///   its directory (`OwnedDirectory`): a unit cannot plant root's file, or a link, in its own place;
/// - a device found in several places is the session of the one whose pid holds the device's lock
///   (`sessions`): a file anyone writes cannot claim a running session, and a forged file cannot
///   hide a real one whatever the reading order.
///
/// Files are written whole to a temporary file and renamed over `hciN.json` (`AtomicFile`:
/// readers never see half a file), mode 0644 whatever the umask (`UMask=0077` in the unit) so
/// that an operator can run `beacon-tx status` without root.
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
        try AtomicFile.write(Array((state.json.pretty + "\n").utf8), to: FilePath(directory + "/" + Self.fileName(device: state.device)), what: "state file")
    }

    /// Removes the state file of `device` from `directory` (missing is fine).
    func remove(device: String, from directory: String) {
        unlink(directory + "/" + Self.fileName(device: device))
    }

    /// One state file as found by `status`.
    struct Entry {
        var device: String
        var path: String
        /// The directory that holds it (its metrics file, `hciN.prom`, is beside it).
        var directory: String
        var state: Result<SessionState, StateFileError>
    }

    /// The directory of the kiosk unit (`beacon-tx.service`) below `/run/beacon-tx`; its device is
    /// the config's, so the directory is not named after one.
    static let kioskDirectory = "kiosk"

    /// A state file is small (about 200 bytes a beacon); this bounds what a reader takes in.
    static let maximumFileSize = 1 << 20

    /// Every state file where it belongs (see the type's comment), sorted by device number; a
    /// device found in several places is listed once per place, in reading order: each candidate,
    /// then its `kiosk/`, then its `hciN/`. Files that are not where they belong (a link, a file
    /// of another owner, a name that is not canonical) are left out.
    func readAll() -> [Entry] {
        var entries: [Entry] = []
        for base in candidates {
            guard let top = OwnedDirectory.open(base) else { continue }
            let names = top.names()
            var places: [(OwnedDirectory, names: [String], only: String?)] = [(top, names, nil)]
            if names.contains(Self.kioskDirectory), let kiosk = top.subdirectory(Self.kioskDirectory) {
                places.append((kiosk, kiosk.names(), nil))
            }
            for sub in Self.devicesSorted(names) {
                if let instance = top.subdirectory(sub) { places.append((instance, instance.names(), sub)) }
            }
            for (place, names, only) in places {
                let devices = Self.devicesSorted(names.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) })
                for device in devices where only == nil || device == only {
                    guard let state = Self.read(device, in: place) else { continue }
                    entries.append(Entry(device: device, path: place.path + "/" + Self.fileName(device: device), directory: place.path, state: state))
                }
            }
        }
        // Sorted by device, stable: the reading order stays within a device.
        return entries.enumerated().sorted {
            let a = Self.deviceNumber($0.element.device) ?? 0, b = Self.deviceNumber($1.element.device) ?? 0
            return a != b ? a < b : $0.offset < $1.offset
        }.map(\.element)
    }

    /// The canonical device names among `names`, sorted by number.
    static func devicesSorted(_ names: [String]) -> [String] {
        names.compactMap { name in deviceNumber(name).map { (name, $0) } }.sorted { $0.1 < $1.1 }.map(\.0)
    }

    /// What a reader believes of a device's state file.
    enum Standing: Equatable {
        /// Its pid holds the device's lock: the running session.
        case running
        /// The lock is free, or held by another process: the file is left over (or forged), at most stale.
        case stale
        /// The lock could not be asked (why): the file cannot be believed.
        case unverified(String)
    }

    /// A device's state file as `status`, `doctor` and the publisher report it.
    struct Session {
        var entry: Entry
        var standing: Standing
        var device: String { entry.device }
        var running: Bool { standing == .running }
    }

    /// One state file per device (of `only`, or every device), sorted by device number: the file
    /// whose pid holds the device's lock (`lockHolder`, the kernel's answer), running; without one,
    /// the first in reading order, which is not running. Only the lock says who runs a device: a
    /// file names any pid it likes.
    func sessions(only: String? = nil, lockHolder: (String) -> DeviceLock.Holder) -> [Session] {
        var byDevice: [(String, [Entry])] = []
        for entry in readAll() where only == nil || entry.device == only {
            if byDevice.last?.0 == entry.device { byDevice[byDevice.count - 1].1.append(entry) } else { byDevice.append((entry.device, [entry])) }
        }
        return byDevice.compactMap { device, entries in
            guard let first = entries.first else { return nil }
            switch lockHolder(device) {
            case let .process(pid):
                if let holder = entries.first(where: { (try? $0.state.get())?.pid == pid }) { return Session(entry: holder, standing: .running) }
                return Session(entry: first, standing: .stale)
            case .free:
                return Session(entry: first, standing: .stale)
            case let .unknown(why):
                return Session(entry: first, standing: .unverified(why))
            }
        }
    }

    /// The state file at `path` (its directory's rules apply: no link, the directory's owner).
    static func read(_ path: String) -> Result<SessionState, StateFileError> {
        let (dir, name) = MetricsPublisher.split(FilePath(path))
        guard name.hasSuffix(".json"), deviceNumber(String(name.dropLast(5))) != nil else { return .failure(StateFileError("not a state file name (hciN.json)")) }
        guard let place = OwnedDirectory.open(dir) else { return .failure(StateFileError("\(dir) is not a directory")) }
        return read(String(name.dropLast(5)), in: place) ?? .failure(StateFileError("not read: not where it belongs"))
    }

    /// `device`'s state file in `place`; nil when it is refused (a link, not a regular file,
    /// another owner than the directory's, missing): such a file is not a state file at all.
    static func read(_ device: String, in place: OwnedDirectory) -> Result<SessionState, StateFileError>? {
        let bytes: [UInt8]
        switch place.read(fileName(device: device), OwnedDirectory.Rules(maximumSize: maximumFileSize)) {
        case let .success(b): bytes = b
        case let .failure(refusal):
            switch refusal.reason {
            case .missing, .link, .notRegular, .owner, .hardLink, .mode: return nil
            case .size, .unreadable: return .failure(StateFileError(refusal.description))
            }
        }
        let json: JSON
        do { json = try JSON.parse(bytes: bytes) } catch {
            return .failure(StateFileError("not JSON (\(error))"))
        }
        let state: SessionState
        do { state = try SessionState(json: json) } catch { return .failure(error) }
        guard state.device == device else { return .failure(StateFileError("it names device \(Quote.user(state.device)), not \(device)")) }
        return .success(state)
    }

    /// 0 for "hci0"; nil for other names. Only the canonical name counts: `hci`, then decimal
    /// digits without sign or leading zeros, fitting 16 bits (so `hci00`, `hci+0`, `hci0007` and
    /// `hci65536` are not device names).
    static func deviceNumber(_ name: String) -> UInt16? {
        guard name.hasPrefix("hci") else { return nil }
        let digits = name.utf8.dropFirst(3)
        guard let first = digits.first, digits.count <= 5, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              first != UInt8(ascii: "0") || digits.count == 1 else { return nil }
        return UInt16(String(decoding: digits, as: UTF8.self))
    }

    /// File names in `dir` (none when it is missing or unreadable).
    static func listing(_ dir: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        return names(in: d)
    }

    /// The names an open directory stream lists, without `.` and `..`.
    static func names(in d: OpaquePointer) -> [String] {
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

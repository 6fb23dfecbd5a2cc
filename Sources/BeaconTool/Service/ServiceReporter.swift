// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// What a foreground advertising session on one device tells its supervisor and `beacon-tx
/// status`: sd_notify messages (`ServiceNotifier`) and the device's state file (`StateStore`),
/// both from one call per change. The session loop calls:
/// - `onAir(_:)` once every beacon is on air (first start, after a re-arm with its reason, after a
///   reload), with the session's `OnAirSnapshot`: state file, `STATUS=`, and `READY=1` the first
///   time and after `reloading()`;
/// - `waiting(_:)` while `start` waits for its device to appear: state file, `STATUS=` and `READY=1`;
/// - `offAir(_:)` when nothing is on air any more, with why (the `STATUS=` text, the device name
///   put in front unless it starts with it: "hci0 down; waiting to re-arm");
/// - `reloading()` on SIGHUP, before re-reading the config (`RELOADING=1`);
/// - `stopping()` on SIGTERM/SIGINT before the stop plan (`STOPPING=1`), then `stopped()` after it,
///   which removes the state file;
/// - `failed(_:)` when the session ends with an error: the state file says off air, with the reason;
/// - `watchdog` (nil without `$WATCHDOG_USEC`) is a `WatchdogTimer` for the session's wait; the
///   loop drops it (passes nil) while it is not healthy.
///
/// State files are written on each of these changes only, never periodically. A file that cannot
/// be written costs one warning on stderr, and the session goes on.
final class ServiceReporter {
    let ctx: ToolContext
    let device: String
    private(set) var state: SessionState?
    private var needsReady = true
    private var directory: String??
    private var warned = false

    /// The controller's address, written into the state file (status shows it with the device).
    var address: String?

    init(_ ctx: ToolContext, device: String, address: String? = nil) {
        self.ctx = ctx
        self.device = device
        self.address = address
    }

    var notifier: ServiceNotifier { ctx.service.notifier }

    /// Every beacon is on air (`snapshot`, the session's one account of it): the state file
    /// (`since` kept while on air; the last re-arm dated when it happened, so the same re-arm
    /// reported again keeps its time) and `STATUS=`.
    func onAir(_ snapshot: OnAirSnapshot) {
        let text = snapshot.text(device: device)
        let now = ctx.wallClockSeconds()
        var next = SessionState(device: device, pid: ctx.service.pid, onAir: true, status: text, family: snapshot.family ?? .legacy,
                                sets: snapshot.numbers, rotation: snapshot.rotation, beacons: snapshot.beacons, since: now, lastRearm: state?.lastRearm)
        if let old = state, old.onAir { next.since = old.since }
        if let last = snapshot.lastRearm {
            let ago = Double(max(0, ctx.monotonicMilliseconds() - last.at)) / 1000
            next.lastRearm = .init(at: now - ago, reason: last.cause.text(device: device))
        }
        save(next)
        announce(text)
    }

    /// `READY=1` with `text` the first time (and after `reloading()`), else `STATUS=text` alone.
    private func announce(_ text: String) {
        if needsReady {
            needsReady = false
            notifier.ready(status: text)
        } else {
            notifier.status(text)
        }
    }

    /// `why` gets the device name in front unless it starts with it.
    func offAir(_ why: String) {
        offAir(status: why.hasPrefix(device + " ") || why.hasPrefix(device + ":") ? why : "\(device): \(why)")
    }

    private func offAir(status text: String) {
        recordOffAir(text)
        notifier.status(text)
    }

    private func recordOffAir(_ text: String) {
        let now = ctx.wallClockSeconds()
        var next = state ?? SessionState(device: device, pid: ctx.service.pid, onAir: false, status: text, family: nil, since: now)
        if next.onAir { next.since = now }
        next.onAir = false
        next.status = text
        save(next)
    }

    /// `start` waits for its device to appear (`text` says for what): the state file says so, and
    /// systemd gets `READY=1` with it as `STATUS=`. The service is doing what it was asked to do, so
    /// neither boot nor `systemctl start` waits for an adapter that may come hours later; the beacons'
    /// `STATUS=` follows when they are on air.
    func waiting(_ text: String) {
        recordOffAir(text)
        announce(text)
    }

    func reloading() {
        needsReady = true
        notifier.reloading(status: "reloading the configuration")
    }

    func stopping() {
        notifier.stopping(status: "stopping: advertising off on \(device)")
    }

    func stopped() {
        if let dir = directory, let dir { ctx.service.stateStore.remove(device: device, from: dir) }
        state = nil
    }

    /// The session ends with the error `message` (which names the device; the process exits
    /// non-zero and systemd may restart it): off air, with the message as `STATUS=`.
    func failed(_ message: String) {
        offAir(status: message)
    }

    var watchdog: WatchdogTimer? {
        guard let interval = notifier.watchdogIntervalMilliseconds else { return nil }
        let notifier = self.notifier
        return WatchdogTimer(intervalMilliseconds: Int64(interval), now: ctx.monotonicMilliseconds, beat: { notifier.watchdog() })
    }

    private func save(_ next: SessionState) {
        var next = next
        next.address = address
        guard next != state else { return }
        state = next
        // State files are named hciN: a session waiting for a controller named by its address that is
        // not there yet says so in STATUS= only.
        guard StateStore.deviceNumber(device) != nil else { return }
        let store = ctx.service.stateStore
        guard !store.candidates.isEmpty else { return }
        if directory == nil { directory = .some(store.writableDirectory()) }
        guard let dir = directory, let dir else {
            warnOnce("no writable runtime directory for the state file (tried \(store.candidates.joined(separator: ", "))); 'beacon-tx status' will not see \(device)")
            return
        }
        do { try store.write(next, into: dir) } catch { warnOnce(error.message + "; 'beacon-tx status' may be out of date") }
    }

    private func warnOnce(_ line: String) {
        guard !warned else { return }
        warned = true
        ctx.warn(line)
    }
}

/// `WATCHDOG=1` every `intervalMilliseconds` from inside one blocking wait, with no thread and no
/// timer of its own: the wait uses `pollTimeout()` as its timeout and calls it again after each
/// wake, which beats when due.
struct WatchdogTimer {
    let intervalMilliseconds: Int64
    let now: () -> Int64
    let beat: () -> Void
    private var due: Int64?

    init(intervalMilliseconds: Int64, now: @escaping () -> Int64, beat: @escaping () -> Void) {
        self.intervalMilliseconds = max(1, intervalMilliseconds)
        self.now = now
        self.beat = beat
    }

    /// Beats when the interval has passed (and on the first call), then returns the milliseconds
    /// until the next beat.
    mutating func pollTimeout() -> Int {
        let t = now()
        if let due, t < due { return Int(due - t) }
        beat()
        due = t + intervalMilliseconds
        return Int(intervalMilliseconds)
    }

    /// A session loop's receive timeout (`wait` ms, -1 = none) with the watchdog in it: while the
    /// session is healthy, beats when due and shortens the wait to the next beat; an unhealthy
    /// session sends none, so systemd restarts one that stays stuck. Both modes' loops use it.
    mutating func wait(_ wait: Int64, healthy: Bool) -> Int64 {
        guard healthy else { return wait }
        let beat = Int64(pollTimeout())
        return wait < 0 ? beat : min(wait, beat)
    }
}

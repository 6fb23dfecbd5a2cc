// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// The foreground session of `start`, both modes: one blocking wait for packets, signals, the
/// machine's next deadline, the watchdog's next beat and the unplug deadline. An idle kiosk with one
/// beacon sets no timer (it wakes only for packets and signals).
final class SessionLoop {
    let observer: SessionObserver
    private(set) var settings: Settings
    let arguments: ParsedArguments
    let ctx: ToolContext
    /// The state file and sd_notify (made by `start`, which may already have reported a wait for the device).
    let service: ServiceReporter
    /// --metrics: the Prometheus textfile, from the same changes; its final state whatever ends the loop.
    private(set) var metrics: KioskMetricsFile?
    private var watchdog: WatchdogTimer?
    /// The unplug was said (once per unplug).
    private var unplugNoted = false

    static let sighup: Int32 = 1

    init(observer: SessionObserver, settings: Settings, arguments: ParsedArguments, ctx: ToolContext, service: ServiceReporter) {
        self.observer = observer
        self.settings = settings
        self.arguments = arguments
        self.ctx = ctx
        self.service = service
        observer.session.policy.unplugWaitMilliseconds = Int64(settings.deviceTimeoutSeconds) * 1000
    }

    func run() throws(CLIError) -> ExitCode {
        begin()
        defer { end() }
        while true {
            if let code = try turn() { return code }
        }
    }

    /// The first report (state file, READY=1, metrics), the change callback, the Ctrl-C note.
    func begin() {
        metrics = KioskMetricsFile.make(settings.metrics, device: observer.device, ctx)
        observer.session.onPhaseChange = { [unowned self] phase in publish(offAir: phase.text(device: observer.device), noting: phase) }
        publish()
        watchdog = service.watchdog
        if !ctx.service.isSupervised {
            ctx.note("press Ctrl-C (or send SIGTERM) to stop" + (arguments.has("--config") ? "; SIGHUP re-reads the config" : ""))
        }
    }

    /// One snapshot to the state file and `STATUS=` (on air; otherwise `offAir`'s text, if any) and
    /// to the metrics. `noting`: the phase change whose sentence is also logged, rendered here at the
    /// edge: a wait is a warning, the cycle's off phase a note.
    private func publish(offAir why: String? = nil, noting phase: SessionPhase? = nil) {
        let snapshot = observer.snapshot(settings)
        if snapshot.onAir {
            service.onAir(snapshot)
        } else if let why {
            if let phase { if phase.isWaiting { ctx.warn(why) } else { ctx.note(why) } }
            service.offAir(why)
        }
        metrics?.update(snapshot)
    }

    func end() {
        metrics?.ended()
        observer.session.onPhaseChange = nil
    }

    /// One wait and what it brought: nil to go on, or the exit code.
    func turn() throws(CLIError) -> ExitCode? {
        if observer.session.machine.phase == .unplugged {
            if !unplugNoted {
                unplugNoted = true
                let text = "\(observer.device) (\(observer.address)) was unregistered; waiting up to \(settings.deviceTimeoutSeconds) s for it to return"
                ctx.warn(text)
                service.offAir(text)
            }
            // The machine's unplug timer bounds the wait; its expiry is the machine's to decide.
            let now = ctx.monotonicMilliseconds()
            let until = observer.session.machine.unplugDeadline ?? now + Int64(settings.deviceTimeoutSeconds) * 1000
            switch try observer.awaitReturn(settings, timeoutMilliseconds: Int(clamping: max(0, until - now))) {
            case .returned: return nil
            case .onSocket: break
            case let .signal(n): return try stop("signal \(n)")
            case .timedOut: observer.session.timerExpired()
            }
        } else {
            unplugNoted = false
        }
        if observer.session.machine.deviceLost { throw unpluggedTooLong() }
        var signal = observer.takePendingSignal()
        if signal == nil {
            var wait = observer.session.machine.nextDeadline.map { max(0, $0 - ctx.monotonicMilliseconds()) } ?? -1
            // WATCHDOG=1 only while the beacons are on air or expected back (systemd restarts a stuck session).
            wait = watchdog?.wait(wait, healthy: observer.session.machine.isHealthy) ?? wait
            let wake: SessionWake
            do { wake = try observer.receive(timeoutMilliseconds: Int(clamping: wait)) } catch {
                service.failed(error.message)
                throw error
            }
            switch wake {
            case let .signal(n): signal = n
            case .packet: break
            case .timedOut:
                observer.session.timerExpired()
                if observer.session.machine.deviceLost { throw unpluggedTooLong() }
                metrics?.update(observer.snapshot(settings))   // a rotation's turn (written only when the file changes)
            }
        }
        if observer.session.machine.finished { return try stop("schedule done") }
        guard let signal else { return nil }
        if signal == Self.sighup, let path = arguments.path("--config")?.display {
            service.reloading()
            let applied = reload(path)
            metrics?.reloaded(applied: applied)
            publish(offAir: observer.session.machine.phase.text(device: observer.device))
            return nil
        }
        return try stop("signal \(signal)" + (signal == Self.sighup ? " (SIGHUP without --config: the terminal closed)" : ""))
    }

    private func unpluggedTooLong() -> CLIError {
        let message = "\(observer.device) (\(observer.address)) did not return within \(settings.deviceTimeoutSeconds) s (--device-timeout); nothing is on air"
        service.failed(message)
        return CLIError(.unavailable, message)
    }

    /// The stop of either mode: STOPPING=1, the mode's stop, the state file removed, one note.
    private func stop(_ why: String) throws(CLIError) -> ExitCode {
        service.stopping()
        defer { service.stopped() }
        let away = observer.session.machine.phase == .unplugged
        let what = try observer.stop(settings)
        metrics?.update(observer.snapshot(settings))
        ctx.note("\(why): " + (away ? "stopped while \(observer.address) was away (nothing was on air)" : what))
        return .success
    }

    /// The keys a reload cannot apply to a running session: another controller, another mode (or
    /// the sharing mode's MGMT commands), or another schedule (`duration`, `cycle`) would be a new session. A change to any of them is
    /// refused, naming each with its old and new value, before anything is sent. Every other key
    /// takes effect: the beacons' keys through the observer's reload, `timeout` on the next command,
    /// `deviceTimeout` at the next unplug, `metrics` by moving the file.
    static let fixedAtStart: [Setting] = [.device, .share, .shareCommands, .duration, .cycle]

    static func reloadRefusal(old: Settings, new: Settings) -> String? {
        let changed = fixedAtStart.filter { $0.read(old) != $0.read(new) }
        guard !changed.isEmpty else { return nil }
        let what = changed.map { "\($0.key) \($0.read(old).compact) → \($0.read(new).compact)" }.joined(separator: ", ")
        return "\(what): \(changed.count == 1 ? "this key takes" : "these keys take") effect only at a start (restart the session: systemctl restart, or start again)"
    }

    /// SIGHUP: re-read the file (flags still override it). A bad file, or one the mode refuses, is
    /// logged and the old beacons stay.
    private func reload(_ path: String) -> Bool {
        func refused(_ why: String) -> Bool {
            ctx.log(.error, "beacon-tx: reload: \(why); the previous beacons stay on air")
            return false
        }
        let new: Settings
        do { new = try StartCommand.settings(from: arguments, ctx) } catch { return refused(error.message) }
        guard !new.beacons.isEmpty else {
            ctx.warn("reload: \(path) lists no beacon; the previous beacons stay on air")
            return false
        }
        if let refusal = Self.reloadRefusal(old: settings, new: new) { return refused(refusal) }
        let r: SessionReload
        do { r = try observer.reload(new) } catch { return refused(error.message) }
        let moved = new.metrics != settings.metrics
        settings = new
        observer.session.policy.unplugWaitMilliseconds = Int64(new.deviceTimeoutSeconds) * 1000
        if moved {
            // The old file goes (a textfile collector no longer reads a session that moved away), the
            // new one is written from the session as it is.
            metrics?.remove()
            metrics = KioskMetricsFile.make(new.metrics, device: observer.device, ctx)
            metrics?.update(observer.snapshot(settings))
        }
        let c = r.summary
        ctx.note("reloaded \(path): \(c.unchanged) unchanged, \(c.updated) updated, \(c.added) added, \(c.removed) removed" + r.detail)
        return true
    }
}

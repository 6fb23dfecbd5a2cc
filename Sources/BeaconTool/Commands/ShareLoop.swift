// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// The foreground pump of the sharing mode (`--share`): one blocking wait on the control channel
/// (MGMT events and signals) and the session's retry deadline; everything goes to the
/// `SharedAdvertisingSession`, which decides what to send.
struct ShareLoop {
    var session: DeviceSession
    let settings: Settings
    let arguments: ParsedArguments
    let ctx: ToolContext
    let service: ServiceReporter

    /// Whether `start` shares: `always`, or `auto` on a controller with one advertising instance
    /// where the kernel already has instances (Read Advertising Features).
    static func decide(_ s: Settings, family: AdvertisingFamily, _ session: DeviceSession, _ caps: ControllerCapabilities,
                       _ ctx: ToolContext) throws(CLIError) -> Bool {
        guard s.share != .never else { return false }
        if s.share == .always { return true }
        let single = singleInstance(family: family, caps)
        guard single else { return false }
        switch KernelAdvertising.read(session.host, index: session.info.id, timeout: s.timeoutMilliseconds, verbose: false, ctx) {
        case let .success(f):
            guard ShareMode.shares(.auto, singleInstance: single, kernelInstances: f.instances.count) else { return false }
            ctx.note("\(session.name) has one advertising instance and the kernel has instances on it (\(f.instances.sorted().map(String.init).joined(separator: ", "))): "
                     + "sharing it, our beacons become kernel instances (--share auto; --share never takes the instance instead)")
            return true
        case .failure(.transport):
            return false   // no control channel (no MGMT in this kernel): nothing to share with
        case let .failure(e):
            ctx.note("--share auto: the kernel's advertising instances could not be read (\(e)); not sharing")
            return false
        }
    }

    /// Whether the session would have one advertising instance: legacy commands, or an extended
    /// controller with one set (only known when the count was read: several beacons read it).
    static func singleInstance(family: AdvertisingFamily, _ caps: ControllerCapabilities) -> Bool {
        family == .legacy || caps.numberOfSupportedAdvertisingSets == 1
    }

    /// The sharing session, with what the raw-HCI loop (`KioskLoop`) does around its session: the
    /// schedule (`--duration`, `--cycle`, decided by the same `SessionMachine`), `WATCHDOG=1` while
    /// healthy, `--metrics`, STATUS on every change, `--device-timeout` for an unplugged controller.
    mutating func run() throws(CLIError) -> ExitCode {
        let s = settings
        if let refused = ShareOptions.refusal(s, mode: s.share) { throw refused }
        let verbose = arguments.has("--verbose")
        let family: AdvertisingFamily = session.caps.supportsExtendedAdvertising ? .extended : .legacy
        StartCommand.notes(s, family: family, session, ctx)
        let channel: MGMTChannel
        do { channel = try session.host.openControl(watchSignals: true) } catch { throw CLIError(error) }
        defer { channel.close() }
        // The raw socket is not needed any more: signals come through the control channel now.
        session.channel.close()
        let runner = MGMTCommandRunner(channel: channel, timeoutMilliseconds: s.timeoutMilliseconds, now: ctx.monotonicMilliseconds)
        if verbose { runner.trace = { [ctx] in ctx.log(.debug, $0) } }
        let ctx = self.ctx
        let shared = SharedAdvertisingSession(beacons: s.beacons.map(s.advertisement), index: session.info.id, device: session.name,
                                              dwellMilliseconds: s.rotationMilliseconds, runner: runner, now: ctx.monotonicMilliseconds,
                                              log: { ctx.note($0) })
        shared.schedule = s.schedule
        do { try shared.start() } catch { throw CLIError(error) }
        if Int(shared.plan.durationSeconds) * 1000 != s.rotationMilliseconds {
            ctx.note("MGMT durations are whole seconds: the \(s.rotationMilliseconds) ms dwell (--rotation) is \(shared.plan.durationSeconds) s")
        }
        ctx.note("advertising \(s.beacons.count == 1 ? s.beacons[0].summary : "\(s.beacons.count) beacons") on \(session.name) as kernel advertising instance"
                 + (shared.plan.instances.count == 1 ? " " : "s ") + shared.plan.instances.map(String.init).joined(separator: ", ")
                 + " (MGMT \(shared.plan.method == .extended ? "Add Extended Advertising Parameters/Data" : "Add Advertising"), "
                 + (session.caps.supportsExtendedAdvertising
                    // measured on btvirt (verify-share-extended): the kernel puts each on the set of its number, all at once
                    ? "the kernel gives each an advertising set of its own, all on air at once)"
                    : "each on air \(shared.plan.durationSeconds) s at a time in the kernel's rotation)"))
        // --metrics: the same file as raw HCI's, from the same machine; its final state whatever ends the loop.
        let metrics = KioskMetricsFile.make(s.metrics, device: session.name, ctx)
        defer { metrics?.ended() }
        service.onAirShared(family: family, beacons: s.beacons, instances: shared.plan.instances)
        metrics?.update(shared, family: family, s)
        var watchdog = service.watchdog
        if !ctx.service.isSupervised {
            ctx.note("press Ctrl-C (or send SIGTERM) to stop" + (arguments.has("--config") ? "; SIGHUP re-reads the config" : ""))
        }
        var current = s
        var reported = (phase: shared.phase, readds: shared.readds)
        /// While the controller is unregistered: when `--device-timeout` runs out.
        var unpluggedUntil: Int64?
        shared.handleKept()
        while true {
            if shared.phase != reported.phase || shared.readds != reported.readds {
                reported = (shared.phase, shared.readds)
                if shared.phase == .onAir {
                    service.onAirShared(family: family, beacons: current.beacons, instances: shared.plan.instances, readdReason: shared.lastReaddReason)
                } else if let why = shared.phase.text(device: session.name) {
                    if shared.phase.isWaiting { ctx.warn(why) } else { ctx.note(why) }
                    service.offAir(why)
                } else if shared.phase == .unplugged {
                    service.offAir("\(session.name) was unregistered; waiting up to \(s.deviceTimeoutSeconds) s for it to return")
                }
                metrics?.update(shared, family: family, current)
            }
            if shared.phase == .unplugged {
                if unpluggedUntil == nil { unpluggedUntil = ctx.monotonicMilliseconds() + Int64(s.deviceTimeoutSeconds) * 1000 }
            } else {
                unpluggedUntil = nil
            }
            if shared.finished { return try stop(shared, "schedule done", metrics, family, current) }
            var signal = runner.takePendingSignal()
            if signal == nil {
                let deadlines = [shared.nextDeadline, unpluggedUntil].compactMap { $0 }
                var wait = deadlines.min().map { max(0, $0 - ctx.monotonicMilliseconds()) } ?? -1
                // WATCHDOG=1 on raw HCI's rule: while on air, off by the schedule, or a re-add due.
                wait = watchdog?.wait(wait, healthy: shared.isHealthy) ?? wait
                let received: MGMTReceive
                do { received = try channel.receive(timeoutMilliseconds: Int(clamping: wait)) } catch {
                    let message = "\(CLIError(error).message); the kernel keeps our instances until they are removed"
                    service.failed(message)
                    throw CLIError(.unavailable, message)
                }
                switch received {
                case let .signal(n): signal = n
                case let .event(bytes):
                    if let e = try? MGMTEvent(packet: bytes) {
                        if verbose { ctx.log(.debug, MGMTText.traceLine(e)) }
                        shared.handle(e)
                        shared.handleKept()
                    }
                case .timedOut:
                    if let until = unpluggedUntil, ctx.monotonicMilliseconds() >= until {
                        let message = "\(session.name) (\(session.info.address)) did not return within \(s.deviceTimeoutSeconds) s (--device-timeout); nothing is on air"
                        service.failed(message)
                        throw CLIError(.unavailable, message)
                    }
                    shared.timerExpired()
                    shared.handleKept()
                }
            }
            guard let signal else { continue }
            if signal == KioskLoop.sighup, let path = arguments.path("--config")?.display {
                service.reloading()
                let applied = reload(path, shared, &current)
                metrics?.reloaded(applied: applied)
                metrics?.update(shared, family: family, current)
                if shared.phase == .onAir {
                    service.onAirShared(family: family, beacons: current.beacons, instances: shared.plan.instances)
                } else if let why = shared.phase.text(device: session.name) {
                    service.offAir(why)
                }
                continue
            }
            return try stop(shared, "signal \(signal)" + (signal == KioskLoop.sighup ? " (SIGHUP without --config: the terminal closed)" : ""),
                            metrics, family, current)
        }
    }

    func stop(_ shared: SharedAdvertisingSession, _ why: String, _ metrics: KioskMetricsFile?, _ family: AdvertisingFamily,
              _ s: Settings) throws(CLIError) -> ExitCode {
        service.stopping()
        defer { service.stopped() }
        do { try shared.stop() } catch { throw CLIError(error) }
        metrics?.update(shared, family: family, s)
        ctx.note("\(why): removed our kernel advertising instances \(shared.plan.instances.map(String.init).joined(separator: ", ")) on \(session.name)")
        return .success
    }

    /// SIGHUP: re-read the file; a bad file (or one with a setting the sharing mode cannot carry
    /// out) is logged and the old beacons stay.
    @discardableResult
    func reload(_ path: String, _ shared: SharedAdvertisingSession, _ current: inout Settings) -> Bool {
        let new: Settings
        do { new = try StartCommand.settings(from: arguments, ctx) } catch {
            ctx.log(.error, "beacon-tx: reload: \(error.message); the previous beacons stay on air")
            return false
        }
        guard !new.beacons.isEmpty else {
            ctx.warn("reload: \(path) lists no beacon; the previous beacons stay on air")
            return false
        }
        if let refused = ShareOptions.refusal(new, mode: new.share) {
            ctx.log(.error, "beacon-tx: reload: \(refused.message); the previous beacons stay on air")
            return false
        }
        do {
            let r = try shared.reload(new.beacons.map(new.advertisement), dwellMilliseconds: new.rotationMilliseconds)
            current = new
            ctx.note("reloaded \(path): \(r.unchanged) unchanged, \(r.updated) updated, \(r.added) added, \(r.removed) removed (kernel instances "
                     + shared.plan.instances.map(String.init).joined(separator: ", ") + ")")
            return true
        } catch {
            ctx.log(.error, "beacon-tx: reload: \(CLIError(error).message); the previous beacons stay on air")
            return false
        }
    }
}

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

    mutating func run() throws(CLIError) -> ExitCode {
        let s = settings
        let verbose = arguments.has("--verbose")
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
        let family: AdvertisingFamily = session.caps.supportsExtendedAdvertising ? .extended : .legacy
        service.onAirShared(family: family, beacons: s.beacons, instances: shared.plan.instances)
        if !ctx.service.isSupervised {
            ctx.note("press Ctrl-C (or send SIGTERM) to stop" + (arguments.has("--config") ? "; SIGHUP re-reads the config" : ""))
        }
        let end = s.durationSeconds.map { ctx.monotonicMilliseconds() + Int64($0) * 1000 }
        var current = s
        var readds = shared.readds
        shared.handleKept()
        while true {
            if shared.readds != readds {
                readds = shared.readds
                service.onAirShared(family: family, beacons: current.beacons, instances: shared.plan.instances, readdReason: shared.lastReaddReason)
            }
            var signal = runner.takePendingSignal()
            if signal == nil {
                let deadlines = [shared.nextDeadline, end].compactMap { $0 }
                let wait = deadlines.min().map { max(0, $0 - ctx.monotonicMilliseconds()) } ?? -1
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
                    if let end, ctx.monotonicMilliseconds() >= end {
                        return try stop(shared, "duration done")
                    }
                    shared.timerExpired()
                    shared.handleKept()
                }
            }
            guard let signal else { continue }
            if signal == KioskLoop.sighup, let path = arguments.path("--config")?.display {
                service.reloading()
                reload(path, shared, &current)
                service.onAirShared(family: family, beacons: current.beacons, instances: shared.plan.instances)
                continue
            }
            return try stop(shared, "signal \(signal)" + (signal == KioskLoop.sighup ? " (SIGHUP without --config: the terminal closed)" : ""))
        }
    }

    func stop(_ shared: SharedAdvertisingSession, _ why: String) throws(CLIError) -> ExitCode {
        service.stopping()
        defer { service.stopped() }
        do { try shared.stop() } catch { throw CLIError(error) }
        ctx.note("\(why): removed our kernel advertising instances \(shared.plan.instances.map(String.init).joined(separator: ", ")) on \(session.name)")
        return .success
    }

    /// SIGHUP: re-read the file; a bad file is logged and the old beacons stay.
    func reload(_ path: String, _ shared: SharedAdvertisingSession, _ current: inout Settings) {
        let new: Settings
        do { new = try StartCommand.settings(from: arguments, ctx) } catch {
            ctx.log(.error, "beacon-tx: reload: \(error.message); the previous beacons stay on air")
            return
        }
        guard !new.beacons.isEmpty else {
            ctx.warn("reload: \(path) lists no beacon; the previous beacons stay on air")
            return
        }
        do {
            let r = try shared.reload(new.beacons.map(new.advertisement), dwellMilliseconds: new.rotationMilliseconds)
            current = new
            ctx.note("reloaded \(path): \(r.unchanged) unchanged, \(r.updated) updated, \(r.added) added, \(r.removed) removed (kernel instances "
                     + shared.plan.instances.map(String.init).joined(separator: ", ") + ")")
        } catch {
            ctx.log(.error, "beacon-tx: reload: \(CLIError(error).message); the previous beacons stay on air")
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// The foreground pump of `start`: one blocking wait for packets, signals and the session's next
/// deadline; everything it receives goes to the `AdvertisingSession`, which decides what to send.
/// An idle kiosk with one beacon sets no timer (it wakes only for packets and signals).
struct KioskLoop {
    var session: DeviceSession
    let kiosk: AdvertisingSession
    var settings: Settings
    let arguments: ParsedArguments
    let ctx: ToolContext
    /// The state file and sd_notify (made by `start`, which may already have reported a wait for the device).
    let service: ServiceReporter

    static let sighup: Int32 = 1

    mutating func run() throws(CLIError) -> ExitCode {
        var settings = self.settings
        try watch(session.channel, settings)
        let service = self.service
        // --metrics: the Prometheus textfile, from the same changes; its final state whatever ends the loop.
        let metrics = KioskMetricsFile.make(settings.metrics, device: session.name, ctx)
        defer { metrics?.ended() }
        var current = settings
        let ctx = self.ctx
        kiosk.onPhaseChange = { [kiosk] phase in
            // The phase's sentence is rendered here, at the edge: a wait is a warning, the cycle's off phase a note.
            if phase == .onAir {
                Self.report(kiosk, current, to: service)
            } else if let why = phase.text(device: kiosk.device) {
                if phase.isWaiting { ctx.warn(why) } else { ctx.note(why) }
                service.offAir(why)
            }
            metrics?.update(kiosk, current)
        }
        Self.report(kiosk, settings, to: service)
        metrics?.update(kiosk, settings)
        var watchdog = service.watchdog
        if !ctx.service.isSupervised {
            ctx.note("press Ctrl-C (or send SIGTERM) to stop" + (arguments.has("--config") ? "; SIGHUP re-reads the config" : ""))
        }
        while true {
            var signal = session.runner.takePendingSignal()
            if signal == nil {
                var wait = kiosk.nextDeadline.map { max(0, $0 - ctx.monotonicMilliseconds()) } ?? -1
                // WATCHDOG=1 only while the beacons are on air or expected back (systemd restarts a stuck session).
                wait = watchdog?.wait(wait, healthy: kiosk.isHealthy) ?? wait
                let received: HCIReceive
                do { received = try session.channel.receive(timeoutMilliseconds: Int(clamping: wait)) } catch {
                    if !deviceIsRegistered {
                        kiosk.handle(.event(StackInternalDeviceEvent(kind: .unregistered, deviceID: session.info.id).event))
                        continue
                    }
                    let message = "\(CLIError(error).message); nothing is on air any more"
                    service.failed(message)
                    throw CLIError(.unavailable, message)
                }
                switch received {
                case let .signal(n): signal = n
                case let .event(bytes):
                    if let e = try? HCIEvent(packet: bytes) { kiosk.handle(.event(e)) }
                case let .command(bytes):
                    if let c = try? HCICommand(packet: bytes) { kiosk.handle(.observedCommand(c)) }
                case .timedOut:
                    kiosk.timerExpired()
                }
            }
            if kiosk.finished {
                service.stopping()
                defer { service.stopped() }
                do { try kiosk.stop() } catch { throw CLIError(error) }
                SharedInstanceHandBack.handBack(kiosk, session, timeout: settings.timeoutMilliseconds, verbose: arguments.has("--verbose"), ctx)
                ctx.note("schedule done: advertising stopped on \(session.name)")
                return .success
            }
            if kiosk.phase == .unplugged {
                guard let returned = try waitForTheDevice(settings, service) else { return .success }
                session = returned
                try watch(session.channel, settings)
                kiosk.attach(session.runner, caps: session.caps, deviceID: session.info.id)
                continue
            }
            guard let signal else { continue }
            if signal == Self.sighup, let path = arguments.path("--config")?.display {
                service.reloading()
                let applied = reload(path, &settings)
                current = settings
                Self.report(kiosk, settings, to: service)
                metrics?.reloaded(applied: applied)
                metrics?.update(kiosk, settings)
                continue
            }
            service.stopping()
            defer { service.stopped() }
            do { try kiosk.stop() } catch { throw CLIError(error) }
            SharedInstanceHandBack.handBack(kiosk, session, timeout: settings.timeoutMilliseconds, verbose: arguments.has("--verbose"), ctx)
            ctx.note("signal \(signal): advertising stopped on \(session.name)" + (signal == Self.sighup ? " (SIGHUP without --config: the terminal closed)" : ""))
            return .success
        }
    }

    /// What the session needs to hear on `channel`: its events, and other programs' commands.
    func watch(_ channel: HCIChannel, _ s: Settings) throws(CLIError) {
        do {
            let filter = AdvertisingSession.inputFilter(for: s.kiosk)
            try channel.setEventFilter(filter.events)
            try channel.observeCommands(filter.observesCommands)
        } catch { throw CLIError(error) }
    }

    /// Whether our controller is still registered under its index with its address.
    var deviceIsRegistered: Bool {
        guard let list = try? session.host.devices() else { return true }
        return list.contains { $0.id == session.info.id && $0.address == session.info.address }
    }

    /// The controller was unregistered (a USB unplug): waits for one with the same address to be
    /// registered and up again (never bringing it up), then opens and probes it. Nil after a signal
    /// (nothing is on air, so there is nothing to stop); exit 69 after the timeout.
    func waitForTheDevice(_ s: Settings, _ service: ServiceReporter) throws(CLIError) -> DeviceSession? {
        let address = session.info.address
        let text = "\(session.name) (\(address)) was unregistered; waiting up to \(s.deviceTimeoutSeconds) s for it to return"
        ctx.warn(text)
        service.offAir(text)
        // Let go of the dead device (its sockets would keep hciN taken, so that the replugged
        // adapter came back as hci1) and of its lock; both are taken again when it returns.
        session.channel.close()
        session.lock?.release()
        let outcome: DeviceWait
        do { outcome = try session.host.waitForDevice(.address(address), timeoutMilliseconds: s.deviceTimeoutSeconds * 1000) } catch {
            throw CLIError(error)
        }
        switch outcome {
        case let .returned(info):
            ctx.note("\(address) is back as \(info.name); re-arming")
            return try DeviceSession.open(info, session.host, .init(device: info.id, timeoutMilliseconds: s.timeoutMilliseconds,
                                                                     verbose: arguments.has("--verbose"), watchSignals: true, claim: true), ctx)
        case let .signal(n):
            service.stopping()
            service.stopped()
            ctx.note("signal \(n): stopped while \(address) was away (nothing was on air)")
            return nil
        case .timedOut:
            let message = "\(session.name) (\(address)) did not return within \(s.deviceTimeoutSeconds) s (--device-timeout); nothing is on air"
            service.failed(message)
            throw CLIError(.unavailable, message)
        }
    }

    /// SIGHUP: re-read the file (flags still override it). A bad file is logged and the old beacons stay.
    @discardableResult
    func reload(_ path: String, _ settings: inout Settings) -> Bool {
        let new: Settings
        do { new = try StartCommand.settings(from: arguments, ctx) } catch {
            ctx.log(.error, "beacon-tx: reload: \(error.message); the previous beacons stay on air")
            return false
        }
        guard !new.beacons.isEmpty else {
            ctx.warn("reload: \(path) lists no beacon; the previous beacons stay on air")
            return false
        }
        do {
            let summary = try kiosk.reload(new.kiosk)
            settings = new
            try? session.channel.setEventFilter(AdvertisingSession.inputFilter(for: new.kiosk).events)
            ctx.note("reloaded \(path): \(summary.unchanged) unchanged, \(summary.updated) updated, \(summary.added) added, \(summary.removed) removed"
                     + (summary.restarted ? " (all restarted: the layout changed)" : ""))
            return true
        } catch {
            let e: CLIError
            if case let .plan(p) = error { e = new.planError(p) } else { e = CLIError(error, device: session.name) }
            ctx.log(.error, "beacon-tx: reload: \(e.message); the previous beacons stay on air")
            return false
        }
    }

    /// The state file and sd_notify: what is on air now (or why nothing is).
    static func report(_ kiosk: AdvertisingSession, _ s: Settings, to service: ServiceReporter) {
        guard let plan = kiosk.plan, kiosk.phase == .onAir else { return }
        service.onAir(family: plan.family, beacons: s.beacons, sets: plan.handles, rotation: plan.layout.isRotation && s.beacons.count > 1,
                      rearmReason: kiosk.lastRearm?.cause.text(device: kiosk.device), rearmedAt: kiosk.lastRearm?.at, displacing: kiosk.displacedOwner?.text)
    }

}

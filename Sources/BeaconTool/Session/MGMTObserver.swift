// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// The sharing mode (`--share`) under the one `SessionLoop`: the control channel's MGMT events to the
/// `SharedAdvertisingSession`; the same channel delivers the signals and sees the device return.
final class MGMTObserver: SessionObserver {
    let opened: OpenedDevice
    let shared: SharedAdvertisingSession
    let channel: MGMTChannel
    let family: AdvertisingFamily
    let ctx: ToolContext
    let verbose: Bool

    /// Whether `start` shares: `always`, or `auto` on a controller with one advertising instance
    /// where the kernel already has instances (Read Advertising Features).
    static func decide(_ s: Settings, family: AdvertisingFamily, _ opened: OpenedDevice, _ caps: ControllerCapabilities,
                       _ ctx: ToolContext) throws(CLIError) -> Bool {
        guard s.share == .auto else { return s.share == .always }
        let single = singleInstance(family: family, caps)
        guard single else { return false }
        switch KernelAdvertising.read(opened.host, index: opened.info.id, timeout: s.timeoutMilliseconds, verbose: false, ctx) {
        case let .success(f):
            guard ShareMode.shares(.auto, singleInstance: single, kernelInstances: f.instances.count) else { return false }
            ctx.note("\(opened.name) has one advertising instance and the kernel has instances on it (\(f.instances.sorted().map(String.init).joined(separator: ", "))): "
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

    /// Opens the control channel (the raw socket is closed: signals come through it now) and puts
    /// our instances on air.
    init(opened: OpenedDevice, settings s: Settings, arguments: ParsedArguments, ctx: ToolContext) throws(CLIError) {
        if let refused = ShareOptions.refusal(s, mode: s.share) { throw refused }
        verbose = arguments.has("--verbose")
        family = opened.caps.supportsExtendedAdvertising ? .extended : .legacy
        StartCommand.notes(s, family: family, opened, ctx)
        do { channel = try opened.host.openControl(watchSignals: true) } catch { throw CLIError(error) }
        opened.channel.close()
        self.opened = opened
        self.ctx = ctx
        let runner = MGMTCommandRunner(channel: channel, timeoutMilliseconds: s.timeoutMilliseconds, now: ctx.monotonicMilliseconds)
        if verbose { runner.trace = { [ctx] in ctx.log(.debug, $0) } }
        shared = SharedAdvertisingSession(beacons: s.beacons.map(s.advertisement), index: opened.info.id, device: opened.name,
                                          dwellMilliseconds: s.rotationMilliseconds, method: s.shareCommands, runner: runner, now: ctx.monotonicMilliseconds,
                                          log: { _ in })
        shared.log = { [ctx, unowned shared] in ctx.note($0.text(device: shared.device, beacons: shared.plan.beacons.count)) }
        shared.readTemperature = ThermalZone.read
        shared.policy.schedule = s.schedule
        do { try shared.start() } catch {
            channel.close()
            throw CLIError(error, device: opened.name)
        }
        if Int(shared.plan.durationSeconds) * 1000 != s.rotationMilliseconds {
            ctx.note("MGMT durations are whole seconds: the \(s.rotationMilliseconds) ms dwell (--rotation) is \(shared.plan.durationSeconds) s")
        }
        ctx.note("advertising \(s.beacons.count == 1 ? s.beacons[0].summary : "\(s.beacons.count) beacons") on \(opened.name) as kernel advertising instance"
                 + (shared.plan.instances.count == 1 ? " " : "s ") + shared.plan.instances.map(String.init).joined(separator: ", ")
                 + " (MGMT \(shared.plan.method == .extended ? "Add Extended Advertising Parameters/Data" : "Add Advertising"), "
                 + (opened.caps.supportsExtendedAdvertising
                    // measured on btvirt (verify-share-extended): the kernel puts each on the set of its number, all at once
                    ? "the kernel gives each an advertising set of its own, all on air at once)"
                    : "each on air \(shared.plan.durationSeconds) s at a time in the kernel's rotation)"))
    }

    deinit { channel.close() }

    var session: LoopSession { shared }
    var device: String { opened.name }
    var address: String { opened.info.address }

    func takePendingSignal() -> Int32? { shared.runner.takePendingSignal() }

    func receive(timeoutMilliseconds: Int) throws(CLIError) -> SessionWake {
        let received: MGMTReceive
        do { received = try channel.receive(timeoutMilliseconds: timeoutMilliseconds) } catch {
            throw CLIError(.unavailable, "\(CLIError(error).message); the kernel keeps our instances until they are removed")
        }
        switch received {
        case let .signal(n): return .signal(n)
        case let .event(bytes):
            if let e = try? MGMTEvent(packet: bytes) {
                if verbose { ctx.log(.debug, MGMTText.traceLine(e)) }
                shared.handle(e)
            }
            return .packet
        case .timedOut:
            return .timedOut
        }
    }

    /// Our kernel instances: on a legacy controller the kernel rotates them on the one advertising
    /// instance; an extended one gives each instance the set of its number.
    func snapshot(_ s: Settings) -> OnAirSnapshot {
        let instances = shared.plan.instances
        let rotates = family == .legacy && instances.count > 1
        return OnAirSnapshot(shared.machine, family: family, placement: rotates ? .kernelRotation : .sets(instances), numbers: instances,
                             shared: true, beacons: s.beacons)
    }

    /// A setting the sharing mode cannot carry out is refused like a bad file.
    func reload(_ new: Settings) throws(CLIError) -> SessionReload {
        if let refused = ShareOptions.refusal(new, mode: new.share) { throw refused }
        let r: ReloadSummary
        do { r = try shared.reload(new.beacons.map(new.advertisement), dwellMilliseconds: new.rotationMilliseconds) } catch { throw CLIError(error, device: opened.name) }
        shared.runner.timeoutMilliseconds = new.timeoutMilliseconds
        return SessionReload(summary: r, detail: " (kernel instances " + shared.plan.instances.map(String.init).joined(separator: ", ") + ")")
    }

    func stop(_ s: Settings) throws(CLIError) -> String {
        do { try shared.stop() } catch { throw CLIError(error, device: opened.name) }
        return "removed our kernel advertising instances \(shared.plan.instances.map(String.init).joined(separator: ", ")) on \(opened.name)"
    }

    /// The control channel stays open: Index Added and New Settings with Powered are the return.
    func awaitReturn(_ s: Settings, timeoutMilliseconds: Int) throws(CLIError) -> DeviceReturn { .onSocket }
}

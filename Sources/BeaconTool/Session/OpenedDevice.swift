// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// A device opened for a command: the live-path steps of start, stop, devices and scan: pick the device, bring it up, reset it,
/// open the raw channel and probe the controller.
struct OpenedDevice {
    let host: HCIHost
    let info: HCIDeviceInfo
    let channel: HCIChannel
    let runner: HCICommandRunner
    let caps: ControllerCapabilities
    /// `start`'s claim on the device (`DeviceLock`), held as long as the session lives.
    var lock: DeviceLock? = nil

    var name: String { info.name }

    struct Options {
        /// `hciN` or the controller's address; nil: the first LE controller.
        var device: DeviceSelector?
        var reset = false
        var timeoutMilliseconds = Settings.defaultTimeoutMilliseconds
        var verbose = false
        var watchSignals = false
        /// Default device: the first controller with LE.
        var requireLE = true
        /// Claim the device for this process before the first command (`start`): one owner per device.
        var claim = false
        /// The device's lock, taken while waiting for the device to appear or be unblocked, so that
        /// status and doctor believe the waiting session; `open` keeps it for that device.
        var waitingLock: DeviceLock? = nil
        /// The config `start` advertises: a controller without an address gets a remedy naming the
        /// static address this config would advertise from (`OwnAddress`).
        var configuration: KioskConfiguration? = nil
    }

    static func open(_ o: Options, _ ctx: ToolContext) throws(CLIError) -> OpenedDevice {
        let host: HCIHost
        do { host = try ctx.makeHost() } catch { throw CLIError(error) }
        let devices: [HCIDeviceInfo]
        do { devices = try host.devices().sorted { $0.id < $1.id } } catch { throw CLIError(error) }
        let names = devices.map(\.name)
        if let selector = o.device {
            let info: HCIDeviceInfo
            do { info = try selector.find(in: devices) } catch { throw CLIError(error) }
            return try open(info, host, o, ctx)
        }
        guard !devices.isEmpty else { throw CLIError(TransportError.noSuchDevice("(any)", available: [])) }
        var firstError: CLIError?
        // Why the controllers before the chosen one were passed over, said with the choice.
        var skipped: [String] = []
        for info in devices {
            if let block = info.rfkill, block.isBlocked {
                skipped.append("\(info.name) is blocked by rfkill (\(block.text))")
                firstError = firstError ?? blockedError(info.name, block)
                continue
            }
            do {
                let opened = try open(info, host, o, ctx)
                if !o.requireLE || opened.caps.supportsLE {
                    if !skipped.isEmpty { ctx.note(skipped.joined(separator: "; ") + "; using \(info.name)") }
                    return opened
                }
                skipped.append("\(info.name) has no LE")
            } catch {
                if error.code == .noPermission || error.code == .tempFail { throw error }
                skipped.append("\(info.name): \(error.message)")
                firstError = firstError ?? error
            }
        }
        throw firstError ?? CLIError(.unavailable, "no controller with Bluetooth LE found (\(names.joined(separator: ", ")))")
    }

    /// A blocked controller that is not waited for: exit 69 with the remedy.
    static func blockedError(_ name: String, _ block: RFKillBlock) -> CLIError {
        CLIError(.unavailable, "\(name) is blocked by rfkill (\(block.text)); \(block.remedy)")
    }

    static func open(_ info: HCIDeviceInfo, _ host: HCIHost, _ o: Options, _ ctx: ToolContext) throws(CLIError) -> OpenedDevice {
        if let block = info.rfkill, block.isBlocked { throw blockedError(info.name, block) }
        var held = o.waitingLock
        if held?.device != info.name {
            held?.release()
            held = nil
        }
        let (lock, lockWarning): (DeviceLock?, String?)
        if let held { (lock, lockWarning) = (held, nil) } else { (lock, lockWarning) = o.claim ? try ctx.claimDevice(info.name) : (nil, nil) }
        if !info.isUp {
            ctx.note("\(info.name) is down; bringing it up (HCIDEVUP)")
            do { try host.up(deviceID: info.id) } catch {
                // The kernel brings up no LE-only controller without an address of some kind.
                if case .system(_, _, 99, _) = error, StaticRandomAddress.isMissingPublicAddress(info.address) {
                    throw CLIError(.unavailable, "\(CLIError(error).message): \(info.name) has no public address (00:00:00:00:00:00) and no static address; "
                                   + OwnAddress.staticAddressRemedy(device: info.name, id: info.id, o.configuration))
                }
                throw CLIError(error)
            }
        }
        if o.reset {
            ctx.note("resetting \(info.name) (HCIDEVRESET)")
            do { try host.reset(deviceID: info.id) } catch { throw CLIError(error) }
        }
        let channel: HCIChannel
        do { channel = try host.open(deviceID: info.id, watchSignals: o.watchSignals) } catch { throw CLIError(error) }
        let runner = HCICommandRunner(channel: channel, timeoutMilliseconds: o.timeoutMilliseconds, now: ctx.monotonicMilliseconds)
        if o.verbose { runner.trace = { ctx.log(.debug, $0) } }
        runner.onImplausibleAnswer = { ctx.warn("\(info.name): \($0.text)") }
        let caps: ControllerCapabilities
        do { caps = try Advertiser.probe(runner) } catch { throw CLIError(error) }
        if let lockWarning { ctx.warn(lockWarning) }
        var up = info
        up.isUp = true
        return OpenedDevice(host: host, info: up, channel: channel, runner: runner, caps: caps, lock: lock)
    }

    /// How long a controller that has just appeared (registered, still down) is given to be powered
    /// by its owner (bluetoothd's AutoEnable) before beacon-tx brings it up itself: bringing it up
    /// while the kernel still sets it up can make that setup fail.
    static let appearSettleMilliseconds = 5_000

    /// `start`: like `open`, but a controller that is not there yet (a USB dongle that enumerates
    /// late, a Raspberry Pi's UART controller attached by hciuart, a slow disk at boot) is waited for,
    /// up to `waitSeconds` (`--device-timeout`; 0 = exit 69 at once), without polling (the kernel's
    /// device events wake the wait). `waiting` is told once what is awaited (the service's `STATUS=`).
    /// Nil after a signal during the wait (nothing was sent to any controller); exit 69 after the timeout.
    /// A SIGHUP during the wait calls `hangup` (re-read the config) and the wait goes on.
    static func openWaiting(_ o: Options, waitSeconds: Int, waiting: (String) -> Void, hangup: () -> Void,
                            _ ctx: ToolContext) throws(CLIError) -> OpenedDevice? {
        let host: HCIHost
        do { host = try ctx.makeHost() } catch { throw CLIError(error) }
        let devices: [HCIDeviceInfo]
        do { devices = try host.devices() } catch { throw CLIError(error) }
        // The selector as a constant of its own: Swift 6.3.1's optimizer crashed (CopyPropagation, an
        // ownership error) on switches over `o.device` of the `var o` below in a release build.
        let selector = o.device
        let wanted = selector.map { s in devices.filter(s.matches) } ?? devices
        let present = !wanted.isEmpty
        var o = o
        let waits = waitSeconds > 0 && (!present || wanted.allSatisfy(\.isBlocked))
        // The lock is per hciN: a controller named by an address that is not there yet has none.
        let lockName = selector?.index.map(HCIDeviceInfo.name(of:)) ?? (selector == nil ? nil : wanted.first?.name)
        if waits, o.claim, let lockName, case let .claimed(lock) = ctx.service.claimDevice(lockName) {
            o.waitingLock = lock
        }
        if present, waitSeconds > 0, wanted.allSatisfy(\.isBlocked) {
            return try waitForUnblock(o, host, wanted, waitSeconds: waitSeconds, waiting: waiting, hangup: hangup, ctx)
        }
        guard !present, waitSeconds > 0 else { return try open(o, ctx) }
        let name = selector?.description ?? "a controller"
        let others = devices.isEmpty ? "no controllers yet" : "controllers: " + devices.map(\.name).sorted().joined(separator: ", ")
        let text = "waiting for \(name) to appear (\(others); up to \(waitSeconds) s, --device-timeout)"
        ctx.note(text)
        waiting(text)
        let started = ctx.monotonicMilliseconds()
        let budget = Int64(waitSeconds) * 1000
        let outcome = try wait(host, selector?.registered ?? .any, budget: budget, started: started, hangup: hangup, ctx)
        switch outcome {
        case let .signal(n):
            ctx.note("signal \(n) while waiting for \(name); nothing was changed")
            return nil
        case .timedOut:
            throw CLIError(.unavailable, "\(name) did not appear within \(waitSeconds) s (--device-timeout; \(others)); nothing is on air")
        case let .returned(info):
            if !info.isUp {
                let left = max(0, budget - (ctx.monotonicMilliseconds() - started))
                let settle = Int(min(Int64(appearSettleMilliseconds), left))
                let up = try waitBeating(host, .indexUp(info.id), timeoutMilliseconds: Int64(settle), ctx)
                if case let .signal(n) = up {
                    ctx.note("signal \(n) while waiting for \(info.name); nothing was changed")
                    return nil
                }
            }
            let after = Double(ctx.monotonicMilliseconds() - started) / 1000
            ctx.note("\(info.name)\(selector?.index == nil && selector != nil ? " (\(info.address))" : "") appeared after \(JSON.format((after * 10).rounded() / 10)) s")
            return try open(o, ctx)
        }
    }

    /// One wait of `openWaiting` up to `budget` ms from `started`; a SIGHUP (systemctl reload) calls
    /// `hangup` (the config is read again) and the wait goes on.
    static func wait(_ host: HCIHost, _ wanted: WantedDevice, budget: Int64, started: Int64, hangup: () -> Void,
                     _ ctx: ToolContext) throws(CLIError) -> DeviceWait {
        var left = budget
        while true {
            let outcome = try waitBeating(host, wanted, timeoutMilliseconds: left, ctx)
            guard outcome == .signal(SessionLoop.sighup) else { return outcome }
            hangup()
            left = max(0, budget - (ctx.monotonicMilliseconds() - started))
        }
    }

    /// `host.waitForDevice` up to `timeoutMilliseconds` (-1: no limit) that keeps systemd's watchdog
    /// fed (`WatchdogSec=`): waiting for an adapter that is late, missing, blocked or unplugged is
    /// the session doing what it was asked, not hanging. The wait is cut into slices of the beat
    /// interval (half of `$WATCHDOG_USEC`), with `WATCHDOG=1` after each; one slice without it.
    static func waitBeating(_ host: HCIHost, _ wanted: WantedDevice, timeoutMilliseconds: Int64,
                            _ ctx: ToolContext) throws(CLIError) -> DeviceWait {
        let notifier = ctx.service.notifier
        guard let beat = notifier.watchdogIntervalMilliseconds.map(Int64.init), beat > 0 else {
            do { return try host.waitForDevice(wanted, timeoutMilliseconds: Int(clamping: timeoutMilliseconds)) } catch { throw CLIError(error) }
        }
        let started = ctx.monotonicMilliseconds()
        while true {
            notifier.watchdog()
            let left = timeoutMilliseconds < 0 ? beat : max(0, timeoutMilliseconds - (ctx.monotonicMilliseconds() - started))
            let outcome: DeviceWait
            do { outcome = try host.waitForDevice(wanted, timeoutMilliseconds: Int(clamping: min(left, beat))) } catch { throw CLIError(error) }
            guard outcome == .timedOut, timeoutMilliseconds < 0 || left > beat else { return outcome }
        }
    }

    /// `start` on a controller (or, without --device, every controller) blocked by rfkill, with a
    /// device timeout: a block is waited out like a missing adapter, woken by `/dev/rfkill` and the
    /// kernel's device events, and the session starts by itself once the adapter is unblocked.
    static func waitForUnblock(_ o: Options, _ host: HCIHost, _ blocked: [HCIDeviceInfo], waitSeconds: Int,
                               waiting: (String) -> Void, hangup: () -> Void, _ ctx: ToolContext) throws(CLIError) -> OpenedDevice? {
        let name = o.device?.description ?? blocked.map(\.name).joined(separator: ", ")
        let blocks = blocked.map { "\($0.name): \($0.rfkill?.text ?? "?")" }.joined(separator: ", ")
        let remedy = (blocked.compactMap(\.rfkill).first(where: \.hard) ?? RFKillBlock(soft: true, hard: false)).remedy
        let status = "waiting for \(name) (blocked by rfkill)"
        ctx.note("\(status): \(blocks); up to \(waitSeconds) s (--device-timeout); \(remedy)")
        waiting(status)
        let started = ctx.monotonicMilliseconds()
        // A controller named by its address is blocked where it is now: its index.
        let id = o.device?.index ?? (o.device == nil ? nil : blocked.first?.id)
        let outcome = try wait(host, id.map { .indexUnblocked($0) } ?? .anyUnblocked, budget: Int64(waitSeconds) * 1000,
                               started: started, hangup: hangup, ctx)
        switch outcome {
        case let .signal(n):
            ctx.note("signal \(n) while waiting for \(name) to be unblocked; nothing was changed")
            return nil
        case .timedOut:
            throw CLIError(.unavailable, "\(name) stayed blocked by rfkill for \(waitSeconds) s (--device-timeout; \(blocks)); nothing is on air; \(remedy)")
        case let .returned(info):
            let after = Double(ctx.monotonicMilliseconds() - started) / 1000
            ctx.note("\(info.name) was unblocked after \(JSON.format((after * 10).rounded() / 10)) s")
            return try open(o, ctx)
        }
    }

    /// Ends a long wait with an error (exit 69) when the controller reports a Hardware Error or the
    /// kernel reports it down or gone, so a supervisor such as systemd starts beacon-tx again.
    func checkHealth(_ packet: [UInt8], while activity: String) throws(CLIError) {
        guard let e = try? HCIEvent(packet: packet), let failure = ControllerFailure(e, deviceID: info.id) else { return }
        throw CLIError(failure, device: name, while: activity)
    }
}

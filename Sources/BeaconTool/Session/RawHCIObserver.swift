// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// Raw HCI under the one `SessionLoop`: raw socket packets to the `AdvertisingSession`; an unplugged
/// controller is waited for on the host and a new runner attached.
final class RawHCIObserver: SessionObserver {
    private(set) var opened: OpenedDevice
    let kiosk: AdvertisingSession
    let arguments: ParsedArguments
    let ctx: ToolContext

    init(opened: OpenedDevice, kiosk: AdvertisingSession, settings: Settings, arguments: ParsedArguments, ctx: ToolContext) throws(CLIError) {
        self.opened = opened
        self.kiosk = kiosk
        self.arguments = arguments
        self.ctx = ctx
        try Self.watch(opened.channel, settings)
    }

    var session: LoopSession { kiosk }
    var device: String { kiosk.device }
    var address: String { opened.info.address }

    func takePendingSignal() -> Int32? { opened.runner.takePendingSignal() }

    func receive(timeoutMilliseconds: Int) throws(CLIError) -> SessionWake {
        let received: HCIReceive
        do { received = try opened.runner.receive(timeoutMilliseconds: timeoutMilliseconds) } catch {
            // Still registered under its index with its address (or the list unreadable): the receive failed.
            guard let list = try? opened.host.devices(), !list.contains(where: { $0.id == opened.info.id && $0.address == opened.info.address }) else {
                throw CLIError(.unavailable, "\(CLIError(error).message); nothing is on air any more")
            }
            kiosk.handle(.event(StackInternalDeviceEvent(kind: .unregistered, deviceID: opened.info.id).event))
            return .packet
        }
        switch received {
        case let .signal(n): return .signal(n)
        case let .event(bytes):
            if let e = try? HCIEvent(packet: bytes) { kiosk.handle(.event(e)) }
        case let .command(bytes):
            if let c = try? HCICommand(packet: bytes) { kiosk.handle(.observedCommand(c)) }
        case .timedOut:
            return .timedOut
        }
        return .packet
    }

    /// Its sets, or the rotation with its turn, from the plan on air (none before the first start).
    func snapshot(_ s: Settings) -> OnAirSnapshot {
        let plan = kiosk.plan
        let placement: BeaconOnAir.Placement = switch plan?.layout {
        case let .sets(handles)?: .sets(handles)
        case .rotation?: .rotation(turn: kiosk.machine.rotationIndex)
        case nil: .sets([])
        }
        var snapshot = OnAirSnapshot(kiosk.machine, family: plan?.family, placement: placement, numbers: plan?.handles ?? [], shared: false,
                                     beacons: s.beacons)
        snapshot.displacing = kiosk.displacedOwner?.text
        snapshot.ownAddress = kiosk.ownRandomAddress
        return snapshot
    }

    func reload(_ new: Settings) throws(CLIError) -> SessionReload {
        do {
            let summary = try kiosk.reload(new.kiosk)
            opened.runner.timeoutMilliseconds = new.timeoutMilliseconds
            try? opened.channel.setEventFilter(RawHCIActuator.inputFilter(for: new.kiosk))
            return SessionReload(summary: summary, detail: summary.restarted ? " (all restarted: the layout changed)" : "")
        } catch {
            if case let .plan(p) = error { throw new.planError(p) }
            throw CLIError(error, device: opened.name)
        }
    }

    func stop(_ s: Settings) throws(CLIError) -> String {
        do { try kiosk.stop() } catch { throw CLIError(error, device: opened.name) }
        KernelInstanceHandBack.handBack(kiosk, opened, timeout: s.timeoutMilliseconds, verbose: arguments.has("--verbose"), ctx)
        return "advertising stopped on \(opened.name)"
    }

    /// What the session needs to hear on `channel`: its events, and other programs' commands.
    static func watch(_ channel: HCIChannel, _ s: Settings) throws(CLIError) {
        do {
            try channel.setEventFilter(RawHCIActuator.inputFilter(for: s.kiosk))
            try channel.observeCommands(true)
        } catch { throw CLIError(error) }
    }

    /// The controller was unregistered (a USB unplug, a UART hang-up): waits for it to be registered
    /// again, then opens and probes it and attaches the session to it. It is known by its address; a
    /// controller without one (00:00:00:00:00:00, which every address-less controller shares) by its
    /// index. One that comes back down is given `appearSettleMilliseconds` to be powered by its owner
    /// (bluetoothd), then brought up, as `start` does; one that goes down again before it could be
    /// opened (the kernel powers a new controller for its setup, and off again) is waited for again.
    func awaitReturn(_ s: Settings, timeoutMilliseconds: Int) throws(CLIError) -> DeviceReturn {
        let lost = opened.info
        let byIndex = StaticRandomAddress.isMissingPublicAddress(lost.address)
        let wanted: WantedDevice = byIndex ? .index(lost.id) : .addressRegistered(lost.address)
        let what = byIndex ? "\(lost.name) (no public address)" : lost.address
        // Let go of the dead device (its sockets would keep hciN taken, so that the replugged
        // adapter came back as hci1) and of its lock; both are taken again when it returns.
        opened.channel.close()
        opened.lock?.release()
        let started = ctx.monotonicMilliseconds()
        func left() -> Int64 { timeoutMilliseconds < 0 ? -1 : max(0, Int64(timeoutMilliseconds) - (ctx.monotonicMilliseconds() - started)) }
        var noted = false
        var first = true
        while true {
            let budget = first ? Int64(timeoutMilliseconds) : left()
            first = false
            switch try OpenedDevice.waitBeating(opened.host, wanted, timeoutMilliseconds: budget, ctx) {
            case var .returned(info):
                if !info.isUp {
                    let settle = left() < 0 ? Int64(OpenedDevice.appearSettleMilliseconds) : min(Int64(OpenedDevice.appearSettleMilliseconds), left())
                    switch try OpenedDevice.waitBeating(opened.host, .indexUp(info.id), timeoutMilliseconds: settle, ctx) {
                    case let .signal(n): return .signal(n)
                    case let .returned(up): info = up
                    case .timedOut: break   // still down: open brings it up (HCIDEVUP), as start does
                    }
                }
                if !noted { ctx.note("\(what) is back as \(info.name); re-arming") }
                noted = true
                do {
                    opened = try OpenedDevice.open(info, opened.host, .init(device: .index(info.id), timeoutMilliseconds: s.timeoutMilliseconds,
                                                                                verbose: arguments.has("--verbose"), watchSignals: true, claim: true), ctx)
                } catch {
                    let now = (try? opened.host.devices())?.first { $0.id == info.id }
                    guard let now, !now.isUp, left() != 0 else { throw error }
                    ctx.note("\(info.name) went down again before it could be opened (\(error.message)); waiting for it")
                    continue
                }
                try Self.watch(opened.channel, s)
                kiosk.attach(opened.runner, caps: opened.caps, deviceID: opened.info.id)
                return .returned
            case let .signal(n):
                return .signal(n)
            case .timedOut:
                return .timedOut
            }
        }
    }
}

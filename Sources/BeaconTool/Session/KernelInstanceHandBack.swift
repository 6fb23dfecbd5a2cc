// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// A single legacy advertising instance shared with the kernel's MGMT instances: what a
/// kiosk asks the kernel before it takes the instance, and how its stop gives the instance back when
/// the kernel's own data was never seen on the raw socket (it was written before beacon-tx started).
enum KernelInstanceHandBack {
    /// Before `start` on a controller without extended advertising (one instance): the kernel's
    /// advertising instances (MGMT Read Advertising Features), nil when they cannot be read.
    static func kernelInstances(_ opened: OpenedDevice, family: AdvertisingFamily, timeout: Int, verbose: Bool,
                                _ ctx: ToolContext) -> [UInt8]? {
        guard family == .legacy, !opened.caps.supports(.extended) else { return nil }
        switch KernelAdvertising.read(opened.host, index: opened.info.id, timeout: timeout, verbose: verbose, ctx) {
        case let .success(features):
            return features.instances.sorted()
        case let .failure(error):
            if verbose { ctx.log(.debug, "beacon-tx: \(opened.name): the kernel's advertising instances are not known (\(error))") }
            return nil
        }
    }

    /// After the session's stop left blank data in the instance: the kernel believes its own data is
    /// still there (it caches what it last wrote and writes only what differs), so it would re-enable
    /// the blank instance and its advertisement would not return. MGMT Set Advertising on makes it
    /// write its instance 0 (its own Flags), and off makes it schedule its instances again, writing
    /// their data because it now differs from the cache (mgmt.c set_advertising_complete). Skipped when
    /// the Advertising setting is already on (the kernel advertises instance 0 then, not its instances).
    static func handBack(_ kiosk: AdvertisingSession, _ opened: OpenedDevice, timeout: Int, verbose: Bool, _ ctx: ToolContext) {
        guard kiosk.needsKernelHandBack else { return }
        let index = opened.info.id
        let channel: MGMTChannel
        do { channel = try opened.host.openControl(watchSignals: false) } catch {
            ctx.warn("\(opened.name): the kernel's advertising could not be handed back (\(error)); it returns when the kernel next writes it")
            return
        }
        defer { channel.close() }
        let runner = MGMTCommandRunner(channel: channel, timeoutMilliseconds: timeout, now: ctx.monotonicMilliseconds)
        if verbose { runner.trace = { ctx.log(.debug, $0) } }
        do {
            let info = try runner.readControllerInformation(index: index)
            guard !info.currentSettings.contains(.advertising) else { return }
            try runner.run(MGMTCommand(.setAdvertising, index: index, [0x01]))
            try runner.run(MGMTCommand(.setAdvertising, index: index, [0x00]))
            ctx.note("\(opened.name): the advertising instance is handed back to the kernel (MGMT Set Advertising on and off: it writes its instances again)")
        } catch {
            ctx.warn("\(opened.name): the kernel's advertising could not be handed back (\(error)); it returns when the kernel next writes it")
        }
    }
}

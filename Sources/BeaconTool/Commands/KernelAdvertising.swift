// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// What the kernel's management interface says about a controller's advertising instances (the
/// ones bluetoothd, `bluetoothctl advertise on` and `btmgmt add-adv` register): Read Advertising
/// Features on the control channel.
enum KernelAdvertising {
    /// The features of `index`, or why they could not be read (no control channel, an untrusted
    /// socket without CAP_NET_ADMIN, a kernel without MGMT 1.9). Never throws: callers treat the
    /// answer as extra information.
    static func read(_ host: HCIHost, index: UInt16, timeout: Int, verbose: Bool,
                     _ ctx: ToolContext) -> Result<MGMTAdvertisingFeatures, MGMTError> {
        query(host, timeout: timeout, verbose: verbose, ctx) { runner throws(MGMTError) in try runner.readAdvertisingFeatures(index: index) }
    }

    /// One question to the kernel's management interface on a control channel of its own.
    static func query<T>(_ host: HCIHost, timeout: Int, verbose: Bool = false, _ ctx: ToolContext,
                         _ ask: (MGMTCommandRunner) throws(MGMTError) -> T) -> Result<T, MGMTError> {
        let channel: MGMTChannel
        do { channel = try host.openControl(watchSignals: false) } catch { return .failure(.transport(error)) }
        defer { channel.close() }
        let runner = MGMTCommandRunner(channel: channel, timeoutMilliseconds: timeout, now: ctx.monotonicMilliseconds)
        if verbose { runner.trace = { ctx.log(.debug, $0) } }
        do { return .success(try ask(runner)) } catch { return .failure(error) }
    }

    /// `kernel instances 1 of 5 in use (1)`.
    static func text(_ f: MGMTAdvertisingFeatures) -> String {
        "kernel instances \(f.instances.count) of \(f.maxInstances) in use"
            + (f.instances.isEmpty ? "" : " (" + f.instances.sorted().map(String.init).joined(separator: ", ") + ")")
    }
}

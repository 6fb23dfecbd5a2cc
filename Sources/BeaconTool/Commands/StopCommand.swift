// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// `beacon-tx stop`: disable advertising in whichever family is active and remove our set.
enum StopCommand: Subcommand {
    static let name = "stop"
    static let summary = "stop advertising: a foreground session on the device (SIGTERM, then its own stop plan) or detached beacons; safe to run twice"
    static let usage = "beacon-tx stop [--device hciN] [options]"
    /// The settings of the `Setting` table it takes (and no other).
    static let settings: [Setting] = [.device, .advertisingSet, .timeout]
    static let options: [OptionSpec] = [
        Setting.device.option(help: "controller (default: the first LE controller)"),
        .path("--config", "FILE", "take the device and the beacons' sets from this config file (- reads stdin)"),
        Setting.advertisingSet.option(help: "the first extended advertising set start used, 0–239 (default: start's own choice, 239 downwards)"),
        Setting.timeout.option,
        .flag("--verbose", "log every HCI command and event (btmon style) on stderr"),
    ]
    static let examples = ["sudo beacon-tx stop --device hci0   # stops a foreground 'start' on hci0 too (it runs its stop plan)"]

    static func run(_ a: ParsedArguments, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        var s = Settings()
        if let path = a.path("--config") { _ = try ConfigFile.load(path, into: &s) }
        try s.apply(settings, from: a)
        let opened = try OpenedDevice.open(.init(device: s.device, timeoutMilliseconds: s.timeoutMilliseconds, verbose: a.has("--verbose")), ctx)
        // A foreground session owns the device: stop it (it would put its beacons back) and let it
        // run its own stop plan; the stop below then only confirms.
        let owner = try ctx.stopOwner(of: opened.name)
        defer { owner?.lock?.release() }
        do { try Advertiser.stopActive(opened.runner, caps: opened.caps, advertisingHandles: handles(s)) } catch { throw CLIError(error) }
        if let owner {
            ctx.note("stopped the beacon-tx session of pid \(owner.pid) on \(opened.name) (it ran its stop plan); advertising is off on \(opened.name)")
        } else {
            ctx.note("advertising is off on \(opened.name)")
        }
        return .success
    }

    /// The sets `start` would own: one per beacon of the config; without a config, the first
    /// `setsChecked` handles of start's choice (a detached start may have listed several beacons).
    static let setsChecked = 4

    static func handles(_ s: Settings) -> [UInt8] {
        let configuration = s.kiosk
        let count = s.beacons.isEmpty ? (s.advertisingSet == nil ? setsChecked : 1) : s.beacons.count
        return (0..<count).compactMap(configuration.handle(forBeaconAt:))
    }
}

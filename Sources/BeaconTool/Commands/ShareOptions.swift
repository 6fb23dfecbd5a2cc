// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// Every `start` option in the two modes of a live session: raw HCI (beacon-tx owns the controller's
/// advertising) and sharing (`--share`: our beacons are kernel advertising instances). An option
/// either works in both, or the sharing mode refuses it at start (exit 64, or 65 when only the
/// config file set it), naming the option and the mode: never silently ignored. ARCHITECTURE.md
/// and Docs/raspberry-pi.md carry this table; `ShareOptionsTests` checks that it covers every option.
enum ShareOptions {
    enum Support: Equatable {
        /// The same in both modes.
        case both
        /// Works in both; in the sharing mode the kernel carries it out (`how` says so).
        case kernel(String)
        /// Raw HCI only: the sharing mode refuses it, for this reason.
        case rawHCIOnly(String)
        /// Not a live option (dry run, or the mode itself).
        case notLive(String)
        /// The sharing mode's own: refused unless `--share always` (`commandsRefusal`).
        case sharingOnly(String)
    }

    /// Keyed by flag name, in `start --help` order.
    static let table: [(flag: String, support: Support)] = [
        ("--uuid", .both), ("--major", .both), ("--minor", .both), ("--power", .both), ("--identifier", .both), ("--beacon", .both),
        ("--altbeacon", .both), ("--eddystone-uid", .both), ("--eddystone-url", .both), ("--data", .both), ("--eddystone-tlm", .both),
        ("--config", .both),
        ("--device", .both),
        ("--interval", .kernel("MGMT Add Extended Advertising Parameters; where the kernel refuses those, Add Advertising and the kernel's interval (noted)")),
        ("--connectable", .kernel("the instance's Connectable flag")), ("--non-connectable", .both),
        ("--tx-power", .kernel("MGMT TX power parameter; ignored with a warning on a legacy controller, as in raw HCI")),
        ("--controller", .rawHCIOnly("the kernel chooses legacy or extended commands for its instances (use --share never to choose)")),
        ("--share", .notLive("chooses the mode")),
        ("--share-commands", .sharingOnly("the MGMT commands of the sharing mode; raw HCI sends its own HCI commands")),
        ("--timeout", .kernel("each MGMT command's answer")),
        ("--advertising-set", .rawHCIOnly("the kernel chooses the advertising set of each instance (use --share never to choose the sets)")),
        ("--random-address-per-set", .rawHCIOnly("the kernel chooses each instance's address (use --share never for an address per set)")),
        ("--no-random-address-per-set", .both),
        ("--rotation", .kernel("each instance's MGMT Duration, in whole seconds (noted)")),
        ("--device-timeout", .both),
        ("--duration", .both),
        ("--cycle", .kernel("off phases remove our instances (MGMT Remove Advertising), on phases add them again")),
        ("--metrics", .both),
        ("--dry-run", .notLive("--share always --dry-run prints the MGMT plan")),
        ("--format", .notLive("dry run only")), ("--output", .notLive("dry run only")), ("--check", .notLive("dry run only; refused for the MGMT plan")),
        ("--detach", .rawHCIOnly("sharing needs the foreground session: it re-adds the instances the kernel forgets and removes ours at stop")),
        ("--reset", .both),
        ("--verbose", .kernel("every MGMT command and event")),
    ]

    static func support(_ flag: String) -> Support? { table.first { $0.flag == flag }?.support }

    /// `--share-commands` is refused unless `--share always`: with `auto` the mode is known only on
    /// the controller, and raw HCI would ignore it.
    static func commandsRefusal(_ s: Settings) -> CLIError? {
        guard s.shareCommands != nil else { return nil }
        // Add Advertising carries neither an interval nor a tx power: given ones would be ignored.
        let carried = [(Setting.interval, "interval", s.origin.has(Setting.interval.key) || s.beacons.contains { $0.interval != nil }),
                       (Setting.txPower, "tx power", s.txPower != nil || s.beacons.contains { $0.txPower != nil })]
        if let (setting, what, _) = carried.first(where: \.2) {
            let why = "MGMT Add Advertising carries no \(what): the kernel chooses it"
            return s.origin.error([setting.key, Setting.shareCommands.key],
                                  file: { key in key == Setting.shareCommands.key
                                      ? "\"add-advertising\" does not work beside \(what == "interval" ? "an" : "a") \(what) (\(setting.key), here or in a beacon): \(why)"
                                      : "does not work with \"shareCommands\": \"add-advertising\": \(why)" },
                                  flags: "\(setting.flag) does not work with --share-commands add-advertising: \(why)")
        }
        guard s.share != .always else { return nil }
        let why = "it chooses the MGMT commands of the sharing mode"
        return s.origin.error([Setting.shareCommands.key, Setting.share.key],
                              file: { key in key == Setting.share.key
                                  ? "\"\(s.share.rawValue)\" with \"shareCommands\": \"add-advertising\": \(why), which only \"share\": \"always\" chooses for certain"
                                  : "works only with \"share\": \"always\" (here \"\(s.share.rawValue)\"): \(why)" },
                              flags: "--share-commands works only with --share always (here \(s.share.rawValue)): \(why)")
    }

    /// The settings given that the sharing mode cannot carry out, with their config key: nil when
    /// none. `--detach` is refused (`--share always`) or does not share (`auto`) by `start` itself.
    static func refusal(_ s: Settings, mode: ShareMode) -> CLIError? {
        var given: [(flag: String, key: String)] = []
        if s.controller != nil { given.append(("--controller", Setting.controller.key)) }
        if s.advertisingSet != nil { given.append(("--advertising-set", Setting.advertisingSet.key)) }
        if s.randomAddressPerSet { given.append(("--random-address-per-set", Setting.randomAddressPerSet.key)) }
        guard let first = given.first, case let .rawHCIOnly(why)? = support(first.flag) else { return nil }
        let modeText = mode == .always ? "--share always" : "--share auto shares it: the controller has one instance and the kernel has instances on it"
        return s.origin.error([first.key, Setting.share.key],
                              file: { _ in "does not work when beacon-tx shares the advertising instance (\"share\": \"\(mode.rawValue)\"): \(why)" },
                              flags: "\(first.flag) does not work when beacon-tx shares the advertising instance (\(modeText)): \(why)")
    }
}

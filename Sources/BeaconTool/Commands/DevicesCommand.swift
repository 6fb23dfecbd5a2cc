// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// `beacon-tx devices`: what each controller can do.
enum DevicesCommand: Subcommand {
    static let name = "devices"
    static let summary = "list controllers: address, state, HCI version, LE and extended advertising"
    static let usage = "beacon-tx devices [--json]"
    /// The settings of the `Setting` table it takes (and no other).
    static let settings: [Setting] = [.timeout]
    static let options: [OptionSpec] = [
        .flag("--json", "print a JSON list"),
        Setting.timeout.option,
        .flag("--verbose", "log every HCI command and event (btmon style) on stderr"),
    ]
    static let examples = ["beacon-tx devices", "beacon-tx devices --json | jq '.[] | select(.extendedAdvertising)'"]

    /// The fields read from the controller itself (HCI commands on a raw socket: CAP_NET_RAW).
    /// Name, address, bus and up/down come from the kernel's device list, which anyone may read.
    static let controllerFields = ["hciVersion", "hciVersionCode", "manufacturer", "le", "legacyAdvertising",
                                   "extendedAdvertising", "maxAdvertisingDataLength", "advertisingSets"]

    struct Row {
        var info: HCIDeviceInfo
        var caps: ControllerCapabilities?
        var problem: String?
        /// Without CAP_NET_RAW: the controller fields are missing for that reason alone.
        var needsPrivilege = false
        /// Read Advertising Features on the control channel, when it answered.
        var kernel: MGMTAdvertisingFeatures? = nil

        var json: JSON {
            var pairs: [(String, JSON)] = [
                ("name", .string(info.name)), ("address", .string(info.address)),
                ("publicAddress", .bool(!StaticRandomAddress.isMissingPublicAddress(info.address))),
                ("up", .bool(info.isUp)), ("bus", .string(info.bus)),
                ("rfkill", DevicesCommand.rfkillJSON(info.rfkill)),
            ]
            if let caps {
                pairs += [
                    ("hciVersion", .string(caps.version.coreVersion)),
                    ("hciVersionCode", .number(Double(caps.version.hciVersion))),
                    ("manufacturer", .number(Double(caps.version.companyIdentifier))),
                    ("le", .bool(caps.supportsLE)),
                    ("legacyAdvertising", .bool(caps.supportsLegacyAdvertising)),
                    ("extendedAdvertising", .bool(caps.supportsExtendedAdvertising)),
                    ("maxAdvertisingDataLength", caps.maximumAdvertisingDataLength.map { .number(Double($0)) } ?? .null),
                    ("advertisingSets", caps.numberOfSupportedAdvertisingSets.map { .number(Double($0)) } ?? .null),
                ]
                pairs.append(("implausibleAnswers", .array(caps.implausible.map(DevicesCommand.json))))
            }
            if let kernel {
                pairs += [("kernelInstances", .array(kernel.instances.sorted().map { .number(Double($0)) })),
                          ("maxKernelInstances", .number(Double(kernel.maxInstances)))]
            }
            if let problem { pairs.append(("error", .string(problem))) }
            if needsPrivilege { pairs.append(("needCapNetRaw", .array(DevicesCommand.controllerFields.map(JSON.string)))) }
            return .object(pairs)
        }

        var text: String {
            var t = "\(info.name)  \(info.address)\(StaticRandomAddress.isMissingPublicAddress(info.address) ? " (no public address: start advertises from a random static address)" : "")  \(info.isUp ? "up" : "down")  \(info.bus)"
            if let block = info.rfkill, block.isBlocked { t += "  blocked by rfkill (\(block.text))" }
            if let caps {
                t += "  HCI \(caps.version.coreVersion)  LE \(caps.supportsLE ? "yes" : "no")"
                t += "  legacy adv \(caps.supportsLegacyAdvertising ? "yes" : "no")"
                t += "  extended adv " + (caps.supportsExtendedAdvertising
                    ? "yes (max data \(caps.shown(\.maximumAdvertisingDataLength)) bytes, \(caps.shown(\.numberOfSupportedAdvertisingSets)) sets)"
                    : "no")
            }
            if let kernel { t += "  " + KernelAdvertising.text(kernel) }
            if let problem { t += "  (\(problem))" }
            return t
        }
    }

    static func run(_ a: ParsedArguments, _ ctx: ToolContext) throws(CLIError) -> ExitCode {
        var s = Settings()
        try s.apply(settings, from: a)
        let timeout = s.timeoutMilliseconds
        let host: HCIHost
        do { host = try ctx.makeHost() } catch { throw CLIError(error) }
        let devices: [HCIDeviceInfo]
        do { devices = try host.devices().sorted { $0.id < $1.id } } catch { throw CLIError(error) }
        var rows: [Row] = []
        for info in devices {
            if let block = info.rfkill, block.isBlocked {
                rows.append(Row(info: info, caps: nil, problem: "capabilities need the device up, which rfkill prevents: \(block.remedy)"))
                continue
            }
            guard info.isUp else {
                rows.append(Row(info: info, caps: nil, problem: CLIError.downDeviceProblem(info.name)))
                continue
            }
            do {
                var row = Row(info: info, caps: try capabilities(info, host, timeout: timeout, verbose: a.has("--verbose"), ctx), problem: nil)
                row.kernel = try? KernelAdvertising.read(host, index: info.id, timeout: timeout, verbose: a.has("--verbose"), ctx).get()
                rows.append(row)
            } catch where error.code == .noPermission {
                // What the kernel tells anyone stays listed; the controller's own answers need CAP_NET_RAW.
                rows.append(Row(info: info, caps: nil, problem: Self.privilegeProblem, needsPrivilege: true))
            } catch {
                rows.append(Row(info: info, caps: nil, problem: error.message))
            }
        }
        if rows.contains(where: \.needsPrivilege) {
            ctx.note("without CAP_NET_RAW only name, address, bus and up/down are shown; run as root (sudo), or as the beacon-tx service, whose unit grants CAP_NET_RAW and CAP_NET_ADMIN")
        }
        if a.has("--json") {
            ctx.stdout(JSON.array(rows.map(\.json)).pretty)
        } else if rows.isEmpty {
            ctx.stdout("no Bluetooth controllers")
        } else {
            rows.forEach { ctx.stdout($0.text) }
        }
        return .success
    }

    /// `{"soft": false, "hard": false}`, or null for a controller without an rfkill switch.
    static func rfkillJSON(_ block: RFKillBlock?) -> JSON {
        block.map { .object([("soft", .bool($0.soft)), ("hard", .bool($0.hard))]) } ?? .null
    }

    static let privilegeProblem = "HCI version, LE and advertising support need CAP_NET_RAW (they are read from the controller)"

    static func capabilities(_ info: HCIDeviceInfo, _ host: HCIHost, timeout: Int, verbose: Bool, _ ctx: ToolContext) throws(CLIError) -> ControllerCapabilities {
        let opened = try OpenedDevice.open(info, host, .init(device: .index(info.id), timeoutMilliseconds: timeout, verbose: verbose), ctx)
        var caps = opened.caps
        do { try Advertiser.readAdvertisingSetLimits(opened.runner, into: &caps) } catch { throw CLIError(error) }
        return caps
    }

    /// `{"command": "LE Read …", "field": "Num_Supported_Advertising_Sets", "value": 0}`.
    static func json(_ bad: ImplausibleAnswer) -> JSON {
        let name: String = CommandTable.entry(bad.command)?.name ?? bad.command.description
        let pairs: [(String, JSON)] = [("command", .string(name)), ("field", .string(bad.field)), ("value", .number(Double(bad.value)))]
        return .object(pairs)
    }
}

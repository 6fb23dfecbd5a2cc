// SPDX-License-Identifier: Apache-2.0
/// Probing a controller and starting / stopping advertising with the family rule (ARCHITECTURE.md, "Advertising families"):
/// probe first, use one family, switch once on Command Disallowed, explain when both are refused.
public enum Advertiser {
    /// Read Local Version Information, Read Local Supported Commands and LE Read Local Supported
    /// Features. Nothing family-specific is sent: a probe must not lock a fresh controller to a family.
    public static func probe(_ runner: HCICommandRunner) throws(HCIError) -> ControllerCapabilities {
        let version = try LocalVersionInformation(returnParametersOf: runner.run(.readLocalVersionInformation))
        let commands = try runner.run(.readLocalSupportedCommands).supportedCommands ?? []
        var caps = ControllerCapabilities(version: version, supportedCommands: commands, leFeatures: [])
        if caps.supports(.leReadLocalSupportedFeatures) {
            caps.leFeatures = try runner.run(.leReadLocalSupportedFeatures).leFeatures ?? []
        }
        return caps
    }

    /// LE Read Maximum Advertising Data Length and LE Read Number of Supported Advertising Sets, for
    /// `devices`. These are extended advertising commands (they lock a fresh controller to the
    /// extended family), so only `devices` sends them. Informational: some controllers (BlueZ's
    /// emulator among them) list them yet answer Unknown HCI Command; a refusal leaves them unknown.
    public static func readAdvertisingSetLimits(_ runner: HCICommandRunner, into caps: inout ControllerCapabilities) throws(HCIError) {
        guard caps.supportsExtendedAdvertising else { return }
        // Each only when its Supported_Commands bit is set (the feature bit alone does not promise it).
        if caps.supports(.leReadMaximumAdvertisingDataLength) {
            let length = try runner.send(.leReadMaximumAdvertisingDataLength)
            if length.status == .success, let value = length.maximumAdvertisingDataLength {
                caps.maximumAdvertisingDataLength = ImplausibleAnswer.checked(
                    Int(value), ImplausibleAnswer.maximumAdvertisingDataLengthField, of: .leReadMaximumAdvertisingDataLength,
                    allowed: ImplausibleAnswer.maximumAdvertisingDataLengthRange, into: &caps.implausible).map(UInt16.init)
            }
        }
        if caps.supports(.leReadNumberOfSupportedAdvertisingSets) {
            let sets = try runner.send(.leReadNumberOfSupportedAdvertisingSets)
            if sets.status == .success, let value = sets.numberOfSupportedAdvertisingSets {
                caps.numberOfSupportedAdvertisingSets = ImplausibleAnswer.checked(
                    Int(value), ImplausibleAnswer.advertisingSetsField, of: .leReadNumberOfSupportedAdvertisingSets,
                    allowed: ImplausibleAnswer.advertisingSetsRange, into: &caps.implausible).map(UInt8.init)
            }
        }
    }

    /// HCI_Version 9 = Core 5.0, which dropped the 100 ms floor of non-connectable advertising.
    public static let firstVersionWithoutIntervalFloor: UInt8 = 9

    /// The legacy floor rule: on a controller before 5.0, a non-connectable legacy instance needs an
    /// interval of at least 100 ms (0x00A0); nil when `options` keep it (or the family is extended).
    public static func intervalFloorViolation(_ family: AdvertisingFamily, _ options: AdvertisingOptions, _ caps: ControllerCapabilities,
                                              device: String) -> StartError? {
        guard family == .legacy, caps.version.hciVersion < firstVersionWithoutIntervalFloor, !options.connectable,
              options.interval.units < AdvertisingInterval.standard.units else { return nil }
        return .legacyIntervalBelowFloor(device: device, coreVersion: caps.version.coreVersion, interval: options.interval)
    }

    /// Which family `start` uses: `auto` takes the preferred one, a forced family must be supported.
    public static func chooseFamily(_ requested: AdvertisingFamily?, _ caps: ControllerCapabilities, device: String) throws(StartError) -> AdvertisingFamily {
        if let requested {
            guard caps.supports(requested) else { throw .familyUnsupported(requested, device: device) }
            return requested
        }
        guard let family = caps.preferredAdvertisingFamily else { throw .noLEAdvertising(device: device) }
        return family
    }

    /// The family rule for any plan (advertising or scanning): run `first.start`; if a step is refused
    /// with Command Disallowed, or with Unknown HCI Command (a controller that lists the family's
    /// commands and features without implementing them: the Raspberry Pi 4's, RTL8761B), and there is a
    /// `fallback` (the other family's plan), run that once. A step refused for another reason leaves
    /// nothing half-done: that plan's stop runs, best effort.
    public static func startSwitchingOnce<Plan: CommandPlan>(_ runner: HCICommandRunner, _ first: Plan, fallback: Plan?,
                                                             switching: (HCIError) -> Void) throws(FamilyStartError) -> Plan {
        let firstFailure: HCIError
        do {
            try runAll(first.start, runner)
            return first
        } catch let e {
            guard isFamilyRefusal(e), fallback != nil else {
                undo(first, after: e, runner)
                throw .refused(e)
            }
            firstFailure = e
        }
        guard let second = fallback else { throw .refused(firstFailure) }
        // Unknown HCI Command may come after steps that worked: nothing of that family stays.
        if case .commandFailed(_, .unknownHCICommand) = firstFailure { undo(first, after: firstFailure, runner) }
        switching(firstFailure)
        do {
            try runAll(second.start, runner)
            return second
        } catch let e {
            guard case .commandFailed(_, .commandDisallowed) = e else {
                undo(second, after: e, runner)
                throw .refused(e)
            }
            throw .bothDisallowed(first: firstFailure, second: e)
        }
    }

    /// Command Disallowed (the controller is in the other family's mode) or Unknown HCI Command (it does
    /// not implement this family's command it listed).
    public static func isFamilyRefusal(_ e: HCIError) -> Bool {
        guard case let .commandFailed(_, status) = e else { return false }
        return status == .commandDisallowed || status == .unknownHCICommand
    }

    /// Leaves nothing half-done: after the controller refused a step (it answers, so it listens),
    /// the stop plan of that family runs, best effort. Transport errors and timeouts skip this.
    static func undo<Plan: CommandPlan>(_ plan: Plan, after error: HCIError, _ runner: HCICommandRunner) {
        guard case .commandFailed = error else { return }
        stopBestEffort(plan, runner)
    }

    /// `plan`'s stop, every step sent whatever the one before answered.
    static func stopBestEffort<Plan: CommandPlan>(_ plan: Plan, _ runner: HCICommandRunner) {
        for step in plan.stop { _ = try? runner.send(step.command) }
    }

    /// Stops whichever family is active without locking a fresh controller to legacy mode when it
    /// need not. Extended first (when supported): each of `advertisingHandles` is disabled on its own
    /// (a multi-set disable fails whole when one set does not exist); the sets that answered Success
    /// were on and are removed, and nothing legacy is sent. When none was on (Unknown Advertising
    /// Identifier) or the controller is in legacy mode (Command Disallowed), the legacy disable runs;
    /// its Command Disallowed (extended mode, nothing legacy on) counts as already stopped. Returns
    /// the family whose disable took effect last.
    @discardableResult
    public static func stopActive(_ runner: HCICommandRunner, caps: ControllerCapabilities, advertisingHandles: [UInt8]) throws(HCIError) -> AdvertisingFamily {
        if caps.supportsExtendedAdvertising {
            var on: [UInt8] = []
            for handle in advertisingHandles {
                let step = AdvertisingPlan.stopCommands(family: .extended, advertisingHandle: handle)[0]
                let disable = try runner.send(step.command)
                if disable.status == .success { on.append(handle) } else { try check(disable, step) }
            }
            if !on.isEmpty {
                for handle in on { try runner.run(AdvertisingPlan.stopCommands(family: .extended, advertisingHandle: handle)[1]) }
                return .extended
            }
        }
        for step in AdvertisingPlan.stopCommands(family: .legacy) { try runner.run(step) }
        return .legacy
    }

    static func check(_ answer: CommandComplete, _ step: PlannedCommand) throws(HCIError) {
        if let s = answer.status, s != .success, !step.tolerated.contains(s) {
            throw .commandFailed(opcode: step.command.opcode, status: s)
        }
    }

    static func runAll(_ steps: [PlannedCommand], _ runner: HCICommandRunner) throws(HCIError) {
        for step in steps { try runner.run(step) }
    }
}

/// A plan the family rule applies to: commands to start and to stop.
public protocol CommandPlan {
    var start: [PlannedCommand] { get }
    var stop: [PlannedCommand] { get }
}

extension AdvertisingPlan: CommandPlan {}
extension ScanPlan: CommandPlan {}

/// Why `Advertiser.startSwitchingOnce` gave up.
public enum FamilyStartError: Error, Equatable, Sendable {
    /// A step failed for a reason other than the family rule (or there was no other family).
    case refused(HCIError)
    /// Both families answered Command Disallowed.
    case bothDisallowed(first: HCIError, second: HCIError)
}

/// Why `start` could not begin advertising.
public enum StartError: Error, Equatable, Sendable, CustomStringConvertible {
    case command(HCIError)
    case familyUnsupported(AdvertisingFamily, device: String)
    case noLEAdvertising(device: String)
    case bothFamiliesDisallowed(device: String, first: HCIError, second: HCIError)
    /// `--controller FAMILY` was forced and the controller answered Command Disallowed: it is locked
    /// to the other family (until a reset), so the forced family cannot run; nothing is switched.
    case forcedFamilyDisallowed(AdvertisingFamily, device: String, HCIError)
    /// A controller before Core 5.0 requires Advertising_Interval ≥ 100 ms for ADV_NONCONN_IND (Vol 6,
    /// Part B, §4.4.2.2): refused before anything is sent.
    case legacyIntervalBelowFloor(device: String, coreVersion: String, interval: AdvertisingInterval)

    public var description: String {
        switch self {
        case let .command(e): return e.description
        case let .familyUnsupported(f, device):
            return f == .extended
                ? "\(device) does not support extended advertising (LE feature bit 12 / commands 0x2036-0x2039)"
                : "\(device) does not support legacy LE advertising commands"
        case let .noLEAdvertising(device):
            return "\(device) supports neither legacy nor extended LE advertising"
        case let .bothFamiliesDisallowed(device, first, second):
            return "\(device) refused both advertising families (\(first); \(second))"
        case let .forcedFamilyDisallowed(family, device, e):
            return "\(device) refused \(family) advertising (\(e)): it is in \(family.other) advertising mode, and the \(family) family was forced"
        case let .legacyIntervalBelowFloor(device, version, interval):
            return "interval \(interval.text) is below \(AdvertisingInterval.standard.text), the floor for non-connectable legacy advertising before Bluetooth 5.0, and \(device) is Bluetooth \(version)"
        }
    }
}

extension LocalVersionInformation {
    init(returnParametersOf cc: CommandComplete) throws(HCIError) {
        do { try self.init(returnParameters: cc.returnParameters) } catch { throw .malformedEvent(opcode: cc.opcode, error) }
    }
}

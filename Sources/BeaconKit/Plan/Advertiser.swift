/// Probing a controller and starting / stopping advertising with the fallback rules of DESIGN §3:
/// probe first, use one family, switch once on Command Disallowed, explain when both are refused.
public enum Advertiser {
    /// Read Local Version Information, Read Local Supported Commands and LE Read Local Supported
    /// Features. Nothing family-specific is sent: a probe must not lock a fresh controller to a family.
    public static func probe(_ runner: HCICommandRunner) throws(HCIError) -> ControllerCapabilities {
        let version = try LocalVersionInformation(returnParametersOf: runner.run(.readLocalVersionInformation))
        let commands = try runner.run(.readLocalSupportedCommands).returnParameters.dropFirst()
        var caps = ControllerCapabilities(version: version, supportedCommands: Array(commands), leFeatures: [])
        if caps.supports(.leReadLocalSupportedFeatures) {
            caps.leFeatures = Array(try runner.run(.leReadLocalSupportedFeatures).returnParameters.dropFirst())
        }
        return caps
    }

    /// LE Read Maximum Advertising Data Length and LE Read Number of Supported Advertising Sets, for
    /// `devices`. These are extended advertising commands (they lock a fresh controller to the
    /// extended family), so only `devices` sends them. Informational: some controllers (BlueZ's
    /// emulator among them) list them yet answer Unknown HCI Command; a refusal leaves them unknown.
    public static func readAdvertisingSetLimits(_ runner: HCICommandRunner, into caps: inout ControllerCapabilities) throws(HCIError) {
        guard caps.supportsExtendedAdvertising else { return }
        let length = try runner.send(.leReadMaximumAdvertisingDataLength)
        if length.status == .success {
            var r = ByteReader(length.returnParameters.dropFirst())
            caps.maximumAdvertisingDataLength = try? r.readUInt16LE()
        }
        let sets = try runner.send(.leReadNumberOfSupportedAdvertisingSets)
        if sets.status == .success { caps.numberOfSupportedAdvertisingSets = sets.returnParameters.dropFirst().first }
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

    /// Runs the start plan of `family`; on Command Disallowed (0x0c) — the controller is locked to
    /// the other family — switches once. Returns the plan that succeeded.
    public static func start(_ runner: HCICommandRunner, plan makePlan: (AdvertisingFamily) -> AdvertisingPlan,
                             family: AdvertisingFamily, caps: ControllerCapabilities, device: String,
                             log: (String) -> Void) throws(StartError) -> AdvertisingPlan {
        let first = makePlan(family)
        let firstFailure: HCIError
        do {
            try runAll(first.start, runner)
            return first
        } catch let e {
            guard case .commandFailed(_, .commandDisallowed) = e, caps.supports(family.other) else {
                undo(first, after: e, runner)
                throw .command(e)
            }
            firstFailure = e
        }
        log("\(device): \(firstFailure); the controller is in \(family.other) advertising mode, switching to \(family.other) commands")
        let second = makePlan(family.other)
        do {
            try runAll(second.start, runner)
            return second
        } catch let e {
            guard case .commandFailed(_, .commandDisallowed) = e else {
                undo(second, after: e, runner)
                throw .command(e)
            }
            throw .bothFamiliesDisallowed(device: device, first: firstFailure, second: e)
        }
    }

    /// Leaves nothing half-done: after the controller refused a step (it answers, so it listens),
    /// the stop plan of that family runs, best effort. Transport errors and timeouts skip this.
    static func undo(_ plan: AdvertisingPlan, after error: HCIError, _ runner: HCICommandRunner) {
        guard case .commandFailed = error else { return }
        for step in plan.stop { _ = try? runner.send(step.command) }
    }

    /// Stops whichever family is active without locking a fresh controller to legacy mode when it
    /// need not. Extended first (when supported): Success means our set was on, so it is removed and
    /// nothing legacy is sent. Unknown Advertising Identifier (no set of ours) or Command Disallowed
    /// (legacy mode) lead to the legacy disable, whose Command Disallowed (extended mode, nothing
    /// legacy on) counts as already stopped. Returns the family whose disable took effect last.
    @discardableResult
    public static func stopActive(_ runner: HCICommandRunner, caps: ControllerCapabilities, advertisingHandle: UInt8 = 0) throws(HCIError) -> AdvertisingFamily {
        if caps.supportsExtendedAdvertising {
            let steps = AdvertisingPlan.stopCommands(family: .extended, advertisingHandle: advertisingHandle)
            let disable = try runner.send(steps[0].command)
            if disable.status == .success {
                for step in steps.dropFirst() { try runner.run(step) }
                return .extended
            }
            try check(disable, steps[0])
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

/// Why `start` could not begin advertising.
public enum StartError: Error, Equatable, Sendable, CustomStringConvertible {
    case command(HCIError)
    case familyUnsupported(AdvertisingFamily, device: String)
    case noLEAdvertising(device: String)
    case bothFamiliesDisallowed(device: String, first: HCIError, second: HCIError)

    public var description: String {
        switch self {
        case let .command(e): return e.description
        case let .familyUnsupported(f, device):
            return f == .extended
                ? "\(device) does not support extended advertising (LE feature bit 12 / commands 0x2036-0x2039); use --controller legacy or auto"
                : "\(device) does not support legacy LE advertising commands; use --controller extended or auto"
        case let .noLEAdvertising(device):
            return "\(device) supports neither legacy nor extended LE advertising"
        case let .bothFamiliesDisallowed(device, first, second):
            return "\(device) refused both advertising families (\(first); \(second)): something else, usually bluetoothd or the kernel's own advertising (btmgmt add-adv), holds the controller; retry with --reset, or stop it (bluetoothctl advertise off / btmgmt clr-adv)"
        }
    }
}

extension LocalVersionInformation {
    init(returnParametersOf cc: CommandComplete) throws(HCIError) {
        do { try self.init(returnParameters: cc.returnParameters) } catch { throw .malformedEvent(opcode: cc.opcode, error) }
    }
}

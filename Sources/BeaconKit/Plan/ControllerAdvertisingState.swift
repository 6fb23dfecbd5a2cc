// SPDX-License-Identifier: Apache-2.0
/// The controller's advertising state as the commands sent to it make it: the legacy instance and
/// every extended set (parameters, data, scan response, enable, random address), and which family
/// the mixing rule has locked it to.
///
/// One model for three readers:
/// - the session (`AdvertisingSession`): another program's command is a disruption exactly when it
///   changes what the desired state puts on our placements;
/// - `verify` (`CaptureVerifier`): replaying a capture's successful commands says when each
///   placement was on air;
/// - the tests' behavioural controller, which answers from it (`answer(_:)`), as BlueZ's emulator
///   does.
///
/// `answer(_:)` knows the Core spec rules the live path meets: the legacy/extended mixing rule,
/// Unknown Advertising Identifier, parameters refused while a set is enabled, data while enabled,
/// Memory Capacity Exceeded. Pure: commands in, state out.
public struct ControllerAdvertisingState: Hashable, Sendable {
    /// One advertising instance: the legacy one or an extended set.
    public struct Instance: Hashable, Sendable {
        /// The parameter octets of the last Set (Extended) Advertising Parameters; nil before any.
        public private(set) var parameters: [UInt8]?
        public var data: [UInt8] = []
        public var scanResponse: [UInt8] = []
        public var enabled = false
        /// The random address (display order reversed, as sent); nil before any.
        public var randomAddress: [UInt8]?
        /// The instance uses a random own address (Own_Address_Type 0x01 or 0x03), so a new random
        /// address changes what is on air.
        private(set) var usesRandomAddress = false

        public init() {}

        /// Parameters as an accepted Set (Extended) Advertising Parameters leaves them; the fact
        /// `onAir` reads is decoded here, once, not on every comparison.
        mutating func setParameters(_ described: DescribedCommand) {
            parameters = described.command.parameters
            usesRandomAddress = (described.integer(DescribedCommand.Field.ownAddressType) ?? 0) & 0x01 == 0x01
        }
    }

    /// Where an instance sits: the legacy instance or an extended set.
    public enum Placement: Hashable, Sendable, Comparable {
        case legacy
        case set(UInt8)

        public var text: String {
            switch self {
            case .legacy: return "legacy instance"
            case let .set(h): return "set \(h)"
            }
        }
    }

    public var legacy = Instance()
    public var sets: [UInt8: Instance] = [:]
    /// The family the controller accepted advertising or scanning commands of since the last HCI
    /// Reset; the other family's commands are refused with Command Disallowed.
    public var lockedFamily: AdvertisingFamily?
    /// How many sets the controller has (LE Read Number of Supported Advertising Sets); nil = no limit.
    public var numberOfSupportedAdvertisingSets: Int?

    public init(numberOfSupportedAdvertisingSets: Int? = nil) {
        self.numberOfSupportedAdvertisingSets = numberOfSupportedAdvertisingSets
    }

    public subscript(_ placement: Placement) -> Instance? {
        switch placement {
        case .legacy: return legacy
        case let .set(h): return sets[h]
        }
    }

    /// The placement an advertising command names (legacy commands: the legacy instance).
    public static func placements(of command: HCICommand) -> [Placement] {
        if let enable = LESetExtendedAdvertisingEnable(command) { return enable.handles.map(Placement.set) }
        guard let d = DescribedCommand(command) else { return [] }
        if let h = d.advertisingHandle { return [.set(h)] }
        return CommandTable.touchesLegacyInstance(command.opcode) ? [.legacy] : []
    }

    /// What the controller answers `command` with, by the Core spec rules it knows; nothing changes.
    public func answer(_ command: HCICommand) -> Status {
        answer(command, DescribedCommand(command))
    }

    private func answer(_ command: HCICommand, _ f: DescribedCommand?) -> Status {
        if let locked = lockedFamily, let family = f?.family.advertisingFamily, family != locked { return .commandDisallowed }
        switch command.opcode {
        case .leSetAdvertisingParameters, .leSetRandomAddress:
            return legacy.enabled ? .commandDisallowed : .success
        case .leSetExtendedAdvertisingParameters:
            guard let h = f?.advertisingHandle else { return .invalidHCICommandParameters }
            if let set = sets[h] { return set.enabled ? .commandDisallowed : .success }
            if let limit = numberOfSupportedAdvertisingSets, sets.count >= limit { return .memoryCapacityExceeded }
            return .success
        case .leSetExtendedAdvertisingData, .leSetExtendedScanResponseData:
            guard let h = f?.advertisingHandle else { return .invalidHCICommandParameters }
            guard let set = sets[h] else { return .unknownAdvertisingIdentifier }
            // While enabled, only complete data (Operation 0x03) or unchanged data (0x04) is allowed.
            let operation = f?.integer(DescribedCommand.Field.operation) ?? 0
            return set.enabled && operation != 0x03 && operation != 0x04 ? .commandDisallowed : .success
        case .leSetAdvertisingSetRandomAddress:
            guard let h = f?.advertisingHandle else { return .invalidHCICommandParameters }
            return sets[h] == nil ? .unknownAdvertisingIdentifier : .success
        case .leRemoveAdvertisingSet:
            guard let h = f?.advertisingHandle else { return .invalidHCICommandParameters }
            guard let set = sets[h] else { return .unknownAdvertisingIdentifier }
            return set.enabled ? .commandDisallowed : .success
        case .leClearAdvertisingSets:
            return sets.values.contains(where: \.enabled) ? .commandDisallowed : .success
        case .leSetExtendedAdvertisingEnable:
            guard let e = f.flatMap(LESetExtendedAdvertisingEnable.init) else { return .invalidHCICommandParameters }
            if e.enable, e.sets.isEmpty { return .invalidHCICommandParameters }
            return e.handles.allSatisfy { sets[$0] != nil } ? .success : .unknownAdvertisingIdentifier
        default:
            return f == nil && CommandTable.description(command.opcode) != nil ? .invalidHCICommandParameters : .success
        }
    }

    /// Applies `command` as accepted (the controller answered success); nothing is checked.
    public mutating func apply(_ command: HCICommand) {
        apply(command, DescribedCommand(command))
    }

    private mutating func apply(_ command: HCICommand, _ described: DescribedCommand?) {
        if command.opcode == .reset {
            self = ControllerAdvertisingState(numberOfSupportedAdvertisingSets: numberOfSupportedAdvertisingSets)
            return
        }
        guard let d = described else { return }
        if let family = d.family.advertisingFamily { lockedFamily = family }
        switch command.opcode {
        case .leSetAdvertisingParameters:
            legacy.setParameters(d)
        case .leSetAdvertisingData:
            legacy.data = d.data ?? []
        case .leSetScanResponseData:
            legacy.scanResponse = d.data ?? []
        case .leSetAdvertisingEnable:
            legacy.enabled = LESetAdvertisingEnable(d)?.advertisingEnable ?? legacy.enabled
        case .leSetRandomAddress:
            legacy.randomAddress = d.bytes(DescribedCommand.Field.randomAddress)
        case .leSetExtendedAdvertisingParameters:
            guard let h = d.advertisingHandle else { return }
            sets[h, default: Instance()].setParameters(d)
        case .leSetExtendedAdvertisingData, .leSetExtendedScanResponseData:
            // Only complete data (Operation 0x03) is modelled; fragments are not beacon-tx's.
            guard let h = d.advertisingHandle, d.integer(DescribedCommand.Field.operation) == UInt32(HCICommand.operationComplete) else { return }
            if command.opcode == .leSetExtendedAdvertisingData {
                sets[h, default: Instance()].data = d.data ?? []
            } else {
                sets[h, default: Instance()].scanResponse = d.data ?? []
            }
        case .leSetAdvertisingSetRandomAddress:
            guard let h = d.advertisingHandle else { return }
            sets[h, default: Instance()].randomAddress = d.bytes(DescribedCommand.Field.randomAddress)
        case .leSetExtendedAdvertisingEnable:
            guard let e = LESetExtendedAdvertisingEnable(d) else { return }
            if e.disablesAll {
                for h in sets.keys { sets[h]?.enabled = false }
            } else {
                for h in e.handles where sets[h] != nil || e.enable { sets[h, default: Instance()].enabled = e.enable }
            }
        case .leRemoveAdvertisingSet:
            if let h = d.advertisingHandle { sets[h] = nil }
        case .leClearAdvertisingSets:
            sets = [:]
        default:
            break
        }
    }

    /// Answers, then applies on success: what a controller does with `command`.
    public mutating func execute(_ command: HCICommand) -> Status {
        let described = DescribedCommand(command)
        let status = answer(command, described)
        if status == .success { apply(command, described) }
        return status
    }

    /// The part of the state that decides what `placements` put on air: each instance's parameters,
    /// data and enable; the random address when it advertises from one (Own_Address_Type random): a
    /// public instance ignores it, and LE Set Random Address also serves scanning and initiating, so
    /// the kernel writes it for its own reasons. Not the scan response: beacon-tx writes none, the
    /// iBeacon is in the advertising data, and only an active scanner asks for one (bluetoothd writes
    /// its name there); `verify` leaves scan response writes out the same way. `fuzz-session` found
    /// the difference: a foreign scan response on a connectable beacon counted as a disruption that no
    /// re-arm could undo.
    public func onAir(_ placements: [Placement]) -> [Placement: Instance] {
        var out: [Placement: Instance] = [:]
        for p in placements {
            var instance = self[p] ?? Instance()
            if !instance.usesRandomAddress { instance.randomAddress = nil }
            instance.scanResponse = []
            out[p] = instance
        }
        return out
    }

    /// The state `commands` leave on a fresh controller.
    public static func after(_ commands: [HCICommand], numberOfSupportedAdvertisingSets: Int? = nil) -> ControllerAdvertisingState {
        var s = ControllerAdvertisingState(numberOfSupportedAdvertisingSets: numberOfSupportedAdvertisingSets)
        for c in commands { s.apply(c) }
        return s
    }
}

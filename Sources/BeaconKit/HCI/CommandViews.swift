// SPDX-License-Identifier: Apache-2.0
/// A command read through its description in `CommandTable`: each parameter by its spec name. The
/// typed views below are built on it, so behaviour code reads no byte offsets; a field renamed or
/// moved in the table moves every reader with it (`CommandTableTests` checks each view's names).
public struct DescribedCommand: Sendable {
    public let command: HCICommand
    public let description: HCICommandDescription
    public let values: [HCIValue]

    /// Nil for a command not in the table, or whose parameters do not fit its fields (bytes from
    /// another program or a file: never a trap).
    public init?(_ command: HCICommand) {
        guard let d = CommandTable.description(command.opcode), let values = try? d.decodeParameters(command.parameters) else { return nil }
        self.command = command
        description = d
        self.values = values
    }

    public var opcode: Opcode { command.opcode }
    public var family: CommandFamily { description.family }

    /// The value of the top-level field `name`.
    public subscript(_ name: String) -> HCIValue? {
        description.parameters.firstIndex { $0.name == name }.flatMap { values.indices.contains($0) ? values[$0] : nil }
    }

    public func integer(_ name: String) -> UInt32? { self[name]?.integer }
    public func bytes(_ name: String) -> [UInt8]? { self[name]?.bytes }

    /// The entries of the repeated group `name`, each as its fields by name.
    public func entries(_ name: String) -> [[String: HCIValue]] {
        guard let i = description.parameters.firstIndex(where: { $0.name == name }), values.indices.contains(i),
              case let .repeated(_, _, group) = description.parameters[i].width, case let .entries(entries) = values[i] else { return [] }
        return entries.map { entry in Dictionary(zip(group.map(\.name), entry), uniquingKeysWith: { a, _ in a }) }
    }

    /// `Advertising_Handle`: the set an extended advertising command names; nil for the others.
    public var advertisingHandle: UInt8? { integer(Field.advertisingHandle).map { UInt8(truncatingIfNeeded: $0) } }

    /// The advertising or scan response data a set-data command carries, legacy or extended.
    public var data: [UInt8]? { bytes(Field.advertisingData) ?? bytes(Field.scanResponseData) }

    /// The spec names the views read (each checked against the table by a test).
    public enum Field {
        public static let advertisingHandle = "Advertising_Handle"
        public static let advertisingData = "Advertising_Data"
        public static let scanResponseData = "Scan_Response_Data"
        public static let operation = "Operation"
        public static let advertisingEnable = "Advertising_Enable"
        public static let enable = "Enable"
        public static let sets = "Sets"
        public static let randomAddress = "Random_Address"
        public static let ownAddressType = "Own_Address_Type"
        public static let duration = "Duration"
        public static let maxExtendedAdvertisingEvents = "Max_Extended_Advertising_Events"
        public static let advertisingEventProperties = "Advertising_Event_Properties"
        public static let advertisingType = "Advertising_Type"
    }

    /// Every (opcode, field name) a view reads, for the table test.
    public static let fieldsRead: [(Opcode, String)] = [
        (.leSetAdvertisingData, Field.advertisingData), (.leSetScanResponseData, Field.scanResponseData),
        (.leSetExtendedAdvertisingData, Field.advertisingData), (.leSetExtendedAdvertisingData, Field.operation),
        (.leSetExtendedAdvertisingData, Field.advertisingHandle), (.leSetExtendedScanResponseData, Field.scanResponseData),
        (.leSetExtendedScanResponseData, Field.advertisingHandle), (.leSetExtendedScanResponseData, Field.operation),
        (.leSetExtendedAdvertisingParameters, Field.advertisingHandle), (.leSetExtendedAdvertisingParameters, Field.ownAddressType),
        (.leSetExtendedAdvertisingParameters, Field.advertisingEventProperties),
        (.leSetAdvertisingParameters, Field.ownAddressType), (.leSetAdvertisingParameters, Field.advertisingType),
        (.leSetAdvertisingSetRandomAddress, Field.advertisingHandle), (.leSetAdvertisingSetRandomAddress, Field.randomAddress),
        (.leSetRandomAddress, Field.randomAddress), (.leRemoveAdvertisingSet, Field.advertisingHandle),
        (.leSetAdvertisingEnable, Field.advertisingEnable),
        (.leSetExtendedAdvertisingEnable, Field.enable), (.leSetExtendedAdvertisingEnable, Field.sets),
    ]
}

/// LE Set Advertising Enable (§7.8.9).
public struct LESetAdvertisingEnable: Sendable {
    public let advertisingEnable: Bool
    public init?(_ command: HCICommand) {
        guard command.opcode == .leSetAdvertisingEnable, let d = DescribedCommand(command) else { return nil }
        self.init(d)
    }

    /// From a command already read through its description (decoded once).
    public init?(_ d: DescribedCommand) {
        guard d.opcode == .leSetAdvertisingEnable, let v = d.integer(DescribedCommand.Field.advertisingEnable) else { return nil }
        advertisingEnable = v == 1
    }
}

/// LE Set Extended Advertising Enable (§7.8.56): enable or disable the sets named; a disable with
/// Number_of_Sets 0 disables every set.
public struct LESetExtendedAdvertisingEnable: Sendable {
    public let enable: Bool
    public let sets: [AdvertisingSetEnable]
    /// A disable of every set (Number_of_Sets 0).
    public var disablesAll: Bool { !enable && sets.isEmpty }

    public init?(_ command: HCICommand) {
        guard command.opcode == .leSetExtendedAdvertisingEnable, let d = DescribedCommand(command) else { return nil }
        self.init(d)
    }

    /// From a command already read through its description (decoded once).
    public init?(_ d: DescribedCommand) {
        typealias F = DescribedCommand.Field
        guard d.opcode == .leSetExtendedAdvertisingEnable, let v = d.integer(F.enable) else { return nil }
        enable = v == 1
        sets = d.entries(F.sets).compactMap { e in
            guard let h = e[F.advertisingHandle]?.integer else { return nil }
            return AdvertisingSetEnable(handle: UInt8(truncatingIfNeeded: h), duration: UInt16(truncatingIfNeeded: e[F.duration]?.integer ?? 0),
                       maxExtendedAdvertisingEvents: UInt8(truncatingIfNeeded: e[F.maxExtendedAdvertisingEvents]?.integer ?? 0))
        }
    }

    public var handles: [UInt8] { sets.map(\.handle) }
}

/// An event read through its description in `EventTable`: each field by its spec name.
public struct DescribedEvent: Sendable {
    public let decoded: DecodedEvent

    public init?(_ event: HCIEvent) {
        guard let d = try? EventTable.decode(event) else { return nil }
        decoded = d
    }

    public var subevent: LEMetaSubevent? { decoded.description.subevent }

    public func integer(_ name: String) -> UInt32? {
        decoded.description.fields.firstIndex { $0.name == name }
            .flatMap { decoded.values.indices.contains($0) ? decoded.values[$0].integer : nil }
    }

    public enum Field {
        public static let status = "Status"
        public static let advertisingHandle = "Advertising_Handle"
        public static let role = "Role"
        public static let hardwareCode = "Hardware_Code"
    }

    /// Every (event name, field name) a view reads, for the table test.
    public static let fieldsRead: [(String, String)] = [
        ("LE Advertising Set Terminated", Field.status), ("LE Advertising Set Terminated", Field.advertisingHandle),
        ("LE Connection Complete", Field.status), ("LE Connection Complete", Field.role),
        ("LE Enhanced Connection Complete", Field.status), ("LE Enhanced Connection Complete", Field.role),
        ("Hardware Error", Field.hardwareCode),
    ]
}

/// LE Advertising Set Terminated (§7.7.65.18): a set ended, by a connection when Status is success.
public struct LEAdvertisingSetTerminated: Sendable {
    public let status: Status
    public let advertisingHandle: UInt8
    public init?(_ event: HCIEvent) {
        typealias F = DescribedEvent.Field
        guard let d = DescribedEvent(event), d.subevent == .advertisingSetTerminated,
              let s = d.integer(F.status), let h = d.integer(F.advertisingHandle) else { return nil }
        status = Status(rawValue: UInt8(truncatingIfNeeded: s))
        advertisingHandle = UInt8(truncatingIfNeeded: h)
    }
}

/// LE Connection Complete or LE Enhanced Connection Complete (§7.7.65.1, §7.7.65.10).
public struct LEConnectionComplete: Sendable {
    public let status: Status
    /// 0x01: the controller is the peripheral (a central connected to what it advertised).
    public let role: UInt8
    public var isPeripheral: Bool { role == 0x01 }
    public init?(_ event: HCIEvent) {
        typealias F = DescribedEvent.Field
        guard let d = DescribedEvent(event), d.subevent == .connectionComplete || d.subevent == .enhancedConnectionComplete,
              let s = d.integer(F.status), let r = d.integer(F.role) else { return nil }
        status = Status(rawValue: UInt8(truncatingIfNeeded: s))
        role = UInt8(truncatingIfNeeded: r)
    }
}

/// Hardware Error (§7.7.16).
public struct HardwareError: Sendable {
    public let hardwareCode: UInt8
    public init?(_ event: HCIEvent) {
        guard event.code == .hardwareError, let d = DescribedEvent(event),
              let c = d.integer(DescribedEvent.Field.hardwareCode) else { return nil }
        hardwareCode = UInt8(truncatingIfNeeded: c)
    }
}

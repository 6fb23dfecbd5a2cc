// SPDX-License-Identifier: Apache-2.0
/// Errors of decoding MGMT packets from the kernel or a capture. Never a trap.
public enum MGMTDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Fewer than the 6 header octets.
    case truncatedHeader(available: Int)
    /// Parameter Length disagrees with the octets after the header.
    case lengthMismatch(expected: Int, actual: Int)
    /// The parameters do not fit the table's fields.
    case fields(String, MGMTFieldError)

    public var description: String {
        switch self {
        case let .truncatedHeader(available): return "MGMT header needs 6 bytes, \(available) available"
        case let .lengthMismatch(expected, actual):
            return "length mismatch: header says \(expected) parameter byte(s), packet has \(actual)"
        case let .fields(name, e): return "\(name): \(e)"
        }
    }
}

/// The 6-octet header of every MGMT packet: code, Controller Index, Parameter Length (all LE).
struct MGMTHeader {
    static let size = 6
    /// `<non-controller>`.
    static let noIndex: UInt16 = 0xFFFF

    static func write(_ code: UInt16, _ index: UInt16, _ parameters: [UInt8]) -> [UInt8] {
        var w = ByteWriter(capacity: size + parameters.count)
        w.writeUInt16LE(code)
        w.writeUInt16LE(index)
        w.writeUInt16LE(UInt16(truncatingIfNeeded: parameters.count))
        w.writeBytes(parameters)
        return w.bytes
    }

    static func read(_ packet: [UInt8]) throws(MGMTDecodingError) -> (code: UInt16, index: UInt16, parameters: [UInt8]) {
        guard packet.count >= size else { throw .truncatedHeader(available: packet.count) }
        let code = UInt16(packet[0]) | UInt16(packet[1]) << 8
        let index = UInt16(packet[2]) | UInt16(packet[3]) << 8
        let length = Int(UInt16(packet[4]) | UInt16(packet[5]) << 8)
        guard packet.count - size == length else { throw .lengthMismatch(expected: length, actual: packet.count - size) }
        return (code, index, Array(packet.dropFirst(size)))
    }
}

/// One MGMT command for one controller (BlueZ doc/mgmt-api, "Packet Structures"). `packet` is what
/// goes on the control channel: `opcode LE | index LE | plen LE | params`.
public struct MGMTCommand: Hashable, Sendable, CustomStringConvertible {
    public let opcode: MGMTOpcode
    public let index: UInt16
    public let parameters: [UInt8]

    public init(_ opcode: MGMTOpcode, index: UInt16, _ parameters: [UInt8] = []) {
        self.opcode = opcode
        self.index = index
        self.parameters = parameters
    }

    public var packet: [UInt8] { MGMTHeader.write(opcode.rawValue, index, parameters) }

    public var description: String { opcode.description }

    /// Parses a command packet, checking the length against the bytes and the table's fields.
    public init(packet: [UInt8]) throws(MGMTDecodingError) {
        let (code, index, parameters) = try MGMTHeader.read(packet)
        let opcode = MGMTOpcode(rawValue: code)
        if let d = MGMTCommandTable.description(opcode) {
            do { _ = try MGMTFields.decode(parameters, d.parameters) } catch { throw .fields(d.name, error) }
        }
        self.init(opcode, index: index, parameters)
    }

    /// The decoded parameter values (nil for a code the table does not know or bytes that do not fit).
    public var values: [HCIValue]? {
        guard let d = MGMTCommandTable.description(opcode) else { return nil }
        return try? MGMTFields.decode(parameters, d.parameters)
    }

    /// The Instance parameter of the advertising commands that carry one.
    public var instance: UInt8? {
        switch opcode {
        case .addAdvertising, .removeAdvertising, .getAdvertisingSizeInformation,
             .addExtendedAdvertisingParameters, .addExtendedAdvertisingData:
            return parameters.first
        default: return nil
        }
    }

    /// The advertising data of Add Advertising or Add Extended Advertising Data.
    public var advertisingData: [UInt8]? {
        guard opcode == .addAdvertising || opcode == .addExtendedAdvertisingData,
              let d = MGMTCommandTable.description(opcode), let values = try? MGMTFields.decode(parameters, d.parameters)
        else { return nil }
        let name = opcode == .addAdvertising ? "Adv_Data" : "Advertising Data"
        return d.parameters.firstIndex { $0.name == name }.flatMap { values[$0].bytes }
    }

    /// The commands whose HCI commands `verify` attributes to the program that sent them: every one
    /// in the table that makes the kernel touch the controller (not the reads).
    public static let names: [UInt16: String] = Dictionary(
        MGMTCommandTable.descriptions.filter { ![.readControllerInformation, .readAdvertisingFeatures, .getAdvertisingSizeInformation].contains($0.opcode) }
            .map { ($0.opcode.rawValue, $0.name) }, uniquingKeysWith: { a, _ in a })

    /// `Remove Advertising (0x003f)`, or `MGMT command (0x00ff)`.
    public static func text(_ opcode: UInt16) -> String {
        "\(names[opcode] ?? MGMTOpcode(rawValue: opcode).name ?? "MGMT command") (\(Hex.word(opcode)))"
    }

    static func described(_ opcode: MGMTOpcode, index: UInt16, _ values: [HCIValue]) -> MGMTCommand {
        // Every opcode used here is in the table (MGMTTableTests).
        MGMTCommandTable.description(opcode)?.command(index: index, values) ?? MGMTCommand(opcode, index: index)
    }

    /// Read Controller Information (0x0004).
    public static func readControllerInformation(index: UInt16) -> MGMTCommand { MGMTCommand(.readControllerInformation, index: index) }

    /// Read Advertising Features (0x003d).
    public static func readAdvertisingFeatures(index: UInt16) -> MGMTCommand { MGMTCommand(.readAdvertisingFeatures, index: index) }

    /// Add Advertising (0x003e): Duration and Timeout in seconds (0: the kernel's default of 2 s, no timeout).
    public static func addAdvertising(index: UInt16, instance: UInt8, flags: MGMTAdvertisingFlags, duration: UInt16,
                                      timeout: UInt16 = 0, advertisingData: [UInt8], scanResponse: [UInt8] = []) -> MGMTCommand {
        described(.addAdvertising, index: index, [
            .int(instance), .int(flags.rawValue), .int(duration), .int(timeout), .int(0), .int(0),
            .bytes(advertisingData), .bytes(scanResponse),
        ])
    }

    /// Remove Advertising (0x003f); instance 0 removes every instance (never sent by beacon-tx).
    public static func removeAdvertising(index: UInt16, instance: UInt8) -> MGMTCommand {
        described(.removeAdvertising, index: index, [.int(instance)])
    }

    /// Get Advertising Size Information (0x0040).
    public static func getAdvertisingSizeInformation(index: UInt16, instance: UInt8, flags: MGMTAdvertisingFlags) -> MGMTCommand {
        described(.getAdvertisingSizeInformation, index: index, [.int(instance), .int(flags.rawValue)])
    }

    /// Add Extended Advertising Parameters (0x0054): intervals in 0.625 ms units, used when `flags`
    /// has `intervalParameters` (Duration with `durationParameter`, TxPower with `txPowerParameter`).
    public static func addExtendedAdvertisingParameters(index: UInt16, instance: UInt8, flags: MGMTAdvertisingFlags,
                                                        duration: UInt16, timeout: UInt16 = 0, minInterval: UInt32,
                                                        maxInterval: UInt32, txPower: Int8 = 0) -> MGMTCommand {
        described(.addExtendedAdvertisingParameters, index: index, [
            .int(instance), .int(flags.rawValue), .int(duration), .int(timeout), .int(minInterval), .int(maxInterval),
            .int(UInt8(bitPattern: txPower)),
        ])
    }

    /// Add Extended Advertising Data (0x0055).
    public static func addExtendedAdvertisingData(index: UInt16, instance: UInt8, advertisingData: [UInt8],
                                                  scanResponse: [UInt8] = []) -> MGMTCommand {
        described(.addExtendedAdvertisingData, index: index, [
            .int(instance), .int(0), .int(0), .bytes(advertisingData), .bytes(scanResponse),
        ])
    }
}

/// One MGMT event from the control channel: code, Controller Index, parameters.
public struct MGMTEvent: Hashable, Sendable, CustomStringConvertible {
    public let code: MGMTEventCode
    public let index: UInt16
    public let parameters: [UInt8]

    public init(_ code: MGMTEventCode, index: UInt16, _ parameters: [UInt8] = []) {
        self.code = code
        self.index = index
        self.parameters = parameters
    }

    public init(packet: [UInt8]) throws(MGMTDecodingError) {
        let (code, index, parameters) = try MGMTHeader.read(packet)
        self.init(MGMTEventCode(rawValue: code), index: index, parameters)
    }

    public var packet: [UInt8] { MGMTHeader.write(code.rawValue, index, parameters) }
    public var description: String { code.description }

    /// What an event means to a caller, with its fields decoded.
    public enum Kind: Equatable, Sendable {
        case commandComplete(MGMTOpcode, MGMTStatus, returnParameters: [UInt8])
        case commandStatus(MGMTOpcode, MGMTStatus)
        case controllerError(UInt8)
        case indexAdded
        case indexRemoved
        case newSettings(MGMTSettings)
        case advertisingAdded(instance: UInt8)
        case advertisingRemoved(instance: UInt8)
        /// An event the table does not list (beacon-tx ignores it).
        case other
    }

    /// The command a Command Complete or Command Status answers, read from its first field even when
    /// the rest does not decode (a malformed answer is still an answer to that command); nil for other
    /// events or when not even the opcode is there.
    public var answeredOpcode: MGMTOpcode? {
        guard code == .commandComplete || code == .commandStatus else { return nil }
        var r = ByteReader(parameters)
        return (try? r.readUInt16LE()).map(MGMTOpcode.init(rawValue:))
    }

    /// The status of a Command Complete or Command Status (its second field); nil for other events
    /// or when it is not there.
    public var answeredStatus: MGMTStatus? {
        guard code == .commandComplete || code == .commandStatus else { return nil }
        var r = ByteReader(parameters)
        guard (try? r.readUInt16LE()) != nil, let s = try? r.readUInt8() else { return nil }
        return MGMTStatus(rawValue: s)
    }

    /// The decoded event, or the field the parameters do not fit.
    public func decoded() throws(MGMTDecodingError) -> Kind {
        guard let d = MGMTEventTable.description(code) else { return .other }
        let v: [HCIValue]
        do { v = try MGMTFields.decode(parameters, d.fields) } catch { throw .fields(d.name, error) }
        func int(_ i: Int) -> UInt32 { v[i].integer ?? 0 }
        switch code {
        case .commandComplete:
            return .commandComplete(MGMTOpcode(rawValue: UInt16(truncatingIfNeeded: int(0))), MGMTStatus(rawValue: UInt8(truncatingIfNeeded: int(1))),
                                    returnParameters: v[2].bytes ?? [])
        case .commandStatus:
            return .commandStatus(MGMTOpcode(rawValue: UInt16(truncatingIfNeeded: int(0))), MGMTStatus(rawValue: UInt8(truncatingIfNeeded: int(1))))
        case .controllerError: return .controllerError(UInt8(truncatingIfNeeded: int(0)))
        case .indexAdded: return .indexAdded
        case .indexRemoved: return .indexRemoved
        case .newSettings: return .newSettings(MGMTSettings(rawValue: int(0)))
        case .advertisingAdded: return .advertisingAdded(instance: UInt8(truncatingIfNeeded: int(0)))
        case .advertisingRemoved: return .advertisingRemoved(instance: UInt8(truncatingIfNeeded: int(0)))
        default: return .other
        }
    }

    /// A Command Complete answering `command` (for the scripted kernel in tests and for dry runs).
    public static func complete(_ command: MGMTCommand, _ status: MGMTStatus = .success, _ returnParameters: [UInt8]) -> MGMTEvent {
        var w = ByteWriter(capacity: 3 + returnParameters.count)
        w.writeUInt16LE(command.opcode.rawValue)
        w.writeUInt8(status.rawValue)
        w.writeBytes(returnParameters)
        return MGMTEvent(.commandComplete, index: command.index, w.bytes)
    }

    /// A Command Status answering `command`.
    public static func status(_ command: MGMTCommand, _ status: MGMTStatus) -> MGMTEvent {
        var w = ByteWriter(capacity: 3)
        w.writeUInt16LE(command.opcode.rawValue)
        w.writeUInt8(status.rawValue)
        return MGMTEvent(.commandStatus, index: command.index, w.bytes)
    }
}

/// Read Advertising Features' return parameters.
public struct MGMTAdvertisingFeatures: Equatable, Sendable {
    public var supportedFlags: MGMTAdvertisingFlags
    public var maxAdvertisingDataLength: UInt8
    public var maxScanResponseLength: UInt8
    public var maxInstances: UInt8
    /// The instance identifiers in use now (by bluetoothd, btmgmt, other programs, or us).
    public var instances: [UInt8]

    public init(supportedFlags: MGMTAdvertisingFlags, maxAdvertisingDataLength: UInt8 = 31, maxScanResponseLength: UInt8 = 31,
                maxInstances: UInt8, instances: [UInt8]) {
        self.supportedFlags = supportedFlags
        self.maxAdvertisingDataLength = maxAdvertisingDataLength
        self.maxScanResponseLength = maxScanResponseLength
        self.maxInstances = maxInstances
        self.instances = instances
    }

    public init(returnParameters bytes: [UInt8]) throws(MGMTDecodingError) {
        let fields = MGMTCommandTable.description(.readAdvertisingFeatures)?.returnParameters ?? []
        let v: [HCIValue]
        do { v = try MGMTFields.decode(bytes, fields) } catch { throw .fields("Read Advertising Features", error) }
        supportedFlags = MGMTAdvertisingFlags(rawValue: v[0].integer ?? 0)
        maxAdvertisingDataLength = UInt8(truncatingIfNeeded: v[1].integer ?? 0)
        maxScanResponseLength = UInt8(truncatingIfNeeded: v[2].integer ?? 0)
        maxInstances = UInt8(truncatingIfNeeded: v[3].integer ?? 0)
        instances = v[5].bytes ?? []
    }

    /// The return parameters these values encode to.
    public var returnParameters: [UInt8] {
        MGMTFields.encode([.int(supportedFlags.rawValue), .int(maxAdvertisingDataLength), .int(maxScanResponseLength),
                           .int(maxInstances), .int(UInt8(truncatingIfNeeded: instances.count)), .bytes(instances)],
                          MGMTCommandTable.description(.readAdvertisingFeatures)?.returnParameters ?? [])
    }

    /// `count` free instance identifiers from the highest down (bluetoothd and btmgmt take the lowest
    /// first), or nil when fewer are free.
    public func freeInstances(_ count: Int, keeping ours: [UInt8] = []) -> [UInt8]? {
        guard maxInstances > 0 else { return nil }
        let taken = Set(instances).subtracting(ours)
        let free = (1...maxInstances).reversed().filter { !taken.contains($0) }
        return free.count >= count ? Array(free.prefix(count)) : nil
    }
}

/// Read Controller Information's return parameters that beacon-tx reads.
public struct MGMTControllerInformation: Equatable, Sendable {
    /// `00:AA:01:00:00:23`.
    public var address: String
    public var supportedSettings: MGMTSettings
    public var currentSettings: MGMTSettings

    public init(returnParameters bytes: [UInt8]) throws(MGMTDecodingError) {
        let fields = MGMTCommandTable.description(.readControllerInformation)?.returnParameters ?? []
        let v: [HCIValue]
        do { v = try MGMTFields.decode(bytes, fields) } catch { throw .fields("Read Controller Information", error) }
        address = fields[0].valueText(v[0])
        supportedSettings = MGMTSettings(rawValue: v[3].integer ?? 0)
        currentSettings = MGMTSettings(rawValue: v[4].integer ?? 0)
    }
}

/// btmon-style text of MGMT commands and events (dry-run `text`, `--verbose`).
public enum MGMTText {
    static let indent = "        "

    /// `[hci0]`, or nothing for `<non-controller>`.
    static func indexText(_ index: UInt16) -> String { index == MGMTHeader.noIndex ? "" : " [\(HCIDeviceInfo.name(of: index))]" }

    /// `@ MGMT Command: Add Advertising (0x003e) plen 41 [hci0]`
    public static func traceLine(_ c: MGMTCommand) -> String {
        "@ MGMT Command: \(c.opcode) plen \(c.parameters.count)\(indexText(c.index))"
    }

    /// `@ MGMT Event: Command Complete (0x0001) plen 4 [hci0]`, with the command and status for answers.
    public static func traceLine(_ e: MGMTEvent) -> String {
        var line = "@ MGMT Event: \(e.code) plen \(e.parameters.count)\(indexText(e.index))"
        switch try? e.decoded() {
        case let .commandComplete(op, status, _)?, let .commandStatus(op, status)?: line += " \(op): \(status)"
        case let .advertisingAdded(i)?, let .advertisingRemoved(i)?: line += " instance \(i)"
        case let .newSettings(s)?: line += " " + MGMTFields.settingsText(s.rawValue)
        default: break
        }
        return line
    }

    /// Header, decoded fields and the packet as hex.
    public static func describe(_ c: MGMTCommand) -> [String] {
        var lines = [traceLine(c)]
        if let d = MGMTCommandTable.description(c.opcode) {
            do {
                let values = try MGMTFields.decode(c.parameters, d.parameters)
                for (field, value) in zip(d.parameters, values) {
                    lines.append(indent + "\(field.name): \(field.valueText(value))")
                    if case .data = field.width, let b = value.bytes, !b.isEmpty {
                        lines += CommandText.describeAdvertisingData(b).map { indent + "  " + $0 }
                    }
                }
            } catch { lines.append(indent + "Malformed parameters: \(error)") }
        }
        return lines
    }

    /// Header and decoded fields of one event (a Command Complete's return parameters too).
    public static func describe(_ e: MGMTEvent) -> [String] {
        var lines = [traceLine(e)]
        guard case let .commandComplete(op, status, returned)? = try? e.decoded(), status == .success,
              let d = MGMTCommandTable.description(op), let values = try? MGMTFields.decode(returned, d.returnParameters)
        else { return lines }
        lines += MGMTFields.describe(values, d.returnParameters).map { indent + $0 }
        return lines
    }
}

// SPDX-License-Identifier: Apache-2.0
/// HCI event code (Core spec Vol 4, Part E, §7.7). Open struct.
public struct EventCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let disconnectionComplete = EventCode(rawValue: 0x05)
    public static let commandComplete = EventCode(rawValue: 0x0E)
    public static let commandStatus = EventCode(rawValue: 0x0F)
    public static let hardwareError = EventCode(rawValue: 0x10)
    public static let leMeta = EventCode(rawValue: 0x3E)
    /// Not a controller event: BlueZ's kernel reports device state changes with it (EVT_STACK_INTERNAL).
    public static let stackInternal = EventCode(rawValue: 0xFD)

    static let names: [UInt8: String] = [
        0x05: "Disconnection Complete", 0x0E: "Command Complete", 0x0F: "Command Status",
        0x10: "Hardware Error", 0x3E: "LE Meta Event", 0xFD: "Stack Internal",
    ]

    public var name: String { Self.names[rawValue] ?? "Unknown" }
    public var description: String { "\(name) (\(Hex.byte(rawValue)))" }
}

/// One HCI event: `04 | event code | plen | params` in H4 form.
public struct HCIEvent: Hashable, Sendable {
    public let code: EventCode
    public let parameters: [UInt8]

    public init(code: EventCode, parameters: [UInt8]) {
        self.code = code
        self.parameters = parameters
    }

    /// H4 bytes.
    public var packet: [UInt8] {
        [PacketType.event.rawValue, code.rawValue, UInt8(truncatingIfNeeded: parameters.count)] + parameters
    }

    /// Parses an H4 event packet; plen must equal the bytes that follow.
    public init(packet: [UInt8]) throws(HCIDecodingError) {
        var r = ByteReader(packet)
        let type: UInt8, code: UInt8, plen: UInt8
        do { type = try r.readUInt8("packet type") } catch { throw .truncated(error) }
        guard type == PacketType.event.rawValue else { throw .unexpectedPacketType(type) }
        do throws(ByteReaderError) {
            code = try r.readUInt8("event code")
            plen = try r.readUInt8("parameter length")
        } catch { throw .truncated(error) }
        guard r.remaining == Int(plen) else { throw .lengthMismatch(expected: Int(plen), actual: r.remaining) }
        self.init(code: EventCode(rawValue: code), parameters: r.readRest())
    }
}

/// Command Complete (event 0x0E, Vol 4, Part E, §7.7.14): Num_HCI_Command_Packets, Command_Opcode,
/// Return_Parameters (status first for every command beacon-tx sends).
public struct CommandComplete: Hashable, Sendable {
    public let numHCICommandPackets: UInt8
    public let opcode: Opcode
    public let returnParameters: [UInt8]

    /// The first return parameter; nil for a NOP Command Complete (opcode 0x0000, no parameters).
    public var status: Status? { returnParameters.first.map(Status.init(rawValue:)) }

    public init(numHCICommandPackets: UInt8, opcode: Opcode, returnParameters: [UInt8]) {
        self.numHCICommandPackets = numHCICommandPackets
        self.opcode = opcode
        self.returnParameters = returnParameters
    }

    public init(_ event: HCIEvent) throws(HCIDecodingError) {
        guard event.code == .commandComplete else { throw .unexpectedEvent(event.code) }
        var r = ByteReader(event.parameters)
        do {
            numHCICommandPackets = try r.readUInt8("Num_HCI_Command_Packets")
            opcode = Opcode(rawValue: try r.readUInt16LE("Command_Opcode"))
        } catch { throw .truncated(error) }
        returnParameters = r.readRest()
    }

    /// Checks the return parameter size against the command table. A failed status may come with
    /// the status byte only (controllers differ), so only successful answers are checked.
    public func validated() throws(HCIDecodingError) -> CommandComplete {
        if status == .success, let expected = CommandTable.entry(opcode)?.returnParameters,
           !expected.accepts(returnParameters.count) {
            throw .returnParameterLength(opcode: opcode, expected: expected, actual: returnParameters.count)
        }
        return self
    }

    /// Success with zeroed return parameters of the size the command table gives (dry-run captures, tests).
    public static func success(for c: HCICommand, numHCICommandPackets: UInt8 = 1) -> CommandComplete {
        var size = 1
        if case let .fixed(n)? = CommandTable.entry(c.opcode)?.returnParameters { size = max(1, n) }
        return CommandComplete(numHCICommandPackets: numHCICommandPackets, opcode: c.opcode,
                               returnParameters: Array(repeating: 0, count: size))
    }

    public var event: HCIEvent {
        var w = ByteWriter()
        w.writeUInt8(numHCICommandPackets)
        w.writeUInt16LE(opcode.rawValue)
        w.writeBytes(returnParameters)
        return HCIEvent(code: .commandComplete, parameters: w.bytes)
    }
}

/// Command Status (event 0x0F, Vol 4, Part E, §7.7.15): Status, Num_HCI_Command_Packets, Command_Opcode.
public struct CommandStatus: Hashable, Sendable {
    public let status: Status
    public let numHCICommandPackets: UInt8
    public let opcode: Opcode

    public init(status: Status, numHCICommandPackets: UInt8, opcode: Opcode) {
        self.status = status
        self.numHCICommandPackets = numHCICommandPackets
        self.opcode = opcode
    }

    public init(_ event: HCIEvent) throws(HCIDecodingError) {
        guard event.code == .commandStatus else { throw .unexpectedEvent(event.code) }
        guard event.parameters.count == 4 else { throw .lengthMismatch(expected: 4, actual: event.parameters.count) }
        var r = ByteReader(event.parameters)
        do {
            status = Status(rawValue: try r.readUInt8("Status"))
            numHCICommandPackets = try r.readUInt8("Num_HCI_Command_Packets")
            opcode = Opcode(rawValue: try r.readUInt16LE("Command_Opcode"))
        } catch { throw .truncated(error) }
    }

    public var event: HCIEvent {
        var w = ByteWriter()
        w.writeUInt8(status.rawValue)
        w.writeUInt8(numHCICommandPackets)
        w.writeUInt16LE(opcode.rawValue)
        return HCIEvent(code: .commandStatus, parameters: w.bytes)
    }
}

/// BlueZ's stack-internal device event (event 0xFD, type EVT_SI_DEVICE 0x0001): the kernel tells raw
/// sockets bound to no device that a controller was registered, unregistered, brought up or down.
public struct StackInternalDeviceEvent: Hashable, Sendable {
    public struct Kind: RawRepresentable, Hashable, Sendable {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }
        public static let registered = Kind(rawValue: 1)
        public static let unregistered = Kind(rawValue: 2)
        public static let up = Kind(rawValue: 3)
        public static let down = Kind(rawValue: 4)
    }

    public let kind: Kind
    public let deviceID: UInt16

    public init(kind: Kind, deviceID: UInt16) {
        self.kind = kind
        self.deviceID = deviceID
    }

    /// Nil unless `event` is a well-formed EVT_SI_DEVICE.
    public init?(_ event: HCIEvent) {
        guard event.code == .stackInternal else { return nil }
        var r = ByteReader(event.parameters)
        guard let type = try? r.readUInt16LE(), type == 0x0001,
              let kind = try? r.readUInt16LE(), let id = try? r.readUInt16LE() else { return nil }
        self.init(kind: Kind(rawValue: kind), deviceID: id)
    }

    public var event: HCIEvent {
        var w = ByteWriter()
        w.writeUInt16LE(0x0001)
        w.writeUInt16LE(kind.rawValue)
        w.writeUInt16LE(deviceID)
        return HCIEvent(code: .stackInternal, parameters: w.bytes)
    }
}

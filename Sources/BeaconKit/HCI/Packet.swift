// SPDX-License-Identifier: Apache-2.0
/// H4 (UART transport) packet indicator (Core spec Vol 4, Part A, §2).
public struct PacketType: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let command = PacketType(rawValue: 0x01)
    public static let aclData = PacketType(rawValue: 0x02)
    public static let event = PacketType(rawValue: 0x04)
}

/// One HCI command: opcode and parameters. `packet` is the H4 form `01 | opcode LE | plen | params`.
public struct HCICommand: Hashable, Sendable, CustomStringConvertible {
    public let opcode: Opcode
    public let parameters: [UInt8]

    public init(_ opcode: Opcode, _ parameters: [UInt8] = []) {
        self.opcode = opcode
        self.parameters = parameters
    }

    public var packet: [UInt8] {
        var w = ByteWriter(capacity: 4 + parameters.count)
        w.writeUInt8(PacketType.command.rawValue)
        w.writeUInt16LE(opcode.rawValue)
        w.writeUInt8(UInt8(truncatingIfNeeded: parameters.count))
        w.writeBytes(parameters)
        return w.bytes
    }

    /// `LE Set Advertising Data (0x2008)`.
    public var description: String { opcode.description }

    /// Parses an H4 command packet, checking plen against the bytes and against the command table.
    public init(packet: [UInt8]) throws(HCIDecodingError) {
        var r = ByteReader(packet)
        let type: UInt8
        do { type = try r.readUInt8("packet type") } catch { throw .truncated(error) }
        guard type == PacketType.command.rawValue else { throw .unexpectedPacketType(type) }
        let opcode: Opcode, plen: Int
        do throws(ByteReaderError) {
            opcode = Opcode(rawValue: try r.readUInt16LE("opcode"))
            plen = Int(try r.readUInt8("parameter length"))
        } catch { throw .truncated(error) }
        guard r.remaining == plen else { throw .lengthMismatch(expected: plen, actual: r.remaining) }
        if let expected = CommandTable.entry(opcode)?.parameters, !expected.accepts(plen) {
            throw .parameterLength(opcode: opcode, expected: expected, actual: plen)
        }
        self.init(opcode, r.readRest())
    }
}

/// Errors of decoding bytes from a controller, a capture or the command line. Never a trap.
public enum HCIDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    case truncated(ByteReaderError)
    case lengthMismatch(expected: Int, actual: Int)
    case unexpectedPacketType(UInt8)
    case unexpectedEvent(EventCode)
    case parameterLength(opcode: Opcode, expected: ParameterLength, actual: Int)
    case returnParameterLength(opcode: Opcode, expected: ParameterLength, actual: Int)

    public var description: String {
        switch self {
        case let .truncated(e): return e.description
        case let .lengthMismatch(expected, actual):
            return "length mismatch: header says \(expected) parameter byte(s), packet has \(actual)"
        case let .unexpectedPacketType(t): return "unexpected H4 packet type \(Hex.byte(t))"
        case let .unexpectedEvent(code): return "unexpected event \(code)"
        case let .parameterLength(opcode, expected, actual):
            return "\(opcode) takes \(expected.text) parameter byte(s), got \(actual)"
        case let .returnParameterLength(opcode, expected, actual):
            return "\(opcode) returns \(expected.text) byte(s), got \(actual)"
        }
    }
}

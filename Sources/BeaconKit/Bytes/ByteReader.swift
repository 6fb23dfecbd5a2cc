// SPDX-License-Identifier: Apache-2.0
/// Reads a packet from the front. Every read checks the remaining length first and throws
/// `ByteReaderError.truncated` instead of trapping: bytes from a controller or a file are untrusted.
public struct ByteReader: Sendable {
    public let bytes: [UInt8]
    public private(set) var offset: Int

    public init<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        self.bytes = Array(bytes)
        offset = 0
    }

    public var remaining: Int { bytes.count - offset }
    public var isAtEnd: Bool { offset >= bytes.count }

    private mutating func take(_ count: Int, _ field: String) throws(ByteReaderError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else {
            throw .truncated(field: field, needed: count, available: remaining)
        }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    public mutating func readUInt8(_ field: String = "byte") throws(ByteReaderError) -> UInt8 {
        try take(1, field).first ?? 0
    }

    public mutating func readInt8(_ field: String = "byte") throws(ByteReaderError) -> Int8 {
        Int8(bitPattern: try readUInt8(field))
    }

    public mutating func readUInt16LE(_ field: String = "u16") throws(ByteReaderError) -> UInt16 {
        let s = try take(2, field)
        return UInt16(s[s.startIndex]) | UInt16(s[s.startIndex + 1]) << 8
    }

    public mutating func readUInt16BE(_ field: String = "u16") throws(ByteReaderError) -> UInt16 {
        let s = try take(2, field)
        return UInt16(s[s.startIndex]) << 8 | UInt16(s[s.startIndex + 1])
    }

    public mutating func readUInt24LE(_ field: String = "u24") throws(ByteReaderError) -> UInt32 {
        let s = try take(3, field)
        return UInt32(s[s.startIndex]) | UInt32(s[s.startIndex + 1]) << 8 | UInt32(s[s.startIndex + 2]) << 16
    }

    public mutating func readUInt32LE(_ field: String = "u32") throws(ByteReaderError) -> UInt32 {
        try take(4, field).reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    public mutating func readUInt32BE(_ field: String = "u32") throws(ByteReaderError) -> UInt32 {
        try take(4, field).reduce(0) { $0 << 8 | UInt32($1) }
    }

    public mutating func readUInt64BE(_ field: String = "u64") throws(ByteReaderError) -> UInt64 {
        try take(8, field).reduce(0) { $0 << 8 | UInt64($1) }
    }

    public mutating func readBytes(_ count: Int, _ field: String = "bytes") throws(ByteReaderError) -> [UInt8] {
        Array(try take(count, field))
    }

    /// Like `readBytes`, without copying: a view into the packet.
    public mutating func readSlice(_ count: Int, _ field: String = "bytes") throws(ByteReaderError) -> ArraySlice<UInt8> {
        try take(count, field)
    }

    /// Everything that is left.
    public mutating func readRest() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[min(offset, bytes.count)...])
    }
}

public enum ByteReaderError: Error, Equatable, Sendable, CustomStringConvertible {
    case truncated(field: String, needed: Int, available: Int)

    public var description: String {
        switch self {
        case let .truncated(field, needed, available):
            return "truncated \(field): needs \(needed) byte(s), \(available) left"
        }
    }
}

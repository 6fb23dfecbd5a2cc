// SPDX-License-Identifier: Apache-2.0
/// Builds a packet byte by byte. Every integer write names its width and endianness:
/// HCI parameters are little-endian, iBeacon major/minor big-endian.
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 32) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func writeUInt8(_ value: UInt8) { bytes.append(value) }

    public mutating func writeInt8(_ value: Int8) { bytes.append(UInt8(bitPattern: value)) }

    public mutating func writeUInt16LE(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    public mutating func writeUInt16BE(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    /// A 24-bit little-endian integer (extended advertising intervals); the top byte of `value` is dropped.
    public mutating func writeUInt24LE(_ value: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
    }

    public mutating func writeUInt32BE(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    public mutating func writeUInt32LE(_ value: UInt32) {
        for shift in stride(from: 0, through: 24, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    public mutating func writeUInt64BE(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    public mutating func writeBytes<S: Sequence>(_ value: S) where S.Element == UInt8 { bytes.append(contentsOf: value) }

    /// Writes `count` zero bytes (padding of fixed-size fields).
    public mutating func writeZeros(_ count: Int) {
        if count > 0 { bytes.append(contentsOf: repeatElement(0, count: count)) }
    }
}

// SPDX-License-Identifier: Apache-2.0
/// A controller's rfkill switch as the kernel reports it: a soft block (`rfkill block`, airplane
/// mode, an image that ships blocked) or a hard one (a hardware switch, the firmware). Either
/// makes HCIDEVUP fail with ERFKILL and takes an up controller down.
public struct RFKillBlock: Hashable, Sendable {
    public var soft: Bool
    public var hard: Bool

    public init(soft: Bool, hard: Bool) {
        self.soft = soft
        self.hard = hard
    }

    public var isBlocked: Bool { soft || hard }

    /// `soft`, `hard`, `soft and hard`, or `none`.
    public var text: String {
        switch (soft, hard) {
        case (true, true): return "soft and hard"
        case (true, false): return "soft"
        case (false, true): return "hard"
        case (false, false): return "none"
        }
    }
}

/// One `struct rfkill_event` as read from `/dev/rfkill` (linux/rfkill.h): `idx` (u32, host order),
/// `type`, `op`, `soft`, `hard` (u8 each): 8 bytes. Newer kernels append fields (`hard_block_reasons`)
/// and return at most as many bytes as were asked for, so a read of 8 or more bytes is one event and
/// the bytes past the eighth are ignored; a shorter read is no event.
public struct RFKillEvent: Equatable, Sendable {
    public var index: UInt32
    public var type: UInt8
    public var operation: Operation
    public var soft: Bool
    public var hard: Bool

    /// `RFKILL_OP_*`.
    public enum Operation: Equatable, Sendable {
        case add, delete, change, changeAll
        case other(UInt8)

        init(_ raw: UInt8) {
            switch raw {
            case 0: self = .add
            case 1: self = .delete
            case 2: self = .change
            case 3: self = .changeAll
            default: self = .other(raw)
            }
        }
    }

    /// `RFKILL_TYPE_BLUETOOTH`.
    public static let typeBluetooth: UInt8 = 2
    /// `RFKILL_EVENT_SIZE_V1`.
    public static let size = 8

    public init(index: UInt32, type: UInt8, operation: Operation, soft: Bool, hard: Bool) {
        self.index = index
        self.type = type
        self.operation = operation
        self.soft = soft
        self.hard = hard
    }

    /// One event from the bytes of one read; nil when fewer than 8 bytes came. `idx` is in the
    /// kernel's byte order, which is the host's (little-endian on every target of beacon-tx).
    public init?(_ bytes: [UInt8]) {
        guard bytes.count >= Self.size else { return nil }
        index = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
        type = bytes[4]
        operation = Operation(bytes[5])
        soft = bytes[6] != 0
        hard = bytes[7] != 0
    }

    public var block: RFKillBlock { RFKillBlock(soft: soft, hard: hard) }
    public var isBluetooth: Bool { type == Self.typeBluetooth }
}

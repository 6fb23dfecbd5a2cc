// SPDX-License-Identifier: Apache-2.0
/// btsnoop capture files (RFC 1761 style, as BlueZ and Android write them): header `btsnoop\0`,
/// version 1, datalink 1002 (HCI UART / H4), then records; every integer big-endian.
/// `btmon -r FILE` and Wireshark read them.
public enum BTSnoop {
    public static let magic: [UInt8] = Array("btsnoop".utf8) + [0]
    public static let version: UInt32 = 1
    public static let datalinkH4: UInt32 = 1002
    /// Microseconds from 0 AD to the Unix epoch, as BlueZ adds them to Unix time.
    public static let unixEpochOffsetMicroseconds: UInt64 = 0x00DC_DDB3_0F2F_8000

    /// One captured H4 packet.
    public struct Record: Hashable, Sendable {
        public var packet: [UInt8]
        /// Controller → host.
        public var received: Bool
        /// Microseconds since the Unix epoch.
        public var unixMicroseconds: UInt64

        public init(packet: [UInt8], received: Bool, unixMicroseconds: UInt64) {
            self.packet = packet
            self.received = received
            self.unixMicroseconds = unixMicroseconds
        }

        /// An H4 record from a frame of a 1002 file.
        public init(_ frame: Frame) {
            self.init(packet: frame.payload, received: frame.flags & 1 == 1, unixMicroseconds: frame.unixMicroseconds)
        }

        /// Flags bit 0: received; bit 1: command or event (not data).
        var flags: UInt32 {
            let type = packet.first ?? 0
            let isCommandOrEvent = type == PacketType.command.rawValue || type == PacketType.event.rawValue
            return (received ? 1 : 0) | (isCommandOrEvent ? 2 : 0)
        }
    }

    /// One record as the file frames it: flags (their meaning depends on the datalink), drops,
    /// time, and the payload.
    public struct Frame: Hashable, Sendable {
        public var flags: UInt32
        public var drops: UInt32
        /// Microseconds since the Unix epoch.
        public var unixMicroseconds: UInt64
        public var payload: [UInt8]
        /// The original length when it differs from the payload's (a snapped record); nil = the same.
        public var originalLength: UInt32?

        public init(flags: UInt32, drops: UInt32 = 0, unixMicroseconds: UInt64, payload: [UInt8], originalLength: UInt32? = nil) {
            self.flags = flags
            self.drops = drops
            self.unixMicroseconds = unixMicroseconds
            self.payload = payload
            self.originalLength = originalLength
        }
    }

    /// What to do with a record cut short at the end of the file.
    public enum CutRecord: Sendable {
        /// An error: the file must be whole (golden files, our own dry runs, the tests).
        case fail
        /// Drop it and say so in a warning (btmon killed mid-write leaves one).
        case dropWithWarning
    }

    /// The largest included length accepted: an ACL packet of 65535 bytes with its headers.
    public static let maximumRecordLength: UInt32 = 65535 + 5

    /// The one btsnoop writer: header, then each frame (every integer big-endian).
    public static func write(datalink: UInt32, _ frames: [Frame]) -> [UInt8] {
        var w = ByteWriter(capacity: 16 + frames.reduce(0) { $0 + 24 + $1.payload.count })
        w.writeBytes(magic)
        w.writeUInt32BE(version)
        w.writeUInt32BE(datalink)
        for f in frames {
            let length = UInt32(truncatingIfNeeded: f.payload.count)
            w.writeUInt32BE(f.originalLength ?? length)
            w.writeUInt32BE(length)
            w.writeUInt32BE(f.flags)
            w.writeUInt32BE(f.drops)
            w.writeUInt64BE(f.unixMicroseconds &+ unixEpochOffsetMicroseconds)
            w.writeBytes(f.payload)
        }
        return w.bytes
    }

    /// The one btsnoop reader (framing only): the datalink and the frames, and a warning when a
    /// record cut at the end was dropped. Bytes from a file never trap; a broken header, a version
    /// other than 1, or a record whose lengths are not a packet's is an error.
    public static func read(_ bytes: [UInt8], _ cut: CutRecord) throws(BTSnoopError) -> (datalink: UInt32, frames: [Frame], warning: String?) {
        var r = ByteReader(bytes)
        let header: [UInt8]
        do { header = try r.readBytes(8, "magic") } catch { throw .truncated(error) }
        guard header == magic else { throw .notBTSnoop }
        let v: UInt32, link: UInt32
        do throws(ByteReaderError) {
            v = try r.readUInt32BE("version")
            link = try r.readUInt32BE("datalink")
        } catch { throw .truncated(error) }
        guard v == version else { throw .unsupportedCapture(version: v, datalink: link) }
        var frames: [Frame] = []
        var number = 0
        func cutShort(_ error: ByteReaderError) throws(BTSnoopError) -> (datalink: UInt32, frames: [Frame], warning: String?) {
            guard case .dropWithWarning = cut else { throw .truncated(error) }
            return (link, frames, "record \(number) is cut short at the end of the file (\(error)); read \(frames.count) records")
        }
        while !r.isAtEnd {
            number += 1
            let original: UInt32, included: UInt32, flags: UInt32, drops: UInt32, timestamp: UInt64
            do throws(ByteReaderError) {
                original = try r.readUInt32BE("original length")
                included = try r.readUInt32BE("included length")
                flags = try r.readUInt32BE("flags")
                drops = try r.readUInt32BE("drops")
                timestamp = try r.readUInt64BE("timestamp")
            } catch { return try cutShort(error) }
            guard included <= maximumRecordLength, included <= original || original == 0 else {
                throw .malformedRecord(number: number, "included length \(included) (original \(original)) is not a packet length")
            }
            let payload: [UInt8]
            do { payload = try r.readBytes(Int(included), "packet") } catch { return try cutShort(error) }
            frames.append(Frame(flags: flags, drops: drops, unixMicroseconds: timestamp &- unixEpochOffsetMicroseconds, payload: payload,
                                originalLength: original == included ? nil : original))
        }
        return (link, frames, nil)
    }

    /// A whole H4 (1002) file of `records`, as the dry run writes it.
    public static func encode(_ records: [Record]) -> [UInt8] {
        write(datalink: datalinkH4, records.map { Frame(flags: $0.flags, unixMicroseconds: $0.unixMicroseconds, payload: $0.packet) })
    }

    /// 2000-01-01 00:00:00 UTC in Unix microseconds. BlueZ reads btsnoop time relative to 2000, so
    /// earlier stamps show as garbage dates in `btmon -r -T`; dry-run captures start here so they are
    /// reproducible byte for byte and still show a sane date.
    public static let year2000UnixMicroseconds: UInt64 = 946_684_800_000_000

    /// A capture of a plan as if every command succeeded: each command followed by a synthetic
    /// Command Complete (Success, zeroed return parameters of the size the command table gives),
    /// 1 ms apart from `startMicroseconds`.
    public static func syntheticCapture(of commands: [HCICommand], startMicroseconds: UInt64 = year2000UnixMicroseconds) -> [Record] {
        var out: [Record] = []
        var t = startMicroseconds
        for c in commands {
            out.append(Record(packet: c.packet, received: false, unixMicroseconds: t))
            t += 1000
            out.append(Record(packet: CommandComplete.success(for: c).event.packet, received: true, unixMicroseconds: t))
            t += 1000
        }
        return out
    }
}

public enum BTSnoopError: Error, Equatable, Sendable, CustomStringConvertible {
    case notBTSnoop
    case truncated(ByteReaderError)
    /// A version or datalink the reader cannot read.
    case unsupportedCapture(version: UInt32, datalink: UInt32)
    /// A record whose framing is broken before the end of the file.
    case malformedRecord(number: Int, String)

    public var description: String {
        switch self {
        case .notBTSnoop: return "not a btsnoop file (no btsnoop header)"
        case let .truncated(e): return "truncated btsnoop record: \(e)"
        case let .unsupportedCapture(v, link):
            return "unsupported btsnoop version \(v) / datalink \(link) (need version 1, datalink 1001, 1002 or 2001)"
        case let .malformedRecord(n, what): return "malformed btsnoop record \(n): \(what)"
        }
    }
}

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

        /// Flags bit 0: received; bit 1: command or event (not data).
        var flags: UInt32 {
            let type = packet.first ?? 0
            let isCommandOrEvent = type == PacketType.command.rawValue || type == PacketType.event.rawValue
            return (received ? 1 : 0) | (isCommandOrEvent ? 2 : 0)
        }
    }

    /// The whole file.
    public static func encode(_ records: [Record]) -> [UInt8] {
        var w = ByteWriter(capacity: 16 + records.reduce(0) { $0 + 24 + $1.packet.count })
        w.writeBytes(magic)
        w.writeUInt32BE(version)
        w.writeUInt32BE(datalinkH4)
        for r in records {
            let length = UInt32(truncatingIfNeeded: r.packet.count)
            w.writeUInt32BE(length)          // original length
            w.writeUInt32BE(length)          // included length
            w.writeUInt32BE(r.flags)
            w.writeUInt32BE(0)               // cumulative drops
            w.writeUInt64BE(r.unixMicroseconds &+ unixEpochOffsetMicroseconds)
            w.writeBytes(r.packet)
        }
        return w.bytes
    }

    /// Parses a file written by `encode` or by BlueZ; throws on a bad header or a truncated record.
    public static func decode(_ bytes: [UInt8]) throws(BTSnoopError) -> [Record] {
        var r = ByteReader(bytes)
        let header: [UInt8]
        do { header = try r.readBytes(8, "magic") } catch { throw .truncated(error) }
        guard header == magic else { throw .notBTSnoop }
        let v: UInt32, link: UInt32
        do throws(ByteReaderError) {
            v = try r.readUInt32BE("version")
            link = try r.readUInt32BE("datalink")
        } catch { throw .truncated(error) }
        guard v == version, link == datalinkH4 else { throw .unsupported(version: v, datalink: link) }
        var records: [Record] = []
        do throws(ByteReaderError) {
            while !r.isAtEnd {
                _ = try r.readUInt32BE("original length")
                let included = try r.readUInt32BE("included length")
                let flags = try r.readUInt32BE("flags")
                _ = try r.readUInt32BE("drops")
                let ts = try r.readUInt64BE("timestamp")
                let packet = try r.readBytes(Int(included), "packet")
                records.append(Record(packet: packet, received: flags & 1 == 1,
                                      unixMicroseconds: ts &- unixEpochOffsetMicroseconds))
            }
        } catch { throw .truncated(error) }
        return records
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
    case unsupported(version: UInt32, datalink: UInt32)
    case truncated(ByteReaderError)
    /// `CaptureFile.read`: a version or datalink it cannot read.
    case unsupportedCapture(version: UInt32, datalink: UInt32)
    /// `CaptureFile.read`: a record whose framing is broken before the end of the file.
    case malformedRecord(number: Int, String)

    public var description: String {
        switch self {
        case .notBTSnoop: return "not a btsnoop file (no btsnoop header)"
        case let .unsupported(v, link): return "unsupported btsnoop version \(v) / datalink \(link) (need 1 / 1002)"
        case let .truncated(e): return "truncated btsnoop record: \(e)"
        case let .unsupportedCapture(v, link):
            return "unsupported btsnoop version \(v) / datalink \(link) (need version 1, datalink 1001, 1002 or 2001)"
        case let .malformedRecord(n, what): return "malformed btsnoop record \(n): \(what)"
        }
    }
}

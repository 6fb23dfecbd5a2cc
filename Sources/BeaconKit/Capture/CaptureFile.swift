// SPDX-License-Identifier: Apache-2.0
/// Reading btsnoop captures of every kind a Linux box produces, for `verify`:
/// - datalink 1001 (HCI without a packet indicator; flags bit 0 = received, bit 1 = command/event),
/// - datalink 1002 (H4: the first byte is the packet indicator), what Wireshark and `start --dry-run
///   --format btsnoop` write,
/// - datalink 2001 (BlueZ monitor), what `btmon -w` writes: flags = (controller index << 16) | opcode,
///   index 0xFFFF = no controller; besides HCI packets it records controllers appearing and going,
///   notes, and every socket opened on the Bluetooth subsystem with the program name and the MGMT
///   commands sent on it.
/// Every integer of the record header is big-endian; monitor payloads are little-endian.
/// Bytes from a file never trap: a record cut at the end (btmon killed mid-write) ends the read with
/// a warning, anything else malformed in the framing is an error.
public struct CaptureFile: Hashable, Sendable {
    public var datalink: UInt32
    public var records: [CaptureRecord]
    /// Set when the last record was cut short (it is left out).
    public var warning: String?

    public init(datalink: UInt32, records: [CaptureRecord], warning: String? = nil) {
        self.datalink = datalink
        self.records = records
        self.warning = warning
    }

    public static let datalinkHCI: UInt32 = 1001
    public static let datalinkMonitor: UInt32 = 2001
    /// "No controller" in the monitor format's index.
    public static let noIndex: UInt16 = 0xFFFF

    /// `HCI UART (H4)` for 1002.
    public static func datalinkName(_ link: UInt32) -> String {
        switch link {
        case datalinkHCI: return "HCI (1001)"
        case BTSnoop.datalinkH4: return "HCI UART H4 (1002)"
        case datalinkMonitor: return "BlueZ monitor (2001)"
        default: return "unknown (\(link))"
        }
    }

    /// Parses a file with the one btsnoop reader (`BTSnoop.read`), then each record by datalink.
    /// `cut`: `verify` drops a record cut at the end with a warning; a golden file must be whole.
    public static func read(_ bytes: [UInt8], _ cut: BTSnoop.CutRecord) throws(BTSnoopError) -> CaptureFile {
        let (link, frames, warning) = try BTSnoop.read(bytes, cut)
        guard [datalinkHCI, BTSnoop.datalinkH4, datalinkMonitor].contains(link) else {
            throw .unsupportedCapture(version: BTSnoop.version, datalink: link)
        }
        let records = frames.map { f -> CaptureRecord in
            switch link {
            case datalinkMonitor:
                return CaptureRecord(unixMicroseconds: f.unixMicroseconds, controllerIndex: UInt16(truncatingIfNeeded: f.flags >> 16), drops: f.drops,
                                     kind: CaptureRecord.monitor(opcode: UInt16(truncatingIfNeeded: f.flags), f.payload))
            case datalinkHCI:
                let kind: CaptureRecord.Kind
                switch (f.flags & 2 != 0, f.flags & 1 != 0) {
                case (true, false): kind = CaptureRecord.command(f.payload)
                case (true, true): kind = CaptureRecord.event(f.payload)
                case (false, let rx): kind = .data(.acl, received: rx, f.payload)
                }
                return CaptureRecord(unixMicroseconds: f.unixMicroseconds, controllerIndex: nil, drops: f.drops, kind: kind)
            default:
                return CaptureRecord(unixMicroseconds: f.unixMicroseconds, controllerIndex: nil, drops: f.drops,
                                     kind: CaptureRecord.h4(f.payload, received: f.flags & 1 != 0))
            }
        }
        return CaptureFile(datalink: link, records: records, warning: warning)
    }
}

/// One record of a capture.
public struct CaptureRecord: Hashable, Sendable {
    /// Microseconds since the Unix epoch.
    public var unixMicroseconds: UInt64
    /// The controller (monitor format); 0xFFFF = none; nil in 1001/1002 captures (one controller).
    public var controllerIndex: UInt16?
    public var drops: UInt32
    public var kind: Kind

    public init(unixMicroseconds: UInt64, controllerIndex: UInt16?, drops: UInt32 = 0, kind: Kind) {
        self.unixMicroseconds = unixMicroseconds
        self.controllerIndex = controllerIndex
        self.drops = drops
        self.kind = kind
    }

    public enum DataKind: String, Hashable, Sendable { case acl = "ACL", sco = "SCO", iso = "ISO" }

    /// A monitor New Index: a controller was registered.
    public struct NewIndex: Hashable, Sendable {
        /// 0 primary, 1 AMP.
        public var type: UInt8
        /// 0 virtual, 1 USB, 3 UART, ...
        public var bus: UInt8
        /// BD_ADDR as sent (little-endian, reversed from the display order).
        public var address: [UInt8]
        /// `hci0`.
        public var name: String

        public init(type: UInt8, bus: UInt8, address: [UInt8], name: String) {
            self.type = type
            self.bus = bus
            self.address = address
            self.name = name
        }
    }

    /// A monitor Control Open: a socket was opened on the raw (format 0), user (1) or control (2,
    /// MGMT) channel, by the program `comm`.
    public struct ControlOpen: Hashable, Sendable {
        public var cookie: UInt32
        public var format: UInt16
        public var version: UInt8
        public var revision: UInt16
        /// Bit 0: the socket is trusted (CAP_NET_ADMIN).
        public var flags: UInt32
        /// The program name (the kernel's task comm, up to 15 characters); nil when not sent.
        public var comm: String?

        public init(cookie: UInt32, format: UInt16, version: UInt8 = 0, revision: UInt16 = 0, flags: UInt32 = 0, comm: String?) {
            self.cookie = cookie
            self.format = format
            self.version = version
            self.revision = revision
            self.flags = flags
            self.comm = comm
        }

        public static let formatRaw: UInt16 = 0
        public static let formatUser: UInt16 = 1
        public static let formatMGMT: UInt16 = 2
    }

    public enum Kind: Hashable, Sendable {
        case command(HCICommand)
        case event(HCIEvent)
        case data(DataKind, received: Bool, [UInt8])
        case newIndex(NewIndex)
        case deleteIndex
        /// The controller was opened (device up).
        case openIndex
        /// The controller was closed (device down).
        case closeIndex
        case indexInfo(address: [UInt8], manufacturer: UInt16)
        case vendorDiagnostic([UInt8])
        case systemNote(String)
        case userLogging(priority: UInt8, ident: String, message: String)
        case controlOpen(ControlOpen)
        case controlClose(cookie: UInt32)
        /// An MGMT command (when the cookie's socket is a control socket) sent on socket `cookie`.
        case controlCommand(cookie: UInt32, opcode: UInt16, parameters: [UInt8])
        case controlEvent(cookie: UInt32, event: UInt16, parameters: [UInt8])
        /// A record whose payload does not parse as its opcode says; kept, never fatal.
        case malformed(what: String, [UInt8])
        case unknown(opcode: UInt16, [UInt8])
    }

    /// Monitor opcodes (BlueZ btsnoop.h).
    public enum MonitorOpcode {
        public static let newIndex: UInt16 = 0, deleteIndex: UInt16 = 1, commandPacket: UInt16 = 2, eventPacket: UInt16 = 3
        public static let aclTX: UInt16 = 4, aclRX: UInt16 = 5, scoTX: UInt16 = 6, scoRX: UInt16 = 7
        public static let openIndex: UInt16 = 8, closeIndex: UInt16 = 9, indexInfo: UInt16 = 10, vendorDiagnostic: UInt16 = 11
        public static let systemNote: UInt16 = 12, userLogging: UInt16 = 13
        public static let controlOpen: UInt16 = 14, controlClose: UInt16 = 15, controlCommand: UInt16 = 16, controlEvent: UInt16 = 17
        public static let isoTX: UInt16 = 18, isoRX: UInt16 = 19
    }

    /// An HCI command without the H4 indicator: opcode (LE), plen, parameters. Lenient: the command
    /// table's lengths are not checked (a capture may hold commands we never send), but plen must match.
    static func command(_ p: [UInt8]) -> Kind {
        var r = ByteReader(p)
        guard let opcode = try? r.readUInt16LE(), let plen = try? r.readUInt8(), r.remaining == Int(plen) else {
            return .malformed(what: "HCI command", p)
        }
        return .command(HCICommand(Opcode(rawValue: opcode), r.readRest()))
    }

    /// An HCI event without the H4 indicator: code, plen, parameters.
    static func event(_ p: [UInt8]) -> Kind {
        var r = ByteReader(p)
        guard let code = try? r.readUInt8(), let plen = try? r.readUInt8(), r.remaining == Int(plen) else {
            return .malformed(what: "HCI event", p)
        }
        return .event(HCIEvent(code: EventCode(rawValue: code), parameters: r.readRest()))
    }

    /// An H4 packet (datalink 1002).
    static func h4(_ p: [UInt8], received: Bool) -> Kind {
        guard let type = p.first else { return .malformed(what: "H4 packet", p) }
        let rest = Array(p.dropFirst())
        switch type {
        case 0x01: return command(rest)
        case 0x04: return event(rest)
        case 0x02: return .data(.acl, received: received, rest)
        case 0x03: return .data(.sco, received: received, rest)
        case 0x05: return .data(.iso, received: received, rest)
        default: return .malformed(what: "H4 packet type \(Hex.byte(type))", p)
        }
    }

    /// Text of a NUL-padded C string field.
    static func cString(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// A monitor record's payload by its opcode.
    static func monitor(opcode: UInt16, _ p: [UInt8]) -> Kind {
        var r = ByteReader(p)
        typealias M = MonitorOpcode
        switch opcode {
        case M.newIndex:
            guard let type = try? r.readUInt8(), let bus = try? r.readUInt8(), let address = try? r.readBytes(6),
                  let name = try? r.readBytes(8) else { return .malformed(what: "New Index", p) }
            return .newIndex(NewIndex(type: type, bus: bus, address: address, name: cString(name)))
        case M.deleteIndex: return .deleteIndex
        case M.commandPacket: return command(p)
        case M.eventPacket: return event(p)
        case M.aclTX, M.aclRX: return .data(.acl, received: opcode == M.aclRX, p)
        case M.scoTX, M.scoRX: return .data(.sco, received: opcode == M.scoRX, p)
        case M.isoTX, M.isoRX: return .data(.iso, received: opcode == M.isoRX, p)
        case M.openIndex: return .openIndex
        case M.closeIndex: return .closeIndex
        case M.indexInfo:
            guard let address = try? r.readBytes(6), let manufacturer = try? r.readUInt16LE() else { return .malformed(what: "Index Info", p) }
            return .indexInfo(address: address, manufacturer: manufacturer)
        case M.vendorDiagnostic: return .vendorDiagnostic(p)
        case M.systemNote: return .systemNote(cString(p))
        case M.userLogging:
            guard let priority = try? r.readUInt8(), let identLength = try? r.readUInt8(),
                  let ident = try? r.readBytes(Int(identLength)) else { return .malformed(what: "User Logging", p) }
            return .userLogging(priority: priority, ident: cString(ident), message: cString(r.readRest()))
        case M.controlOpen:
            guard let cookie = try? r.readUInt32LE(), let format = try? r.readUInt16LE() else { return .malformed(what: "Control Open", p) }
            // Raw, user and control sockets carry version, revision, flags and the program name.
            guard format <= ControlOpen.formatMGMT, r.remaining >= 8 else {
                return .controlOpen(ControlOpen(cookie: cookie, format: format, comm: nil))
            }
            guard let version = try? r.readUInt8(), let revision = try? r.readUInt16LE(), let flags = try? r.readUInt32LE(),
                  let commLength = try? r.readUInt8(), let comm = try? r.readBytes(Int(commLength)) else {
                return .malformed(what: "Control Open", p)
            }
            return .controlOpen(ControlOpen(cookie: cookie, format: format, version: version, revision: revision, flags: flags,
                                            comm: commLength > 0 ? cString(comm) : nil))
        case M.controlClose:
            guard let cookie = try? r.readUInt32LE() else { return .malformed(what: "Control Close", p) }
            return .controlClose(cookie: cookie)
        case M.controlCommand, M.controlEvent:
            guard let cookie = try? r.readUInt32LE(), let code = try? r.readUInt16LE() else {
                return .malformed(what: opcode == M.controlCommand ? "Control Command" : "Control Event", p)
            }
            return opcode == M.controlCommand
                ? .controlCommand(cookie: cookie, opcode: code, parameters: r.readRest())
                : .controlEvent(cookie: cookie, event: code, parameters: r.readRest())
        default:
            return .unknown(opcode: opcode, p)
        }
    }
}

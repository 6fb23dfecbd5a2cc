// SPDX-License-Identifier: Apache-2.0
/// LE Meta event subevent code (Core spec Vol 4, Part E, §7.7.65): the first parameter of event 0x3E.
/// Open struct: unknown subevents stay representable.
public struct LEMetaSubevent: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let connectionComplete = LEMetaSubevent(rawValue: 0x01)
    /// LE Advertising Report (§7.7.65.2).
    public static let advertisingReport = LEMetaSubevent(rawValue: 0x02)
    /// LE Extended Advertising Report (§7.7.65.13).
    public static let extendedAdvertisingReport = LEMetaSubevent(rawValue: 0x0D)
    /// LE Enhanced Connection Complete (§7.7.65.10).
    public static let enhancedConnectionComplete = LEMetaSubevent(rawValue: 0x0A)
    /// LE Advertising Set Terminated (§7.7.65.18): Status, Advertising_Handle, Connection_Handle,
    /// Num_Completed_Extended_Advertising_Events.
    public static let advertisingSetTerminated = LEMetaSubevent(rawValue: 0x12)

    static let names: [UInt8: String] = [
        0x01: "LE Connection Complete", 0x02: "LE Advertising Report", 0x0D: "LE Extended Advertising Report",
    ]

    public var name: String { Self.names[rawValue] ?? "Unknown" }
    /// `LE Advertising Report (0x02)`.
    public var description: String { "\(name) (\(Hex.byte(rawValue)))" }
}

/// One advertisement as a controller reported it, from either LE Advertising Report (§7.7.65.2) or
/// LE Extended Advertising Report (§7.7.65.13) of Core spec Vol 4, Part E. Multi-byte fields are
/// little-endian on the wire; the address is kept as text in display order (wire order reversed).
public struct AdvertisingReport: Hashable, Sendable {
    /// Event_Type of either report: the legacy one-byte code or the extended bit field.
    public enum EventType: Hashable, Sendable, CustomStringConvertible {
        case legacy(LegacyEventType)
        case extended(ExtendedEventType)

        public var isConnectable: Bool {
            switch self {
            case let .legacy(t): return t == .advInd || t == .advDirectInd
            case let .extended(t): return t.contains(.connectable)
            }
        }

        public var isScannable: Bool {
            switch self {
            case let .legacy(t): return t == .advInd || t == .advScanInd
            case let .extended(t): return t.contains(.scannable)
            }
        }

        public var isDirected: Bool {
            switch self {
            case let .legacy(t): return t == .advDirectInd
            case let .extended(t): return t.contains(.directed)
            }
        }

        public var isScanResponse: Bool {
            switch self {
            case let .legacy(t): return t == .scanRsp
            case let .extended(t): return t.contains(.scanResponse)
            }
        }

        public var description: String {
            switch self {
            case let .legacy(t): return t.description
            case let .extended(t): return t.description
            }
        }
    }

    /// Event_Type of LE Advertising Report (§7.7.65.2). Open struct.
    public struct LegacyEventType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// Connectable and scannable undirected.
        public static let advInd = LegacyEventType(rawValue: 0x00)
        /// Connectable directed.
        public static let advDirectInd = LegacyEventType(rawValue: 0x01)
        /// Scannable undirected.
        public static let advScanInd = LegacyEventType(rawValue: 0x02)
        /// Non connectable undirected: what an iBeacon sends.
        public static let advNonconnInd = LegacyEventType(rawValue: 0x03)
        /// Scan response.
        public static let scanRsp = LegacyEventType(rawValue: 0x04)

        static let names = ["ADV_IND", "ADV_DIRECT_IND", "ADV_SCAN_IND", "ADV_NONCONN_IND", "SCAN_RSP"]

        /// `ADV_NONCONN_IND (0x03)`.
        public var description: String {
            let name = Int(rawValue) < Self.names.count ? Self.names[Int(rawValue)] : "Reserved"
            return "\(name) (\(Hex.byte(rawValue)))"
        }
    }

    /// Event_Type of LE Extended Advertising Report (§7.7.65.13): bits 0–4 properties, bits 5–6 data status.
    public struct ExtendedEventType: OptionSet, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        public static let connectable = ExtendedEventType(rawValue: 1 << 0)
        public static let scannable = ExtendedEventType(rawValue: 1 << 1)
        public static let directed = ExtendedEventType(rawValue: 1 << 2)
        public static let scanResponse = ExtendedEventType(rawValue: 1 << 3)
        public static let legacyPDU = ExtendedEventType(rawValue: 1 << 4)

        /// Data status, bits 5–6: 0 complete, 1 incomplete with more to come, 2 incomplete and truncated.
        public var dataStatus: UInt8 { UInt8(truncatingIfNeeded: (rawValue >> 5) & 0x03) }
        public var isComplete: Bool { dataStatus == 0 }

        /// The legacy PDU a legacy-bit event type stands for (§7.7.65.13 table), or nil.
        public var legacyPDUName: String? {
            switch rawValue & 0x1F {
            case 0x13: return "ADV_IND"
            case 0x15: return "ADV_DIRECT_IND"
            case 0x12: return "ADV_SCAN_IND"
            case 0x10: return "ADV_NONCONN_IND"
            case 0x1B: return "SCAN_RSP to an ADV_IND"
            case 0x1A: return "SCAN_RSP to an ADV_SCAN_IND"
            default: return nil
            }
        }

        /// `0x0010 (legacy ADV_NONCONN_IND)`, `0x0021 (connectable, incomplete, more data to come)`.
        public var description: String {
            var parts: [String] = []
            if let legacy = legacyPDUName {
                parts.append("legacy " + legacy)
            } else {
                let names = [(ExtendedEventType.connectable, "connectable"), (.scannable, "scannable"),
                             (.directed, "directed"), (.scanResponse, "scan response"), (.legacyPDU, "legacy")]
                parts += names.filter { contains($0.0) }.map(\.1)
            }
            switch dataStatus {
            case 0: break
            case 1: parts.append("incomplete, more data to come")
            case 2: parts.append("incomplete, data truncated")
            default: parts.append("reserved data status")
            }
            return Hex.word(rawValue) + (parts.isEmpty ? "" : " (" + parts.joined(separator: ", ") + ")")
        }
    }

    /// Address_Type / Direct_Address_Type of the reports (§7.7.65.2, §7.7.65.13). Open struct.
    public struct AddressType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let publicDevice = AddressType(rawValue: 0x00)
        public static let randomDevice = AddressType(rawValue: 0x01)
        public static let publicIdentity = AddressType(rawValue: 0x02)
        public static let randomIdentity = AddressType(rawValue: 0x03)
        /// Extended reports only: no address provided (anonymous advertisement).
        public static let anonymous = AddressType(rawValue: 0xFF)

        public var description: String {
            switch rawValue {
            case 0x00: return "Public (0x00)"
            case 0x01: return "Random (0x01)"
            case 0x02: return "Public Identity (0x02)"
            case 0x03: return "Random Identity (0x03)"
            case 0xFF: return "Anonymous (0xff)"
            default: return "Reserved (\(Hex.byte(rawValue)))"
            }
        }
    }

    /// Primary_PHY / Secondary_PHY of an extended report. Open struct.
    public struct PHY: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// Secondary PHY only: no packets on the secondary advertising physical channel.
        public static let none = PHY(rawValue: 0x00)
        public static let le1M = PHY(rawValue: 0x01)
        public static let le2M = PHY(rawValue: 0x02)
        public static let leCoded = PHY(rawValue: 0x03)

        public var description: String {
            switch rawValue {
            case 0x00: return "No packets"
            case 0x01: return "LE 1M"
            case 0x02: return "LE 2M"
            case 0x03: return "LE Coded"
            default: return "Reserved (\(Hex.byte(rawValue)))"
            }
        }
    }

    /// The fields only LE Extended Advertising Report carries.
    public struct ExtendedFields: Hashable, Sendable {
        public var primaryPHY: PHY
        public var secondaryPHY: PHY
        /// Advertising_SID 0x00–0x0F; nil for 0xFF (no ADI field).
        public var advertisingSID: UInt8?
        /// Periodic_Advertising_Interval in 1.25 ms units; nil for 0 (no periodic advertising).
        public var periodicAdvertisingInterval: UInt16?
        public var directAddressType: AddressType
        /// Direct_Address in display order; meaningful for directed events only.
        public var directAddress: String

        public init(primaryPHY: PHY, secondaryPHY: PHY, advertisingSID: UInt8?, periodicAdvertisingInterval: UInt16?,
                    directAddressType: AddressType, directAddress: String) {
            self.primaryPHY = primaryPHY
            self.secondaryPHY = secondaryPHY
            self.advertisingSID = advertisingSID
            self.periodicAdvertisingInterval = periodicAdvertisingInterval
            self.directAddressType = directAddressType
            self.directAddress = directAddress
        }
    }

    /// RSSI and TX_Power value meaning "not available" (127).
    public static let notAvailable: Int8 = 127

    public var eventType: EventType
    public var addressType: AddressType
    /// `AA:BB:CC:DD:EE:FF`, display order (the wire carries it least significant byte first).
    public var address: String
    /// Received signal strength in dBm (−127…+20); nil when the controller reports 127 (not available).
    public var rssi: Int8?
    /// Extended reports: TX_Power in dBm (−127…+126); nil for 127 (not available) and for legacy reports.
    public var txPower: Int8?
    /// Advertising or scan response data (AD structures), as received.
    public var data: [UInt8]
    /// Extended-report-only fields; nil for a legacy report.
    public var extended: ExtendedFields?

    public var isExtended: Bool { extended != nil }

    public init(eventType: EventType, addressType: AddressType, address: String, rssi: Int8?, txPower: Int8? = nil,
                data: [UInt8], extended: ExtendedFields? = nil) {
        self.eventType = eventType
        self.addressType = addressType
        self.address = address
        self.rssi = rssi
        self.txPower = txPower
        self.data = data
        self.extended = extended
    }

    /// Six wire-order (little-endian) address bytes as `AA:BB:CC:DD:EE:FF`. Written straight into
    /// the string's storage: a scanner formats one or two addresses per report.
    public static func addressText<C: Collection>(wireOrder bytes: C) -> String where C.Element == UInt8 {
        guard !bytes.isEmpty else { return "" }
        return String(unsafeUninitializedCapacity: bytes.count * 3 - 1) { text in
            var i = text.count
            for b in bytes {                       // wire order: the last byte is printed first
                i -= 2
                text[i] = Hex.upperDigits[Int(b >> 4)]
                text[i + 1] = Hex.upperDigits[Int(b & 0x0f)]
                if i > 0 { i -= 1; text[i] = UInt8(ascii: ":") }
            }
            return text.count
        }
    }

    /// btmon-style lines: event type, address, PHYs, TX power, RSSI, data length and the AD structures.
    public var descriptionLines: [String] {
        var lines = ["Event type: \(eventType)", "Address type: \(addressType)", "Address: \(address)"]
        if let e = extended {
            lines.append("Primary PHY: \(e.primaryPHY)")
            lines.append("Secondary PHY: \(e.secondaryPHY)")
            lines.append("SID: " + (e.advertisingSID.map { Hex.byte($0) } ?? "no ADI field (0xff)"))
            lines.append("TX power: " + (txPower.map { "\($0) dBm" } ?? "not available (127)"))
        }
        lines.append("RSSI: " + (rssi.map { "\($0) dBm" } ?? "not available (127)"))
        lines.append("Data length: \(Hex.byte(UInt8(truncatingIfNeeded: data.count)))")
        lines += CommandText.describeAdvertisingData(data).map { "  " + $0 }
        return lines
    }
}

/// Why an advertising report event could not be decoded completely. Never a trap.
public enum AdvertisingReportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The H4 framing is wrong: not an event, or plen disagrees with the bytes.
    case event(HCIDecodingError)
    /// The bytes ran out inside report `report` (0-based) of the `numReports` the event announced.
    case truncated(report: Int, numReports: Int, ByteReaderError)
    /// Report `report` claims `length` data bytes, only `available` follow.
    case dataLengthPastEnd(report: Int, length: Int, available: Int)
    /// Bytes left over after the last announced report.
    case trailingBytes(Int)

    public var description: String {
        switch self {
        case let .event(e): return "advertising report event: \(e)"
        case let .truncated(report, numReports, e):
            return "advertising report \(report + 1) of \(numReports): \(e)"
        case let .dataLengthPastEnd(report, length, available):
            return "advertising report \(report + 1): Data_Length \(length) is past the end, \(available) byte(s) left"
        case let .trailingBytes(n): return "advertising report event: \(n) byte(s) after the last report"
        }
    }
}

/// What one LE Meta advertising report event held: every report decoded before the first defect, and
/// that defect. A reader of live traffic keeps the good reports and logs the error.
public struct AdvertisingReportBatch: Equatable, Sendable {
    public var subevent: LEMetaSubevent
    public var reports: [AdvertisingReport]
    public var error: AdvertisingReportError?

    public init(subevent: LEMetaSubevent, reports: [AdvertisingReport], error: AdvertisingReportError? = nil) {
        self.subevent = subevent
        self.reports = reports
        self.error = error
    }
}

/// Decoders of LE Advertising Report (subevent 0x02, Core spec Vol 4, Part E, §7.7.65.2) and LE Extended
/// Advertising Report (subevent 0x0D, §7.7.65.13). Reports are read one after the other, each whole
/// (the layout BlueZ `monitor/packet.c` and the Linux kernel read; Core 5.x lists the fields per report).
public enum AdvertisingReports {
    /// Strict: the reports of an H4 event packet (`04 3e plen subevent ...`); nil when the packet is
    /// another event (or not an event); throws on the first defect.
    public static func decode(eventPacket: [UInt8]) throws(AdvertisingReportError) -> [AdvertisingReport]? {
        guard let batch = decodePartial(eventPacket: eventPacket) else { return nil }
        if let error = batch.error { throw error }
        return batch.reports
    }

    /// Lenient: every report decoded before the first defect, with the defect; nil when the packet is
    /// another event (or not an event).
    public static func decodePartial(eventPacket: [UInt8]) -> AdvertisingReportBatch? {
        // Recognise the event by its first bytes, then insist on consistent framing.
        guard eventPacket.count >= 4, eventPacket[0] == PacketType.event.rawValue,
              eventPacket[1] == EventCode.leMeta.rawValue else { return nil }
        let subevent = LEMetaSubevent(rawValue: eventPacket[3])
        guard subevent == .advertisingReport || subevent == .extendedAdvertisingReport else { return nil }
        let event: HCIEvent
        do { event = try HCIEvent(packet: eventPacket) } catch {
            return AdvertisingReportBatch(subevent: subevent, reports: [], error: .event(error))
        }
        return decodePartial(event: event)
    }

    /// Lenient decoding of an already framed event; nil unless it is an LE Meta advertising report.
    public static func decodePartial(event: HCIEvent) -> AdvertisingReportBatch? {
        guard event.code == .leMeta, let first = event.parameters.first else { return nil }
        let subevent = LEMetaSubevent(rawValue: first)
        switch subevent {
        case .advertisingReport: return decodeReports(event.parameters, subevent: subevent, extended: false)
        case .extendedAdvertisingReport: return decodeReports(event.parameters, subevent: subevent, extended: true)
        default: return nil
        }
    }

    /// `parameters` starts with the subevent code.
    static func decodeReports(_ parameters: [UInt8], subevent: LEMetaSubevent, extended: Bool) -> AdvertisingReportBatch {
        var r = ByteReader(parameters)
        var batch = AdvertisingReportBatch(subevent: subevent, reports: [])
        let numReports: Int
        do {
            _ = try r.readUInt8("Subevent_Code")
            numReports = Int(try r.readUInt8("Num_Reports"))
        } catch {
            batch.error = .truncated(report: 0, numReports: 0, error)
            return batch
        }
        for index in 0..<numReports {
            do throws(AdvertisingReportError) {
                batch.reports.append(extended
                    ? try readExtended(&r, index: index, of: numReports)
                    : try readLegacy(&r, index: index, of: numReports))
            } catch {
                batch.error = error
                return batch
            }
        }
        if r.remaining > 0 { batch.error = .trailingBytes(r.remaining) }
        return batch
    }

    /// Event_Type, Address_Type, Address[6], Data_Length, Data, RSSI (int8).
    static func readLegacy(_ r: inout ByteReader, index: Int, of count: Int) throws(AdvertisingReportError) -> AdvertisingReport {
        let type: UInt8, addressType: UInt8, address: ArraySlice<UInt8>, length: Int
        do throws(ByteReaderError) {
            type = try r.readUInt8("Event_Type")
            addressType = try r.readUInt8("Address_Type")
            address = try r.readSlice(6, "Address")
            length = Int(try r.readUInt8("Data_Length"))
        } catch { throw .truncated(report: index, numReports: count, error) }
        guard length <= r.remaining else { throw .dataLengthPastEnd(report: index, length: length, available: r.remaining) }
        let data: [UInt8], rssi: Int8
        do throws(ByteReaderError) {
            data = try r.readBytes(length, "Data")
            rssi = try r.readInt8("RSSI")
        } catch { throw .truncated(report: index, numReports: count, error) }
        return AdvertisingReport(
            eventType: .legacy(.init(rawValue: type)), addressType: .init(rawValue: addressType),
            address: AdvertisingReport.addressText(wireOrder: address),
            rssi: rssi == AdvertisingReport.notAvailable ? nil : rssi, txPower: nil, data: data)
    }

    /// Event_Type (u16 LE), Address_Type, Address[6], Primary_PHY, Secondary_PHY, Advertising_SID,
    /// TX_Power (int8), RSSI (int8), Periodic_Advertising_Interval (u16 LE), Direct_Address_Type,
    /// Direct_Address[6], Data_Length, Data.
    static func readExtended(_ r: inout ByteReader, index: Int, of count: Int) throws(AdvertisingReportError) -> AdvertisingReport {
        let type: UInt16, addressType: UInt8, address: ArraySlice<UInt8>, primary: UInt8, secondary: UInt8, sid: UInt8
        let txPower: Int8, rssi: Int8, periodic: UInt16, directType: UInt8, direct: ArraySlice<UInt8>, length: Int
        do throws(ByteReaderError) {
            type = try r.readUInt16LE("Event_Type")
            addressType = try r.readUInt8("Address_Type")
            address = try r.readSlice(6, "Address")
            primary = try r.readUInt8("Primary_PHY")
            secondary = try r.readUInt8("Secondary_PHY")
            sid = try r.readUInt8("Advertising_SID")
            txPower = try r.readInt8("TX_Power")
            rssi = try r.readInt8("RSSI")
            periodic = try r.readUInt16LE("Periodic_Advertising_Interval")
            directType = try r.readUInt8("Direct_Address_Type")
            direct = try r.readSlice(6, "Direct_Address")
            length = Int(try r.readUInt8("Data_Length"))
        } catch { throw .truncated(report: index, numReports: count, error) }
        guard length <= r.remaining else { throw .dataLengthPastEnd(report: index, length: length, available: r.remaining) }
        let data: [UInt8]
        do { data = try r.readBytes(length, "Data") } catch { throw .truncated(report: index, numReports: count, error) }
        let fields = AdvertisingReport.ExtendedFields(
            primaryPHY: .init(rawValue: primary), secondaryPHY: .init(rawValue: secondary),
            advertisingSID: sid == 0xFF ? nil : sid, periodicAdvertisingInterval: periodic == 0 ? nil : periodic,
            directAddressType: .init(rawValue: directType),
            directAddress: AdvertisingReport.addressText(wireOrder: direct))
        return AdvertisingReport(
            eventType: .extended(.init(rawValue: type)), addressType: .init(rawValue: addressType),
            address: AdvertisingReport.addressText(wireOrder: address),
            rssi: rssi == AdvertisingReport.notAvailable ? nil : rssi,
            txPower: txPower == AdvertisingReport.notAvailable ? nil : txPower, data: data, extended: fields)
    }
}

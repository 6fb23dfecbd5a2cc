/// btmon-style text for commands, events and advertising data: the dry-run `text` format,
/// `--verbose` traces and the `decode` command all read from here.
public enum CommandText {
    static let indent = "        "

    /// `< LE Set Advertising Data (0x08|0x0008) plen 32`
    public static func traceLine(_ c: HCICommand) -> String {
        "< \(c.opcode.name ?? "Unknown") \(c.opcode.ogfOcfText) plen \(c.parameters.count)"
    }

    /// `> Command Complete (0x0e) LE Set Advertising Data (0x08|0x0008) ncmd 1: Success (0x00)`
    public static func traceLine(_ cc: CommandComplete) -> String {
        let status = cc.status.map { ": \($0)" } ?? ""
        return "> \(EventCode.commandComplete) \(cc.opcode.name ?? "Unknown") \(cc.opcode.ogfOcfText) ncmd \(cc.numHCICommandPackets)\(status)"
    }

    /// `> Command Status (0x0f) ... ncmd 1: Success (0x00)`
    public static func traceLine(_ cs: CommandStatus) -> String {
        "> \(EventCode.commandStatus) \(cs.opcode.name ?? "Unknown") \(cs.opcode.ogfOcfText) ncmd \(cs.numHCICommandPackets): \(cs.status)"
    }

    /// Header, decoded fields and hex rows of one command.
    public static func describe(_ c: HCICommand) -> [String] {
        var lines = ["< HCI Command: \(c.opcode.name ?? "Unknown") \(c.opcode.ogfOcfText) plen \(c.parameters.count)"]
        lines += fields(of: c).map { indent + $0 }
        lines += hexRows(c.parameters).map { indent + $0 }
        return lines
    }

    /// Header and decoded fields of one event.
    public static func describe(_ e: HCIEvent) -> [String] {
        var lines = ["> HCI Event: \(e.code.name) (\(Hex.byte(e.code.rawValue))) plen \(e.parameters.count)"]
        if let cc = try? CommandComplete(e) {
            lines.append(indent + "\(cc.opcode.name ?? "Unknown") \(cc.opcode.ogfOcfText) ncmd \(cc.numHCICommandPackets)")
            if let s = cc.status { lines.append(indent + "  Status: \(s)") }
        } else if let cs = try? CommandStatus(e) {
            lines.append(indent + "\(cs.opcode.name ?? "Unknown") \(cs.opcode.ogfOcfText) ncmd \(cs.numHCICommandPackets)")
            lines.append(indent + "  Status: \(cs.status)")
        } else if let batch = AdvertisingReports.decodePartial(event: e) {
            lines.append(indent + "\(batch.subevent == .extendedAdvertisingReport ? "LE Extended Advertising Report (0x0d)" : "LE Advertising Report (0x02)"): \(batch.reports.count) report(s)")
            for (i, report) in batch.reports.enumerated() {
                lines.append(indent + "  Report \(i + 1)")
                lines += report.descriptionLines.map { indent + "    " + $0 }
            }
            if let error = batch.error { lines.append(indent + "  Malformed: \(error)") }
        }
        lines += hexRows(e.parameters).map { indent + $0 }
        return lines
    }

    /// AD structures, with iBeacon fields decoded.
    public static func describeAdvertisingData(_ data: [UInt8]) -> [String] {
        let structures: [ADStructure]
        do { structures = try ADStructure.parse(data) } catch { return ["Malformed advertising data: \(error)"] }
        var lines: [String] = []
        for s in structures {
            switch s.type {
            case .flags:
                lines.append("Flags: \(Hex.byte(s.data.first ?? 0))")
                let names = [(0x01, "LE Limited Discoverable Mode"), (0x02, "LE General Discoverable Mode"),
                             (0x04, "BR/EDR Not Supported"), (0x08, "Simultaneous LE and BR/EDR (Controller)")]
                for (bit, name) in names where (s.data.first ?? 0) & UInt8(bit) != 0 { lines.append("  " + name) }
            case .manufacturerSpecificData:
                if let beacon = IBeacon(manufacturerData: s.data) {
                    lines.append("Company: Apple, Inc. (76)")
                    lines.append("  Type: iBeacon (2)")
                    lines.append("  UUID: \(beacon.uuid)")
                    lines.append("  Major: \(beacon.major)")
                    lines.append("  Minor: \(beacon.minor)")
                    lines.append("  Measured power: \(beacon.measuredPower) dBm")
                } else {
                    lines.append("\(s.type): \(Hex.encode(s.data))")
                }
            default:
                lines.append("\(s.type): \(Hex.encode(s.data))")
            }
        }
        return lines
    }

    /// 16 bytes per row: `1e 02 01 06 ...`.
    public static func hexRows(_ bytes: [UInt8]) -> [String] {
        stride(from: 0, to: bytes.count, by: 16).map { Hex.encode(bytes[$0..<min($0 + 16, bytes.count)], separator: " ") }
    }

    static func fields(of c: HCICommand) -> [String] {
        var r = ByteReader(c.parameters)
        do {
            switch c.opcode {
            case .leSetAdvertisingParameters where c.parameters.count == 15:
                let min = try r.readUInt16LE(), max = try r.readUInt16LE(), type = try r.readUInt8()
                _ = try r.readBytes(8, "address types and peer address")
                let channels = try r.readUInt8()
                return ["Min advertising interval: \(intervalText(UInt32(min)))",
                        "Max advertising interval: \(intervalText(UInt32(max)))",
                        "Type: \(AdvertisingType(rawValue: type))",
                        "Channel map: \(channelText(channels))"]
            case .leSetAdvertisingData where c.parameters.count == 32, .leSetScanResponseData where c.parameters.count == 32:
                guard let data = c.carriedAdvertisingData else { return ["Length: \(c.parameters[0]) (invalid, more than 31)"] }
                return ["Length: \(data.count)"] + describeAdvertisingData(data).map { "  " + $0 }
            case .leSetAdvertisingEnable where c.parameters.count == 1:
                return ["Advertising: \(c.parameters[0] == 1 ? "Enabled (0x01)" : c.parameters[0] == 0 ? "Disabled (0x00)" : "Reserved (\(Hex.byte(c.parameters[0])))")"]
            case .leSetExtendedAdvertisingParameters where c.parameters.count == 25:
                let handle = try r.readUInt8(), props = try r.readUInt16LE()
                let min = try r.readUInt24LE(), max = try r.readUInt24LE(), channels = try r.readUInt8()
                _ = try r.readBytes(9)
                let tx = try r.readInt8()
                return ["Handle: \(handle)",
                        "Properties: \(Hex.word(props))\(propertiesText(props))",
                        "Min advertising interval: \(intervalText(min))",
                        "Max advertising interval: \(intervalText(max))",
                        "Channel map: \(channelText(channels))",
                        "TX power: " + (tx == HCICommand.txPowerNoPreference ? "Host has no preference (0x7f)" : "\(tx) dBm")]
            case .leSetExtendedAdvertisingData where c.parameters.count >= 4:
                let handle = try r.readUInt8(), op = try r.readUInt8()
                guard let data = c.carriedAdvertisingData else { return ["Handle: \(handle)", "Data length: past the end of the parameters"] }
                return ["Handle: \(handle)", "Operation: \(op == 3 ? "Complete extended advertising data (0x03)" : Hex.byte(op))",
                        "Data length: \(Hex.byte(UInt8(truncatingIfNeeded: data.count)))"] + describeAdvertisingData(data).map { "  " + $0 }
            case .leSetExtendedAdvertisingEnable where c.parameters.count >= 2:
                let enable = try r.readUInt8(), count = try r.readUInt8()
                var lines = ["Extended advertising: \(enable == 1 ? "Enabled (0x01)" : "Disabled (0x00)")", "Number of sets: \(count)"]
                for _ in 0..<count {
                    let handle = try r.readUInt8(), duration = try r.readUInt16LE(), events = try r.readUInt8()
                    lines.append("Entry: handle \(handle), duration \(duration == 0 ? "none" : "\(Int(duration) * 10) ms"), max events \(events)")
                }
                return lines
            case .leRemoveAdvertisingSet where c.parameters.count == 1:
                return ["Handle: \(c.parameters[0])"]
            default:
                return []
            }
        } catch {
            return ["Malformed parameters: \(error)"]
        }
    }

    static func intervalText(_ units: UInt32) -> String {
        let hex = units > 0xFFFF ? "0x" + Hex.encode([UInt8(truncatingIfNeeded: units >> 16), UInt8(truncatingIfNeeded: units >> 8), UInt8(truncatingIfNeeded: units)])
                                 : Hex.word(UInt16(truncatingIfNeeded: units))
        return "\(Milliseconds.format(Double(units) * 0.625)) msec (\(hex))"
    }

    static func channelText(_ map: UInt8) -> String {
        let names = [(0x01, "37"), (0x02, "38"), (0x04, "39")].filter { map & UInt8($0.0) != 0 }.map(\.1)
        return names.joined(separator: ", ") + " (\(Hex.byte(map)))"
    }

    static func propertiesText(_ p: UInt16) -> String {
        if p == AdvertisingEventProperties.legacyNonconnectable.rawValue { return " (legacy ADV_NONCONN_IND)" }
        if p == AdvertisingEventProperties.legacyConnectable.rawValue { return " (legacy ADV_IND)" }
        return ""
    }
}

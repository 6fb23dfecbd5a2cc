// SPDX-License-Identifier: Apache-2.0
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
            if cc.status == .success, let d = CommandTable.description(cc.opcode) {
                lines += d.describeReturnParameters(cc.returnParameters).map { indent + "  " + $0 }
            }
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
        } else if let decoded = try? EventTable.decode(e) {
            if decoded.description.subevent != nil { lines.append(indent + decoded.description.name) }
            lines += HCICommandDescription.describe(decoded.values, decoded.description.fields).map { indent + "  " + $0 }
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
                } else if let beacon = AltBeacon(manufacturerData: s.data) {
                    lines.append("Company: \(beacon.manufacturer) (\(Hex.word(beacon.manufacturer)))")
                    lines.append("  Type: AltBeacon (beacon code 0xbeac)")
                    lines.append("  ID1: \(beacon.id1)")
                    lines.append("  ID2: \(beacon.id2)")
                    lines.append("  ID3: \(beacon.id3)")
                    lines.append("  Reference RSSI: \(beacon.referenceRSSI) dBm")
                    lines.append("  Reserved: \(Hex.byte(beacon.reserved))")
                } else {
                    lines.append("\(s.type): \(Hex.encode(s.data))")
                }
            case .completeList16BitServiceUUIDs, .incompleteList16BitServiceUUIDs:
                // (A `where` on this case would guard only its last pattern.)
                guard s.data.count % 2 == 0 else {
                    lines.append("\(s.type): \(Hex.encode(s.data))")
                    continue
                }
                let uuids = stride(from: 0, to: s.data.count, by: 2).map { i -> String in
                    let uuid = UInt16(s.data[i]) | UInt16(s.data[i + 1]) << 8
                    return Hex.word(uuid) + (uuid == Eddystone.serviceUUID ? " (Eddystone)" : "")
                }
                lines.append("\(s.type.name): \(uuids.joined(separator: ", "))")
            case .serviceData16BitUUID:
                if let frame = Eddystone.Frame(serviceData: s.data) {
                    lines.append("Service Data: Eddystone (0xfeaa)")
                    lines += describeEddystone(frame).map { "  " + $0 }
                } else {
                    lines.append("\(s.type): \(Hex.encode(s.data))")
                }
            default:
                lines.append("\(s.type): \(Hex.encode(s.data))")
            }
        }
        return lines
    }

    /// An Eddystone frame's type and fields, one per line.
    static func describeEddystone(_ frame: Eddystone.Frame) -> [String] {
        switch frame {
        case let .uid(f):
            return ["Frame: UID (0x00)", "Ranging data: \(f.txPower) dBm at 0 m",
                    "Namespace: \(Hex.encode(f.namespace))", "Instance: \(Hex.encode(f.instance))"]
        case let .url(f):
            return ["Frame: URL (0x10)", "TX power: \(f.txPower) dBm at 0 m", "URL: \(f.url)"]
        case let .tlm(f):
            let temperature = f.temperature == Eddystone.TLM.temperatureNotSupported ? "not supported (0x8000)" : "\(fixedPoint(f.temperature)) °C"
            return ["Frame: TLM (0x20), unencrypted", "Battery: " + (f.batteryMillivolts == 0 ? "0 (not battery powered)" : "\(f.batteryMillivolts) mV"),
                    "Temperature: \(temperature)", "Advertising PDUs: \(f.advertisingPDUCount)",
                    "Time since power-on: \(f.uptimeTenths / 10).\(f.uptimeTenths % 10) s"]
        }
    }

    /// A signed 8.8 fixed-point value with two decimals (`26.50`, `-0.25`), without Foundation.
    static func fixedPoint(_ value: Int16) -> String {
        let hundredths = (Int(value) * 100) / 256
        let magnitude = abs(hundredths)
        let fraction = magnitude % 100
        return (value < 0 ? "-" : "") + "\(magnitude / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
    }

    /// 16 bytes per row: `1e 02 01 06 ...`.
    public static func hexRows(_ bytes: [UInt8]) -> [String] {
        stride(from: 0, to: bytes.count, by: 16).map { Hex.encode(bytes[$0..<min($0 + 16, bytes.count)], separator: " ") }
    }

    /// The command's fields as its description in `CommandTable` prints them; none for an unknown opcode.
    static func fields(of c: HCICommand) -> [String] {
        CommandTable.description(c.opcode)?.describeParameters(c.parameters) ?? []
    }
}

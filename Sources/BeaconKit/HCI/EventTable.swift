// SPDX-License-Identifier: Apache-2.0
/// One HCI event (or LE Meta subevent), declared once with its parameter fields (Core spec Vol 4,
/// Part E, §7.7). `decode --json` reads it; Command Complete's Return_Parameters are decoded with the
/// command's own return fields from `CommandTable`.
public struct HCIEventDescription: Sendable {
    public let code: EventCode
    /// The LE Meta subevent, for events 0x3E.
    public let subevent: LEMetaSubevent?
    public let name: String
    /// The fields after Subevent_Code for LE Meta events.
    public let fields: [HCIField]
}

/// A decoded event: its description, its fields and, for Command Complete, the command's return
/// parameters.
public struct DecodedEvent: Sendable {
    public let description: HCIEventDescription
    public let values: [HCIValue]
    /// Command Complete: the command the event completes and the values of its return fields
    /// (nil for a command not in `CommandTable`, whose return parameters stay raw).
    public let returned: (command: HCICommandDescription, values: [HCIValue])?
    /// Command Complete: the Return_Parameters octets.
    public let returnParameters: [UInt8]
}

public enum EventTable {
    public static let descriptions: [HCIEventDescription] = {
        typealias F = HCIField
        let f = HCIFields.self
        let opcode = F("Command_Opcode", .octets(2)) { v in
            let op = Opcode(rawValue: UInt16(truncatingIfNeeded: v))
            return "\(op.name ?? "Unknown") (\(Hex.word(op.rawValue)))"
        }
        let ncmd = F("Num_HCI_Command_Packets", .octets(1), f.decimal)
        let connection = F("Connection_Handle", .octets(2), f.word)
        let rssi = F("RSSI", .octets(1), signed: true) { $0 == 127 ? "not available (127)" : f.dBm($0) }
        func meta(_ subevent: LEMetaSubevent, _ name: String, _ fields: [HCIField]) -> HCIEventDescription {
            HCIEventDescription(code: .leMeta, subevent: subevent, name: name, fields: fields)
        }
        func event(_ code: EventCode, _ fields: [HCIField]) -> HCIEventDescription {
            HCIEventDescription(code: code, subevent: nil, name: code.name, fields: fields)
        }
        let connectionFields: [HCIField] = [
            F("Connection_Interval", .octets(2), f.word), F("Peripheral_Latency", .octets(2), f.word),
            F("Supervision_Timeout", .octets(2), f.word), F("Central_Clock_Accuracy", .octets(1), f.byte),
        ]
        return [
            event(.disconnectionComplete, [f.status, connection, F("Reason", .octets(1)) { Status(rawValue: UInt8(truncatingIfNeeded: $0)).description }]),
            event(.commandComplete, [ncmd, opcode]),
            event(.commandStatus, [f.status, ncmd, opcode]),
            event(.hardwareError, [F("Hardware_Code", .octets(1), f.byte)]),
            // Not a controller event: BlueZ's EVT_STACK_INTERNAL / EVT_SI_DEVICE (lib/hci.h spells the fields type, event, dev_id).
            event(.stackInternal, [F("Type", .octets(2), f.word), F("Event", .octets(2)) { v in
                let names: [UInt32: String] = [1: "registered", 2: "unregistered", 3: "up", 4: "down"]
                return "\(names[v] ?? "unknown") (\(f.word(v)))"
            }, F("Device_ID", .octets(2), f.decimal)]),
            meta(.connectionComplete, "LE Connection Complete", [f.status, connection, F("Role", .octets(1), f.byte),
                 F("Peer_Address_Type", .octets(1), f.byte), f.address("Peer_Address")] + connectionFields),
            meta(.advertisingReport, "LE Advertising Report", [
                F("Num_Reports", .octets(1), f.decimal),
                F("Reports", .repeated(perBitOfPreviousField: false, atLeast: 1, [
                    F("Event_Type", .octets(1), f.byte), F("Address_Type", .octets(1), f.byte), f.address("Address"),
                    F("Data", .lengthPrefixed(padTo: nil)), rssi,
                ])),
            ]),
            meta(.enhancedConnectionComplete, "LE Enhanced Connection Complete", [f.status, connection, F("Role", .octets(1), f.byte),
                 F("Peer_Address_Type", .octets(1), f.byte), f.address("Peer_Address"),
                 f.address("Local_Resolvable_Private_Address"), f.address("Peer_Resolvable_Private_Address")] + connectionFields),
            meta(.extendedAdvertisingReport, "LE Extended Advertising Report", [
                F("Num_Reports", .octets(1), f.decimal),
                F("Reports", .repeated(perBitOfPreviousField: false, atLeast: 1, [
                    F("Event_Type", .octets(2), f.word), F("Address_Type", .octets(1), f.byte), f.address("Address"),
                    F("Primary_PHY", .octets(1), f.phy), F("Secondary_PHY", .octets(1), f.byte), F("Advertising_SID", .octets(1), f.byte),
                    F("TX_Power", .octets(1), signed: true) { $0 == 127 ? "not available (127)" : f.dBm($0) }, rssi,
                    F("Periodic_Advertising_Interval", .octets(2), f.word), F("Direct_Address_Type", .octets(1), f.byte),
                    f.address("Direct_Address"), F("Data", .lengthPrefixed(padTo: nil)),
                ])),
            ]),
            meta(.advertisingSetTerminated, "LE Advertising Set Terminated", [
                f.status, f.handle, connection, F("Num_Completed_Extended_Advertising_Events", .octets(1), f.decimal),
            ]),
        ]
    }()

    /// The description of `event`: by code, and by Subevent_Code for LE Meta events.
    public static func description(of event: HCIEvent) -> HCIEventDescription? {
        let subevent = event.code == .leMeta ? event.parameters.first.map(LEMetaSubevent.init(rawValue:)) : nil
        return descriptions.first { $0.code == event.code && $0.subevent == subevent }
    }

    /// The event's fields; nil for an event not in the table; the first field that does not fit otherwise.
    public static func decode(_ event: HCIEvent) throws(HCIFieldError) -> DecodedEvent? {
        guard let d = description(of: event) else { return nil }
        let bytes = Array(event.parameters.dropFirst(d.subevent == nil ? 0 : 1))
        guard event.code == .commandComplete else {
            return DecodedEvent(description: d, values: try HCICommandDescription.decode(bytes, d.fields), returned: nil, returnParameters: [])
        }
        var r = ByteReader(bytes)
        let values = try HCICommandDescription.decode(&r, d.fields)
        let rest = r.readRest()
        let command = values.last?.integer.flatMap { CommandTable.description(Opcode(rawValue: UInt16(truncatingIfNeeded: $0))) }
        // A command that failed may return its Status alone (Vol 4, Part E, §4.5).
        let failedAlone = rest.count == 1 && rest[0] != 0
        let returned = try command.map { c throws(HCIFieldError) in
            (c, failedAlone ? [.integer(UInt32(rest[0]))] : try c.decodeReturnParameters(rest))
        }
        return DecodedEvent(description: d, values: values, returned: returned, returnParameters: rest)
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// Ready-made controller answers for scripts.
public enum Controllers {
    /// Success answer to a command.
    public static func ok(_ c: HCICommand) -> HCIEvent { CommandComplete.success(for: c).event }

    /// A failed answer: status only.
    public static func fail(_ c: HCICommand, _ status: Status) -> HCIEvent {
        CommandComplete(numHCICommandPackets: 1, opcode: c.opcode, returnParameters: [status.rawValue]).event
    }

    /// The parts of a conversation, in order. Not one `+` chain of step arrays: Swift 6.0.3 (Debian 13's
    /// swiftlang) gives up type-checking the longer ones, when an array literal of `.receive(...)` is among them.
    public static func script(_ parts: [ScriptedController.Step]...) -> [ScriptedController.Step] { parts.flatMap { $0 } }

    /// Expect `c` and answer Success.
    public static func okStep(_ c: HCICommand) -> ScriptedController.Step { .command(c, replies: [ok(c)]) }

    /// Expect each planned command and answer Success.
    public static func okSteps(_ plan: [PlannedCommand]) -> [ScriptedController.Step] { plan.map { okStep($0.command) } }

    /// A Supported_Commands bitmap with these commands' bits set, from the spec's own list
    /// (`specSupportedCommands`), never from `CommandTable`: a wrong bit in the table then fails the probe tests.
    public static func commandBitmap(_ opcodes: [Opcode]) -> [UInt8] {
        var bits = [UInt8](repeating: 0, count: 64)
        for op in opcodes {
            guard let (octet, bit) = specSupportedCommands[op.rawValue] else { continue }
            bits[octet] |= 1 << UInt8(bit)
        }
        return bits
    }

    /// Core spec Vol 4, Part E, §6.27 (Supported Commands), copied by hand: opcode → (octet, bit).
    public static let specSupportedCommands: [UInt16: (octet: Int, bit: Int)] = [
        0x0c01: (5, 6),   // Set Event Mask
        0x0c03: (5, 7),   // Reset
        0x1001: (14, 3),  // Read Local Version Information
        0x1009: (15, 1),  // Read BD_ADDR
        0x2001: (25, 0),  // LE Set Event Mask
        0x2003: (25, 2),  // LE Read Local Supported Features
        0x2005: (25, 4),  // LE Set Random Address
        0x2006: (25, 5),  // LE Set Advertising Parameters
        0x2007: (25, 6),  // LE Read Advertising Physical Channel Tx Power
        0x2008: (25, 7),  // LE Set Advertising Data
        0x2009: (26, 0),  // LE Set Scan Response Data
        0x200a: (26, 1),  // LE Set Advertising Enable
        0x200b: (26, 2),  // LE Set Scan Parameters
        0x200c: (26, 3),  // LE Set Scan Enable
        0x2035: (36, 1),  // LE Set Advertising Set Random Address
        0x2036: (36, 2),  // LE Set Extended Advertising Parameters
        0x2037: (36, 3),  // LE Set Extended Advertising Data
        0x2038: (36, 4),  // LE Set Extended Scan Response Data
        0x2039: (36, 5),  // LE Set Extended Advertising Enable
        0x203a: (36, 6),  // LE Read Maximum Advertising Data Length
        0x203b: (36, 7),  // LE Read Number of Supported Advertising Sets
        0x203c: (37, 0),  // LE Remove Advertising Set
        0x203d: (37, 1),  // LE Clear Advertising Sets
        0x2041: (37, 5),  // LE Set Extended Scan Parameters
        0x2042: (37, 6),  // LE Set Extended Scan Enable
    ]

    public static let legacyOpcodes: [Opcode] = [
        .leSetEventMask, .leReadLocalSupportedFeatures, .leSetRandomAddress, .leSetAdvertisingParameters,
        .leReadAdvertisingPhysicalChannelTxPower, .leSetAdvertisingData, .leSetScanResponseData,
        .leSetAdvertisingEnable, .leSetScanParameters, .leSetScanEnable,
    ]
    public static let extendedOpcodes: [Opcode] = [
        .leSetAdvertisingSetRandomAddress, .leSetExtendedAdvertisingParameters, .leSetExtendedAdvertisingData,
        .leSetExtendedScanResponseData, .leSetExtendedAdvertisingEnable, .leReadMaximumAdvertisingDataLength,
        .leReadNumberOfSupportedAdvertisingSets, .leRemoveAdvertisingSet, .leClearAdvertisingSets,
        .leSetExtendedScanParameters, .leSetExtendedScanEnable,
    ]

    /// The probe conversation of a controller: HCI version, commands, LE features (bit 12 when extended).
    /// `omitting`: commands whose Supported_Commands bit is left clear (a controller that sets the LE
    /// feature bit without every extended command).
    public static func probe(hciVersion: UInt8 = 9, extended: Bool, omitting: [Opcode] = []) -> [ScriptedController.Step] {
        let version = CommandComplete(numHCICommandPackets: 1, opcode: .readLocalVersionInformation,
                                      returnParameters: [0x00, hciVersion, 0x00, 0x00, hciVersion, 0xF1, 0x05, 0x00, 0x00])
        let listed = (legacyOpcodes + (extended ? extendedOpcodes : [])).filter { !omitting.contains($0) }
        let commands = CommandComplete(numHCICommandPackets: 1, opcode: .readLocalSupportedCommands,
                                       returnParameters: [0x00] + commandBitmap(listed))
        let features = CommandComplete(numHCICommandPackets: 1, opcode: .leReadLocalSupportedFeatures,
                                       returnParameters: [0x00, 0x01, extended ? 0x10 : 0x00, 0, 0, 0, 0, 0, 0])
        return [
            .command(.readLocalVersionInformation, replies: [version.event]),
            .command(.readLocalSupportedCommands, replies: [commands.event]),
            .command(.leReadLocalSupportedFeatures, replies: [features.event]),
        ]
    }

    /// What `devices` reads after the probe of an extended controller: max data length 251, 16 sets
    /// (or the answers given: the length as its two octets, little-endian).
    public static func setLimits(length: [UInt8] = [0xFB, 0x00], sets: UInt8 = 0x10) -> [ScriptedController.Step] {
        [
            .command(.leReadMaximumAdvertisingDataLength, replies: [
                CommandComplete(numHCICommandPackets: 1, opcode: .leReadMaximumAdvertisingDataLength, returnParameters: [0x00] + length).event]),
            .command(.leReadNumberOfSupportedAdvertisingSets, replies: [
                CommandComplete(numHCICommandPackets: 1, opcode: .leReadNumberOfSupportedAdvertisingSets, returnParameters: [0x00, sets]).event]),
        ]
    }

    /// hci0 (and more) as the kernel lists them.
    public static func device(_ id: UInt16, up: Bool = true) -> HCIDeviceInfo {
        HCIDeviceInfo(id: id, address: "00:AA:01:00:00:\(id < 10 ? "0" : "")\(id)", isUp: up, bus: "Virtual")
    }
}

/// The golden iBeacon of the tests: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0, major 1, minor 2, power -59.
public enum Golden {
    public static let uuidText = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
    /// Optional only because parsing text is; tests `try #require` it.
    public static let beacon: IBeacon? = ProximityUUID(uuidText).map { IBeacon(uuid: $0, major: 1, minor: 2, measuredPower: -59) }
    public static let advertisingDataHex = "0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5"
}

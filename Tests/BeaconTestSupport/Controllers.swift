import BeaconKit

/// Ready-made controller answers for scripts.
public enum Controllers {
    /// Success answer to a command.
    public static func ok(_ c: HCICommand) -> HCIEvent { CommandComplete.success(for: c).event }

    /// A failed answer: status only.
    public static func fail(_ c: HCICommand, _ status: Status) -> HCIEvent {
        CommandComplete(numHCICommandPackets: 1, opcode: c.opcode, returnParameters: [status.rawValue]).event
    }

    /// Expect `c` and answer Success.
    public static func okStep(_ c: HCICommand) -> ScriptedController.Step { .command(c, replies: [ok(c)]) }

    /// Expect each planned command and answer Success.
    public static func okSteps(_ plan: [PlannedCommand]) -> [ScriptedController.Step] { plan.map { okStep($0.command) } }

    /// A Supported_Commands bitmap with these bits set.
    public static func commandBitmap(_ opcodes: [Opcode]) -> [UInt8] {
        var bits = [UInt8](repeating: 0, count: 64)
        for op in opcodes {
            guard let bit = CommandTable.entry(op)?.supportedCommandsBit else { continue }
            bits[bit / 8] |= 1 << UInt8(bit % 8)
        }
        return bits
    }

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
    public static func probe(hciVersion: UInt8 = 9, extended: Bool) -> [ScriptedController.Step] {
        let version = CommandComplete(numHCICommandPackets: 1, opcode: .readLocalVersionInformation,
                                      returnParameters: [0x00, hciVersion, 0x00, 0x00, hciVersion, 0xF1, 0x05, 0x00, 0x00])
        let commands = CommandComplete(numHCICommandPackets: 1, opcode: .readLocalSupportedCommands,
                                       returnParameters: [0x00] + commandBitmap(legacyOpcodes + (extended ? extendedOpcodes : [])))
        let features = CommandComplete(numHCICommandPackets: 1, opcode: .leReadLocalSupportedFeatures,
                                       returnParameters: [0x00, 0x01, extended ? 0x10 : 0x00, 0, 0, 0, 0, 0, 0])
        return [
            .command(.readLocalVersionInformation, replies: [version.event]),
            .command(.readLocalSupportedCommands, replies: [commands.event]),
            .command(.leReadLocalSupportedFeatures, replies: [features.event]),
        ]
    }

    /// What `devices` reads after the probe of an extended controller: max data length 251, 16 sets.
    public static func setLimits() -> [ScriptedController.Step] {
        [
            .command(.leReadMaximumAdvertisingDataLength, replies: [
                CommandComplete(numHCICommandPackets: 1, opcode: .leReadMaximumAdvertisingDataLength, returnParameters: [0x00, 0xFB, 0x00]).event]),
            .command(.leReadNumberOfSupportedAdvertisingSets, replies: [
                CommandComplete(numHCICommandPackets: 1, opcode: .leReadNumberOfSupportedAdvertisingSets, returnParameters: [0x00, 0x10]).event]),
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

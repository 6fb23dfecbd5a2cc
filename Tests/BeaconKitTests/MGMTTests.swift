// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
import Testing

/// The MGMT vocabulary against BlueZ's mgmt-api (codes, names, layouts copied by hand), whole packets
/// as hex, and decoders that never trap on the kernel's bytes.
@Suite struct MGMTTests {
    /// mgmt-api "Commands": code and name, by hand.
    static let commands: [(UInt16, String)] = [
        (0x0004, "Read Controller Information"), (0x0005, "Set Powered"), (0x0006, "Set Discoverable"),
        (0x0007, "Set Connectable"), (0x000d, "Set Low Energy"), (0x000f, "Set Local Name"),
        (0x0029, "Set Advertising"), (0x002a, "Set BR/EDR"), (0x003d, "Read Advertising Features"),
        (0x003e, "Add Advertising"), (0x003f, "Remove Advertising"), (0x0040, "Get Advertising Size Information"),
        (0x0043, "Set Appearance"), (0x0054, "Add Extended Advertising Parameters"), (0x0055, "Add Extended Advertising Data"),
    ]
    static let events: [(UInt16, String)] = [
        (0x0001, "Command Complete"), (0x0002, "Command Status"), (0x0003, "Controller Error"), (0x0004, "Index Added"),
        (0x0005, "Index Removed"), (0x0006, "New Settings"), (0x0023, "Advertising Added"), (0x0024, "Advertising Removed"),
    ]

    /// 02 01 06 | 1a ff 4c 00 02 15 | UUID | major 1 | minor 2 | -59 dBm: the data beacon-tx passes.
    static let beacon: [UInt8] = Hex.decode("0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5")!

    @Test func codesAndNamesAreMgmtApis() {
        #expect(MGMTCommandTable.descriptions.sorted { $0.opcode < $1.opcode }.map { ($0.opcode.rawValue, $0.name) }.elementsEqual(Self.commands) { $0 == $1 })
        #expect(MGMTEventTable.descriptions.map { ($0.code.rawValue, $0.name) }.elementsEqual(Self.events) { $0 == $1 })
        #expect(MGMTStatus(rawValue: 0x0d).description == "Invalid Parameters (0x0d)")
        #expect(MGMTStatus(rawValue: 0x14).description == "Permission Denied (0x14)")
        #expect(MGMTStatus(rawValue: 0x99).description == "Unknown (0x99)")
    }

    @Test func commandPacketsAsHex() {
        #expect(Hex.encode(MGMTCommand.readAdvertisingFeatures(index: 0).packet) == "3d0000000000")
        #expect(Hex.encode(MGMTCommand.removeAdvertising(index: 1, instance: 5).packet) == "3f000100010005")
        // Instance 5, Flags 0, Duration 1 s, Timeout 0, Adv_Data_Len 30, Scan_Rsp_Len 0, Adv_Data: plen 41.
        #expect(Hex.encode(MGMTCommand.addAdvertising(index: 0, instance: 5, flags: [], duration: 1, advertisingData: Self.beacon).packet)
                == "3e0000002900" + "05" + "00000000" + "0100" + "0000" + "1e" + "00" + Hex.encode(Self.beacon))
        // Flags: Duration (bit 12) and Interval (bit 14) parameters used = 0x00005000; 100 ms = 0xa0.
        #expect(Hex.encode(MGMTCommand.addExtendedAdvertisingParameters(
            index: 0, instance: 4, flags: [.durationParameter, .intervalParameters], duration: 2, minInterval: 0xa0, maxInterval: 0xa0).packet)
                == "540000001200" + "04" + "00500000" + "0200" + "0000" + "a0000000" + "a0000000" + "00")
        #expect(Hex.encode(MGMTCommand.addExtendedAdvertisingData(index: 0, instance: 4, advertisingData: Self.beacon).packet)
                == "550000002100" + "04" + "1e" + "00" + Hex.encode(Self.beacon))
        #expect(Hex.encode(MGMTCommand.getAdvertisingSizeInformation(index: 0, instance: 1, flags: .switchIntoConnectableMode).packet)
                == "400000000500" + "01" + "01000000")
    }

    @Test func commandPacketsDecodeBackAndBadSizesAreRefused() throws {
        let add = MGMTCommand.addAdvertising(index: 2, instance: 3, flags: .switchIntoConnectableMode, duration: 2, advertisingData: Self.beacon)
        #expect(try MGMTCommand(packet: add.packet) == add)
        #expect(add.instance == 3)
        #expect(add.advertisingData == Self.beacon)
        // Adv_Data_Len says 30, 29 octets follow.
        #expect(throws: MGMTDecodingError.self) { try MGMTCommand(packet: Hex.decode("3e0000002800" + "03" + "01000000" + "0200" + "0000" + "1e00")! + Array(Self.beacon.dropLast())) }
        // Parameter Length 5, 4 octets.
        #expect(throws: MGMTDecodingError.lengthMismatch(expected: 5, actual: 4)) { try MGMTCommand(packet: Hex.decode("400000000500" + "01000000")!) }
        #expect(throws: MGMTDecodingError.truncatedHeader(available: 3)) { try MGMTCommand(packet: [0x3d, 0, 0]) }
    }

    @Test func eventsDecode() throws {
        // Read Advertising Features answered: flags 0x0000007f, 31, 31, 5 instances, 2 in use (1 and 3).
        let features = try MGMTEvent(packet: Hex.decode("010000000d00" + "3d00" + "00" + "7f000000" + "1f" + "1f" + "05" + "02" + "0103")!)
        guard case let .commandComplete(op, status, returned) = try features.decoded() else { Issue.record("not a Command Complete"); return }
        #expect(op == .readAdvertisingFeatures && status == .success)
        let f = try MGMTAdvertisingFeatures(returnParameters: returned)
        #expect(f == MGMTAdvertisingFeatures(supportedFlags: MGMTAdvertisingFlags(rawValue: 0x7f), maxInstances: 5, instances: [1, 3]))
        #expect(f.returnParameters == returned)
        #expect(f.freeInstances(2) == [5, 4])
        #expect(f.freeInstances(3) == [5, 4, 2])
        #expect(f.freeInstances(4) == nil)
        #expect(f.freeInstances(4, keeping: [3]) == [5, 4, 3, 2])

        #expect(try MGMTEvent(packet: Hex.decode("020000000300" + "5500" + "0d")!).decoded() == .commandStatus(.addExtendedAdvertisingData, .invalidParameters))
        #expect(try MGMTEvent(packet: Hex.decode("240001000100" + "05")!).decoded() == .advertisingRemoved(instance: 5))
        #expect(try MGMTEvent(packet: Hex.decode("230000000100" + "01")!).decoded() == .advertisingAdded(instance: 1))
        #expect(try MGMTEvent(packet: Hex.decode("040000000000")!).decoded() == .indexAdded)
        #expect(try MGMTEvent(packet: Hex.decode("050000000000")!).decoded() == .indexRemoved)
        let settings = try MGMTEvent(packet: Hex.decode("060000000400" + "01060000")!).decoded()
        #expect(settings == .newSettings([.powered, .lowEnergy, .advertising]))
        #expect(try MGMTEvent(packet: Hex.decode("0b0000000000")!).decoded() == .other)
    }

    /// Read Controller Information's answer is longer than 255 octets (plen 0x011b = 283): both length octets count.
    @Test func readControllerInformationAnswer() throws {
        let name = Array("hci0-pi".utf8) + [UInt8](repeating: 0, count: 249 - 7)
        let hex = "010000001b01" + "0400" + "00" + "230000" + "01aa00" + "09" + "f105" + "ffff0100" + "c1060000" + "000000"
            + Hex.encode(name) + String(repeating: "00", count: 11)
        let event = try MGMTEvent(packet: Hex.decode(hex)!)
        guard case let .commandComplete(op, .success, returned) = try event.decoded() else { Issue.record("not a Command Complete"); return }
        #expect(op == .readControllerInformation && returned.count == 280)
        let info = try MGMTControllerInformation(returnParameters: returned)
        #expect(info.address == "00:AA:01:00:00:23")
        #expect(info.currentSettings.names == ["Powered", "Secure Simple Pairing", "Basic Rate/Enhanced Data Rate", "Low Energy", "Advertising"])
        #expect(info.currentSettings.contains(.powered))
        #expect(MGMTText.describe(event).contains("        Name: hci0-pi"))
    }

    /// Every cut of a valid packet, and every length octet set wrong, throws or decodes: never traps.
    @Test func kernelBytesNeverTrap() {
        let packets = ["010000000d00" + "3d00" + "00" + "7f000000" + "1f" + "1f" + "05" + "02" + "0103",
                       "240001000100" + "05", "060000000400" + "01060000", "020000000300" + "5500" + "0d"]
        for hex in packets {
            let bytes = Hex.decode(hex)!
            for n in 0...bytes.count {
                var cut = Array(bytes.prefix(n))
                if cut.count >= 6 { cut[4] = UInt8(truncatingIfNeeded: cut.count - 6); cut[5] = 0 }
                if let e = try? MGMTEvent(packet: cut), case let .commandComplete(_, _, r)? = try? e.decoded() {
                    _ = try? MGMTAdvertisingFeatures(returnParameters: r)
                    _ = MGMTText.describe(e)
                }
            }
        }
        // Num_Instances 200 with 2 entries.
        #expect(throws: MGMTDecodingError.self) { try MGMTAdvertisingFeatures(returnParameters: Hex.decode("7f0000001f1f05c80103")!) }
        #expect(throws: MGMTDecodingError.self) { try MGMTControllerInformation(returnParameters: [1, 2, 3]) }
    }

    @Test func textNamesEveryField() {
        let add = MGMTCommand.addExtendedAdvertisingParameters(index: 0, instance: 4, flags: [.durationParameter, .intervalParameters],
                                                               duration: 2, minInterval: 0xa0, maxInterval: 0xf0)
        #expect(MGMTText.describe(add) == [
            "@ MGMT Command: Add Extended Advertising Parameters (0x0054) plen 18 [hci0]",
            "        Instance: 4",
            "        Flags: 0x00005000 (The Duration parameter should be used, The Interval parameters should be used)",
            "        Duration: 2 s",
            "        Timeout: none (0)",
            "        MinInterval: 100.000 msec (0x00a0)",
            "        MaxInterval: 150.000 msec (0x00f0)",
            "        TxPower: 0 dBm",
        ])
        let removed = MGMTEvent(.advertisingRemoved, index: 0, [5])
        #expect(MGMTText.traceLine(removed) == "@ MGMT Event: Advertising Removed (0x0024) plen 1 [hci0] instance 5")
    }

    @Test func runnerKeepsOtherEventsAndMatchesOpcodeAndIndex() throws {
        let read = MGMTCommand.readAdvertisingFeatures(index: 0)
        let features = MGMTAdvertisingFeatures(supportedFlags: [], maxInstances: 5, instances: [1])
        let other = MGMTEvent(.advertisingAdded, index: 0, [1])
        let kernel = ScriptedKernel([
            .command(read, replies: [other, MGMTEvent.complete(MGMTCommand.readAdvertisingFeatures(index: 1), .success, []),
                                     Kernel.ok(read, features.returnParameters)]),
        ])
        let runner = MGMTCommandRunner(channel: kernel)
        #expect(try runner.readAdvertisingFeatures(index: 0) == features)
        #expect(runner.takeUnrelated().map(\.code) == [.advertisingAdded, .commandComplete])
        #expect(kernel.isFullyConsumed && kernel.mismatches.isEmpty)
    }

    @Test func runnerReportsAFailedStatusAndATimeout() {
        let data = MGMTCommand.addExtendedAdvertisingData(index: 0, instance: 5, advertisingData: Self.beacon)
        let kernel = ScriptedKernel([.command(data, replies: [Kernel.fail(data, .invalidParameters)]),
                                     .command(data, replies: [])])
        let runner = MGMTCommandRunner(channel: kernel, timeoutMilliseconds: 500)
        #expect(throws: MGMTError.commandFailed(opcode: .addExtendedAdvertisingData, index: 0, status: .invalidParameters)) { try runner.run(data) }
        #expect(throws: MGMTError.timeout(opcode: .addExtendedAdvertisingData, milliseconds: 500)) { try runner.run(data) }
        #expect(MGMTError.commandFailed(opcode: .addExtendedAdvertisingData, index: 0, status: .invalidParameters).description
                == "MGMT Add Extended Advertising Data (0x0055) on hci0 failed: Invalid Parameters (0x0d)")
    }
}

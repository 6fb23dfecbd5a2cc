// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
import Testing

/// `CaptureFile.read`: btsnoop datalinks 1001, 1002 and 2001 (btmon -w), golden records as hex.
@Suite struct CaptureFileTests {
    func bytes(_ hex: String) throws -> [UInt8] { try #require(Hex.decode(hex)) }

    static let header2001 = "6274736e6f6f7000" + "00000001" + "000007d1"
    static let t0: UInt64 = 946_684_800_000_000   // 2000-01-01, btsnoop 0x00e03ab44a676000

    /// One record of each monitor opcode, 1 ms apart (layouts: BlueZ src/shared/btsnoop.h and the
    /// kernel's hci_sock.c; flags = index << 16 | opcode).
    static let monitorRecords = [
        // New Index hci0: type 0 primary, bus 0 virtual, BD_ADDR 00:00:AA:00:00:00, name hci0
        "0000001000000010000000000000000000e03ab44a6760000000000000aa00006863693000000000",
        // Open Index hci0
        "0000000000000000000000080000000000e03ab44a6763e8",
        // Index Info hci0: BD_ADDR, manufacturer 0x05f1
        "00000008000000080000000a0000000000e03ab44a6767d0000000aa0000f105",
        // HCI command hci0: Reset
        "0000000300000003000000020000000000e03ab44a676bb8030c00",
        // HCI event hci0: Command Complete Reset Success
        "0000000600000006000000030000000000e03ab44a676fa00e0401030c00",
        // ACL TX hci1
        "0000000400000004000100040000000000e03ab44a677388deadbeef",
        // Close Index hci0
        "0000000000000000000000090000000000e03ab44a677770",
        // Delete Index hci0
        "0000000000000000000000010000000000e03ab44a677b58",
        // System Note (no controller)
        "0000000600000006ffff000c0000000000e03ab44a677f4068656c6c6f00",
        // User Logging: priority 6, ident btmon, message hi
        "0000000b0000000bffff000d0000000000e03ab44a678328060662746d6f6e00686900",
        // Control Open: cookie 1, format 2 (MGMT), version 1.22, trusted, comm btmgmt (16 bytes)
        "0000001e0000001effff000e0000000000e03ab44a678710010000000200011600010000001062746d676d7400000000000000000000",
        // Control Command hci0: cookie 1, MGMT Remove Advertising (0x003f), instance 0
        "0000000700000007000000100000000000e03ab44a678af8010000003f0000",
        // Control Event hci0: cookie 1, MGMT Command Complete (0x0001)
        "0000000a0000000a000000110000000000e03ab44a678ee00100000001003f000000",
        // Control Close: cookie 1
        "0000000400000004ffff000f0000000000e03ab44a6792c801000000",
        // ISO RX hci0
        "0000000100000001000000130000000000e03ab44a6796b0aa",
        // unknown opcode 0x63
        "0000000100000001000000630000000000e03ab44a679a9801",
        // HCI command without its parameter length
        "0000000200000002000000020000000000e03ab44a679e800320",
    ]

    static func expectedMonitor() -> [CaptureRecord] {
        let kinds: [(UInt16, CaptureRecord.Kind)] = [
            (0, .newIndex(.init(type: 0, bus: 0, address: [0, 0, 0, 0xaa, 0, 0], name: "hci0"))),
            (0, .openIndex),
            (0, .indexInfo(address: [0, 0, 0, 0xaa, 0, 0], manufacturer: 0x05f1)),
            (0, .command(.reset)),
            (0, .event(CommandComplete.success(for: .reset).event)),
            (1, .data(.acl, received: false, [0xde, 0xad, 0xbe, 0xef])),
            (0, .closeIndex),
            (0, .deleteIndex),
            (0xffff, .systemNote("hello")),
            (0xffff, .userLogging(priority: 6, ident: "btmon", message: "hi")),
            (0xffff, .controlOpen(.init(cookie: 1, format: 2, version: 1, revision: 22, flags: 1, comm: "btmgmt"))),
            (0, .controlCommand(cookie: 1, opcode: 0x003f, parameters: [0])),
            (0, .controlEvent(cookie: 1, event: 0x0001, parameters: [0x3f, 0, 0, 0])),
            (0xffff, .controlClose(cookie: 1)),
            (0, .data(.iso, received: true, [0xaa])),
            (0, .unknown(opcode: 0x63, [0x01])),
            (0, .malformed(what: "HCI command", [0x03, 0x20])),
        ]
        return kinds.enumerated().map { i, k in
            CaptureRecord(unixMicroseconds: t0 + UInt64(i) * 1000, controllerIndex: k.0, kind: k.1)
        }
    }

    @Test func monitorGoldenRecords() throws {
        let file = try CaptureFile.read(try bytes(Self.header2001 + Self.monitorRecords.joined()), .fail)
        #expect(file.datalink == 2001)
        #expect(file.warning == nil)
        #expect(file.records == Self.expectedMonitor())
    }

    @Test func hciDatalink1001() throws {
        // flags bit 1: command/event; bit 0: received
        let hex = "6274736e6f6f7000" + "00000001" + "000003e9"
            + "0000000300000003000000020000000000e03ab44a676000030c00"
            + "0000000600000006000000030000000000e03ab44a6763e80e0401030c00"
            + "0000000400000004000000010000000000e03ab44a6767d0deadbeef"
        let file = try CaptureFile.read(try bytes(hex), .fail)
        #expect(file == CaptureFile(datalink: 1001, records: [
            CaptureRecord(unixMicroseconds: Self.t0, controllerIndex: nil, kind: .command(.reset)),
            CaptureRecord(unixMicroseconds: Self.t0 + 1000, controllerIndex: nil, kind: .event(CommandComplete.success(for: .reset).event)),
            CaptureRecord(unixMicroseconds: Self.t0 + 2000, controllerIndex: nil, kind: .data(.acl, received: true, [0xde, 0xad, 0xbe, 0xef])),
        ]))
    }

    @Test func h4Datalink1002() throws {
        let hex = "6274736e6f6f7000" + "00000001" + "000003ea"
            + "0000000400000004000000020000000000e03ab44a67600001030c00"
            + "0000000700000007000000030000000000e03ab44a6763e8040e0401030c00"
            + "0000000500000005000000010000000000e03ab44a6767d002deadbeef"
            + "0000000200000002000000000000000000e03ab44a676bb805aa"
            + "0000000200000002000000010000000000e03ab44a676fa003bb"
            + "0000000200000002000000000000000000e03ab44a677388ff00"
        let file = try CaptureFile.read(try bytes(hex), .fail)
        #expect(file.records.map(\.kind) == [
            .command(.reset), .event(CommandComplete.success(for: .reset).event),
            .data(.acl, received: true, [0xde, 0xad, 0xbe, 0xef]), .data(.iso, received: false, [0xaa]),
            .data(.sco, received: true, [0xbb]), .malformed(what: "H4 packet type 0xff", [0xff, 0x00]),
        ])
        #expect(file.records.map(\.controllerIndex) == Array(repeating: nil, count: 6))
    }

    /// Our own 1002 writer and the reader agree (dry-run captures are verifiable).
    @Test func readsOurOwnDryRunCaptures() throws {
        let commands: [HCICommand] = [.reset, .leSetAdvertisingEnable(true)]
        let synthetic = BTSnoop.syntheticCapture(of: commands)
        let file = try CaptureFile.read(BTSnoop.encode(synthetic), .fail)
        #expect(file.records.map(\.kind) == [
            .command(.reset), .event(CommandComplete.success(for: .reset).event),
            .command(.leSetAdvertisingEnable(true)), .event(CommandComplete.success(for: .leSetAdvertisingEnable(true)).event),
        ])
        #expect(file.records.map(\.unixMicroseconds) == synthetic.map(\.unixMicroseconds))
    }

    /// btmon killed mid-write: every cut inside the last record keeps the records before it and warns.
    @Test func truncatedTailIsAWarning() throws {
        let whole = try bytes(Self.header2001 + Self.monitorRecords.joined())
        let last = try bytes(Self.monitorRecords[Self.monitorRecords.count - 1])
        for cut in 1..<last.count {
            let file = try CaptureFile.read(Array(whole.dropLast(cut)), .dropWithWarning)
            #expect(file.records == Array(Self.expectedMonitor().dropLast()))
            #expect(file.warning?.hasPrefix("record 17 is cut short at the end of the file") == true)
        }
        let cut = try CaptureFile.read(Array(whole.dropLast(2)), .dropWithWarning)
        #expect(cut.warning == "record 17 is cut short at the end of the file (truncated packet: needs 2 byte(s), 0 left); read 16 records")
        // A header alone is an empty capture.
        #expect(try CaptureFile.read(try bytes(Self.header2001), .fail) == CaptureFile(datalink: 2001, records: []))
    }

    @Test func garbageFailsWithoutCrashing() throws {
        #expect(throws: BTSnoopError.notBTSnoop) { try CaptureFile.read(Array("not a capture at all".utf8), .fail) }
        #expect(throws: BTSnoopError.self) { try CaptureFile.read(Array("btsn".utf8), .fail) }
        #expect(throws: BTSnoopError.unsupportedCapture(version: 1, datalink: 1003)) {
            try CaptureFile.read(try bytes("6274736e6f6f7000" + "00000001" + "000003eb"), .fail)
        }
        // An included length no packet has, in the middle of the file: the framing is broken.
        let huge = "7fffffff7fffffff000000020000000000e03ab44a676000"
        #expect(throws: BTSnoopError.malformedRecord(number: 2, "included length 2147483647 (original 2147483647) is not a packet length")) {
            try CaptureFile.read(try bytes(Self.header2001 + Self.monitorRecords[0] + huge + Self.monitorRecords[1]), .fail)
        }
        // Included longer than original.
        #expect(throws: BTSnoopError.self) {
            try CaptureFile.read(try bytes(Self.header2001 + "00000001000000020000000c0000000000e03ab44a6760006869"), .fail)
        }
        // Pseudo-random payloads under every opcode: records of some kind, never a trap.
        var seed: UInt32 = 12345
        func next() -> UInt8 { seed = seed &* 1_103_515_245 &+ 12345; return UInt8(truncatingIfNeeded: seed >> 16) }
        for opcode in 0...20 {
            for length in 0..<40 {
                var m = MonitorCapture()
                m.add(UInt16(opcode % 3), UInt16(opcode), (0..<length).map { _ in next() })
                let file = try CaptureFile.read(m.bytes, .fail)
                #expect(file.records.count == 1)
            }
        }
        // Random bytes after a valid header: either records or an error, never a crash.
        for _ in 0..<200 {
            let tail = (0..<Int(next() % 80)).map { _ in next() }
            _ = try? CaptureFile.read(try bytes(Self.header2001) + tail, .dropWithWarning)
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import Foundation
import Glibc
@testable import HCISocket
import Testing

/// `/dev/rfkill` events (whole 8-byte `struct rfkill_event`s given as hex, longer ones of newer
/// kernels, short reads) and the sysfs switches of `/sys/class/bluetooth/hciN/rfkillM`.
@Suite struct RFKillTests {
    @Test func wholeEventsDecode() throws {
        // idx 3, type 2 (Bluetooth), op 2 (change), soft 1, hard 0.
        let change = try #require(RFKillEvent(Hex.decode("0300000002020100")!))
        #expect(change == RFKillEvent(index: 3, type: 2, operation: .change, soft: true, hard: false))
        #expect(change.isBluetooth && change.block == RFKillBlock(soft: true, hard: false))
        // idx 0x01020304 little-endian, type 1 (WLAN), op 0 (add), hard only.
        let add = try #require(RFKillEvent(Hex.decode("0403020101000001")!))
        #expect(add.index == 0x0102_0304 && add.operation == .add && !add.isBluetooth && add.block.text == "hard")
        #expect(RFKillEvent(Hex.decode("0000000002010000")!)?.operation == .delete)
        #expect(RFKillEvent(Hex.decode("0000000002030101")!)?.block.text == "soft and hard")
        #expect(RFKillEvent(Hex.decode("00000000020a0000")!)?.operation == .other(10))
        // A newer kernel's 9-byte event (hard_block_reasons): the ninth byte is ignored.
        #expect(RFKillEvent(Hex.decode("030000000202000001")!) == RFKillEvent(index: 3, type: 2, operation: .change, soft: false, hard: false))
        // Any byte value is a flag, never a trap.
        #expect(RFKillEvent(Hex.decode("ffffffffffffffff")!)?.block == RFKillBlock(soft: true, hard: true))
    }

    @Test func shortReadsAreNoEvent() {
        for n in 0..<RFKillEvent.size {
            #expect(RFKillEvent([UInt8](repeating: 1, count: n)) == nil, "\(n) bytes")
        }
    }

    @Test func drainReadsEveryPendingEventAndDropsShortOnes() {
        let k = FakeKernel()
        k.reads[7] = [.bytes(Hex.decode("0000000002020100")!), .bytes([0x01, 0x00, 0x00]), .bytes(Hex.decode("0100000002020000")!), .fails(EAGAIN)]
        let events = RFKillSwitch.drain(7, system: k.calls)
        #expect(events.map(\.index) == [0, 1])
        #expect(events.map(\.soft) == [true, false])
        #expect(k.isFullyConsumed)
        // A flood ends at the limit.
        let flood = FakeKernel()
        flood.reads[7] = Array(repeating: .bytes(Hex.decode("0000000002020100")!), count: 5)
        #expect(RFKillSwitch.drain(7, system: flood.calls, limit: 3).count == 3)
    }

    @Test func sysfsSwitches() throws {
        let root = NSTemporaryDirectory() + "beacon-tx-sysfs-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let fm = FileManager.default
        try fm.createDirectory(atPath: root + "/hci0/rfkill4", withIntermediateDirectories: true)
        try "1\n".write(toFile: root + "/hci0/rfkill4/soft", atomically: true, encoding: .utf8)
        try "0\n".write(toFile: root + "/hci0/rfkill4/hard", atomically: true, encoding: .utf8)
        try fm.createDirectory(atPath: root + "/hci1", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: root + "/hci2/rfkill9", withIntermediateDirectories: true)
        try "x\n".write(toFile: root + "/hci2/rfkill9/soft", atomically: true, encoding: .utf8)
        try "0\n".write(toFile: root + "/hci2/rfkill9/hard", atomically: true, encoding: .utf8)
        #expect(RFKillSwitch.block(deviceID: 0, sysfs: root) == RFKillBlock(soft: true, hard: false))
        #expect(RFKillSwitch.block(deviceID: 1, sysfs: root) == nil, "no switch (a virtual controller)")
        #expect(RFKillSwitch.block(deviceID: 2, sysfs: root) == nil, "unreadable flag")
        #expect(RFKillSwitch.block(deviceID: 3, sysfs: root) == nil, "no such controller")
        #expect(RFKillSwitch.listDirectory(root) == ["hci0", "hci1", "hci2"])
    }
}

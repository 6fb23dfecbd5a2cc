// SPDX-License-Identifier: Apache-2.0
import Testing
import BeaconKit

private func hex(_ command: HCICommand) -> String { Hex.encode(command.packet, separator: " ") }
private func hex(_ plan: [PlannedCommand]) -> [String] { plan.map { hex($0.command) } }

@Suite("Scanning: scan command encoders and scan plan")
struct ScanningCommandsTests {
    @Test func leSetScanParametersPassive() {
        #expect(hex(.leSetScanParameters(type: .passive, interval: 0x0010, window: 0x0010))
            == "01 0b 20 07 00 10 00 10 00 00 00")
    }

    /// Public vector: BlueZ `tools/hcitool.c` `cmd_lescan` defaults — scan_type 0x01 (active),
    /// interval = window = htobs(0x0010), own_type LE_PUBLIC_ADDRESS, filter_policy 0x00, filter_dup 0x01.
    @Test func hcitoolLescanDefaults() {
        #expect(hex(.leSetScanParameters(type: .active, interval: 0x0010, window: 0x0010, ownAddressType: 0x00, filterPolicy: .acceptAll))
            == "01 0b 20 07 01 10 00 10 00 00 00")
        #expect(hex(.leSetScanEnable(true, filterDuplicates: true)) == "01 0c 20 02 01 01")
    }

    @Test func leSetScanParametersLittleEndianFields() {
        // 0x4000 interval, 0x0123 window, random own address, accept-list filter.
        #expect(hex(.leSetScanParameters(type: .passive, interval: 0x4000, window: 0x0123, ownAddressType: 0x01, filterPolicy: .filterAcceptList))
            == "01 0b 20 07 00 00 40 23 01 01 01")
    }

    @Test func leSetScanEnable() {
        #expect(hex(.leSetScanEnable(true)) == "01 0c 20 02 01 00")
        #expect(hex(.leSetScanEnable(false)) == "01 0c 20 02 00 00")
    }

    @Test func leSetExtendedScanParametersLE1M() {
        let phy = ScanPHYParameters(type: .passive, interval: 0x0010, window: 0x0010)
        #expect(hex(.leSetExtendedScanParameters(le1M: phy)) == "01 41 20 08 00 00 01 00 10 00 10 00")
    }

    /// Public vector: the btmon trace of `bluetoothctl scan le` (BlueZ 5.72) quoted by a maintainer in
    /// bluez/bluez issue #992: "LE Set Extended Scan Parameters (0x08|0x0041) plen 13, Own address type:
    /// Random (0x01), Filter policy: Accept all advertisement (0x00), PHYs: 0x05, Entry 0: LE 1M Active
    /// Interval 0x0012 Window 0x0012, Entry 1: LE Coded Active Interval 0x0036 Window 0x0036".
    @Test func bluetoothctlScanLeVector() {
        let command = HCICommand.leSetExtendedScanParameters(
            ownAddressType: 0x01, filterPolicy: .acceptAll,
            le1M: ScanPHYParameters(type: .active, interval: 0x0012, window: 0x0012),
            leCoded: ScanPHYParameters(type: .active, interval: 0x0036, window: 0x0036))
        #expect(hex(command) == "01 41 20 0d 01 00 05 01 12 00 12 00 01 36 00 36 00")
        // And it round-trips through the command parser, which checks plen against the table.
        #expect((try? HCICommand(packet: command.packet)) == command)
    }

    @Test func leSetExtendedScanParametersCodedOnly() {
        let phy = ScanPHYParameters(type: .active, interval: 0x0036, window: 0x0012)
        #expect(hex(.leSetExtendedScanParameters(le1M: nil, leCoded: phy)) == "01 41 20 08 00 00 04 01 36 00 12 00")
    }

    @Test func leSetExtendedScanEnable() {
        #expect(hex(.leSetExtendedScanEnable(true)) == "01 42 20 06 01 00 00 00 00 00")
        #expect(hex(.leSetExtendedScanEnable(false)) == "01 42 20 06 00 00 00 00 00 00")
        // Duration 5 s (500 × 10 ms), period 2.56 s (2 × 1.28 s): little-endian u16s.
        #expect(hex(.leSetExtendedScanEnable(true, filterDuplicates: true, duration: 0x01f4, period: 0x0002))
            == "01 42 20 06 01 01 f4 01 02 00")
    }

    @Test func everyScanEncoderMatchesTheCommandTable() throws {
        let phy = ScanPHYParameters(type: .passive, interval: 0x10, window: 0x10)
        for command in [HCICommand.leSetScanParameters(type: .passive, interval: 0x10, window: 0x10),
                        .leSetScanEnable(true), .leSetExtendedScanParameters(le1M: phy),
                        .leSetExtendedScanParameters(le1M: phy, leCoded: phy), .leSetExtendedScanEnable(true)] {
            let entry = try #require(CommandTable.entry(command.opcode))
            #expect(entry.parameters.accepts(command.parameters.count), "\(command)")
        }
    }

    @Test func legacyPlanStartAndStop() throws {
        let plan = try ScanPlan(family: .legacy)
        #expect(hex(plan.start) == [
            "01 0c 20 02 00 00",                   // disable first
            "01 0b 20 07 00 10 00 10 00 00 00",    // passive, 10 ms / 10 ms
            "01 0c 20 02 01 00",                   // enable, duplicates NOT filtered
        ])
        #expect(hex(plan.stop) == ["01 0c 20 02 00 00"])
        #expect(plan.start[0].tolerated == [.commandDisallowed])
        #expect(plan.start[1].tolerated.isEmpty && plan.start[2].tolerated.isEmpty)
        #expect(plan.stop[0].tolerated == [.commandDisallowed])
    }

    @Test func extendedPlanStartAndStop() throws {
        let options = ScanOptions(active: true, interval: 0x0060, window: 0x0030)
        let plan = try ScanPlan(family: .extended, options: options)
        #expect(hex(plan.start) == [
            "01 42 20 06 00 00 00 00 00 00",
            "01 41 20 08 00 00 01 01 60 00 30 00",
            "01 42 20 06 01 00 00 00 00 00",
        ])
        #expect(hex(plan.stop) == ["01 42 20 06 00 00 00 00 00 00"])
    }

    @Test func extendedPlanWithCodedPHY() throws {
        let plan = try ScanPlan(family: .extended, options: ScanOptions(scanCodedPHY: true))
        #expect(hex(plan.start[1].command) == "01 41 20 0d 00 00 05 00 10 00 10 00 00 10 00 10 00")
    }

    @Test func planRejectsOutOfRangeOptions() {
        #expect(throws: ScanOptionsError.outOfRange(field: "scan interval", units: 0x0003, minimum: 0x0004, maximum: 0x4000)) {
            try ScanPlan(family: .legacy, options: ScanOptions(interval: 0x0003, window: 0x0003))
        }
        #expect(throws: ScanOptionsError.outOfRange(field: "scan interval", units: 0x4001, minimum: 0x0004, maximum: 0x4000)) {
            try ScanPlan(family: .legacy, options: ScanOptions(interval: 0x4001, window: 0x0010))
        }
        #expect(throws: ScanOptionsError.windowLongerThanInterval(window: 0x0020, interval: 0x0010)) {
            try ScanPlan(family: .extended, options: ScanOptions(interval: 0x0010, window: 0x0020))
        }
        // Extended scanning allows intervals beyond 0x4000.
        #expect((try? ScanPlan(family: .extended, options: ScanOptions(interval: 0x8000, window: 0x0010))) != nil)
    }

    @Test func optionsErrorText() {
        #expect(ScanOptionsError.outOfRange(field: "scan interval", units: 0x0003, minimum: 0x0004, maximum: 0x4000).description
            == "scan interval 1.875 ms (0x0003) is out of range: 2.500 ms (0x0004) to 10240.000 ms (0x4000)")
        #expect(ScanOptionsError.windowLongerThanInterval(window: 0x0020, interval: 0x0010).description
            == "scan window 20.000 ms (0x0020) must not be longer than the scan interval 10.000 ms (0x0010)")
    }

    @Test func millisecondsToUnits() {
        #expect(ScanOptions.units(milliseconds: 10) == 0x0010)
        #expect(ScanOptions.units(milliseconds: 11.25) == 0x0012)
        #expect(ScanOptions.units(milliseconds: 10240) == 0x4000)
        #expect(ScanOptions.units(milliseconds: -1) == nil)
        #expect(ScanOptions.units(milliseconds: .nan) == nil)
        #expect(ScanOptions.units(milliseconds: 50_000) == nil)
    }
}

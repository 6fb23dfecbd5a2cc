// SPDX-License-Identifier: Apache-2.0
@testable import BeaconTool
import BeaconKit
import BeaconTestSupport
import Testing

/// `CaptureVerifier`: synthetic monitor captures built from the plan's own command bytes and
/// `CommandComplete.success(for:)`, with other programs' traffic around them; whole reports asserted.
@Suite struct CaptureVerifierTests {
    static let uuid = ProximityUUID(Golden.uuidText)

    static func kiosk(_ minors: [UInt16], interval: AdvertisingInterval = .standard, family: AdvertisingFamily? = nil,
                      txPower: Int8? = nil, connectable: Bool = false) throws -> KioskConfiguration {
        let uuid = try #require(Self.uuid)
        return KioskConfiguration(beacons: minors.map {
            BeaconAdvertisement(frame: .iBeacon(IBeacon(uuid: uuid, major: 1, minor: $0)),
                                options: AdvertisingOptions(interval: interval, connectable: connectable, txPower: txPower))
        }, family: family)
    }

    /// A fresh controller answers the start plan's leading disables with Unknown Advertising Identifier.
    static func fresh(_ c: HCICommand) -> Status {
        c.opcode == .leSetExtendedAdvertisingEnable && c.parameters.first == 0 ? .unknownAdvertisingIdentifier : .success
    }

    static func surroundings(_ m: inout MonitorCapture) throws { m.otherPrograms(uuid: try #require(uuid)) }

    /// beacon-tx's raw socket and the start plan of `config` at 1 s.
    static func started(_ config: KioskConfiguration, family: AdvertisingFamily = .extended, rotate: Bool = false,
                        status: (HCICommand) -> Status = fresh) throws -> (MonitorCapture, KioskPlan) {
        var m = MonitorCapture()
        try surroundings(&m)
        m.at(1)
        m.controlOpen(cookie: 2, format: 0, comm: "beacon-tx", index: 0)
        let plan = try KioskPlan(config, family: family, rotate: rotate)
        m.run(0, plan.start, status: status)
        m.at(2)
        m.event(0, HCIEvent(code: .leMeta, parameters: [0x0d, 0x01, 0x13, 0x00, 0x00, 0x00, 0x00, 0x00, 0xbb, 0x00, 0x00]))
        return (m, plan)
    }

    func report(_ m: MonitorCapture, _ config: KioskConfiguration, index: UInt16 = 0) throws -> CaptureReport {
        CaptureVerifier.verify(try CaptureFile.read(m.bytes, .fail), expected: config, controllerIndex: index)
    }

    func expectText(_ r: CaptureReport, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let actual = VerifyReport.text(r, file: "kiosk.snoop").joined(separator: "\n")
        #expect(actual == expected, sourceLocation: sourceLocation)
        if actual != expected, let dir = dumpDirectory { dumpActual(actual, dir, "\(sourceLocation.line)") }
    }

    @Test func twoBeaconsOnAirPass() throws {
        let config = try Self.kiosk([1, 2])
        let (m, _) = try Self.started(config)
        let r = try report(m, config)
        #expect(r.passed)
        #expect(r.firstFailure == nil)
        expectText(r, """
            capture: kiosk.snoop
            datalink: BlueZ monitor (2001), 37 records
            controller: hci0 (index 0)

            beacon 1: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 1 power -59 dBm
              found: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 1 power -59 dBm, extended commands, set 239
              parameters: interval 100.000–100.000 ms, non-connectable (Advertising_Event_Properties 0x0010), Advertising_TX_Power no preference
              configured at 1.005 s, on air at 1.013 s
              commands: 4, all answered Success
              on at 1.013 s: LE Set Extended Advertising Enable (0x2039) enabling set 239, set 238
              at the end: on air
              ok

            beacon 2: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2 power -59 dBm
              found: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2 power -59 dBm, extended commands, set 238
              parameters: interval 100.000–100.000 ms, non-connectable (Advertising_Event_Properties 0x0010), Advertising_TX_Power no preference
              configured at 1.011 s, on air at 1.013 s
              commands: 4, all answered Success
              on at 1.013 s: LE Set Extended Advertising Enable (0x2039) enabling set 239, set 238
              at the end: on air
              ok

            PASS: 2 beacon(s) configured as expected and on air at the end
            """)
    }

    /// `verify --config` with a config whose minor differs: the best match is named with the field.
    @Test func minorMismatchNamesTheMinor() throws {
        let (m, _) = try Self.started(try Self.kiosk([1, 2]))
        let r = try report(m, try Self.kiosk([1, 3]))
        #expect(!r.passed)
        #expect(r.firstFailure == .beacon(number: 2, .configDiffers(FieldDifference(
            command: "LE Set Extended Advertising Data", field: "iBeacon minor", expected: "3", actual: "2"))))
        expectText(r, """
            capture: kiosk.snoop
            datalink: BlueZ monitor (2001), 37 records
            controller: hci0 (index 0)

            beacon 1: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 1 power -59 dBm
              found: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 1 power -59 dBm, extended commands, set 239
              parameters: interval 100.000–100.000 ms, non-connectable (Advertising_Event_Properties 0x0010), Advertising_TX_Power no preference
              configured at 1.005 s, on air at 1.013 s
              commands: 4, all answered Success
              on at 1.013 s: LE Set Extended Advertising Enable (0x2039) enabling set 239, set 238
              at the end: on air
              ok

            beacon 2: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 3 power -59 dBm
              found: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2 power -59 dBm, extended commands, set 238
              parameters: interval 100.000–100.000 ms, non-connectable (Advertising_Event_Properties 0x0010), Advertising_TX_Power no preference
              configured at 1.011 s, on air at 1.013 s
              commands: 4, all answered Success
              on at 1.013 s: LE Set Extended Advertising Enable (0x2039) enabling set 239, set 238
              at the end: on air
              FAIL: LE Set Extended Advertising Data: iBeacon minor 3 ≠ 2 (config ≠ capture)

            FAIL: beacon 2: LE Set Extended Advertising Data: iBeacon minor 3 ≠ 2 (config ≠ capture)
            """)
    }

    @Test func intervalMismatchNamesAdvertisingIntervalMin() throws {
        let capture = try Self.kiosk([1], family: .legacy)
        let (m, _) = try Self.started(capture, family: .legacy)
        let config = try Self.kiosk([1], interval: try #require(AdvertisingInterval(milliseconds: 200)), family: .legacy)
        let r = try report(m, config)
        #expect(r.firstFailure == .beacon(number: 1, .configDiffers(FieldDifference(
            command: "LE Set Advertising Parameters", field: "Advertising_Interval_Min", expected: "0x0140", actual: "0x00a0"))))
        expectText(r, """
            capture: kiosk.snoop
            datalink: BlueZ monitor (2001), 31 records
            controller: hci0 (index 0)

            beacon 1: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 1 power -59 dBm
              found: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 1 power -59 dBm, legacy commands, legacy instance
              parameters: interval 100.000–100.000 ms, non-connectable (Advertising_Type Non connectable undirected - ADV_NONCONN_IND (0x03))
              configured at 1.005 s, on air at 1.007 s
              commands: 4, all answered Success
              on at 1.007 s: LE Set Advertising Enable (0x200a) enabling the legacy instance
              at the end: on air
              FAIL: LE Set Advertising Parameters: Advertising_Interval_Min 0x0140 ≠ 0x00a0 (config ≠ capture)

            FAIL: beacon 1: LE Set Advertising Parameters: Advertising_Interval_Min 0x0140 ≠ 0x00a0 (config ≠ capture)
            """)
        // extended: the spec's names there
        let (e, _) = try Self.started(try Self.kiosk([1]))
        #expect(try report(e, try Self.kiosk([1], interval: try #require(AdvertisingInterval(milliseconds: 200)))).firstFailure
            == .beacon(number: 1, .configDiffers(FieldDifference(command: "LE Set Extended Advertising Parameters",
                                                                 field: "Primary_Advertising_Interval_Min", expected: "0x000140", actual: "0x0000a0"))))
        // connectability and tx power
        let (c, _) = try Self.started(try Self.kiosk([1], txPower: -12))
        let both = try report(c, try Self.kiosk([1], txPower: -4, connectable: true))
        #expect(both.beacons[0].failures == [
            .configDiffers(FieldDifference(command: "LE Set Extended Advertising Parameters", field: "Advertising_Event_Properties",
                                           expected: "0x0013", actual: "0x0010")),
            .txPowerDiffers(.leSetExtendedAdvertisingParameters, expected: -4, actual: -12),
        ])
        #expect(both.beacons[0].failures.map(VerifyReport.text) == [
            "LE Set Extended Advertising Parameters: Advertising_Event_Properties 0x0013 ≠ 0x0010 (config ≠ capture)",
            "LE Set Extended Advertising Parameters: Advertising_TX_Power -4 ≠ -12 dBm (config ≠ capture)",
        ])
    }

    @Test func failedCommandIsNamed() throws {
        let config = try Self.kiosk([1, 2])
        let (m, _) = try Self.started(config) { c in
            c.opcode == .leSetExtendedAdvertisingParameters && c.parameters.first == 238 ? Status(rawValue: 0x07) : Self.fresh(c)
        }
        let r = try report(m, config)
        let failed = FailedCommand.hci(.leSetExtendedAdvertisingParameters, on: .set(238), seconds: 1.009, status: Status(rawValue: 0x07))
        #expect(r.beacons[1].failedCommands == [failed])
        #expect(r.firstFailure == .beacon(number: 2, .commandFailed(failed)))
        expectText(r, """
            capture: kiosk.snoop
            datalink: BlueZ monitor (2001), 37 records
            controller: hci0 (index 0)

            beacon 1: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 1 power -59 dBm
              found: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 1 power -59 dBm, extended commands, set 239
              parameters: interval 100.000–100.000 ms, non-connectable (Advertising_Event_Properties 0x0010), Advertising_TX_Power no preference
              configured at 1.005 s, on air at 1.013 s
              commands: 4, all answered Success
              on at 1.013 s: LE Set Extended Advertising Enable (0x2039) enabling set 239, set 238
              at the end: on air
              ok

            beacon 2: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2 power -59 dBm
              found: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2 power -59 dBm, extended commands, set 238
              parameters: interval 100.000–100.000 ms, non-connectable (Advertising_Event_Properties 0x0010), Advertising_TX_Power no preference
              configured at 1.011 s, on air at 1.013 s
              commands: 4, 1 failed
                LE Set Extended Advertising Parameters (0x2036) on set 238 at 1.009 s failed: Memory Capacity Exceeded (0x07)
              on at 1.013 s: LE Set Extended Advertising Enable (0x2039) enabling set 239, set 238
              at the end: on air
              FAIL: LE Set Extended Advertising Parameters (0x2036) on set 238 at 1.009 s failed: Memory Capacity Exceeded (0x07)

            FAIL: beacon 2: LE Set Extended Advertising Parameters (0x2036) on set 238 at 1.009 s failed: Memory Capacity Exceeded (0x07)
            """)
    }

    /// `btmgmt clr-adv` after our start: the kernel disables all sets and clears them for btmgmt's
    /// Remove Advertising; nothing re-arms.
    @Test func clrAdvFromBtmgmtNamesCommandAndProgram() throws {
        let config = try Self.kiosk([1, 2])
        var (m, _) = try Self.started(config)
        m.at(3.2)
        m.controlOpen(cookie: 3, format: 2, comm: "btmgmt")
        m.mgmt(0, cookie: 3, opcode: 0x003f, [0])
        m.run(0, .leSetExtendedAdvertisingEnable(false, sets: []))
        m.run(0, .leClearAdvertisingSets)
        m.controlClose(cookie: 3)
        let r = try report(m, config)
        let last = try #require(r.beacons[0].events.last)
        #expect(r.firstFailure == .beacon(number: 1, .offAirAtEnd(last)))
        expectText(r, """
            capture: kiosk.snoop
            datalink: BlueZ monitor (2001), 44 records
            controller: hci0 (index 0)

            beacon 1: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 1 power -59 dBm
              found: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 1 power -59 dBm, extended commands, set 239
              parameters: interval 100.000–100.000 ms, non-connectable (Advertising_Event_Properties 0x0010), Advertising_TX_Power no preference
              configured at 1.005 s, on air at 1.013 s
              commands: 4, all answered Success
              on at 1.013 s: LE Set Extended Advertising Enable (0x2039) enabling set 239, set 238
              went off at 3.202 s: LE Set Extended Advertising Enable (0x2039) disabling all sets (Number_of_Sets 0), sent by the kernel for MGMT Remove Advertising (0x003f) from btmgmt
              at the end: off since 3.202 s
              FAIL: off air at the end of the capture: went off at 3.202 s: LE Set Extended Advertising Enable (0x2039) disabling all sets (Number_of_Sets 0), sent by the kernel for MGMT Remove Advertising (0x003f) from btmgmt

            beacon 2: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2 power -59 dBm
              found: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2 power -59 dBm, extended commands, set 238
              parameters: interval 100.000–100.000 ms, non-connectable (Advertising_Event_Properties 0x0010), Advertising_TX_Power no preference
              configured at 1.011 s, on air at 1.013 s
              commands: 4, all answered Success
              on at 1.013 s: LE Set Extended Advertising Enable (0x2039) enabling set 239, set 238
              went off at 3.202 s: LE Set Extended Advertising Enable (0x2039) disabling all sets (Number_of_Sets 0), sent by the kernel for MGMT Remove Advertising (0x003f) from btmgmt
              at the end: off since 3.202 s
              FAIL: off air at the end of the capture: went off at 3.202 s: LE Set Extended Advertising Enable (0x2039) disabling all sets (Number_of_Sets 0), sent by the kernel for MGMT Remove Advertising (0x003f) from btmgmt

            FAIL: beacon 1: off air at the end of the capture: went off at 3.202 s: LE Set Extended Advertising Enable (0x2039) disabling all sets (Number_of_Sets 0), sent by the kernel for MGMT Remove Advertising (0x003f) from btmgmt
            """)
    }

    /// A disable on a raw HCI socket (hcitool): the monitor does not say which process sent it, so
    /// the raw sockets open then are listed.
    @Test func rawSocketDisableListsOpenRawSockets() throws {
        let config = try Self.kiosk([1, 2])
        var (m, _) = try Self.started(config)
        m.at(3)
        m.controlOpen(cookie: 4, format: 0, comm: "hcitool")
        m.run(0, .leSetExtendedAdvertisingEnable(false, sets: [AdvertisingSetEnable(handle: 238)]))
        let r = try report(m, config)
        #expect(r.beacons[0].passed)
        #expect(r.beacons[1].events.map(\.text) == [
            "on at 1.013 s: LE Set Extended Advertising Enable (0x2039) enabling set 239, set 238",
            "went off at 3.001 s: LE Set Extended Advertising Enable (0x2039) disabling set 238, sent on a raw HCI socket (raw sockets open: beacon-tx, hcitool)",
        ])
        let last = try #require(r.beacons[1].events.last)
        #expect(r.firstFailure == .beacon(number: 2, .offAirAtEnd(last)))
    }

    /// Device down (Close Index) and up again, re-armed by the kiosk: off, then on again; passes.
    @Test func deviceDownThenUpRearmedPasses() throws {
        let config = try Self.kiosk([1, 2])
        var (m, plan) = try Self.started(config)
        m.at(4)
        m.controlOpen(cookie: 5, format: 0, comm: "hciconfig")
        m.closeIndex(0)
        m.at(6)
        m.openIndex(0)
        m.run(0, .reset)
        m.run(0, plan.start, status: Self.fresh)
        let r = try report(m, config)
        #expect(r.passed)
        expectText(r, """
            capture: kiosk.snoop
            datalink: BlueZ monitor (2001), 56 records
            controller: hci0 (index 0)

            beacon 1: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 1 power -59 dBm
              found: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 1 power -59 dBm, extended commands, set 239
              parameters: interval 100.000–100.000 ms, non-connectable (Advertising_Event_Properties 0x0010), Advertising_TX_Power no preference
              configured at 1.005 s, on air at 1.013 s
              commands: 8, all answered Success
              on at 1.013 s: LE Set Extended Advertising Enable (0x2039) enabling set 239, set 238
              went off at 4.001 s: Close Index (device down), raw sockets open then: beacon-tx, hciconfig
              on at 6.015 s: LE Set Extended Advertising Enable (0x2039) enabling set 239, set 238
              at the end: on air
              ok

            beacon 2: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2 power -59 dBm
              found: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2 power -59 dBm, extended commands, set 238
              parameters: interval 100.000–100.000 ms, non-connectable (Advertising_Event_Properties 0x0010), Advertising_TX_Power no preference
              configured at 1.011 s, on air at 1.013 s
              commands: 8, all answered Success
              on at 1.013 s: LE Set Extended Advertising Enable (0x2039) enabling set 239, set 238
              went off at 4.001 s: Close Index (device down), raw sockets open then: beacon-tx, hciconfig
              on at 6.015 s: LE Set Extended Advertising Enable (0x2039) enabling set 239, set 238
              at the end: on air
              ok

            PASS: 2 beacon(s) configured as expected and on air at the end
            """)
    }

    /// The same capture verified for hci1: hci0's beacons are not hci1's; hci1's own traffic is judged.
    @Test func otherControllerIsSeparate() throws {
        let config = try Self.kiosk([1, 2])
        let (m, _) = try Self.started(config)
        #expect(try report(m, config).passed)
        let r = try report(m, try Self.kiosk([9]), index: 1)
        expectText(r, """
            capture: kiosk.snoop
            datalink: BlueZ monitor (2001), 37 records
            controller: hci1 (index 1)

            beacon 1: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 9 power -59 dBm
              found: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 9 power -59 dBm, extended commands, set 239
              parameters: interval 20.000–20.000 ms, non-connectable (Advertising_Event_Properties 0x0010), Advertising_TX_Power no preference
              configured at 0.016 s, on air at 0.018 s
              commands: 3, 1 failed
                LE Set Extended Advertising Parameters (0x2036) on set 239 at 0.014 s failed: Memory Capacity Exceeded (0x07)
              on at 0.018 s: LE Set Extended Advertising Enable (0x2039) enabling set 239
              at the end: on air
              FAIL: LE Set Extended Advertising Parameters: Primary_Advertising_Interval_Min 0x0000a0 ≠ 0x000020 (config ≠ capture)

            FAIL: beacon 1: LE Set Extended Advertising Parameters: Primary_Advertising_Interval_Min 0x0000a0 ≠ 0x000020 (config ≠ capture)
            """)
    }

    @Test func ownStopPlanPasses() throws {
        let config = try Self.kiosk([1, 2])
        var (m, plan) = try Self.started(config)
        m.at(5)
        m.run(0, plan.stop)
        m.controlClose(cookie: 2, index: 0)
        let r = try report(m, config)
        #expect(r.passed)
        expectText(r, """
            capture: kiosk.snoop
            datalink: BlueZ monitor (2001), 46 records
            controller: hci0 (index 0)

            beacon 1: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 1 power -59 dBm
              found: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 1 power -59 dBm, extended commands, set 239
              parameters: interval 100.000–100.000 ms, non-connectable (Advertising_Event_Properties 0x0010), Advertising_TX_Power no preference
              configured at 1.005 s, on air at 1.013 s
              commands: 6, all answered Success
              on at 1.013 s: LE Set Extended Advertising Enable (0x2039) enabling set 239, set 238
              went off at 5.000 s: LE Set Extended Advertising Enable (0x2039) disabling set 239, stopped by beacon-tx's stop plan
              at the end: stopped by beacon-tx's stop plan at 5.000 s
              ok

            beacon 2: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2 power -59 dBm
              found: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2 power -59 dBm, extended commands, set 238
              parameters: interval 100.000–100.000 ms, non-connectable (Advertising_Event_Properties 0x0010), Advertising_TX_Power no preference
              configured at 1.011 s, on air at 1.013 s
              commands: 6, all answered Success
              on at 1.013 s: LE Set Extended Advertising Enable (0x2039) enabling set 239, set 238
              went off at 5.002 s: LE Set Extended Advertising Enable (0x2039) disabling set 238, stopped by beacon-tx's stop plan
              at the end: stopped by beacon-tx's stop plan at 5.002 s
              ok

            PASS: 2 beacon(s) configured as expected and on air until stopped by beacon-tx
            """)
    }

    /// The same bytes as the stop plan sent by another program (hcitool, no beacon-tx socket open)
    /// are not beacon-tx's stop: a legacy beacon switched off by `hcitool cmd 0x08 0x000a 00` fails.
    @Test func identicalDisableFromAnotherProgramIsNotTheStopPlan() throws {
        let config = try Self.kiosk([1], family: .legacy)
        var (m, plan) = try Self.started(config, family: .legacy)
        m.controlClose(cookie: 2, index: 0)
        m.at(3)
        m.controlOpen(cookie: 4, format: 0, comm: "hcitool")
        m.run(0, plan.stop)
        let r = try report(m, config)
        let off = try #require(r.beacons[0].events.last)
        #expect(r.firstFailure == .beacon(number: 1, .offAirAtEnd(off)))
        #expect(!off.on && !off.byStopPlan && off.seconds == 3.001)
        #expect(off.cause == "LE Set Advertising Enable (0x200a) disabling the legacy instance")
        #expect(off.who == "sent on a raw HCI socket (raw sockets open: hcitool)")
        // With beacon-tx's socket open it is its stop plan.
        var own = try Self.started(config, family: .legacy).0
        own.at(3)
        own.run(0, plan.stop)
        #expect(try report(own, config).passed)
    }

    /// Records stamped before the first one (a clock step, a hand-made file) print with a sign.
    @Test func timesBeforeTheFirstRecord() throws {
        let config = try Self.kiosk([1])
        var (m, plan) = try Self.started(config)
        m.at(-2.5)
        m.run(0, plan.stop[0].command, status: Status(rawValue: 0x1f))
        let r = try report(m, config)
        #expect(r.firstFailure == .beacon(number: 1, .commandFailed(.hci(.leSetExtendedAdvertisingEnable, on: .set(239), seconds: -2.5,
                                                                          status: Status(rawValue: 0x1f)))))
        #expect(VerifyReport.firstFailureText(r) == "beacon 1: LE Set Extended Advertising Enable (0x2039) on set 239 at -2.500 s failed: Unspecified Error (0x1f)")
        #expect(CaptureReport.seconds(-0.0004) == "-0.000")
        #expect(CaptureReport.seconds(.nan) == "?")
    }

    /// A legacy single-beacon plan as our own dry-run capture (datalink 1002, no controller index).
    @Test func legacyFamilyFromADryRunCapture() throws {
        let config = try Self.kiosk([7], family: .legacy)
        let plan = try KioskPlan(config, family: .legacy)
        let file = try CaptureFile.read(BTSnoop.encode(BTSnoop.syntheticCapture(of: (plan.start + plan.stop).map(\.command))), .fail)
        let r = CaptureVerifier.verify(file, expected: config, controllerIndex: 0)
        #expect(r.passed)
        expectText(r, """
            capture: kiosk.snoop
            datalink: HCI UART H4 (1002), 10 records
            controller: the capture's only controller (no index in this datalink)

            beacon 1: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 7 power -59 dBm
              found: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 7 power -59 dBm, legacy commands, legacy instance
              parameters: interval 100.000–100.000 ms, non-connectable (Advertising_Type Non connectable undirected - ADV_NONCONN_IND (0x03))
              configured at 0.004 s, on air at 0.006 s
              commands: 5, all answered Success
              on at 0.006 s: LE Set Advertising Enable (0x200a) enabling the legacy instance
              went off at 0.008 s: LE Set Advertising Enable (0x200a) disabling the legacy instance, stopped by beacon-tx's stop plan
              at the end: stopped by beacon-tx's stop plan at 0.008 s
              ok

            PASS: 1 beacon(s) configured as expected and on air until stopped by beacon-tx
            """)
        // The config asks for extended commands: the family is named.
        let wrong = CaptureVerifier.verify(file, expected: try Self.kiosk([7], family: .extended), controllerIndex: 0)
        #expect(wrong.firstFailure == .beacon(number: 1, .familyDiffers(expected: .extended, actual: .legacy)))
    }

    /// Three beacons rotated on the legacy instance: each one's data is set while it is enabled.
    @Test func legacyRotation() throws {
        let config = try Self.kiosk([1, 2, 3], family: .legacy)
        var (m, plan) = try Self.started(config, family: .legacy, rotate: true)
        for (i, step) in plan.rotationSteps.enumerated() {
            m.at(1.2 + 0.2 * Double(i))
            m.run(0, step.command)
        }
        let r = try report(m, config)
        #expect(r.passed)
        expectText(r, """
            capture: kiosk.snoop
            datalink: BlueZ monitor (2001), 37 records
            controller: hci0 (index 0)

            beacon 1: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 1 power -59 dBm
              found: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 1 power -59 dBm, legacy commands, legacy instance (rotation: beacons share it)
              parameters: interval 100.000–100.000 ms, non-connectable (Advertising_Type Non connectable undirected - ADV_NONCONN_IND (0x03))
              configured at 1.005 s, on air at 1.007 s
              commands: 7, all answered Success
              on at 1.007 s: LE Set Advertising Enable (0x200a) enabling the legacy instance
              at the end: on air
              ok

            beacon 2: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2 power -59 dBm
              found: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2 power -59 dBm, legacy commands, legacy instance (rotation: beacons share it)
              parameters: interval 100.000–100.000 ms, non-connectable (Advertising_Type Non connectable undirected - ADV_NONCONN_IND (0x03))
              configured at 1.400 s, on air at 1.400 s
              commands: 7, all answered Success
              on at 1.007 s: LE Set Advertising Enable (0x200a) enabling the legacy instance
              at the end: on air
              ok

            beacon 3: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 3 power -59 dBm
              found: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 3 power -59 dBm, legacy commands, legacy instance (rotation: beacons share it)
              parameters: interval 100.000–100.000 ms, non-connectable (Advertising_Type Non connectable undirected - ADV_NONCONN_IND (0x03))
              configured at 1.600 s, on air at 1.600 s
              commands: 7, all answered Success
              on at 1.007 s: LE Set Advertising Enable (0x200a) enabling the legacy instance
              at the end: on air
              ok

            PASS: 3 beacon(s) configured as expected and on air at the end
            """)
        // Beacon 3's data set only after the instance was disabled: never on air.
        var off = try Self.started(config, family: .legacy, rotate: true).0
        off.at(1.2)
        off.run(0, plan.rotationSteps[1].command)
        off.run(0, .leSetAdvertisingEnable(false))
        off.run(0, plan.rotationSteps[2].command)
        let r2 = try report(off, config)
        #expect(r2.firstFailure == .beacon(number: 3, .neverEnabled(.legacy, rotation: true)))
    }
}

import Foundation
/// `VERIFY_DUMP=/dir swift test`: a differing report is written there, to review and paste.
let dumpDirectory = ProcessInfo.processInfo.environment["VERIFY_DUMP"]
func dumpActual(_ text: String, _ dir: String, _ name: String) {
    try? text.write(toFile: dir + "/" + name + ".txt", atomically: true, encoding: .utf8)
}

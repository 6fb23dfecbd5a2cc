// SPDX-License-Identifier: Apache-2.0
import BeaconKit
@testable import BeaconTool
import Testing

/// doctor's `firmware` finding: the drivers' firmware-load failure lines as the kernel logs them
/// (the forms of public reports: btrtl, btbcm, btintel and the firmware loader), in `/dev/kmsg`'s
/// record form and `dmesg`'s.
@Suite struct FirmwareLogTests {
    static let realtek = """
        6,1201,5019233,-;usb 1-2: new full-speed USB device number 4 using xhci_hcd
        3,1230,6120412,-;bluetooth hci0: Direct firmware load for rtl_bt/rtl8761bu_fw.bin failed with error -2
         SUBSYSTEM=bluetooth
         DEVICE=+bluetooth:hci0
        3,1231,6120455,-;Bluetooth: hci0: RTL: firmware file rtl_bt/rtl8761bu_fw.bin not found
        """
    /// A Raspberry Pi 4 without bluez-firmware (btbcm goes on with the ROM code).
    static let broadcom = """
        [   11.495833] Bluetooth: hci0: BCM: firmware Patch file not found, tried:
        [   11.495864] Bluetooth: hci0: BCM: 'brcm/BCM4345C0.raspberrypi,4-model-b.hcd'
        [   11.495875] Bluetooth: hci0: BCM: 'brcm/BCM4345C0.hcd'
        [   11.495884] Bluetooth: hci0: BCM: 'brcm/BCM.raspberrypi,4-model-b.hcd'
        [   11.495894] Bluetooth: hci0: BCM: 'brcm/BCM.hcd'
        [   11.501002] Bluetooth: hci0: BCM4345C0 (003.001.025) build 0000
        """
    static let intel = """
        [    7.843610] bluetooth hci1: firmware: failed to load intel/ibt-0040-0041.sfi (-2)
        [    7.843700] iwlwifi 0000:00:14.3: Direct firmware load for iwlwifi-so-a0-gf-a0-89.ucode failed with error -2
        [    7.847842] Bluetooth: hci1: Failed to load Intel firmware file intel/ibt-0040-0041.sfi (-2)
        """

    @Test func realtekRecordsAndTheLoadersLineAreOneFatalFailure() {
        let all = FirmwareLoadFailure.all(in: Self.realtek)
        #expect(all == [FirmwareLoadFailure(device: "hci0", vendor: .realtek, files: ["rtl_bt/rtl8761bu_fw.bin"])])
        let f = DoctorRules.firmware(log: Self.realtek)
        #expect(f.count == 1)
        #expect(f[0].verdict == .fail && f[0].device == "hci0" && f[0].id == "firmware")
        #expect(f[0].summary == "Realtek controller's firmware could not be loaded: its driver stops without it: the adapter does not come up")
        #expect(f[0].detail.contains("not found: rtl_bt/rtl8761bu_fw.bin;"))
        #expect(f[0].remedy.hasPrefix("install firmware-realtek (Debian's non-free-firmware component"))
        // btrtl's own lines alone (the loader's is absent where it was asked not to warn)
        #expect(FirmwareLoadFailure.all(in: "Bluetooth: hci0: RTL: mandatory config file rtl_bt/rtl8723bs_config.bin not found")
            == [FirmwareLoadFailure(device: "hci0", vendor: .realtek, files: ["rtl_bt/rtl8723bs_config.bin"])])
    }

    @Test func broadcomListsEveryFileItTriedAndOnlyWarns() {
        let all = FirmwareLoadFailure.all(in: Self.broadcom)
        #expect(all == [FirmwareLoadFailure(device: "hci0", vendor: .broadcom, files: [
            "brcm/BCM4345C0.raspberrypi,4-model-b.hcd", "brcm/BCM4345C0.hcd", "brcm/BCM.raspberrypi,4-model-b.hcd", "brcm/BCM.hcd",
        ])])
        let f = DoctorRules.firmware(log: Self.broadcom)
        #expect(f.map(\.verdict) == [.warn])
        #expect(f[0].summary.hasSuffix("it runs the older code in its ROM instead, with that code's bugs"))
        #expect(f[0].remedy.hasPrefix("install bluez-firmware"))
        // the older form of btbcm's line (one file)
        #expect(FirmwareLoadFailure.all(in: "Bluetooth: hci0: BCM: Patch brcm/BCM20702A1-0a5c-21e6.hcd not found")
            == [FirmwareLoadFailure(device: "hci0", vendor: .broadcom, files: ["brcm/BCM20702A1-0a5c-21e6.hcd"])])
    }

    @Test func intelByItsDriverAndDebiansLoaderLineNotWifi() {
        #expect(FirmwareLoadFailure.all(in: Self.intel) == [FirmwareLoadFailure(device: "hci1", vendor: .intel, files: ["intel/ibt-0040-0041.sfi"])])
        #expect(DoctorRules.firmware(log: Self.intel).first?.remedy.hasPrefix("install firmware-iwlwifi") == true)
        // older btintel names no file
        #expect(FirmwareLoadFailure.all(in: "Bluetooth: hci0: Failed to load Intel firmware file (-2)")
            == [FirmwareLoadFailure(device: "hci0", vendor: .intel, files: [])])
    }

    @Test func anotherVendorsFileIsAWarningWithTheFileNamed() {
        let log = "bluetooth hci2: Direct firmware load for qca/rampatch_usb_00000302.bin failed with error -2"
        let f = DoctorRules.firmware(log: log)
        #expect(f.map(\.verdict) == [.warn] && f[0].device == "hci2")
        #expect(f[0].summary.hasPrefix("a controller's firmware could not be loaded"))
        #expect(f[0].detail.contains("qca/rampatch_usb_00000302.bin") && f[0].remedy.contains("linux-firmware"))
    }

    @Test func aCleanLogIsOkAndAnUnreadableOneSaysSo() {
        let clean = "[    3.1] Bluetooth: hci0: RTL: fw version 0xdab7480d\n[    3.2] Bluetooth: MGMT ver 1.22\n[    3.3] Bluetooth: hci0: BCM: chip id 63"
        #expect(DoctorRules.firmware(log: clean).map(\.verdict) == [.ok])
        #expect(DoctorRules.firmware(log: "").map(\.verdict) == [.ok])
        let unreadable = DoctorRules.firmware(log: nil)
        #expect(unreadable.map(\.verdict) == [.warn] && unreadable[0].remedy.contains("root"))
        // a "device" that is not hciN, a truncated line: nothing
        #expect(FirmwareLoadFailure.all(in: "Bluetooth: hcix: RTL: firmware file a not found\nBluetooth: hci0\nbluetooth hci0: Direct firmware load for ").isEmpty)
    }

    @Test func aLaterLoadOfTheSameControllersFirmwareClearsTheFailure() {
        // the package installed and the adapter replugged (or a reboot's later log)
        #expect(FirmwareLoadFailure.all(in: Self.realtek + "\n6,1290,9120455,-;Bluetooth: hci0: RTL: fw version 0xdfc6d922").isEmpty)
        #expect(FirmwareLoadFailure.all(in: Self.broadcom + "\n[   95.1] Bluetooth: hci0: BCM4345C0 'brcm/BCM4345C0.hcd' Patch").isEmpty)
        #expect(FirmwareLoadFailure.all(in: Self.intel + "\n[   40.2] Bluetooth: hci1: Found device firmware: intel/ibt-0040-0041.sfi").isEmpty)
        // another device's, or another vendor's, load clears nothing
        #expect(FirmwareLoadFailure.all(in: Self.realtek + "\nBluetooth: hci1: RTL: fw version 0xdfc6d922").count == 1)
        #expect(FirmwareLoadFailure.all(in: Self.realtek + "\nBluetooth: hci0: Found device firmware: intel/x.sfi").count == 1)
        // a failure after the load counts again
        #expect(FirmwareLoadFailure.all(in: "Bluetooth: hci0: RTL: fw version 0x1\n" + Self.realtek).count == 1)
    }

    @Test func twoDevicesAndTheDeviceFilter() {
        let log = Self.realtek + "\n" + Self.intel
        #expect(DoctorRules.firmware(log: log).compactMap(\.device) == ["hci0", "hci1"])
        #expect(DoctorRules.firmware(log: log, devices: ["hci1"]).compactMap(\.device) == ["hci1"])
        #expect(DoctorRules.firmware(log: log, devices: ["hci3"]).map(\.verdict) == [.ok])
    }

    @Test func doctorReportsItAndExits1() throws {
        let (h, _, _) = DoctorTests.host()
        let sys = DoctorTests.machine(files: ["/proc/self/status": DoctorTests.rootStatus, "/proc/1/comm": "init\n"], kernelLog: Self.realtek)
        let r = tool(["doctor"], host: h, system: sys)
        #expect(r.code == 1, "\(r.out)\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("FAIL  firmware") && $0.contains("hci0") && $0.contains("Realtek controller's firmware could not be loaded") }, "\(r.out)")
        #expect(lines.contains { $0.contains("remedy: install firmware-realtek") }, "\(r.out)")
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit
@testable import BeaconTool
import Testing

/// The one error mapping: each transport / controller / start failure gets its exit code and, where
/// beacon-tx knows one, its remedy, after the core's statement of facts.
@Suite struct ErrorMappingTests {
    @Test func transportErrorsGetTheirRemedies() {
        #expect(CLIError(TransportError.bluetoothUnsupported) == CLIError(.unavailable,
            "socket(AF_BLUETOOTH): this kernel has no Bluetooth support (EAFNOSUPPORT); load the bluetooth module or use a kernel built with CONFIG_BT"))
        #expect(CLIError(TransportError.permissionDenied(call: "write", device: "hci0")) == CLIError(.noPermission,
            "write on hci0: Operation not permitted; run as root (sudo), or as the beacon-tx service, whose unit grants CAP_NET_RAW and CAP_NET_ADMIN"))
        #expect(CLIError(TransportError.rfkilled(call: "write", device: "hci0")) == CLIError(.unavailable,
            "write on hci0: blocked by rfkill; run: rfkill unblock bluetooth"))
        #expect(CLIError(TransportError.deviceDown(call: "write", device: "hci1")) == CLIError(.unavailable,
            "write on hci1: the device is down; bring it up with: hciconfig hci1 up"))
        #expect(CLIError(TransportError.busy(call: "bind", device: "hci0")) == CLIError(.unavailable,
            "bind on hci0: device or resource busy (another program holds the controller exclusively, e.g. a user-channel owner)"))
        #expect(CLIError(TransportError.noSuchDevice("hci3", available: ["hci0"])) == CLIError(.unavailable,
            "no such device hci3 (available: hci0)"))
        #expect(CLIError(TransportError.system(call: "poll", device: "hci0", errno: 9, message: "Bad file descriptor")) == CLIError(.unavailable,
            "poll on hci0: Bad file descriptor (errno 9)"))
    }

    @Test func controllerErrorsGetTheirRemedies() {
        #expect(CLIError(HCIError.timeout(opcode: .readLocalVersionInformation, milliseconds: 500)) == CLIError(.unavailable,
            "Read Local Version Information (0x1001): no answer from the controller within 500 ms (controller not answering; check the device, try --reset or a longer --timeout)"))
        #expect(CLIError(HCIError.noCommandCredits(opcode: .reset, milliseconds: 2000)) == CLIError(.unavailable,
            "Reset (0x0c03) not sent: the controller granted no command credit (Num_HCI_Command_Packets 0) within 2000 ms; it is busy or stuck, try --reset"))
        #expect(CLIError(HCIError.commandFailed(opcode: .leSetAdvertisingParameters, status: .commandDisallowed)) == CLIError(.unavailable,
            "LE Set Advertising Parameters (0x2006) failed: Command Disallowed (0x0c)"))
        #expect(CLIError(HCIError.transport(.rfkilled(call: "write", device: "hci0"))) == CLIError(.unavailable,
            "write on hci0: blocked by rfkill; run: rfkill unblock bluetooth"))
    }

    @Test func startErrorsGetTheirRemedies() {
        #expect(CLIError(StartError.familyUnsupported(.extended, device: "hci0")) == CLIError(.unavailable,
            "hci0 does not support extended advertising (LE feature bit 12 / commands 0x2036-0x2039); use --controller legacy or auto"))
        #expect(CLIError(StartError.familyUnsupported(.legacy, device: "hci0")) == CLIError(.unavailable,
            "hci0 does not support legacy LE advertising commands; use --controller extended or auto"))
        #expect(CLIError(StartError.noLEAdvertising(device: "hci0")) == CLIError(.unavailable,
            "hci0 supports neither legacy nor extended LE advertising"))
        let disallowed = HCIError.commandFailed(opcode: .leSetAdvertisingParameters, status: .commandDisallowed)
        let extDisallowed = HCIError.commandFailed(opcode: .leSetExtendedAdvertisingParameters, status: .commandDisallowed)
        #expect(CLIError(StartError.bothFamiliesDisallowed(device: "hci0", first: extDisallowed, second: disallowed)) == CLIError(.unavailable,
            "hci0 refused both advertising families (LE Set Extended Advertising Parameters (0x2036) failed: Command Disallowed (0x0c); LE Set Advertising Parameters (0x2006) failed: Command Disallowed (0x0c)): something else, usually bluetoothd or the kernel's own advertising (btmgmt add-adv), holds the controller; retry with --reset, or stop it (bluetoothctl advertise off / btmgmt clr-adv)"))
        #expect(CLIError(StartError.command(.timeout(opcode: .reset, milliseconds: 100))).message.hasSuffix("try --reset or a longer --timeout)"))
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import Glibc
@testable import HCISocket
import Testing

/// errno → TransportError, and the real kernel's answer on this machine.
@Suite struct ErrnoMappingTests {
    func map(_ code: Int32, call: String = "write") -> TransportError {
        transportError(errno: code, call: call, device: "hci0", available: { ["hci0", "hci1"] })
    }

    @Test func eachErrnoHasItsCase() {
        #expect(map(EAFNOSUPPORT, call: "socket(AF_BLUETOOTH)") == .bluetoothUnsupported)
        #expect(map(EPERM) == .permissionDenied(call: "write", device: "hci0"))
        #expect(map(EACCES) == .permissionDenied(call: "write", device: "hci0"))
        #expect(map(132) == .rfkilled(call: "write", device: "hci0"))
        #expect(map(EBUSY, call: "bind") == .busy(call: "bind", device: "hci0"))
        #expect(map(ENETDOWN) == .deviceDown(call: "write", device: "hci0"))
        #expect(map(ENODEV, call: "bind") == .noSuchDevice("hci0", available: ["hci0", "hci1"]))
        #expect(map(EPIPE, call: "read") == .noSuchDevice("hci0", available: ["hci0", "hci1"]))
        #expect(map(EINVAL) == .system(call: "write", device: "hci0", errno: EINVAL, message: "Invalid argument"))
    }

    /// The transport states facts (call, device, errno); the remedies are beacon-tx's (ErrorMappingTests).
    @Test func messagesStateTheFacts() {
        #expect(map(EPERM).description == "write on hci0: Operation not permitted")
        #expect(map(132).description == "write on hci0: blocked by rfkill")
        #expect(map(EAFNOSUPPORT).description == "socket(AF_BLUETOOTH): this kernel has no Bluetooth support (EAFNOSUPPORT)")
        #expect(map(ENETDOWN).description == "write on hci0: the device is down")
        #expect(map(ENODEV).description == "no such device hci0 (available: hci0, hci1)")
    }

    /// The real kernel: here (no CONFIG_BT) socket(AF_BLUETOOTH) fails with EAFNOSUPPORT; on a
    /// machine with Bluetooth the list must at least be readable.
    @Test func realKernelAnswer() {
        do {
            let devices = try RawHCIHost().devices()
            #expect(devices.map(\.name) == devices.sorted { $0.id < $1.id }.map(\.name))
        } catch {
            #expect(error == .bluetoothUnsupported || { if case .permissionDenied = error { return true }; return false }(), "\(error)")
        }
    }
}

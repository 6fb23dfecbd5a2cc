// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import CBlueZ
import Glibc
import SystemCalls

/// errno → `TransportError`, in one place for every call of this target.
///
/// `available` is asked only for ENODEV / EPIPE (the device is gone), so the listing costs nothing otherwise.
func transportError(
    errno code: Int32,
    call: String,
    device: String,
    available: () -> [String] = { RawHCIHost.deviceNames() }
) -> TransportError {
    switch code {
    case EAFNOSUPPORT:
        return .bluetoothUnsupported
    case EPERM, EACCES:
        return .permissionDenied(call: call, device: device)
    case ERFKILL:
        return .rfkilled(call: call, device: device)
    case EBUSY:
        return .busy(call: call, device: device)
    case ENETDOWN:
        return .deviceDown(call: call, device: device)
    case ENODEV, EPIPE:
        // ENODEV: no such id (bind, ioctl). EPIPE: the controller was unregistered while the socket
        // was bound to it (unplugged, btvirt ended); the kernel detaches the socket.
        return .noSuchDevice(device, available: available())
    default:
        return .system(call: call, device: device, errno: code, message: Errno(code).description)
    }
}

/// `transportError` for an errno caught from `systemCall`.
func transportError(_ error: Errno, call: String, device: String,
                    available: () -> [String] = { RawHCIHost.deviceNames() }) -> TransportError {
    transportError(errno: error.code, call: call, device: device, available: available)
}

/// `hci0`, for messages.
func deviceName(_ id: UInt16) -> String { HCIDeviceInfo.name(of: id) }

/// A fresh `socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI)`, unbound.
func openHCISocket(device: String) throws(TransportError) -> Int32 {
    let type = Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    do {
        return try systemCall { socket(beacon_tx_AF_BLUETOOTH, type, beacon_tx_BTPROTO_HCI) }
    } catch {
        throw transportError(error, call: "socket(AF_BLUETOOTH)", device: device, available: { [] })
    }
}

/// close(2) that keeps errno of the caller; EINTR on close must not be retried on Linux.
func closeDescriptor(_ fd: Int32) { SystemCalls.live.closeDescriptor(fd) }

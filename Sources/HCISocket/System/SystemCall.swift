import BeaconKit
import CBlueZ
import Glibc

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
    case errnoRFKill:
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
        return .system(call: call, device: device, errno: code, message: errorMessage(code))
    }
}

/// ERFKILL (132): "Operation not possible due to RF-kill".
let errnoRFKill: Int32 = 132

/// strerror text, never nil.
func errorMessage(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "errno \(code)" }
    return String(cString: text)
}

/// `hci0`, for messages.
func deviceName(_ id: UInt16) -> String { HCIDeviceInfo.name(of: id) }

/// A fresh `socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI)`, unbound.
func openHCISocket(device: String) throws(TransportError) -> Int32 {
    let type = Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    while true {
        let fd = socket(beacon_tx_AF_BLUETOOTH, type, beacon_tx_BTPROTO_HCI)
        if fd >= 0 { return fd }
        let code = errno
        if code == EINTR { continue }
        throw transportError(errno: code, call: "socket(AF_BLUETOOTH)", device: device, available: { [] })
    }
}

/// close(2) that keeps errno of the caller; EINTR on close must not be retried on Linux.
func closeDescriptor(_ fd: Int32) {
    let saved = errno
    _ = Glibc.close(fd)
    errno = saved
}

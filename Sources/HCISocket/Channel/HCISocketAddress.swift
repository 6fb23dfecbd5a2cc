// SPDX-License-Identifier: Apache-2.0
import CBlueZ
import Glibc
import SystemCalls

/// bind(2) of a BlueZ HCI socket to (device, channel): the one place a `sockaddr_hci` is built. The
/// raw channel binds hciN (or HCI_DEV_NONE for the device-event watch) on HCI_CHANNEL_RAW, the
/// control channel HCI_DEV_NONE on HCI_CHANNEL_CONTROL; each maps the errno for its own messages.
func bindHCISocket(_ fd: Int32, device: UInt16, channel: UInt16) throws(Errno) {
    var address = sockaddr_hci()
    address.hci_family = sa_family_t(beacon_tx_AF_BLUETOOTH)
    address.hci_dev = device
    address.hci_channel = channel
    _ = try systemCall {
        withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                Glibc.bind(fd, generic, socklen_t(MemoryLayout<sockaddr_hci>.size))
            }
        }
    }
}

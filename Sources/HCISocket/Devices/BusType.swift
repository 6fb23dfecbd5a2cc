// SPDX-License-Identifier: Apache-2.0
/// `hci_dev_info.type`: the low nibble is the bus (HCI_VIRTUAL …), bits 4–5 the controller type
/// (HCI_PRIMARY 0, HCI_AMP 1), as the kernel's `hdev->bus | hdev->dev_type << 4`.
func busDescription(typeField: UInt8) -> String {
    let bus = typeField & 0x0f
    let controllerType = (typeField >> 4) & 0x03
    let busName = busNames.indices.contains(Int(bus)) ? busNames[Int(bus)] : "bus \(bus)"
    switch controllerType {
    case 0: return busName
    case 1: return busName + " (AMP)"
    default: return busName + " (type \(controllerType))"
    }
}

/// Indexed by HCI_VIRTUAL (0) … HCI_VIRTIO (10), BlueZ `lib/hci.h`.
private let busNames = [
    "Virtual", "USB", "PC Card", "UART", "RS232", "PCI", "SDIO", "SPI", "I2C", "SMD", "VirtIO",
]

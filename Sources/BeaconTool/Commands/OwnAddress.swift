// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// The address beacons go on air from when the controller has no public address: an LE-only
/// controller with a zero BD_ADDR (Zephyr's hci_uart on an nRF52, many nRF-based dongles) would
/// otherwise send AdvA 00:00:00:00:00:00. Such beacons advertise from a random static address
/// (Own_Address_Type Random):
/// - the kernel's static address when it has one (`btmgmt static-addr`, or bluetoothd's own): the
///   kernel keeps it in debugfs only (root), as MGMT Read Controller Information carries the zero
///   BD_ADDR;
/// - else one derived from the first beacon (`StaticRandomAddress.derived(for:)`), stable across
///   restarts of the same config.
struct OwnAddress: Equatable {
    enum Source: Equatable {
        case kernel
        case derived
    }

    var address: [UInt8]
    var source: Source

    /// Where the kernel shows the static address of `hciN` (hci_debugfs: `static_address`).
    static func kernelStaticAddressPath(_ device: String) -> String { "/sys/kernel/debug/bluetooth/\(device)/static_address" }

    /// nil when the controller has a public address (then it advertises from that one).
    static func choose(_ info: HCIDeviceInfo, _ configuration: KioskConfiguration, _ sys: SystemProbe) -> OwnAddress? {
        guard StaticRandomAddress.isMissingPublicAddress(info.address) else { return nil }
        if let a = kernelStaticAddress(info.name, sys) { return OwnAddress(address: a, source: .kernel) }
        return StaticRandomAddress.derived(for: configuration).map { OwnAddress(address: $0, source: .derived) }
    }

    /// The kernel's static address of `device`, when it has one and debugfs can be read.
    static func kernelStaticAddress(_ device: String, _ sys: SystemProbe) -> [UInt8]? {
        guard let text = sys.text(kernelStaticAddressPath(device))?.trimmingCharacters(),
              let a = StaticRandomAddress.parse(text), StaticRandomAddress.isStatic(a) else { return nil }
        return a
    }

    var text: String { StaticRandomAddress.text(address) }

    /// `hci0 has no public address (00:00:00:00:00:00): advertising from random static address C3:…
    /// (derived from the first beacon)`.
    func note(device: String) -> String {
        "\(device) has no public address (00:00:00:00:00:00): advertising from random static address \(text) ("
            + (source == .kernel ? "the kernel's static address" : "derived from the first beacon, the same at every start of this config") + ")"
    }

    /// The remedy for a controller the kernel cannot bring up without an address (HCIDEVUP: EADDRNOTAVAIL):
    /// `btmgmt --index 0 static-addr C3:…` with the address this config would advertise from.
    static func staticAddressRemedy(device: String, id: UInt16, _ configuration: KioskConfiguration?) -> String {
        let address = configuration.flatMap(StaticRandomAddress.derived(for:)).map(StaticRandomAddress.text) ?? "C0:00:00:00:00:01"
        return "give it a static address: btmgmt --index \(id) static-addr \(address), then btmgmt --index \(id) power on"
            + " (bluetoothd gives one by itself to a controller it manages)"
    }
}

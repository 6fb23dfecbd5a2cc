// SPDX-License-Identifier: Apache-2.0

/// A controller whose driver could not load its firmware, as the kernel log tells it. Realtek and
/// Intel USB controllers stop their setup without it (the adapter never comes up); a Broadcom or
/// Cypress controller, such as a Raspberry Pi's, goes on with the older code in its ROM. The
/// drivers' own lines are read (btrtl, btbcm, btintel), and the firmware loader's for any other
/// Bluetooth device (`Direct firmware load for … failed`, Debian's `firmware: failed to load …`).
struct FirmwareLoadFailure: Equatable {
    enum Vendor: String {
        case realtek = "Realtek", broadcom = "Broadcom", intel = "Intel", other

        /// By the file's folder in /lib/firmware, for the firmware loader's lines.
        init(file: String) {
            if file.hasPrefix("rtl_bt/") {
                self = .realtek
            } else if file.hasPrefix("brcm/") {
                self = .broadcom
            } else if file.hasPrefix("intel/") {
                self = .intel
            } else {
                self = .other
            }
        }

        /// The Debian package (non-free-firmware) that ships the files.
        var package: String? {
            switch self {
            case .realtek: "firmware-realtek"
            case .broadcom: "bluez-firmware"
            case .intel: "firmware-iwlwifi"
            case .other: nil
            }
        }

        /// Whether the controller stops without the file (its driver's setup fails).
        var isFatal: Bool { self == .realtek || self == .intel }
    }

    /// `hciN` as the log named it (the index at that time).
    var device: String
    var vendor: Vendor
    /// The files the driver tried, in the log's order (none when the line names none).
    var files: [String]

    /// Every failure in a kernel log (one message per line, `/dev/kmsg`'s or `dmesg`'s) that no later
    /// load of the same controller's firmware cleared, one per device and vendor, its files merged.
    static func all(in log: String) -> [FirmwareLoadFailure] {
        var found: [FirmwareLoadFailure] = []
        // btbcm lists the files it tried on the lines after its "not found, tried:" line.
        var listing: String?
        func add(_ device: String, _ vendor: Vendor, _ file: String?) {
            if let i = found.firstIndex(where: { $0.device == device && $0.vendor == vendor }) {
                if let file, !found[i].files.contains(file) { found[i].files.append(file) }
            } else {
                found.append(FirmwareLoadFailure(device: device, vendor: vendor, files: file.map { [$0] } ?? []))
            }
        }
        // /dev/kmsg's continuation lines (` SUBSYSTEM=bluetooth`, ` DEVICE=+bluetooth:hci0`) are skipped.
        for raw in log.split(separator: "\n") where raw.first != " " {
            let message = Self.message(raw)
            guard let (device, text) = Self.deviceAndText(message) else {
                listing = nil
                continue
            }
            if listing == device, text.hasPrefix("BCM: '"), text.hasSuffix("'") {
                add(device, .broadcom, String(text.dropFirst("BCM: '".count).dropLast()))
                continue
            }
            listing = nil
            // A later load of the same controller's firmware (the package installed, the adapter
            // replugged) clears what failed before it.
            if let loaded = Self.loaded(text) {
                found.removeAll { $0.device == device && $0.vendor == loaded }
            } else if text.hasPrefix("BCM: firmware Patch file not found") {
                add(device, .broadcom, nil)
                listing = device
            } else if text.hasPrefix("BCM: Patch "), text.hasSuffix(" not found") {
                add(device, .broadcom, Self.word(after: "BCM: Patch ", in: text))
            } else if text.hasPrefix("RTL: "), text.hasSuffix(" not found"), let file = Self.word(after: "file ", in: text) {
                add(device, .realtek, file)
            } else if text.hasPrefix("Failed to load Intel firmware file") {
                add(device, .intel, Self.word(after: "Failed to load Intel firmware file ", in: text).flatMap { $0.hasPrefix("(") ? nil : $0 })
            } else if let file = Self.word(after: "Direct firmware load for ", in: text) ?? Self.word(after: "firmware: failed to load ", in: text) {
                add(device, Vendor(file: file), file)
            }
        }
        return found
    }

    /// The vendor whose driver says it loaded its firmware: btrtl's version line, btintel's "Found
    /// device firmware", btbcm's `'brcm/….hcd' Patch`.
    static func loaded(_ text: Substring) -> Vendor? {
        if text.hasPrefix("RTL: fw version") { return .realtek }
        if text.hasPrefix("Found device firmware") { return .intel }
        if text.hasPrefix("BCM"), text.hasSuffix(".hcd' Patch") { return .broadcom }
        return nil
    }

    /// The message of a `/dev/kmsg` record (`6,812,5019,-;text`) or a `dmesg` line (`[ 5.01] text`);
    /// other lines as they are.
    static func message(_ line: Substring) -> Substring {
        if line.first == "[", let close = line.firstIndex(of: "]") {
            return line[line.index(after: close)...].drop { $0 == " " }
        }
        if let semicolon = line.firstIndex(of: ";"), line[..<semicolon].allSatisfy({ $0.isNumber || $0 == "," || $0 == "-" || $0.isLetter }),
           line.first?.isNumber == true {
            return line[line.index(after: semicolon)...]
        }
        return line
    }

    /// `Bluetooth: hci0: text` (bt_dev_*) or `bluetooth hci0: text` (dev_* on the hci device).
    static func deviceAndText(_ message: Substring) -> (String, Substring)? {
        for prefix in ["Bluetooth: ", "bluetooth "] where message.hasPrefix(prefix) {
            let rest = message.dropFirst(prefix.count)
            guard let colon = rest.firstIndex(of: ":") else { return nil }
            let device = String(rest[..<colon])
            guard StateStore.deviceNumber(device) != nil else { return nil }   // the kernel's hciN, canonical
            return (device, rest[rest.index(after: colon)...].drop { $0 == " " })
        }
        return nil
    }

    /// The word after `marker` in `text`, nil when the marker is absent or nothing follows it.
    static func word(after marker: String, in text: Substring) -> String? {
        var rest = text[...]
        while !rest.isEmpty, !rest.hasPrefix(marker) { rest = rest.dropFirst() }
        guard !rest.isEmpty else { return nil }
        let word = rest.dropFirst(marker.count).prefix { $0 != " " }
        return word.isEmpty ? nil : String(word)
    }
}

extension DoctorRules {
    /// The `firmware` findings: one per device the kernel log names in a firmware-load failure, or
    /// one for the machine when there is none; nil `log`: the log could not be read. `devices`: only
    /// these (`doctor --device`), nil for all.
    static func firmware(log: String?, devices: [String]? = nil) -> [DoctorFinding] {
        guard let log else {
            return [DoctorFinding(id: "firmware", verdict: .warn, summary: "the kernel log could not be read: firmware-load failures not looked for",
                                  detail: "/dev/kmsg needs root (or CAP_SYSLOG) where kernel.dmesg_restrict is 1, as on Debian",
                                  remedy: "run as root to see it (sudo beacon-tx doctor)")]
        }
        let failures = FirmwareLoadFailure.all(in: log).filter { f in devices.map { $0.contains(f.device) } ?? true }
        guard !failures.isEmpty else {
            return [DoctorFinding(id: "firmware", verdict: .ok, summary: "the kernel log has no Bluetooth firmware-load failure", detail: "read /dev/kmsg (since boot, as far as it reaches back)")]
        }
        return failures.map { f in
            let files = f.files.isEmpty ? "its firmware" : f.files.joined(separator: ", ")
            let consequence = f.vendor.isFatal ? "its driver stops without it: the adapter does not come up"
                : f.vendor == .broadcom ? "it runs the older code in its ROM instead, with that code's bugs" : "it may not work as it should"
            let install = f.vendor.package.map { "install \($0) (Debian's non-free-firmware component; Raspberry Pi OS has it)" }
                ?? "install the file from the linux-firmware collection (Debian's firmware-* packages, non-free-firmware)"
            return DoctorFinding(id: "firmware", device: f.device, verdict: f.vendor.isFatal ? .fail : .warn,
                                 summary: "\(f.vendor == .other ? "a" : f.vendor.rawValue) controller's firmware could not be loaded: \(consequence)",
                                 detail: "kernel log (/dev/kmsg): not found: \(files); \(f.device) is the index it had then, a replug since may have changed it",
                                 remedy: install + ", then replug the adapter (a UART controller: reboot)")
        }
    }
}

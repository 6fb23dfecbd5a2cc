// SPDX-License-Identifier: Apache-2.0
/// What one wait on a controller produced.
public enum HCIReceive: Equatable, Sendable {
    /// One H4 event packet (`04 | code | plen | params`).
    case event([UInt8])
    /// The timeout passed without an event.
    case timedOut
    /// A watched signal (SIGINT, SIGTERM, SIGHUP) arrived; the value is the signal number.
    case signal(Int32)
    /// One H4 command packet (`01 | opcode | plen | params`) that another program or the kernel sent
    /// to the controller; delivered only while `observeCommands` is on.
    case command([UInt8])
}

/// One open connection to a controller: the raw HCI socket in `HCISocket`, or a scripted fake in tests.
/// The transport only moves packets; every byte decision lives in the core.
public protocol HCIChannel: AnyObject {
    /// Writes one H4 command packet.
    func send(_ packet: [UInt8]) throws(TransportError)
    /// Blocks until an event, a watched signal, or the timeout (milliseconds; negative = forever).
    func receive(timeoutMilliseconds: Int) throws(TransportError) -> HCIReceive
    /// Narrows the events the channel delivers (e.g. no LE Meta reports while only advertising, so
    /// another program's scanning on the same controller does not wake a sleeping `start`).
    func setEventFilter(_ events: [EventCode]) throws(TransportError)
    /// Also deliver copies of the commands other sockets and the kernel send (`HCIReceive.command`),
    /// so a session sees another program disable, remove or reset what it put on air.
    func observeCommands(_ on: Bool) throws(TransportError)
    /// Closes the channel's sockets. A socket bound to an unregistered controller keeps its index
    /// taken (the kernel frees the hci_dev only with its last socket), so a replugged adapter would
    /// come back under another name: the session closes the channel before it waits for the return.
    func close()
}

/// A controller as the host sees it (HCIGETDEVINFO).
public struct HCIDeviceInfo: Hashable, Sendable {
    public var id: UInt16
    /// `hci0`.
    public var name: String { Self.name(of: id) }

    /// `hci0` for id 0: the kernel's spelling, the one place it is written.
    public static func name(of id: UInt16) -> String { "hci\(id)" }

    /// Parses a controller name as the kernel spells it, `hci0`, or a bare index, `0`. Nil for
    /// anything else (signs, spaces, non-ASCII digits) and for indexes from 0xFFFF (HCI_DEV_NONE) up,
    /// so `hci99999999999` is nil, not a trap.
    public static func id(fromName name: String) -> UInt16? {
        var digits = Substring(name)
        if digits.hasPrefix("hci") { digits = digits.dropFirst(3) }
        guard !digits.isEmpty else { return nil }
        var value: UInt32 = 0
        for c in digits.utf8 {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) else { return nil }
            value = value * 10 + UInt32(c - UInt8(ascii: "0"))
            guard value < 0xFFFF else { return nil }
        }
        return UInt16(value)
    }
    /// BD_ADDR, `00:AA:01:00:00:23`.
    public var address: String
    public var isUp: Bool
    /// Bus / type as the kernel reports it (e.g. "Virtual", "USB").
    public var bus: String
    /// The controller's rfkill switch (sysfs), or nil when it has none or it could not be read.
    public var rfkill: RFKillBlock?

    public init(id: UInt16, address: String, isUp: Bool, bus: String, rfkill: RFKillBlock? = nil) {
        self.id = id
        self.address = address
        self.isUp = isUp
        self.bus = bus
        self.rfkill = rfkill
    }

    /// Blocked by rfkill (soft or hard): it cannot be brought up until unblocked.
    public var isBlocked: Bool { rfkill?.isBlocked ?? false }
}

/// The host side of device management: list, open, bring up, reset.
public protocol HCIHost: AnyObject {
    func devices() throws(TransportError) -> [HCIDeviceInfo]
    /// Opens a raw channel bound to the device; `watchSignals` makes `receive` report SIGINT and SIGTERM.
    func open(deviceID: UInt16, watchSignals: Bool) throws(TransportError) -> HCIChannel
    /// HCIDEVUP.
    func up(deviceID: UInt16) throws(TransportError)
    /// HCIDEVRESET.
    func reset(deviceID: UInt16) throws(TransportError)
    /// Waits until a controller `wanted` describes is registered (and up or unblocked, where it says so), a watched
    /// signal (SIGINT, SIGTERM, SIGHUP) arrives, or the timeout passes (negative: no timeout). Never
    /// brings a device up.
    func waitForDevice(_ wanted: WantedDevice, timeoutMilliseconds: Int) throws(TransportError) -> DeviceWait
    /// Opens the kernel's management interface (HCI_CHANNEL_CONTROL); `watchSignals` as for `open`.
    func openControl(watchSignals: Bool) throws(TransportError) -> MGMTChannel
}

/// How a user names a controller: `hciN` (the kernel's index, which a dongle may change after a
/// reboot or a replug) or its BD_ADDR (which stays with the controller).
public enum DeviceSelector: Hashable, Sendable, CustomStringConvertible {
    case index(UInt16)
    /// Display order, upper case: `00:1A:7D:DA:71:13`.
    case address(String)

    /// `hci0`, `0` or `00:1a:7d:da:71:13`; nil for anything else.
    public init?(_ text: String) {
        if let id = HCIDeviceInfo.id(fromName: text) {
            self = .index(id)
        } else if let a = StaticRandomAddress.parse(text) {
            self = .address(StaticRandomAddress.text(a))
        } else {
            return nil
        }
    }

    public var index: UInt16? {
        if case let .index(id) = self { return id }
        return nil
    }

    public func matches(_ info: HCIDeviceInfo) -> Bool {
        switch self {
        case let .index(id): return info.id == id
        case let .address(a): return info.address.uppercased() == a
        }
    }

    /// The controller among `devices`; the error lists the others (with their addresses when this
    /// names one by address).
    public func find(in devices: [HCIDeviceInfo]) throws(TransportError) -> HCIDeviceInfo {
        guard let info = devices.first(where: matches) else {
            let others: [String] = devices.map { index == nil ? "\($0.name) (\($0.address))" : $0.name }
            throw .noSuchDevice(description, available: others)
        }
        return info
    }

    /// What a wait for this controller to be registered (up or down) waits for.
    public var registered: WantedDevice {
        switch self {
        case let .index(id): return .index(id)
        case let .address(a): return .addressRegistered(a)
        }
    }

    /// `hci0`, or the address.
    public var description: String {
        switch self {
        case let .index(id): return HCIDeviceInfo.name(of: id)
        case let .address(a): return a
        }
    }
}

/// The controller a `waitForDevice` waits for.
public enum WantedDevice: Equatable, Sendable, CustomStringConvertible {
    /// The controller with this address, registered and up: after an unplug it may come back under
    /// another index.
    case address(String)
    /// The controller with this address, registered (up or down): `start --device ADDRESS` waiting
    /// for a late adapter.
    case addressRegistered(String)
    /// `hciN`, registered (up or down): a controller that is not there yet (a late USB dongle, a
    /// UART controller attached by hciuart seconds into boot).
    case index(UInt16)
    /// `hciN`, registered and up.
    case indexUp(UInt16)
    /// Any registered controller.
    case any
    /// `hciN`, registered and not blocked by rfkill.
    case indexUnblocked(UInt16)
    /// Any registered controller not blocked by rfkill.
    case anyUnblocked

    public func matches(_ info: HCIDeviceInfo) -> Bool {
        switch self {
        case let .address(a): return info.address == a && info.isUp
        case let .addressRegistered(a): return info.address.uppercased() == a.uppercased()
        case let .index(id): return info.id == id
        case let .indexUp(id): return info.id == id && info.isUp
        case .any: return true
        case let .indexUnblocked(id): return info.id == id && !info.isBlocked
        case .anyUnblocked: return !info.isBlocked
        }
    }

    public var description: String {
        switch self {
        case let .address(a), let .addressRegistered(a): return a
        case let .index(id): return HCIDeviceInfo.name(of: id)
        case let .indexUp(id): return HCIDeviceInfo.name(of: id) + " up"
        case .any: return "any controller"
        case let .indexUnblocked(id): return HCIDeviceInfo.name(of: id) + " unblocked"
        case .anyUnblocked: return "any controller unblocked"
        }
    }
}

/// How `HCIHost.waitForDevice` ended.
public enum DeviceWait: Equatable, Sendable {
    case returned(HCIDeviceInfo)
    case signal(Int32)
    case timedOut
}

/// A failed system call or device lookup: which call, on which device, and the errno. What to do
/// about it is the caller's business (beacon-tx says it in its error mapping).
public enum TransportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// socket(AF_BLUETOOTH) → EAFNOSUPPORT.
    case bluetoothUnsupported
    /// ENODEV, or a name that is not in the device list.
    case noSuchDevice(String, available: [String])
    /// EPERM / EACCES (on write or ioctl, not on bind).
    case permissionDenied(call: String, device: String)
    /// ERFKILL.
    case rfkilled(call: String, device: String)
    /// EBUSY.
    case busy(call: String, device: String)
    /// ENETDOWN: the device is down.
    case deviceDown(call: String, device: String)
    /// Any other errno.
    case system(call: String, device: String, errno: Int32, message: String)

    public var description: String {
        switch self {
        case .bluetoothUnsupported:
            return "socket(AF_BLUETOOTH): this kernel has no Bluetooth support (EAFNOSUPPORT)"
        case let .noSuchDevice(name, available):
            let list = available.isEmpty ? "no controllers found" : "available: " + available.joined(separator: ", ")
            return "no such device \(name) (\(list))"
        case let .permissionDenied(call, device):
            return "\(call) on \(device): Operation not permitted"
        case let .rfkilled(call, device):
            return "\(call) on \(device): blocked by rfkill"
        case let .busy(call, device):
            return "\(call) on \(device): device or resource busy (another program holds the controller exclusively, e.g. a user-channel owner)"
        case let .deviceDown(call, device):
            return "\(call) on \(device): the device is down"
        case let .system(call, device, errno, message):
            return "\(call) on \(device): \(message) (errno \(errno))"
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import CBlueZ
import Glibc
import SystemCalls

/// Controller management over an unbound raw HCI socket: HCIGETDEVLIST, HCIGETDEVINFO, HCIDEVUP,
/// HCIDEVRESET. Each call opens and closes its own socket, so the host holds no resources.
///
/// Privileges: listing needs none; `up` and `reset` need CAP_NET_ADMIN.
public final class RawHCIHost: HCIHost {
    public init() {}

    /// Every registered controller, sorted by id, up or down.
    ///
    /// A down controller is listed with `isUp == false`; its address is what the kernel last read from
    /// it (00:00:00:00:00:00 if it has never been up).
    public func devices() throws(TransportError) -> [HCIDeviceInfo] {
        let fd = try openHCISocket(device: "all controllers")
        defer { closeDescriptor(fd) }
        var infos: [HCIDeviceInfo] = []
        for id in try Self.deviceIDs(socket: fd) {
            var raw = hci_dev_info()
            raw.dev_id = id
            do {
                _ = try systemCall { beacon_tx_ioctl_ptr(fd, beacon_tx_HCIGETDEVINFO, &raw) }
            } catch where error.code == ENODEV {
                continue  // unregistered between the two calls
            } catch {
                throw transportError(error, call: "ioctl(HCIGETDEVINFO)", device: deviceName(id), available: { [] })
            }
            infos.append(HCIDeviceInfo(
                id: raw.dev_id,
                address: Self.addressText(raw.bdaddr),
                isUp: raw.flags & (UInt32(1) << UInt32(beacon_tx_HCI_UP_FLAG)) != 0,
                bus: busDescription(typeField: raw.type),
                rfkill: RFKillSwitch.block(deviceID: raw.dev_id)
            ))
        }
        return infos.sorted { $0.id < $1.id }
    }

    /// A raw channel bound to `hciN`. Works on a down controller too; its first `send` then throws
    /// `.deviceDown`. An unknown id throws `.noSuchDevice` with the existing names.
    public func open(deviceID: UInt16, watchSignals: Bool) throws(TransportError) -> HCIChannel {
        try RawHCIChannel(deviceID: deviceID, watchSignals: watchSignals)
    }

    /// Re-reads the device list whenever the kernel reports a device event (registered, up, down,
    /// unregistered: stack-internal events on a raw socket bound to no device) or an rfkill event
    /// (`/dev/rfkill`: a switch added, removed, blocked or unblocked), in one `poll()` with
    /// a signalfd (SIGINT, SIGTERM, SIGHUP), so a signal ends the wait at once. Without that socket
    /// (no CAP_NET_RAW: the kernel's security filter drops the events) the list is re-read every
    /// `pollMilliseconds`; with it, every `fallbackPollMilliseconds` only, as a safety net: an hours-long
    /// wait for a late adapter costs almost no wake-ups.
    public static let pollMilliseconds: Int32 = 250
    public static let fallbackPollMilliseconds: Int32 = 30_000

    public func waitForDevice(_ wanted: WantedDevice, timeoutMilliseconds: Int) throws(TransportError) -> DeviceWait {
        let signals = try SignalWatch(device: "hci-monitor")
        defer { signals.close() }
        let watch = RawHCIChannel.openDeviceWatch()
        defer { if watch >= 0 { closeDescriptor(watch) } }
        let rfkill = RFKillSwitch.openEvents()
        defer { if rfkill >= 0 { closeDescriptor(rfkill) } }
        let system = SystemCalls.live
        let deadline = timeoutMilliseconds < 0 ? nil : system.monotonicMilliseconds() + Int64(timeoutMilliseconds)
        var scratch = [UInt8](repeating: 0, count: 64)
        while true {
            if let signal = signals.take() { return .signal(signal) }
            if let found = try devices().first(where: wanted.matches) { return .returned(found) }
            let period = Int64(watch >= 0 ? Self.fallbackPollMilliseconds : Self.pollMilliseconds)
            var wait = period
            if let deadline {
                let left = deadline - system.monotonicMilliseconds()
                guard left > 0 else { return .timedOut }
                wait = min(period, left)
            }
            var fds = [pollfd(fd: signals.descriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: watch, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: rfkill, events: Int16(POLLIN), revents: 0)]
            _ = fds.withUnsafeMutableBufferPointer { system.poll($0, Int32(clamping: wait)) }  // EINTR or a timeout: look again
            if watch >= 0, fds[1].revents != 0 {
                // Drain the events: the list read at the top of the loop is what counts.
                while (scratch.withUnsafeMutableBytes { system.receive(watch, $0, Int32(MSG_DONTWAIT)) }) > 0 {}
            }
            if rfkill >= 0, fds[2].revents != 0 {
                // The switches' states are read from sysfs with the list; the events only wake us.
                _ = RFKillSwitch.drain(rfkill, system: system)
            }
        }
    }

    /// HCIDEVUP. A controller that is already up is a success (EALREADY).
    /// The control channel (HCI_CHANNEL_CONTROL): the kernel's MGMT interface.
    public func openControl(watchSignals: Bool) throws(TransportError) -> MGMTChannel {
        try ControlChannel(watchSignals: watchSignals)
    }

    public func up(deviceID: UInt16) throws(TransportError) {
        try deviceControl(beacon_tx_HCIDEVUP, call: "ioctl(HCIDEVUP)", deviceID: deviceID, alreadyIsSuccess: true)
    }

    /// HCIDEVRESET: the kernel sends HCI Reset to an up controller. A down one throws `.deviceDown`.
    public func reset(deviceID: UInt16) throws(TransportError) {
        try deviceControl(beacon_tx_HCIDEVRESET, call: "ioctl(HCIDEVRESET)", deviceID: deviceID, alreadyIsSuccess: false)
    }

    /// `["hci0", "hci1"]`, or `[]` when the list cannot be read; for the `available:` of `.noSuchDevice`.
    public static func deviceNames() -> [String] {
        guard let fd = try? openHCISocket(device: "all controllers") else { return [] }
        defer { closeDescriptor(fd) }
        guard let ids = try? deviceIDs(socket: fd) else { return [] }
        return ids.sorted().map(deviceName)
    }

    private func deviceControl(_ request: UInt, call: String, deviceID: UInt16, alreadyIsSuccess: Bool) throws(TransportError) {
        let name = deviceName(deviceID)
        let fd = try openHCISocket(device: name)
        defer { closeDescriptor(fd) }
        do {
            _ = try systemCall { beacon_tx_ioctl_int(fd, request, Int32(deviceID)) }
        } catch where error.code == EALREADY && alreadyIsSuccess {
            return
        } catch {
            throw transportError(error, call: call, device: name)
        }
    }

    /// Upper bound for one HCIGETDEVLIST; the kernel accepts up to 2 pages of `hci_dev_req` (1024 on 4 KiB pages).
    private static let listCapacity: UInt16 = 256

    private static func deviceIDs(socket fd: Int32) throws(TransportError) -> [UInt16] {
        var ids = [UInt16](repeating: 0, count: Int(listCapacity))
        let count: Int32
        do {
            count = try systemCall {
                ids.withUnsafeMutableBufferPointer { buffer in beacon_tx_device_ids(fd, buffer.baseAddress, listCapacity) }
            }
        } catch {
            throw transportError(error, call: "ioctl(HCIGETDEVLIST)", device: "all controllers", available: { [] })
        }
        return Array(ids.prefix(Int(count)))
    }

    /// "AA:BB:CC:DD:EE:FF": bdaddr_t is stored little-endian (wire order) and printed most significant
    /// first, as BlueZ's ba2str does; done here so the binary needs no libbluetooth at run time.
    private static func addressText(_ address: bdaddr_t) -> String {
        let b = address.b
        return AdvertisingReport.addressText(wireOrder: [b.0, b.1, b.2, b.3, b.4, b.5])
    }
}

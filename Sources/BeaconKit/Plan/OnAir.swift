// SPDX-License-Identifier: Apache-2.0
/// Which of our beacons are on air: a projection of the controller's (or the kernel's) state and the
/// plan, as `verify` replays a capture (raw HCI and the sharing mode). The running session does not
/// read it: its machine's phase says whether the plan is on air, and STATUS, the state file and the
/// metrics report from that phase and the plan.
///
/// Raw HCI: a beacon is on air when its placement (the legacy instance or its set) is enabled and
/// holds its advertising data. In a rotation several beacons share one placement and only the one in
/// its turn is on air. The sharing mode: a beacon is on air when the kernel holds its advertising
/// instance with its data (the kernel's rotation then puts it on the controller in turn).
public enum OnAir {
    /// Whether `beacon` is on air in `state`: its placement enabled with its data.
    public static func isOnAir(_ beacon: BeaconPlacement, in state: ControllerAdvertisingState) -> Bool {
        guard let instance = state[beacon.placement] else { return false }
        return instance.enabled && beacon.holds(instance.data)
    }

    /// For each beacon (nil: not placed, never on air), whether it is on air in `state`.
    static func beacons(_ placed: [BeaconPlacement?], in state: ControllerAdvertisingState) -> [Bool] {
        placed.map { $0.map { isOnAir($0, in: state) } ?? false }
    }

    /// For each beacon of `plan`, in configuration order, whether it is on air in `state`.
    static func beacons(_ plan: KioskPlan, in state: ControllerAdvertisingState) -> [Bool] {
        beacons(plan.beaconPlacements, in: state)
    }

    /// Whether `beacon` is on air in the sharing mode: the kernel holds its instance with its data.
    public static func isOnAir(_ beacon: KernelInstancePlacement, in kernel: KernelAdvertisingInstances) -> Bool {
        kernel.data[beacon.instance] == beacon.data
    }

    /// For each beacon of `plan`, in configuration order, whether the kernel holds it.
    static func beacons(_ plan: SharePlan, in kernel: KernelAdvertisingInstances) -> [Bool] {
        plan.beaconPlacements.map { isOnAir($0, in: kernel) }
    }
}

/// Where one beacon goes on air over raw HCI, and with which advertising data.
public struct BeaconPlacement: Hashable, Sendable {
    public var placement: ControllerAdvertisingState.Placement
    public var data: [UInt8]
    /// A configured Eddystone-TLM: its counts are live, so any TLM frame with its configured fields
    /// is this beacon on air.
    public var telemetry: Telemetry?

    public init(_ placement: ControllerAdvertisingState.Placement, data: [UInt8], telemetry: Telemetry? = nil) {
        self.placement = placement
        self.data = data
        self.telemetry = telemetry
    }

    /// Whether `onAir` (a placement's data) is this beacon's.
    public func holds(_ onAir: [UInt8]?) -> Bool {
        guard let onAir else { return false }
        guard let telemetry else { return onAir == data }
        return telemetry.isSent(as: onAir)
    }
}

extension Telemetry {
    /// Whether `data` is this TLM with any live values: an Eddystone-TLM frame alone (after the
    /// Flags and the service UUID list) with the configured version, battery and measured-or-not.
    public func isSent(as data: [UInt8]) -> Bool {
        guard case let .tlm(f)? = Eddystone.Frame(advertisingData: data), Eddystone.Frame.tlm(f).advertisingData == data else { return false }
        return BeaconFrame.eddystone(.tlm(f)).fields.map(\.value) == BeaconFrame.telemetry(self).fields.map(\.value)
    }
}

/// Where one beacon goes on air in the sharing mode: its kernel advertising instance and its data.
public struct KernelInstancePlacement: Hashable, Sendable {
    public var instance: UInt8
    public var data: [UInt8]

    public init(instance: UInt8, data: [UInt8]) {
        self.instance = instance
        self.data = data
    }
}

extension KioskPlan {
    /// Where each configured beacon goes on air, in configuration order: its own set, or the one
    /// rotated instance (the legacy instance or the rotation set) with its data in its turn.
    public var beaconPlacements: [BeaconPlacement] {
        switch layout {
        case let .sets(handles):
            return zip(advertised, handles).map { BeaconPlacement(.set($0.1), data: $0.0.frame.advertisingData, telemetry: $0.0.frame.telemetry) }
        case let .rotation(handle):
            let placement: ControllerAdvertisingState.Placement = family == .legacy ? .legacy : .set(handle)
            return advertised.map { BeaconPlacement(placement, data: $0.frame.advertisingData, telemetry: $0.frame.telemetry) }
        }
    }
}

extension SharePlan {
    /// Each configured beacon's instance and data, in configuration order.
    public var beaconPlacements: [KernelInstancePlacement] {
        zip(beacons, instances).map { KernelInstancePlacement(instance: $0.1, data: $0.0.frame.advertisingData) }
    }
}

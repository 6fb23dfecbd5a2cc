// SPDX-License-Identifier: Apache-2.0
/// `--share`: whether beacon-tx's beacons become kernel advertising instances (MGMT) or own the
/// controller's advertising through raw HCI.
public enum ShareMode: String, Sendable, CaseIterable {
    /// Raw HCI always (the controller's instance or sets are beacon-tx's).
    case never
    /// MGMT instances always: the kernel rotates ours with everyone else's.
    case always
    /// MGMT instances when the controller has one advertising instance and the kernel already has
    /// instances on it; raw HCI otherwise.
    case auto

    /// `auto`'s rule: share when owning the controller's only instance would displace kernel instances.
    public static func shares(_ mode: ShareMode, singleInstance: Bool, kernelInstances: Int) -> Bool {
        switch mode {
        case .never: return false
        case .always: return true
        case .auto: return singleInstance && kernelInstances > 0
        }
    }
}

/// The MGMT plan of the sharing mode: each beacon one kernel advertising instance, added with Add
/// Extended Advertising Parameters + Add Extended Advertising Data (interval and duration ours), or,
/// where the kernel refuses those, with Add Advertising (the kernel's interval). Pure data: the dry
/// run prints it, the live session sends it.
public struct SharePlan: Equatable, Sendable {
    public enum Method: String, Sendable {
        /// Add Extended Advertising Parameters (0x0054), then Add Extended Advertising Data (0x0055).
        case extended
        /// Add Advertising (0x003e): no interval of ours (the kernel's own).
        case addAdvertising

        /// The method as a `PlanChoice` family, and back: extended = the extended pair, legacy = Add Advertising.
        init(_ family: AdvertisingFamily) { self = family == .extended ? .extended : .addAdvertising }
        var family: AdvertisingFamily { self == .extended ? .extended : .legacy }
    }

    public let index: UInt16
    public let beacons: [BeaconAdvertisement]
    /// Our instance per beacon, in beacon order.
    public let instances: [UInt8]
    /// MGMT Duration: how long the kernel keeps each instance on air before the next (whole seconds).
    public let durationSeconds: UInt16
    public let method: Method

    /// The kernel's Max_Instances when nothing is known (a dry run): HCI_MAX_ADV_INSTANCES, the
    /// number a legacy-only controller gets.
    public static let assumedMaxInstances: UInt8 = 5

    public init(index: UInt16, beacons: [BeaconAdvertisement], instances: [UInt8], dwellMilliseconds: Int, method: Method) {
        self.index = index
        self.beacons = beacons
        self.instances = instances
        durationSeconds = Self.durationSeconds(dwellMilliseconds)
        self.method = method
    }

    /// The dwell as whole seconds, at least 1 (MGMT's Duration unit; 0 would mean the kernel's 2 s).
    public static func durationSeconds(_ dwellMilliseconds: Int) -> UInt16 {
        UInt16(clamping: max(1, (dwellMilliseconds + 500) / 1000))
    }

    /// The flags of beacon `i`: connectable or not. No Flags field from the kernel: our own Flags AD
    /// (`02 01 06`) goes in the data, so the bytes on air are ours exactly.
    public func flags(_ i: Int) -> MGMTAdvertisingFlags {
        var f: MGMTAdvertisingFlags = beacons[i].options.connectable ? .switchIntoConnectableMode : []
        if method == .extended {
            f.formUnion([.durationParameter, .intervalParameters])
            if beacons[i].options.txPower != nil { f.insert(.txPowerParameter) }
        }
        return f
    }

    /// The commands that add (or update) beacon `i`'s instance.
    public func add(_ i: Int) -> [MGMTCommand] {
        let data = beacons[i].frame.advertisingData
        switch method {
        case .extended:
            let units = UInt32(beacons[i].options.interval.units)
            return [
                .addExtendedAdvertisingParameters(index: index, instance: instances[i], flags: flags(i), duration: durationSeconds,
                                                  minInterval: units, maxInterval: units, txPower: beacons[i].options.txPower ?? 0),
                .addExtendedAdvertisingData(index: index, instance: instances[i], advertisingData: data),
            ]
        case .addAdvertising:
            return [.addAdvertising(index: index, instance: instances[i], flags: flags(i), duration: durationSeconds, advertisingData: data)]
        }
    }

    public var start: [MGMTCommand] { beacons.indices.flatMap(add) }

    /// Remove Advertising of our instances only (never instance 0, which removes everyone's).
    public var stop: [MGMTCommand] { instances.map { .removeAdvertising(index: index, instance: $0) } }

    public func with(method: Method) -> SharePlan {
        SharePlan(index: index, beacons: beacons, instances: instances, durationSeconds: durationSeconds, method: method)
    }

    /// The same instances with other frames of the same beacons (an Eddystone-TLM's fresh counts).
    public func with(beacons: [BeaconAdvertisement]) -> SharePlan {
        SharePlan(index: index, beacons: beacons, instances: instances, durationSeconds: durationSeconds, method: method)
    }

    init(index: UInt16, beacons: [BeaconAdvertisement], instances: [UInt8], durationSeconds: UInt16, method: Method) {
        self.index = index
        self.beacons = beacons
        self.instances = instances
        self.durationSeconds = durationSeconds
        self.method = method
    }
}

// SPDX-License-Identifier: Apache-2.0
/// One beacon of a kiosk with the options it is advertised with (per-beacon overrides already applied).
public struct BeaconAdvertisement: Hashable, Sendable {
    public var frame: BeaconFrame
    /// Interval, connectability and tx power; `advertisingHandle` is chosen by the plan, not here.
    public var options: AdvertisingOptions

    public init(frame: BeaconFrame, options: AdvertisingOptions) {
        self.frame = frame
        self.options = options
    }

    /// What is compared when deciding whether a beacon changed (the handle is not part of it).
    var onAirShape: BeaconAdvertisement {
        var copy = self
        copy.options.advertisingHandle = 0
        return copy
    }
}

/// What the kiosk should have on air: the beacons and how to place them on a controller.
public struct KioskConfiguration: Hashable, Sendable {
    public var beacons: [BeaconAdvertisement]
    /// nil = auto (extended when the controller supports it).
    public var family: AdvertisingFamily?
    /// An explicit first extended advertising handle (beacon i gets `firstHandle + i`); nil = beacon-tx
    /// picks handles from the top of the range (0xEF downwards), clear of the kernel's handle 0 and mgmt
    /// instances 1…N.
    public var firstHandle: UInt8?
    /// Dwell per beacon when beacons share one advertising instance, in milliseconds.
    public var rotationMilliseconds: Int
    /// The top-level interval, connectability and tx power (before per-beacon overrides): what a
    /// rotated instance uses when its beacons' values differ. nil = the first beacon's.
    public var commonOptions: AdvertisingOptions?
    /// Extended sets only: each beacon's set advertises from its own random static address
    /// (`StaticRandomAddress.derived(for:)`), so a scanner sees one identity per address.
    public var addressPerSet: Bool = false
    /// The random static address every instance without an address of its own advertises from, set
    /// when the controller has no public address (00:00:00:00:00:00): nil = the public address.
    public var ownRandomAddress: [UInt8]?

    /// 200 ms: two advertising events per dwell at the default 100 ms interval, and every beacon of up
    /// to five is heard at least once a second.
    public static let defaultRotationMilliseconds = 200
    public static let rotationRange = 20...10_000
    /// The highest Advertising_Handle (Core spec Vol 4, Part E, §7.8.53: 0x00–0xEF).
    public static let maximumHandle: UInt8 = 0xEF

    public init(beacons: [BeaconAdvertisement], family: AdvertisingFamily? = nil, firstHandle: UInt8? = nil,
                rotationMilliseconds: Int = defaultRotationMilliseconds, commonOptions: AdvertisingOptions? = nil) {
        self.beacons = beacons
        self.family = family
        self.firstHandle = firstHandle
        self.rotationMilliseconds = rotationMilliseconds
        self.commonOptions = commonOptions
    }

    /// The handle beacon `index` gets when every beacon has its own set.
    public func handle(forBeaconAt index: Int) -> UInt8? {
        if let firstHandle {
            let h = Int(firstHandle) + index
            return h <= Int(Self.maximumHandle) ? UInt8(h) : nil
        }
        let h = Int(Self.maximumHandle) - index
        return h >= 0 ? UInt8(h) : nil
    }

    /// The one handle of a rotation.
    public var rotationHandle: UInt8 { firstHandle ?? Self.maximumHandle }

    /// The beacon i is heard once per cycle of `count × rotation` ms.
    public var rotationCycleMilliseconds: Int { beacons.count * rotationMilliseconds }

    /// The options of a rotated instance. Rotated beacons share one advertising instance, so one
    /// interval, one connectability and one tx power: each is the beacons' common value when they
    /// all agree, else the top-level value (`commonOptions`; the first beacon's without one). A
    /// per-beacon override that differs is not applied (`ignoredUnderRotation` lists them).
    public var rotationOptions: AdvertisingOptions {
        let fallback = commonOptions ?? beacons.first?.options ?? AdvertisingOptions(interval: .standard)
        func common<T: Equatable>(_ value: KeyPath<AdvertisingOptions, T>) -> T {
            guard let first = beacons.first?.options[keyPath: value],
                  beacons.allSatisfy({ $0.options[keyPath: value] == first }) else { return fallback[keyPath: value] }
            return first
        }
        return AdvertisingOptions(interval: common(\.interval), connectable: common(\.connectable), txPower: common(\.txPower),
                                  advertisingHandle: rotationHandle)
    }

    /// One per-beacon value a rotation does not apply (it differs from `rotationOptions`).
    public struct IgnoredOverride: Hashable, Sendable {
        /// 0-based beacon index.
        public var beacon: Int
        /// The config key: `interval`, `connectable` or `txPower`.
        public var key: String
        /// The beacon's value and the shared value actually advertised, as text.
        public var configured: String
        public var applied: String

        public init(beacon: Int, key: String, configured: String, applied: String) {
            self.beacon = beacon
            self.key = key
            self.configured = configured
            self.applied = applied
        }
    }

    /// The per-beacon interval, connectability and tx power that differ from the rotated instance's.
    public var ignoredUnderRotation: [IgnoredOverride] {
        guard beacons.count > 1 else { return [] }
        let shared = rotationOptions
        var out: [IgnoredOverride] = []
        func power(_ p: Int8?) -> String { p.map { "\($0) dBm" } ?? "no preference" }
        for (i, b) in beacons.enumerated() {
            let o = b.options
            if o.interval != shared.interval { out.append(.init(beacon: i, key: "interval", configured: o.interval.text, applied: shared.interval.text)) }
            if o.connectable != shared.connectable {
                out.append(.init(beacon: i, key: "connectable", configured: "\(o.connectable)", applied: "\(shared.connectable)"))
            }
            if o.txPower != shared.txPower { out.append(.init(beacon: i, key: "txPower", configured: power(o.txPower), applied: power(shared.txPower))) }
        }
        return out
    }

    /// The beacons as a rotation advertises them: every one with `rotationOptions`.
    public var rotatedBeacons: [BeaconAdvertisement] {
        let shared = rotationOptions
        return beacons.map { BeaconAdvertisement(frame: $0.frame, options: shared) }
    }
}

/// How a kiosk's beacons are placed on the controller.
public enum KioskLayout: Hashable, Sendable {
    /// Every beacon has its own extended advertising set, all on air at once (handles by beacon).
    case sets([UInt8])
    /// One advertising instance whose data is replaced every `rotation` ms, without disabling it.
    case rotation(handle: UInt8)

    public var isRotation: Bool {
        if case .rotation = self { return true }
        return false
    }
}

/// The commands of a kiosk: start (every beacon on air), stop, the data swaps of a rotation, and the
/// per-beacon updates of a reload. Pure data, printed by dry runs and sent by the session.
public struct KioskPlan: Hashable, Sendable, CommandPlan {
    public let family: AdvertisingFamily
    public let layout: KioskLayout
    public let configuration: KioskConfiguration
    public let start: [PlannedCommand]
    public let stop: [PlannedCommand]
    /// Rotation: step i replaces the data with beacon i's (sent every `rotationMilliseconds`). Empty
    /// when every beacon has its own set or there is one beacon.
    public let rotationSteps: [PlannedCommand]

    /// Why a plan cannot be made.
    public enum PlanError: Error, Equatable, Sendable {
        case noBeacons
        /// More beacons than handles from `firstHandle` to 0xEF.
        case handlesExhausted(first: UInt8, count: Int)
        /// The rotation dwell is shorter than the advertising interval: some beacons would never be sent.
        case rotationShorterThanInterval(rotationMilliseconds: Int, intervalMilliseconds: Double)
    }

    /// Sets when the family is extended and `rotate` is false; otherwise one rotated instance.
    public init(_ configuration: KioskConfiguration, family: AdvertisingFamily, rotate: Bool = false) throws(PlanError) {
        let beacons = configuration.beacons
        guard let first = beacons.first else { throw .noBeacons }
        self.family = family
        self.configuration = configuration
        if family == .extended && (!rotate || beacons.count == 1) {
            var handles: [UInt8] = []
            for i in beacons.indices {
                guard let h = configuration.handle(forBeaconAt: i) else {
                    throw .handlesExhausted(first: configuration.firstHandle ?? KioskConfiguration.maximumHandle, count: beacons.count)
                }
                handles.append(h)
            }
            layout = .sets(handles)
            start = Self.extendedStart(beacons, handles: handles, configuration: configuration)
            stop = Self.extendedStop(handles)
            rotationSteps = []
            return
        }
        let handle = configuration.rotationHandle
        layout = .rotation(handle: handle)
        // One instance for every beacon: one interval, connectability and tx power (rotationOptions).
        var options = beacons.count > 1 ? configuration.rotationOptions : {
            var o = first.options
            o.advertisingHandle = handle
            return o
        }()
        options.randomAddress = configuration.ownRandomAddress
        let single = AdvertisingPlan(advertisingData: first.frame.advertisingData, options: options, family: family)
        start = single.start
        stop = single.stop
        if beacons.count > 1 {
            let intervalMs = options.interval.milliseconds
            guard Double(configuration.rotationMilliseconds) >= intervalMs else {
                throw .rotationShorterThanInterval(rotationMilliseconds: configuration.rotationMilliseconds, intervalMilliseconds: intervalMs)
            }
            rotationSteps = beacons.map { Self.dataCommand($0.frame, family: family, handle: handle) }
        } else {
            rotationSteps = []
        }
    }

    /// The beacons with the options they go on air with: their own on sets, the shared ones in a rotation.
    public var advertised: [BeaconAdvertisement] {
        layout.isRotation && configuration.beacons.count > 1 ? configuration.rotatedBeacons : configuration.beacons
    }

    /// The options of the one legacy (or rotated) instance; nil when every beacon has its own set.
    public var instanceOptions: AdvertisingOptions? {
        guard layout.isRotation else { return nil }
        return advertised.first?.options
    }

    /// Where our beacons sit: the legacy instance, or our extended sets.
    public var placements: [ControllerAdvertisingState.Placement] {
        family == .legacy ? [.legacy] : handles.map(ControllerAdvertisingState.Placement.set)
    }

    /// The controller's state with this plan on air: the start plan, then the rotation step of the
    /// beacon on air (`rotationIndex`).
    public func desiredState(rotationIndex: Int = 0) -> ControllerAdvertisingState {
        var state = ControllerAdvertisingState.after(start.map(\.command))
        if rotationIndex > 0, rotationSteps.indices.contains(rotationIndex) {
            state.apply(rotationSteps[rotationIndex].command)
        }
        return state
    }

    /// The handles beacon-tx owns in this plan.
    public var handles: [UInt8] {
        switch layout {
        case let .sets(h): return h
        case let .rotation(h): return family == .extended ? [h] : []
        }
    }

    /// Beacon i's data on its set or on the rotated instance.
    static func dataCommand(_ frame: BeaconFrame, family: AdvertisingFamily, handle: UInt8) -> PlannedCommand {
        switch family {
        case .legacy: return PlannedCommand(.leSetAdvertisingData(frame.advertisingData))
        case .extended: return PlannedCommand(.leSetExtendedAdvertisingData(handle: handle, data: frame.advertisingData))
        }
    }

    /// Disable (tolerating "no such set"), parameters and data per set, then one enable for all sets.
    static func extendedStart(_ beacons: [BeaconAdvertisement], handles: [UInt8], configuration: KioskConfiguration) -> [PlannedCommand] {
        var steps: [PlannedCommand] = []
        for (b, h) in zip(beacons, handles) { steps += configureSet(b, handle: h, configuration: configuration) }
        steps.append(enable(handles))
        return steps
    }

    /// The steps that (re)configure one set while it is disabled: disable, parameters, data.
    static func configureSet(_ b: BeaconAdvertisement, handle: UInt8, configuration: KioskConfiguration) -> [PlannedCommand] {
        var options = b.options
        options.advertisingHandle = handle
        options.randomAddress = configuration.addressPerSet ? StaticRandomAddress.derived(for: b.frame) : configuration.ownRandomAddress
        return Array(AdvertisingPlan(advertisingData: b.frame.advertisingData, options: options, family: .extended).start.dropLast())
    }

    static func enable(_ handles: [UInt8]) -> PlannedCommand {
        PlannedCommand(.leSetExtendedAdvertisingEnable(true, sets: handles.map { AdvertisingSetEnable(handle: $0) }))
    }

    /// Disable each set, then remove each. One disable per set: a multi-set disable fails whole when
    /// one set is gone.
    static func extendedStop(_ handles: [UInt8]) -> [PlannedCommand] {
        let alreadyGone: Set<Status> = [.unknownAdvertisingIdentifier, .commandDisallowed]
        return handles.map {
            PlannedCommand(.leSetExtendedAdvertisingEnable(false, sets: [AdvertisingSetEnable(handle: $0)]), tolerating: alreadyGone)
        } + handles.map { PlannedCommand(.leRemoveAdvertisingSet(handle: $0), tolerating: alreadyGone) }
    }

    /// Every beacon disabled on the controller, sets kept (an off phase of a cycle).
    public func disable() -> [PlannedCommand] {
        switch family {
        case .extended: return Array(stop.prefix(handles.count))
        case .legacy: return stop
        }
    }

    /// The commands that put one beacon's set back on air (after a connection ended it, or another
    /// program disabled it): enable only, its parameters and data are still there.
    public func reenable(_ handles: [UInt8]) -> [PlannedCommand] {
        switch family {
        case .extended: return handles.isEmpty ? [] : [Self.enable(handles)]
        case .legacy: return [PlannedCommand(.leSetAdvertisingEnable(true), tolerating: [.commandDisallowed])]
        }
    }

    /// The commands that turn this plan into `new` while leaving unchanged beacons alone, when both use
    /// sets of the same family: removed sets are disabled and removed, changed and added ones are
    /// configured and enabled. Nil when the layouts differ (then: stop this plan, start the new one).
    public func update(to new: KioskPlan) -> [PlannedCommand]? {
        guard family == new.family, configuration.addressPerSet == new.configuration.addressPerSet,
              configuration.ownRandomAddress == new.configuration.ownRandomAddress,
              case let .sets(oldHandles) = layout, case let .sets(newHandles) = new.layout else {
            return nil
        }
        var old: [UInt8: BeaconAdvertisement] = [:]
        for (b, h) in zip(configuration.beacons, oldHandles) { old[h] = b.onAirShape }
        var steps: [PlannedCommand] = []
        let removed = oldHandles.filter { !newHandles.contains($0) }
        steps += Self.extendedStop(removed)
        var touched: [UInt8] = []
        for (b, h) in zip(new.configuration.beacons, newHandles) where old[h] != b.onAirShape {
            steps += Self.configureSet(b, handle: h, configuration: new.configuration)
            touched.append(h)
        }
        if !touched.isEmpty { steps.append(Self.enable(touched)) }
        return steps
    }
}

extension KioskPlan.PlanError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .noBeacons: return "no beacons to advertise"
        case let .handlesExhausted(first, count):
            return "\(count) beacons do not fit in advertising handles from \(first) to \(KioskConfiguration.maximumHandle)"
        case let .rotationShorterThanInterval(rotation, interval):
            return "rotation \(rotation) ms is shorter than the advertising interval \(Milliseconds.format(interval)) ms: a beacon would be replaced before it is sent"
        }
    }
}

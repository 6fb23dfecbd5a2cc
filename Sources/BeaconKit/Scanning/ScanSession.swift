// SPDX-License-Identifier: Apache-2.0
/// What a scan is asked to do.
public struct ScanConfiguration: Sendable {
    /// Regions to monitor and range; empty: range every beacon (iBeacon, AltBeacon, Eddystone-UID and -URL).
    public var regions: [BeaconRegion]
    /// Seconds without a matching beacon before a region's exit.
    public var exitTimeout = RegionMonitor.defaultExitTimeout
    public var ranging = RangingConfiguration()
    /// Also report advertisements that are no beacon (Eddystone-TLM among them), or beacons outside every region (`--all`).
    public var reportAll: Bool
    /// A ranging update per beacon at most this often (seconds), like CoreLocation's ~1 Hz callbacks.
    public var rangingInterval = 1.0
    /// The controller scanned on: its stack-internal "down" or "unregistered" event ends the scan.
    public var deviceID: UInt16

    /// The other settings start at their defaults: exit after 30 s, default ranging, updates at 1 Hz.
    public init(regions: [BeaconRegion] = [], reportAll: Bool = false, deviceID: UInt16 = 0) {
        self.regions = regions
        self.reportAll = reportAll
        self.deviceID = deviceID
    }
}

/// One thing a scan has to tell its user.
public enum ScanUpdate: Equatable, Sendable {
    /// A region was entered or left.
    case region(RegionEvent)
    /// A ranging update for one beacon (at most one per `rangingInterval` per beacon).
    case ranged(RangedBeacon, addressType: AdvertisingReport.AddressType)
    /// With `reportAll`: an advertisement that is no beacon, or a beacon outside every region.
    case advertisement(AdvertisingReport)
    /// An advertising report event with a defect; the reports before it were still used.
    case malformedReport(AdvertisingReportError)
}

/// An event that says the controller can no longer do what it was set up for: the session ends.
public enum ControllerFailure: Error, Equatable, Sendable {
    /// Hardware Error event (0x10) with its Hardware_Code.
    case hardwareError(code: UInt8)
    /// The kernel's stack-internal event: the device was brought down (HCI_DEV_DOWN).
    case deviceDown(deviceID: UInt16)
    /// The kernel's stack-internal event: the device was unregistered (unplugged, removed).
    case deviceUnregistered(deviceID: UInt16)

    /// The failure `event` reports for controller `deviceID`, or nil when it reports none.
    public init?(_ event: HCIEvent, deviceID: UInt16) {
        if event.code == .hardwareError {
            self = .hardwareError(code: HardwareError(event)?.hardwareCode ?? 0)
        } else if let si = StackInternalDeviceEvent(event), si.deviceID == deviceID, si.kind == .down {
            self = .deviceDown(deviceID: deviceID)
        } else if let si = StackInternalDeviceEvent(event), si.deviceID == deviceID, si.kind == .unregistered {
            self = .deviceUnregistered(deviceID: deviceID)
        } else {
            return nil
        }
    }
}

/// The receive side of `scan`, pure: fed events and times (seconds on one monotonic clock), it
/// returns observations as ranging updates, region transitions and advertisements. It never reads a
/// clock or a socket; the caller pumps: receive with a timeout up to `nextDeadline`, hand over each
/// packet with `receive(_:at:)`, and call `tick(at:)` after every wait.
///
/// Cost per report is O(1) amortised in the number of beacons in the ranging window; beacons that
/// leave the window (`RangingConfiguration.forgetAfter`) are dropped, so memory follows the crowd
/// in the window, not the length of the run.
public struct ScanSession: Sendable {
    public let configuration: ScanConfiguration
    public private(set) var ranger: BeaconRanger
    public private(set) var monitor: RegionMonitor
    /// When each tracked beacon's last ranging update was given; pruned with the ranger's tracks.
    var lastRanged: [BeaconIdentity: Double] = [:]
    /// Advertising reports received (iBeacons or not).
    public private(set) var reportCount = 0
    /// Beacons that entered the ranging window (a beacon forgotten and seen again counts again).
    public private(set) var beaconCount = 0
    /// The latest Eddystone-TLM heard from each address (a TLM names no beacon: it belongs to the
    /// UID or URL frames of its address); at most `maximumTelemetry`, the oldest dropped first.
    var telemetry: [String: Eddystone.TLM] = [:]
    var telemetryOrder: [String] = []
    public static let maximumTelemetry = 256

    public init(_ configuration: ScanConfiguration) {
        self.configuration = configuration
        ranger = BeaconRanger(configuration: configuration.ranging)
        monitor = RegionMonitor(regions: configuration.regions, exitTimeout: configuration.exitTimeout)
    }

    /// The earliest time a `tick` can report something (a region exit); nil: only events can.
    public var nextDeadline: Double? { monitor.nextDeadline }

    /// One H4 packet from the controller, parsed here once. A packet that is not a well-framed event
    /// is ignored, unless it announced itself as an advertising report (then `.malformedReport`).
    public mutating func receive(_ packet: [UInt8], at now: Double) throws(ControllerFailure) -> [ScanUpdate] {
        let event: HCIEvent
        do { event = try HCIEvent(packet: packet) } catch {
            if let batch = AdvertisingReports.decodePartial(eventPacket: packet), let defect = batch.error {
                return [.malformedReport(defect)]
            }
            return []
        }
        return try receive(event, at: now)
    }

    /// One parsed event: a controller failure throws; advertising reports are ranged and monitored.
    public mutating func receive(_ event: HCIEvent, at now: Double) throws(ControllerFailure) -> [ScanUpdate] {
        if let failure = ControllerFailure(event, deviceID: configuration.deviceID) { throw failure }
        guard let batch = AdvertisingReports.decodePartial(event: event) else { return [] }
        var updates: [ScanUpdate] = []
        if let defect = batch.error { updates.append(.malformedReport(defect)) }
        for report in batch.reports { observe(report, at: now, into: &updates) }
        return updates
    }

    /// Region exits that fell due by `now`, and beacons forgotten from the ranging window.
    public mutating func tick(at now: Double) -> [ScanUpdate] {
        for id in ranger.prune(now: now) { lastRanged[id] = nil }
        return monitor.tick(now: now).map { .region($0) }
    }

    /// Whether `id` is in one of the regions (every beacon when there are none).
    public func wanted(_ id: BeaconIdentity) -> Bool {
        configuration.regions.isEmpty || configuration.regions.contains { $0.matches(id) }
    }

    mutating func observe(_ report: AdvertisingReport, at now: Double, into updates: inout [ScanUpdate]) {
        reportCount += 1
        if case let .tlm(tlm)? = Eddystone.Frame(advertisingData: report.data) {
            remember(tlm, from: report.address)
            if configuration.reportAll { updates.append(.advertisement(report)) }
            return
        }
        guard let observation = BeaconObservation(report: report, timestamp: now), wanted(observation.identity) else {
            if configuration.reportAll { updates.append(.advertisement(report)) }
            return
        }
        let id = observation.identity
        for id in ranger.prune(now: now) { lastRanged[id] = nil }
        if ranger.observe(observation) { beaconCount += 1 }
        updates += monitor.observe(observation).map { .region($0) }
        if lastRanged[id].map({ now - $0 >= configuration.rangingInterval }) ?? true,
           var ranged = ranger.ranged(id, now: now) {
            lastRanged[id] = now
            ranged.telemetry = telemetry(for: ranged)
            updates.append(.ranged(ranged, addressType: observation.addressType))
        }
    }

    /// The latest TLM from an Eddystone beacon's address; nil for other types.
    public func telemetry(for beacon: RangedBeacon) -> Eddystone.TLM? {
        guard case .eddystone = beacon.frame else { return nil }
        return telemetry[beacon.address]
    }

    mutating func remember(_ tlm: Eddystone.TLM, from address: String) {
        if telemetry.updateValue(tlm, forKey: address) == nil {
            telemetryOrder.append(address)
            if telemetryOrder.count > Self.maximumTelemetry {
                telemetry[telemetryOrder.removeFirst()] = nil
            }
        }
    }
}

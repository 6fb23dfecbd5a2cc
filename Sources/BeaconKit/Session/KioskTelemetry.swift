// SPDX-License-Identifier: Apache-2.0
/// The live values of a kiosk's Eddystone-TLM beacons. No HCI command reports the PDUs a controller
/// sent, so the count is the session's: each advertising event sends one legacy PDU on each of the
/// three primary channels, one event per interval plus advDelay's mean 5 ms (Core spec Vol 6, Part B,
/// §4.4.2.2.1: a pseudo-random 0–10 ms); sets advertise side by side, rotated beacons share one
/// instance. The time since start is the session's, in 0.1 s as the frame counts it.
extension KioskConfiguration {
    /// Whether any beacon is an Eddystone-TLM (the session refreshes it while on air).
    public var hasTelemetry: Bool { beacons.contains { $0.frame.kind == .eddystoneTLM } }

    /// Mean advertising delay (advDelay, 0–10 ms) added to every interval.
    static let meanAdvertisingDelayMilliseconds = 5.0
    static let primaryChannels = 3.0

    /// Advertising PDUs per second while on air: one placement (a rotation, a kernel instance) or one
    /// set per beacon (`sideBySide`).
    public func advertisingPDUsPerSecond(sideBySide: Bool) -> Double {
        func rate(_ o: AdvertisingOptions) -> Double {
            Self.primaryChannels * 1000 / (o.interval.milliseconds + Self.meanAdvertisingDelayMilliseconds)
        }
        return sideBySide ? beacons.reduce(0) { $0 + rate($1.options) } : rate(rotationOptions)
    }

    /// Writes the live values into every Eddystone-TLM beacon: PDUs sent in `onAirMilliseconds` on
    /// air, `uptimeMilliseconds` since the start, and the temperature `temperature` reads from the
    /// beacon's source (nil: not measured, 0x8000). False when there is no such beacon.
    public mutating func refreshTelemetry(onAirMilliseconds: Int64, uptimeMilliseconds: Int64, sideBySide: Bool,
                                          temperature: (String) -> Int16?) -> Bool {
        let pdus = Double(max(0, onAirMilliseconds)) / 1000 * advertisingPDUsPerSecond(sideBySide: sideBySide)
        var found = false
        for i in beacons.indices {
            guard case var .telemetry(t) = beacons[i].frame else { continue }
            found = true
            t.tlm.advertisingPDUCount = UInt32(clamping: Int64(pdus.rounded(.down)))
            t.tlm.uptimeTenths = UInt32(clamping: max(0, uptimeMilliseconds) / 100)
            t.tlm.temperature = t.temperatureSource.flatMap(temperature) ?? Eddystone.TLM.temperatureNotSupported
            beacons[i].frame = .telemetry(t)
        }
        return found
    }

    /// Keeps the live values of `old`'s Eddystone-TLM beacons in the same beacons of this one (a
    /// reload does not send a TLM back to zero, nor count it as changed).
    public mutating func keepTelemetry(of old: [BeaconAdvertisement]) {
        for i in beacons.indices {
            guard case var .telemetry(t) = beacons[i].frame else { continue }
            for b in old {
                guard case let .telemetry(o) = b.frame, o.of == t.of else { continue }
                t.tlm.advertisingPDUCount = o.tlm.advertisingPDUCount
                t.tlm.uptimeTenths = o.tlm.uptimeTenths
                if t.temperatureSource == o.temperatureSource { t.tlm.temperature = o.tlm.temperature }
                beacons[i].frame = .telemetry(t)
            }
        }
    }
}

extension KioskPlan {
    /// The commands that write the Eddystone-TLM beacons' current frames where they are on air now:
    /// each one's set; none in a rotation (its next turn writes the new frame) unless `rotationIndex`
    /// is the TLM's turn.
    public func telemetrySteps(rotationIndex: Int) -> [PlannedCommand] {
        switch layout {
        case let .sets(handles):
            return zip(configuration.beacons, handles).filter { $0.0.frame.kind == .eddystoneTLM }.map {
                Self.dataCommand($0.0.frame, family: family, handle: $0.1)
            }
        default:
            guard rotationSteps.indices.contains(rotationIndex), configuration.beacons.indices.contains(rotationIndex),
                  configuration.beacons[rotationIndex].frame.kind == .eddystoneTLM else { return [] }
            return [rotationSteps[rotationIndex]]
        }
    }
}

import BeaconKit

/// One beacon as configured: the region plus CoreLocation's identifier.
struct BeaconEntry: Equatable, Sendable {
    var identifier: String?
    var uuid: ProximityUUID
    var major: UInt16
    var minor: UInt16
    var measuredPower: Int8

    var beacon: IBeacon { IBeacon(uuid: uuid, major: major, minor: minor, measuredPower: measuredPower, identifier: identifier) }

    var json: JSON {
        var pairs: [(String, JSON)] = []
        if let identifier { pairs.append(("identifier", .string(identifier))) }
        pairs += [("uuid", .string(uuid.description)), ("major", .number(Double(major))),
                  ("minor", .number(Double(minor))), ("measuredPower", .number(Double(measuredPower)))]
        return .object(pairs)
    }
}

/// The effective settings of `start`: defaults, then the config file, then flags.
struct Settings: Equatable, Sendable {
    static let defaultMeasuredPower: Int8 = -59
    static let measuredPowerRange = -127...20
    static let defaultTimeoutMilliseconds = 2000
    static let timeoutRange = 100...60000
    static let advertisingSetRange = 0...0xEF

    var device: UInt16?
    var interval = AdvertisingInterval.standard
    var connectable = false
    var txPower: Int8?
    /// nil = auto (probe).
    var controller: AdvertisingFamily?
    var timeoutMilliseconds = defaultTimeoutMilliseconds
    /// The extended advertising set beacon-tx owns (Advertising_Handle 0x00–0xEF). The kernel uses
    /// handle 0 for its own default advertising and 1… for mgmt instances.
    var advertisingSet: UInt8 = 0
    var beacon: BeaconEntry?

    var deviceName: String? { device.map(HCIDeviceInfo.name(of:)) }

    var advertisingOptions: AdvertisingOptions {
        AdvertisingOptions(interval: interval, connectable: connectable, txPower: txPower, advertisingHandle: advertisingSet)
    }

    var json: JSON {
        .object([
            ("device", deviceName.map(JSON.string) ?? .null),
            ("interval", .number(interval.milliseconds)),
            ("intervalUnits", .number(Double(interval.units))),
            ("connectable", .bool(connectable)),
            ("txPower", txPower.map { .number(Double($0)) } ?? .null),
            ("controller", .string(controller?.rawValue ?? "auto")),
            ("timeout", .number(Double(timeoutMilliseconds))),
            ("advertisingSet", .number(Double(advertisingSet))),
            ("beacons", .array(beacon.map { [$0.json] } ?? [])),
        ])
    }

    /// `--device`, `--timeout` and `--advertising-set`, where the command takes them (flags over file).
    mutating func applyDeviceFlags(_ a: ParsedArguments) throws(CLIError) {
        if let d = a.value("--device") { device = try Validate.device("--device", d) }
        if let t = a.value("--timeout") { timeoutMilliseconds = try Validate.integer("--timeout", t, Self.timeoutRange) }
        if let t = a.value("--advertising-set") {
            advertisingSet = UInt8(try Validate.integer("--advertising-set", t, Self.advertisingSetRange))
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
/// Which HCI advertising command family drives the controller. A controller refuses to mix them
/// (Core spec Vol 4, Part E, §3.1.1): after a legacy command extended ones get Command Disallowed, and back.
public enum AdvertisingFamily: String, CaseIterable, Hashable, Sendable {
    case legacy
    case extended

    public var other: AdvertisingFamily { self == .legacy ? .extended : .legacy }
}

/// An advertising interval in 0.625 ms units (legacy 0x0020–0x4000: 20 ms to 10.24 s).
public struct AdvertisingInterval: Hashable, Sendable {
    public static let minimumMilliseconds = 20.0
    public static let maximumMilliseconds = 10240.0

    /// Units of 0.625 ms.
    public let units: UInt16

    public init?(units: UInt16) {
        guard (0x0020...0x4000).contains(units) else { return nil }
        self.units = units
    }

    private init(checkedUnits: UInt16) { units = checkedUnits }

    /// 100 ms (0x00A0), the default, and the minimum for non-connectable advertising before Core 5.0.
    public static let standard = AdvertisingInterval(checkedUnits: 0x00A0)

    /// Rounds milliseconds to the nearest 0.625 ms unit; nil outside 20–10240 ms.
    public init?(milliseconds: Double) {
        guard milliseconds.isFinite, milliseconds >= Self.minimumMilliseconds, milliseconds <= Self.maximumMilliseconds else { return nil }
        self.init(units: UInt16((milliseconds / 0.625).rounded()))
    }

    public var milliseconds: Double { Double(units) * 0.625 }

    /// `100.000 msec (0x00a0)`, as btmon prints intervals.
    public var text: String { "\(Milliseconds.format(milliseconds)) msec (\(Hex.word(units)))" }
}

public enum Milliseconds {
    /// Seconds without a needless fraction: 2000 → "2", 1500 → "1.5".
    public static func seconds(_ ms: Int64) -> String {
        ms % 1000 == 0 ? "\(ms / 1000)" : format(Double(ms) / 1000).replacingZeros()
    }

    /// Three decimals without Foundation: 152.5 → "152.500".
    public static func format(_ ms: Double) -> String {
        let thousandths = Int((ms * 1000).rounded())
        let whole = thousandths / 1000, frac = thousandths % 1000
        let fracText = String(frac)
        return "\(whole)." + String(repeating: "0", count: 3 - fracText.count) + fracText
    }
}

extension String {
    /// "1.500" → "1.5".
    fileprivate func replacingZeros() -> String {
        var s = Substring(self)
        while s.hasSuffix("0") { s = s.dropLast() }
        if s.hasSuffix(".") { s = s.dropLast() }
        return String(s)
    }
}

/// How to advertise, independent of the beacon.
public struct AdvertisingOptions: Hashable, Sendable {
    public var interval: AdvertisingInterval
    public var connectable: Bool
    /// Requested Advertising_TX_Power in dBm (extended only, −127…+20); nil = no preference (0x7f).
    public var txPower: Int8?
    /// The advertising set beacon-tx owns with extended commands.
    public var advertisingHandle: UInt8
    /// The random static address to advertise from (display order), with Own_Address_Type Random:
    /// extended, LE Set Advertising Set Random Address after the set's parameters; legacy, LE Set
    /// Random Address while advertising is disabled. nil = the controller's public address.
    public var randomAddress: [UInt8]?

    public static let txPowerRange: ClosedRange<Int> = -127...20

    public init(interval: AdvertisingInterval, connectable: Bool = false, txPower: Int8? = nil, advertisingHandle: UInt8 = 0) {
        self.interval = interval
        self.connectable = connectable
        self.txPower = txPower
        self.advertisingHandle = advertisingHandle
    }
}

/// One command of a plan, with the statuses that still count as success
/// (e.g. "already stopped" answers to a disable).
public struct PlannedCommand: Hashable, Sendable {
    public let command: HCICommand
    public let tolerated: Set<Status>

    public init(_ command: HCICommand, tolerating tolerated: Set<Status> = []) {
        self.command = command
        self.tolerated = tolerated
    }
}

/// The exact ordered command lists to start and to stop advertising a beacon: data, not behaviour.
/// The dry run prints them; the live path sends them.
public struct AdvertisingPlan: Hashable, Sendable {
    public let family: AdvertisingFamily
    public let start: [PlannedCommand]
    public let stop: [PlannedCommand]

    public init(advertisingData: [UInt8], options: AdvertisingOptions, family: AdvertisingFamily) {
        self.family = family
        let units = options.interval.units
        switch family {
        case .legacy:
            start = [
                // Disable first: parameters cannot change while advertising. A pre-5.0 controller may
                // answer Command Disallowed when it was not advertising; that is harmless here.
                PlannedCommand(.leSetAdvertisingEnable(false), tolerating: [.commandDisallowed]),
            ] + (options.randomAddress.map {
                // The controller refuses a new random address while it advertises: after the disable.
                [PlannedCommand(.leSetRandomAddress($0))]
            } ?? []) + [
                PlannedCommand(.leSetAdvertisingParameters(
                    intervalMin: units, intervalMax: units,
                    type: options.connectable ? .advInd : .advNonconnInd,
                    ownAddressType: options.randomAddress == nil ? 0x00 : HCICommand.ownAddressRandom)),
                PlannedCommand(.leSetAdvertisingData(advertisingData)),
                PlannedCommand(.leSetAdvertisingEnable(true)),
            ]
        case .extended:
            let set = [AdvertisingSetEnable(handle: options.advertisingHandle)]
            start = [
                // Disable our set first (it may be left on by `start --detach`): parameters cannot
                // change on an enabled set. A set that does not exist yet answers 0x42.
                PlannedCommand(.leSetExtendedAdvertisingEnable(false, sets: set),
                               tolerating: [.unknownAdvertisingIdentifier, .commandDisallowed]),
                PlannedCommand(.leSetExtendedAdvertisingParameters(
                    handle: options.advertisingHandle,
                    properties: options.connectable ? .legacyConnectable : .legacyNonconnectable,
                    intervalMin: UInt32(units), intervalMax: UInt32(units),
                    ownAddressType: options.randomAddress == nil ? 0x00 : HCICommand.ownAddressRandom,
                    txPower: options.txPower ?? HCICommand.txPowerNoPreference)),
            ] + (options.randomAddress.map {
                // After the parameters: the set exists then (0x42 before).
                [PlannedCommand(.leSetAdvertisingSetRandomAddress(handle: options.advertisingHandle, address: $0))]
            } ?? []) + [
                PlannedCommand(.leSetExtendedAdvertisingData(handle: options.advertisingHandle, data: advertisingData)),
                PlannedCommand(.leSetExtendedAdvertisingEnable(true, sets: set)),
            ]
        }
        stop = Self.stopCommands(family: family, advertisingHandle: options.advertisingHandle)
    }

    public init(frame: BeaconFrame, options: AdvertisingOptions, family: AdvertisingFamily) {
        self.init(advertisingData: frame.advertisingData, options: options, family: family)
    }

    /// Stop: legacy disable; extended disable + remove set. "Already stopped" answers count as success.
    public static func stopCommands(family: AdvertisingFamily, advertisingHandle: UInt8 = 0) -> [PlannedCommand] {
        switch family {
        case .legacy:
            return [PlannedCommand(.leSetAdvertisingEnable(false), tolerating: [.commandDisallowed])]
        case .extended:
            let alreadyGone: Set<Status> = [.unknownAdvertisingIdentifier, .commandDisallowed]
            return [
                PlannedCommand(.leSetExtendedAdvertisingEnable(false, sets: [AdvertisingSetEnable(handle: advertisingHandle)]),
                               tolerating: alreadyGone),
                PlannedCommand(.leRemoveAdvertisingSet(handle: advertisingHandle), tolerating: alreadyGone),
            ]
        }
    }
}

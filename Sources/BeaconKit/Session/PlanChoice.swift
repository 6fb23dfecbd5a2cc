// SPDX-License-Identifier: Apache-2.0
/// Which plan a mode puts on air: the advertising family, and whether the beacons rotate on one set.
/// The sharing mode's families are MGMT's commands: extended = Add Extended Advertising Parameters
/// and Data (our interval), legacy = Add Advertising (the kernel's interval); it never rotates.
public struct PlanChoice: Hashable, Sendable {
    public var family: AdvertisingFamily
    public var rotate: Bool

    public init(family: AdvertisingFamily, rotate: Bool = false) {
        self.family = family
        self.rotate = rotate
    }
}

/// What `SessionMachine` chooses plans from: the mode's facts about the configuration and the
/// controller, given with `startRequested` and with a reload's new configuration.
public struct PlanRules: Equatable, Sendable {
    public var device: String
    /// The family the operator forced (`--controller`, `--share-commands`): never switched.
    public var forced: AdvertisingFamily?
    /// The families the controller offers, preferred first; one found not implemented is dropped.
    public var families: [AdvertisingFamily]
    public var beacons: Int
    /// The advertising sets the controller has (LE Read Number of Supported Advertising Sets); nil:
    /// not known (Memory Capacity Exceeded tells).
    public var sets: Int?

    public init(device: String = "", forced: AdvertisingFamily? = nil, families: [AdvertisingFamily] = [.legacy], beacons: Int = 1, sets: Int? = nil) {
        self.device = device
        self.forced = forced
        self.families = families
        self.beacons = beacons
        self.sets = sets
    }

    /// Fewer sets than beacons: side by side cannot work, the beacons rotate from the start.
    var rotates: Bool { sets.map { $0 < beacons } ?? false }
}

/// How the controller (or the kernel) refused a plan: the actuator sent it, undid what it could and
/// says which rule the refusal falls under; the machine chooses the next plan or the failure. Each
/// carries the error the refusal is, should it stand.
public enum PlanRefusal: Equatable, Sendable {
    /// Command Disallowed: the controller is in the other family's mode (MGMT: the kernel refused
    /// the extended pair).
    case familyDisallowed(SessionError)
    /// Unknown HCI Command for a command the controller lists: the family is not implemented, and is
    /// not tried again in this run.
    case familyNotImplemented(SessionError)
    /// Memory Capacity Exceeded: too few free sets for a set per beacon.
    case capacity(SessionError)
    /// Anything else (a plan the controller's version rules refuse, another status, the transport).
    case failed(SessionError)
}

// SPDX-License-Identifier: Apache-2.0
/// What `verify` found, per configured beacon, and the verdict.
public struct CaptureReport: Hashable, Sendable {
    public var datalink: UInt32
    public var recordCount: Int
    public var controllerIndex: UInt16
    /// `hci0` (from the capture's New Index, else by number).
    public var controller: String
    public var warning: String?
    /// A monitor capture with no record of this controller at all.
    public var noteNoRecords = false
    public var beacons: [BeaconReport]
    /// Set for a capture of the sharing mode (beacon-tx's beacons as kernel advertising instances).
    public var share: Share?

    /// What beacon-tx's MGMT commands in a share-mode capture were, as the plan has them.
    public struct Share: Hashable, Sendable {
        public var method: SharePlan.Method
        /// Ours, in beacon order (the instances found).
        public var instances: [UInt8]
        /// The plan's Duration (the dwell as whole seconds).
        public var durationSeconds: UInt16
        /// Why beacon-tx used Add Advertising: the kernel refused Add Extended Advertising Data.
        public var extendedRefusal: Refusal?

        public init(method: SharePlan.Method, instances: [UInt8], durationSeconds: UInt16, extendedRefusal: Refusal? = nil) {
            self.method = method
            self.instances = instances
            self.durationSeconds = durationSeconds
            self.extendedRefusal = extendedRefusal
        }

        /// The kernel's answer to our Add Extended Advertising Data, at `seconds`.
        public struct Refusal: Hashable, Sendable {
            public var status: MGMTStatus
            public var seconds: Double
        }
    }

    public struct Event: Hashable, Sendable {
        /// Seconds since the first record of the capture.
        public var seconds: Double
        public var on: Bool
        /// The command (or index event) that made the change.
        public var cause: String
        /// Who sent it (off events of monitor captures), or "stopped by beacon-tx's stop plan".
        public var who: String?
        public var byStopPlan = false
        var commandIndex: Int?

        public init(seconds: Double, on: Bool, cause: String, who: String? = nil, byStopPlan: Bool = false) {
            self.seconds = seconds
            self.on = on
            self.cause = cause
            self.who = who
            self.byStopPlan = byStopPlan
        }

        init(seconds: Double, on: Bool, cause: String, who: String?, commandIndex: Int?) {
            self.init(seconds: seconds, on: on, cause: cause, who: who)
            self.commandIndex = commandIndex
        }

        /// `went off at 3.204 s: … , sent by …` / `on at 1.002 s: …`.
        public var text: String {
            (on ? "on at \(CaptureReport.seconds(seconds)) s: " : "went off at \(CaptureReport.seconds(seconds)) s: ") + cause + (who.map { ", \($0)" } ?? "")
        }
    }

    public struct BeaconReport: Hashable, Sendable {
        /// 1-based, in config order.
        public var number: Int
        public var expected: BeaconAdvertisement
        /// The iBeacon of the data command that matched best; nil when there was none.
        public var found: BeaconFrame?
        public var placement: CaptureVerifier.Placement?
        /// Several beacons share the placement (data swapped on one instance).
        public var rotation = false
        public var family: AdvertisingFamily?
        public var intervalMin: UInt32?
        public var intervalMax: UInt32?
        public var connectable: Bool?
        /// Advertising_TX_Power as requested (extended only).
        public var txPower: Int8?
        /// `Advertising_Type …` / `Advertising_Event_Properties 0x0010`.
        public var parameterSummary: String?
        public var configuredSeconds: Double?
        public var enabledSeconds: Double?
        public var commandCount = 0
        public var failedCommands: [FailedCommand] = []
        public var events: [Event] = []
        public var onAirAtEnd = false
        public var stoppedByStopPlan = false
        /// Share mode: our kernel advertising instance, how often the kernel wrote our data on the
        /// controller (once per turn in its rotation), when beacon-tx removed the instance.
        public var instance: UInt8?
        public var kernelWrites = 0
        public var removedSeconds: Double?
        /// Every failed check, in order: data fields, family, parameters, commands, on air.
        public var failures: [VerifyFailure] = []

        public init(number: Int, expected: BeaconAdvertisement) {
            self.number = number
            self.expected = expected
        }

        public var passed: Bool { failures.isEmpty }

        /// `on air`, `stopped by beacon-tx's stop plan at 4.100 s`, `off since 3.204 s`, `never on air`.
        public var endState: String {
            if onAirAtEnd { return "on air" }
            guard let last = events.last else { return "never on air" }
            return stoppedByStopPlan ? "stopped by beacon-tx's stop plan at \(CaptureReport.seconds(last.seconds)) s"
                                     : "off since \(CaptureReport.seconds(last.seconds)) s"
        }
    }

    public var passed: Bool { !beacons.isEmpty && beacons.allSatisfy(\.passed) }

    /// The first failure of the first failing beacon; nil when the report passes.
    public var firstFailure: FirstFailure? {
        for b in beacons { if let f = b.failures.first { return .beacon(number: b.number, f) } }
        return beacons.isEmpty ? .noBeaconsConfigured : nil
    }

    /// Three decimals: 3.2041 → "3.204".
    /// A record may be stamped before the first one (clocks step, files are hand-made): the sign is
    /// kept outside the formatting, which expects a non-negative value.
    public static func seconds(_ s: Double) -> String {
        guard s.isFinite else { return "?" }
        return s < 0 ? "-" + Milliseconds.format(-s) : Milliseconds.format(s)
    }
    static func seconds(_ microseconds: Int64) -> String { seconds(Double(microseconds) / 1_000_000) }
}

// SPDX-License-Identifier: Apache-2.0
/// One failed check of `verify`, as values: which command, field, instance or placement, what was
/// expected and what the capture has, and when. BeaconKit decides; the CLI words it
/// (`VerifyReport` in BeaconTool).
public enum VerifyFailure: Hashable, Sendable {
    // Raw HCI captures (`CaptureChecks`).

    /// No data command with an iBeacon on the controller: of `family` (the configured one), or of
    /// either family when the configuration leaves it to the controller.
    case noDataCommand(family: AdvertisingFamily?, controllerIndex: UInt16)
    /// A field of the configured beacon or of its parameters differs from the capture's data or
    /// parameters command (`expected` is the configuration's value).
    case configDiffers(FieldDifference)
    /// Advertising_TX_Power of the parameters command differs from the configured `txPower`.
    case txPowerDiffers(Opcode, expected: Int8, actual: Int8)
    /// The configured controller family (`--controller`) is not the one the capture's commands use.
    case familyDiffers(expected: AdvertisingFamily, actual: AdvertisingFamily?)
    /// No parameters command for the beacon's placement.
    case noParameters(CaptureVerifier.Placement)
    /// A parameters command too short for its fields.
    case parametersTooShort(Opcode, byteCount: Int)
    /// The placement never went on air with the beacon's data; `rotation`: several beacons share it.
    case neverEnabled(CaptureVerifier.Placement, rotation: Bool)
    /// The beacon was on air and went off, not by beacon-tx's stop plan, for good.
    case offAirAtEnd(CaptureReport.Event)

    // Both modes.

    /// A command of ours answered with a failure, or not at all.
    case commandFailed(FailedCommand)

    // Captures of the sharing mode (`CaptureShare`).

    /// No MGMT Add Extended Advertising Data or Add Advertising of ours with iBeacon data for the controller.
    case noAddCommand(controllerIndex: UInt16)
    /// A field of the beacon our MGMT Add command carries differs from the configured one.
    case addedBeaconDiffers(FieldDifference)
    /// The share plan's command for the instance was not sent before its data.
    case planCommandMissing(MGMTOpcode, instance: UInt8)
    /// A field of our MGMT command differs from the share plan's; `field` nil: the parameters (hex)
    /// could not be decoded field by field.
    case planDiffers(MGMTOpcode, instance: UInt8, field: String?, expected: String, actual: String)
    /// A kernel HCI data command of our region at `seconds` carries other bytes than the ones we added.
    case kernelChangedData(Opcode, seconds: Double, written: [UInt8], added: [UInt8])
    /// The parameters the kernel enabled our data with are (non-)connectable against the configuration.
    case connectableDiffers(Opcode, expected: Bool, actual: Bool)
    /// The kernel wrote our data on `placement` but never enabled it there.
    case kernelNeverEnabled(CaptureVerifier.Placement)
    /// The kernel wrote no HCI data command with our data after we added `instance`.
    case kernelNeverWrote(instance: UInt8)
    /// No MGMT command of ours with our data for `instance` was answered Success.
    case neverAdded(instance: UInt8)
    /// The kernel wrote our data again (`opcode` at `seconds`) after our Remove Advertising at `removedSeconds`.
    case writtenAfterRemoval(Opcode, seconds: Double, instance: UInt8, removedSeconds: Double)
    /// Our data still enabled at the end of the capture after our Remove Advertising at `removedSeconds`.
    case onAirAfterRemoval(instance: UInt8, removedSeconds: Double)
    /// Removed by another program (or the kernel) and not added again: the removal `event`.
    case removedByOther(CaptureReport.Event)
    /// Our control socket closed with `instance` (added at `addedSeconds`) still in the kernel's
    /// rotation, with no Remove Advertising of ours.
    case notRemoved(instance: UInt8, addedSeconds: Double)
}

/// A command of ours on the beacon's placement (raw HCI) or instance (MGMT) answered with a
/// status other than Success or a tolerated one (`status`), or not answered (`status` nil).
public enum FailedCommand: Hashable, Sendable {
    case hci(Opcode, on: CaptureVerifier.Placement, seconds: Double, status: Status?)
    case mgmt(MGMTOpcode, instance: UInt8, seconds: Double, status: MGMTStatus?)
}

extension CaptureReport {
    /// What fails the report first: no beacons, or the first failure of the first failing beacon.
    public enum FirstFailure: Hashable, Sendable {
        case noBeaconsConfigured
        /// `number` is the beacon's, 1-based in config order.
        case beacon(number: Int, VerifyFailure)
    }
}

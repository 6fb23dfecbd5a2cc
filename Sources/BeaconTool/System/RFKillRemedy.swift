// SPDX-License-Identifier: Apache-2.0
import BeaconKit

extension RFKillBlock {
    /// What lifts the block, for the operator (the tool's sentence: BeaconKit names no tool).
    var remedy: String {
        hard ? "a hardware switch or the firmware blocks it (hard): turn the radio switch on, or enable Bluetooth in the firmware setup"
            + (soft ? "; then run: rfkill unblock bluetooth" : "")
            : "run: rfkill unblock bluetooth"
    }
}

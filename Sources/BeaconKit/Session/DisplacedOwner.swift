// SPDX-License-Identifier: Apache-2.0
/// Whose advertising a kiosk displaces on a single legacy instance: typed here, rendered at the edge
/// (the systemd STATUS, the log once).
public enum DisplacedOwner: Hashable, Sendable {
    /// The kernel's advertising instances, read before the start (MGMT Read Advertising Features).
    case kernelInstances([UInt8])
    /// Another owner's commands were seen writing the instance.
    case anotherOwner

}

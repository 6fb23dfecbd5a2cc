// SPDX-License-Identifier: Apache-2.0
/// A packet a raw HCI socket received: from the controller, or another program's command the kernel
/// copied to us. The transport hands these on; the session reads them.
public enum ObservedPacket: Hashable, Sendable {
    /// An event: Command Complete/Status of another program's command, Hardware Error, LE Meta,
    /// Disconnection Complete, or the kernel's stack-internal device event (up, down, unregistered).
    case event(HCIEvent)
    /// A command that another program or the kernel sent to the controller (the kernel copies it to
    /// raw sockets whose filter admits command packets).
    case observedCommand(HCICommand)
}

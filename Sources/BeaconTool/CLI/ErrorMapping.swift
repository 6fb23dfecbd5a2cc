// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// The error mapping: BeaconKit's and HCISocket's errors say what happened (call, device, opcode,
/// status, errno); here, and only here, beacon-tx adds what to do about it and the exit code.
extension CLIError {
    init(_ e: TransportError) {
        switch e {
        case .bluetoothUnsupported:
            self.init(.unavailable, "\(e); load the bluetooth module or use a kernel built with CONFIG_BT")
        case .permissionDenied:
            self.init(.noPermission, "\(e); run as root (sudo), or as the beacon-tx service, whose unit grants CAP_NET_RAW and CAP_NET_ADMIN")
        case .rfkilled:
            self.init(.unavailable, "\(e); run: rfkill unblock bluetooth")
        case let .deviceDown(_, device):
            self.init(.unavailable, "\(e); bring it up with: hciconfig \(device) up")
        case .noSuchDevice, .busy, .system:
            self.init(.unavailable, e.description)
        }
    }

    init(_ e: HCIError) {
        switch e {
        case let .transport(t):
            self.init(t)
        case .timeout:
            self.init(.unavailable, "\(e) (controller not answering; check the device, try --reset or a longer --timeout)")
        case .noCommandCredits:
            self.init(.unavailable, "\(e); it is busy or stuck, try --reset")
        case .commandFailed, .malformedEvent:
            self.init(.unavailable, e.description)
        }
    }

    init(_ e: MGMTError) {
        switch e {
        case let .transport(t):
            self.init(t)
        case let .commandFailed(_, _, status) where status == .permissionDenied:
            self.init(.noPermission, "\(e); the kernel's management interface needs CAP_NET_ADMIN: run as root (sudo), or as the beacon-tx service")
        case let .commandFailed(_, _, status) where status == .rejected || status == .notPowered:
            self.init(.unavailable, "\(e); the controller must be powered with LE on: bluetoothctl power on (or btmgmt power on)")
        case .timeout, .commandFailed, .malformedAnswer:
            self.init(.unavailable, e.description)
        }
    }

    init(_ e: ShareError) {
        switch e {
        case let .mgmt(m):
            self.init(m)
        case .noFreeInstances:
            self.init(.unavailable, "\(e); give fewer beacons, or free instances (btmgmt rm-adv N, bluetoothctl advertise off)")
        }
    }

    init(_ e: StartError) {
        switch e {
        case let .command(h):
            self.init(h)
        case let .familyUnsupported(family, _):
            self.init(.unavailable, "\(e); use --controller \(family == .extended ? "legacy" : "extended") or auto")
        case .bothFamiliesDisallowed:
            self.init(.unavailable, "\(e): something else, usually bluetoothd or the kernel's own advertising (btmgmt add-adv), holds the controller; retry with --reset, or stop it (bluetoothctl advertise off / btmgmt clr-adv)")
        case .noLEAdvertising:
            self.init(.unavailable, e.description)
        case let .forcedFamilyDisallowed(family, device, _):
            self.init(.unavailable, "\(e); reset the controller to leave \(family.other) mode (--reset, or hciconfig \(device) reset), or use --controller auto to switch")
        case .legacyIntervalBelowFloor:
            self.init(.config, "\(e): nothing was sent; set \"interval\" (--interval) to 100 ms or more, or make the beacons connectable")
        }
    }

    /// A kiosk session failure; Memory Capacity Exceeded gets its remedies.
    init(_ e: SessionError, device: String) {
        switch e {
        case let .start(s): self.init(s)
        case let .command(h): self.init(h)
        case let .shared(m): self.init(m)
        case .plan: self.init(.usage, e.description)
        case .capacityExceeded:
            self.init(.unavailable, "\(e); list fewer beacons, let them rotate on one set (--controller legacy), or free the kernel's advertising instances (bluetoothctl advertise off, btmgmt rm-adv N, btmgmt clr-adv)")
        }
    }

    /// A controller failure that ends a long wait (exit 69, so a supervisor such as systemd starts
    /// beacon-tx again).
    init(_ e: ControllerFailure, device: String, while activity: String) {
        switch e {
        case let .hardwareError(code):
            self.init(.unavailable, "\(device) reported a Hardware Error (code \(Hex.byte(code))) while \(activity); the controller must be set up again (restart beacon-tx, or use --reset)")
        case .deviceDown:
            self.init(.unavailable, "\(device) went down while \(activity) (powered off, reset or removed by another program); nothing is on air any more")
        case .deviceUnregistered:
            self.init(.unavailable, "\(device) went away while \(activity) (powered off, reset or removed by another program); nothing is on air any more")
        }
    }

    /// `devices`' row for a controller that is down.
    static func downDeviceProblem(_ name: String) -> String {
        "down: capabilities need the device up (hciconfig \(name) up, or beacon-tx start brings it up)"
    }
}

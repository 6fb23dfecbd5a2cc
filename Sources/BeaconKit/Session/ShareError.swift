// SPDX-License-Identifier: Apache-2.0
/// Why the sharing mode could not start or go on.
public enum ShareError: Error, Equatable, Sendable, CustomStringConvertible {
    case mgmt(MGMTError)
    /// Fewer free instances than beacons.
    case noFreeInstances(device: String, beacons: Int, maxInstances: UInt8, inUse: [UInt8])

    public var description: String {
        switch self {
        case let .mgmt(e): return e.description
        case let .noFreeInstances(device, beacons, max, inUse):
            return "\(device): \(beacons) beacon(s) need as many free advertising instances; the kernel has \(max), "
                + "\(inUse.count) in use (\(inUse.sorted().map(String.init).joined(separator: ", ")))"
        }
    }
}


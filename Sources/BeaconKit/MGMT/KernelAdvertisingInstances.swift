// SPDX-License-Identifier: Apache-2.0
/// The kernel's advertising instances on one controller as the MGMT commands it accepted leave them
/// (Add Advertising, Add Extended Advertising Parameters and Data, Remove Advertising; BlueZ
/// doc/mgmt-api.txt): each instance and the advertising data it holds. Pure: commands in, state out.
public struct KernelAdvertisingInstances: Hashable, Sendable {
    /// Instance → its advertising data (empty: parameters added, no data yet).
    public private(set) var data: [UInt8: [UInt8]] = [:]

    public init() {}

    /// Applies `command` as accepted (answered Success); other commands change nothing. Parameters
    /// alone register the instance and leave the data it holds; Remove Advertising of instance 0
    /// removes every instance.
    public mutating func apply(_ command: MGMTCommand) {
        guard let instance = command.instance else { return }
        switch command.opcode {
        case .addAdvertising, .addExtendedAdvertisingData:
            data[instance] = command.advertisingData ?? []
        case .addExtendedAdvertisingParameters:
            if data[instance] == nil { data[instance] = [] }
        case .removeAdvertising:
            if instance == 0 { data = [:] } else { data[instance] = nil }
        default:
            break
        }
    }

    /// The kernel removed `instance` (Advertising Removed: its duration ran out, another program).
    public mutating func removed(_ instance: UInt8) { data[instance] = nil }
}

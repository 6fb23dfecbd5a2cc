// SPDX-License-Identifier: Apache-2.0
/// How another program's command took our beacons off air: typed here, rendered at the edge.
public enum Disruption: Hashable, Sendable {
    case reset
    case clearedSets
    case removedSet(UInt8)
    case disabledAllSets
    case disabledSet(UInt8)
    case disabledLegacy
    /// Data, scan response, parameters or a random address that differ from ours (set nil: legacy).
    case wrote(Opcode, set: UInt8?)

    /// Classifies a command already known to change our placements.
    init(_ command: HCICommand, _ plan: KioskPlan) {
        switch command.opcode {
        case .reset: self = .reset
        case .leClearAdvertisingSets: self = .clearedSets
        case .leRemoveAdvertisingSet: self = .removedSet(DescribedCommand(command)?.advertisingHandle ?? 0)
        case .leSetExtendedAdvertisingEnable:
            let e = LESetExtendedAdvertisingEnable(command)
            if e?.disablesAll ?? true { self = .disabledAllSets; return }
            self = .disabledSet(e?.handles.first(where: plan.handles.contains) ?? 0)
        case .leSetAdvertisingEnable: self = .disabledLegacy
        default: self = .wrote(command.opcode, set: plan.family == .extended ? DescribedCommand(command)?.advertisingHandle : nil)
        }
    }

}

// SPDX-License-Identifier: Apache-2.0
/// One advertising instance, several owners: what the session keeps about the other owner
/// of a single legacy advertising instance, and how long it fights it.
///
/// On a controller without extended advertising (Raspberry Pi controllers, whatever Core version they report) the kernel
/// rotates its own MGMT instances (bluetoothd's advertisements, `bluetoothctl advertise on`,
/// `btmgmt add-adv`) on the one legacy instance beacon-tx also uses. The kernel caches the
/// advertising and scan response data it last wrote (`hdev->adv_data`) and, when it schedules an
/// instance again, writes the data only if it differs from that cache; it re-enables advertising
/// ~2 s after another program's disable (the instance's rotation timer) without rewriting it. So a
/// stop that only disables leaves our last beacon on air (the "ghost"), and the kernel's own
/// advertisement never returns: `ForeignLegacyAdvertising` records what the kernel last wrote (raw
/// sockets receive a copy of every command the kernel sends) and the stop writes it back.

/// The legacy advertising instance as its other owner last wrote it: LE Set Random Address, LE Set
/// Advertising Parameters, LE Set Advertising Data, LE Set Scan Response Data and LE Set Advertising
/// Enable (Core spec Vol 4, Part E, §7.8.4–7.8.9), from the commands other programs and the kernel
/// sent (`ObservedPacket.observedCommand`).
public struct ForeignLegacyAdvertising: Hashable, Sendable {
    public private(set) var randomAddress: HCICommand?
    public private(set) var parameters: HCICommand?
    public private(set) var data: HCICommand?
    public private(set) var scanResponse: HCICommand?
    /// The other owner's last LE Set Advertising Enable: true = it advertises, false = it stopped.
    public private(set) var enabled: Bool?

    public init() {}

    /// Nothing was recorded: no other owner wrote the instance while beacon-tx ran.
    public var isEmpty: Bool { randomAddress == nil && parameters == nil && data == nil && scanResponse == nil && enabled == nil }

    /// Whether the other owner wrote its own advertising data (what a restore needs to undo the ghost).
    public var hasData: Bool { data != nil }

    /// Records another program's legacy advertising command; false for any other command.
    @discardableResult
    public mutating func record(_ command: HCICommand) -> Bool {
        guard CommandTable.touchesLegacyInstance(command.opcode) else { return false }
        switch CommandTable.advertisingEffect(command.opcode) {
        case .randomAddress?: randomAddress = command
        case .parameters?: parameters = command
        case .data?: data = command
        case .scanResponse?: scanResponse = command
        case .enable?:
            guard let e = LESetAdvertisingEnable(command) else { return false }
            enabled = e.advertisingEnable
        default: return false
        }
        return true
    }

    /// The commands that give the instance back as the other owner had it, sent after our stop plan
    /// (advertising disabled): its random address and parameters (both need advertising off), its data
    /// and scan response (the kernel's cache and the controller agree again), then its enable when it
    /// was advertising. The random address may be refused on a controller that checks it; that does
    /// not stop the rest.
    public var restoreSteps: [PlannedCommand] {
        var steps: [PlannedCommand] = []
        if let randomAddress { steps.append(PlannedCommand(randomAddress, tolerating: [.commandDisallowed, .invalidHCICommandParameters])) }
        if let parameters { steps.append(PlannedCommand(parameters)) }
        if let data { steps.append(PlannedCommand(data)) }
        if let scanResponse { steps.append(PlannedCommand(scanResponse)) }
        if enabled == true { steps.append(PlannedCommand(.leSetAdvertisingEnable(true), tolerating: [.commandDisallowed])) }
        return steps
    }

    /// Zero-length advertising data (§7.8.7): what the stop leaves in the instance when another owner
    /// is known to advertise on it but its data was never seen (it wrote it before beacon-tx started):
    /// when the kernel re-enables the instance, no beacon of ours goes back on air.
    public static let blankData = PlannedCommand(.leSetAdvertisingData([]))
}

/// How long beacon-tx fights another owner of its advertising instance.
///
/// A takeover is another program's command that replaced or disabled our advertising (its data,
/// parameters or enable on our instance or sets), not a reset or a power cycle. After `takeovers`
/// of them within `windowMilliseconds`, beacon-tx stops re-arming and yields: its beacons stay off
/// air, the other owner's advertising is left alone, and it re-arms once the other owner has sent no
/// advertising command for `quietMilliseconds` (the other side went away: its instances were removed,
/// bluetoothd stopped), on SIGHUP (a reload), or when the device comes up again. The kernel rotates
/// its instances every ~2 s, so two kernel instances exhaust the default budget (3 in 30 s) within
/// ~6 s and keep the yield going for as long as they exist.
public struct FightBudget: Hashable, Sendable {
    public var takeovers: Int
    public var windowMilliseconds: Int64
    public var quietMilliseconds: Int64

    public static let defaultTakeovers = 3
    public static let defaultWindowMilliseconds: Int64 = 30_000
    public static let defaultQuietMilliseconds: Int64 = 10_000

    public init(takeovers: Int = defaultTakeovers, windowMilliseconds: Int64 = defaultWindowMilliseconds,
                quietMilliseconds: Int64 = defaultQuietMilliseconds) {
        self.takeovers = takeovers
        self.windowMilliseconds = windowMilliseconds
        self.quietMilliseconds = quietMilliseconds
    }

    /// The takeovers at `t` and before it that are still inside the window (`recent`, monotonic ms,
    /// the caller's state), and whether they are one too many: the session yields instead of
    /// re-arming. A budget of 0 takeovers never yields (fight forever) and keeps no times.
    public func takeover(at t: Int64, after recent: [Int64]) -> (recent: [Int64], spent: Bool) {
        guard takeovers > 0 else { return ([], false) }
        let inWindow = recent.filter { t - $0 < windowMilliseconds } + [t]
        return (inWindow, inWindow.count > takeovers)
    }

    /// "3 takeovers in 30 s", for notes.
    public var text: String { "\(takeovers) takeover\(takeovers == 1 ? "" : "s") in \(Milliseconds.seconds(windowMilliseconds)) s" }
}

// SPDX-License-Identifier: Apache-2.0
/// What a reload changed, beacon by beacon in config order, in either mode.
public struct ReloadSummary: Hashable, Sendable {
    public var unchanged: Int
    public var updated: Int
    public var added: Int
    public var removed: Int
    /// Raw HCI: the whole plan was stopped and started again (the family or layout changed, or the
    /// beacons were not on air as the old plan had them).
    public var restarted: Bool

    public init(unchanged: Int = 0, updated: Int = 0, added: Int = 0, removed: Int = 0, restarted: Bool = false) {
        self.unchanged = unchanged
        self.updated = updated
        self.added = added
        self.removed = removed
        self.restarted = restarted
    }

    /// Beacon i of `old` against beacon i of `new`; `allUpdated`: every common one counts as updated
    /// (the sharing mode's instance duration changed).
    public init<Beacon: Equatable>(old: [Beacon], new: [Beacon], allUpdated: Bool = false, restarted: Bool = false) {
        let common = min(old.count, new.count)
        let same = allUpdated ? 0 : (0..<common).filter { old[$0] == new[$0] }.count
        self.init(unchanged: same, updated: common - same, added: max(0, new.count - old.count),
                  removed: max(0, old.count - new.count), restarted: restarted)
    }
}

// SPDX-License-Identifier: Apache-2.0
/// `verify`, part 2: matching. Which LE Set (Extended) Advertising Data command is each configured
/// beacon's: the same UUID, major, minor and power, else the closest one.
extension CaptureVerifier.Run {
    /// A candidate data command: where, what, which iBeacon.
    struct Candidate {
        var command: Int
        var placement: Placement
        var data: [UInt8]
        var beacon: IBeacon
    }

    func candidates() -> [Candidate] {
        commands.indices.compactMap { i in
            let c = commands[i].command
            guard CommandTable.advertisingEffect(c.opcode) == .data,
                  let data = DescribedCommand(c)?.data, let b = IBeacon(advertisingData: data) else { return nil }
            guard let placement = ControllerAdvertisingState.placements(of: c).first else { return nil }
            return Candidate(command: i, placement: placement, data: data, beacon: b)
        }
    }

    static func sameRegion(_ a: IBeacon, _ b: IBeacon) -> Bool { a.uuid == b.uuid && a.major == b.major && a.minor == b.minor }
    static func equalFields(_ a: IBeacon, _ b: IBeacon) -> Int {
        (a.uuid == b.uuid ? 1 : 0) + (a.major == b.major ? 1 : 0) + (a.minor == b.minor ? 1 : 0) + (a.measuredPower == b.measuredPower ? 1 : 0)
    }

    /// For each wanted beacon, the index of its match among `found`: the last with the same UUID,
    /// major, minor and power, else the closest (same region first, unclaimed first, most equal
    /// fields); nil when `found` is empty or the wanted beacon is no iBeacon (verify reads iBeacon
    /// captures only). The raw and the share checks both match this way.
    static func pick(_ wanted: [IBeacon?], among found: [IBeacon]) -> [Int?] {
        var chosen: [Int?] = Array(repeating: nil, count: wanted.count)
        var claimed = Set<Int>()
        for (i, b) in wanted.enumerated() {
            guard let b else { continue }
            if let c = found.lastIndex(where: { sameRegion($0, b) && $0.measuredPower == b.measuredPower }) {
                chosen[i] = c
                claimed.insert(c)
            }
        }
        for (i, b) in wanted.enumerated() where chosen[i] == nil {
            guard let b else { continue }
            func score(_ c: Int) -> (Int, Int, Int) {
                (sameRegion(found[c], b) ? 1 : 0, claimed.contains(c) ? 0 : 1, equalFields(found[c], b))
            }
            var best: Int?
            for c in found.indices {
                if let b0 = best, score(c) < score(b0) { continue }
                best = c
            }
            chosen[i] = best
        }
        return chosen
    }

    /// Each configured beacon's data command (nil: none), and the placements several beacons share
    /// (a rotation).
    func match() -> (chosen: [Candidate?], shared: Set<Placement>) {
        let cands = candidates()
        let chosen = Self.pick(expected.beacons.map(\.frame.iBeacon), among: cands.map(\.beacon)).map { $0.map { cands[$0] } }
        let shared = Dictionary(grouping: chosen.compactMap { $0?.placement }, by: { $0 }).filter { $0.value.count > 1 }.keys
        return (chosen, Set(shared))
    }
}

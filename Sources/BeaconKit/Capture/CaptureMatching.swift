// SPDX-License-Identifier: Apache-2.0
/// `verify`, part 2: matching. Which LE Set (Extended) Advertising Data command is each configured
/// beacon's: the same bytes, else the closest beacon of its type (an iBeacon: the same UUID, major
/// and minor first, then the most equal fields).
extension CaptureVerifier.Run {
    /// A candidate data command: where, what, which beacon (`.data` when no known frame).
    struct Candidate {
        var command: Int
        var placement: Placement
        var data: [UInt8]
        var beacon: BeaconFrame
    }

    func candidates() -> [Candidate] {
        commands.indices.compactMap { i in
            let c = commands[i].command
            guard CommandTable.advertisingEffect(c.opcode) == .data,
                  let data = DescribedCommand(c)?.data else { return nil }
            guard let placement = ControllerAdvertisingState.placements(of: c).first else { return nil }
            return Candidate(command: i, placement: placement, data: data, beacon: BeaconFrame(parsing: data) ?? .data(data))
        }
    }

    static func sameRegion(_ a: BeaconFrame, _ b: BeaconFrame) -> Bool { a.identity == b.identity }
    static func equalFields(_ a: BeaconFrame, _ b: BeaconFrame) -> Int {
        zip(a.fields, b.fields).filter { $0.0.value == $0.1.value }.count
    }

    /// For each wanted beacon, the index of its match among `found`: the last with the same
    /// advertising data, else the closest of the same type (same identity first, unclaimed first,
    /// most equal fields); raw `data` only by its bytes; nil when none. The raw and the share
    /// checks both match this way.
    static func pick(_ wanted: [BeaconFrame], among found: [BeaconFrame]) -> [Int?] {
        var chosen: [Int?] = Array(repeating: nil, count: wanted.count)
        var claimed = Set<Int>()
        for (i, b) in wanted.enumerated() {
            if let c = found.lastIndex(where: { $0.advertisingData == b.advertisingData }) {
                chosen[i] = c
                claimed.insert(c)
            }
        }
        for (i, b) in wanted.enumerated() where chosen[i] == nil && b.kind != .data {
            func score(_ c: Int) -> (Int, Int, Int) {
                (sameRegion(found[c], b) ? 1 : 0, claimed.contains(c) ? 0 : 1, equalFields(found[c], b))
            }
            var best: Int?
            for c in found.indices where found[c].kind == b.kind {
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
        let chosen = Self.pick(expected.beacons.map(\.frame), among: cands.map(\.beacon)).map { $0.map { cands[$0] } }
        let shared = Dictionary(grouping: chosen.compactMap { $0?.placement }, by: { $0 }).filter { $0.value.count > 1 }.keys
        return (chosen, Set(shared))
    }
}

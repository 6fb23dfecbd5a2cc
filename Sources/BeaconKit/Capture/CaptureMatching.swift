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
            guard c.opcode == .leSetAdvertisingData || c.opcode == .leSetExtendedAdvertisingData,
                  let data = c.carriedAdvertisingData, let b = IBeacon(advertisingData: data) else { return nil }
            guard let placement = ControllerAdvertisingState.placements(of: c).first else { return nil }
            return Candidate(command: i, placement: placement, data: data, beacon: b)
        }
    }

    static func sameRegion(_ a: IBeacon, _ b: IBeacon) -> Bool { a.uuid == b.uuid && a.major == b.major && a.minor == b.minor }
    static func equalFields(_ a: IBeacon, _ b: IBeacon) -> Int {
        (a.uuid == b.uuid ? 1 : 0) + (a.major == b.major ? 1 : 0) + (a.minor == b.minor ? 1 : 0) + (a.measuredPower == b.measuredPower ? 1 : 0)
    }

    /// Each configured beacon's data command (nil: none), and the placements several beacons share
    /// (a rotation).
    func match() -> (chosen: [Candidate?], shared: Set<Placement>) {
        let cands = candidates()
        var chosen: [Candidate?] = Array(repeating: nil, count: expected.beacons.count)
        var claimed = Set<Int>()
        for (i, b) in expected.beacons.enumerated() {
            if let c = cands.last(where: { Self.sameRegion($0.beacon, b.beacon) && $0.beacon.measuredPower == b.beacon.measuredPower }) {
                chosen[i] = c
                claimed.insert(c.command)
            }
        }
        for (i, b) in expected.beacons.enumerated() where chosen[i] == nil {
            func score(_ c: Candidate) -> (Int, Int, Int) {
                (Self.sameRegion(c.beacon, b.beacon) ? 1 : 0, claimed.contains(c.command) ? 0 : 1, Self.equalFields(c.beacon, b.beacon))
            }
            var best: Candidate?
            for c in cands {
                if let b0 = best, score(c) < score(b0) { continue }
                best = c
            }
            chosen[i] = best
        }
        let shared = Dictionary(grouping: chosen.compactMap { $0?.placement }, by: { $0 }).filter { $0.value.count > 1 }.keys
        return (chosen, Set(shared))
    }
}

// SPDX-License-Identifier: Apache-2.0
/// "did you mean measuredPower?": the accepted key nearest to a misspelt one, by edit distance
/// over lowercase letters and digits (so `measured_power`, `MeasuredPower` and `measuredpwr` all
/// find `measuredPower`), and only when it is close enough to be a typo.
enum KeySuggestion {
    static func nearest(_ key: String, in accepted: [String]) -> String? {
        let typed = folded(key)
        // A long key is nobody's typo of a short one (and keeps the distance table small).
        guard !typed.isEmpty, typed.count <= 64 else { return nil }
        var best: (key: String, distance: Int)?
        for candidate in accepted {
            let c = folded(candidate)
            let d = distance(typed, c)
            // One edit in three characters of the accepted key, and at least one.
            guard d <= max(1, c.count / 3) else { continue }
            if best.map({ d < $0.distance }) ?? true { best = (candidate, d) }
        }
        return best?.key
    }

    /// Lowercase letters and digits only: case, `_` and `-` do not count as edits.
    static func folded(_ key: String) -> [UInt8] {
        key.lowercased().utf8.filter { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }
    }

    /// Levenshtein distance (insert, delete, substitute: 1 each), one row at a time.
    static func distance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(substitute, previous[j] + 1, current[j - 1] + 1)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}

/// Edit distance for "did you mean" suggestions on keys, options and commands: Levenshtein's, with
/// two swapped neighbours counted as one edit (optimal string alignment), the commonest typo
/// (`nmae` for `name`).
package enum EditDistance {
    /// The edit distance between two short strings.
    package static func between(_ a: String, _ b: String) -> Int {
        let source = Array(a.utf8)
        let target = Array(b.utf8)
        if source.isEmpty { return target.count }
        if target.isEmpty { return source.count }
        var beforePrevious = [Int](repeating: 0, count: target.count + 1)
        var previous = Array(0...target.count)
        var current = [Int](repeating: 0, count: target.count + 1)
        for i in 1...source.count {
            current[0] = i
            for j in 1...target.count {
                let substitution = previous[j - 1] + (source[i - 1] == target[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
                if i > 1, j > 1, source[i - 1] == target[j - 2], source[i - 2] == target[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[target.count]
    }

    /// The candidate nearest to `word`, if it is close enough to be a likely typo
    /// (at most a third of the word's length, at least one edit and at most three).
    package static func closest(to word: String, among candidates: [String]) -> String? {
        let limit = max(1, min(3, word.count / 3))
        let scored = candidates.map { (candidate: $0, distance: between(word, $0)) }
        guard let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= limit else {
            return nil
        }
        return best.candidate
    }
}

// "Did you mean" for misspelled entity and property names: the closest known name by edit
// distance (Levenshtein, ignoring case), when it is close enough to be a typo.

enum NameSuggestion {
    /// The known name closest to `name`, when at most a third of its letters (and at least two)
    /// differ; nil when nothing is that close.
    static func closest(to name: String, in known: [String]) -> String? {
        let limit = max(2, name.count / 3)
        var best: (name: String, distance: Int)?
        for candidate in known {
            let d = distance(name.lowercased(), candidate.lowercased())
            if d <= limit, d < (best?.distance ?? .max) { best = (candidate, d) }
        }
        return best?.name
    }

    /// The message for an unknown `kind` ("entity", "property") named `name`.
    static func unknown(_ kind: String, _ name: String, known: [String], in place: String? = nil) -> String {
        let whereText = place.map { " in \($0)" } ?? ""
        if let suggestion = closest(to: name, in: known) {
            return "no \(kind) named \"\(name)\"\(whereText) (did you mean \"\(suggestion)\"?)"
        }
        let list = known.isEmpty ? "none" : known.joined(separator: ", ")
        return "no \(kind) named \"\(name)\"\(whereText) (known: \(list))"
    }

    /// The edit distance between `a` and `b` (insertions, deletions, substitutions).
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}

// The string operators: BEGINSWITH, ENDSWITH, CONTAINS, LIKE and MATCHES, with the [c] and [d]
// options applied by folding both operands with Foundation's `folding(options:locale:)` (no
// locale, so results do not depend on the machine's settings).
//
// BEGINSWITH, ENDSWITH and CONTAINS first try an ASCII path (`ASCIIMatch`): when both operands are
// ASCII without a carriage return, every character is one byte, [d] changes nothing and [c]
// lowers A–Z, so the answer is a byte comparison, with no folded copies. Anything else takes the
// Foundation path; the answers are the same (a test compares both on every fixture string).

import Foundation

enum PredicateStringMatching {
    static func options(_ options: PredicateStringOptions) -> CdValueComparisonOptions {
        var result: CdValueComparisonOptions = []
        if options.contains(.caseInsensitive) { result.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { result.insert(.diacriticInsensitive) }
        return result
    }

    static func beginsWith(_ s: String, _ prefix: String, _ options: PredicateStringOptions) -> Bool {
        if let answer = ASCIIMatch.match(s, prefix, .prefix, caseInsensitive: options.contains(.caseInsensitive)) {
            return answer
        }
        let o = Self.options(options)
        return CdValue.fold(s, o).hasPrefix(CdValue.fold(prefix, o))
    }

    static func endsWith(_ s: String, _ suffix: String, _ options: PredicateStringOptions) -> Bool {
        if let answer = ASCIIMatch.match(s, suffix, .suffix, caseInsensitive: options.contains(.caseInsensitive)) {
            return answer
        }
        let o = Self.options(options)
        return CdValue.fold(s, o).hasSuffix(CdValue.fold(suffix, o))
    }

    static func contains(_ s: String, _ part: String, _ options: PredicateStringOptions) -> Bool {
        if let answer = ASCIIMatch.match(s, part, .anywhere, caseInsensitive: options.contains(.caseInsensitive)) {
            return answer
        }
        let o = Self.options(options)
        let needle = CdValue.fold(part, o)
        return needle.isEmpty || CdValue.fold(s, o).contains(needle)
    }

    /// `LIKE`: `*` matches any run of characters (also empty), `?` exactly one character, and a
    /// backslash makes the next pattern character literal. The whole string must match.
    static func like(_ s: String, _ pattern: String, _ options: PredicateStringOptions) -> Bool {
        let o = Self.options(options)
        let text = Array(CdValue.fold(s, o))
        // Tokenize the pattern so an escaped `*` or `?` is a literal.
        enum Piece: Equatable { case any, one, literal(Character) }
        var pieces: [Piece] = []
        var escaped = false
        for c in CdValue.fold(pattern, o) {
            if escaped { pieces.append(.literal(c)); escaped = false; continue }
            switch c {
            case "\\": escaped = true
            case "*": if pieces.last != .any { pieces.append(.any) }
            case "?": pieces.append(.one)
            default: pieces.append(.literal(c))
            }
        }
        if escaped { pieces.append(.literal("\\")) }
        // Classic wildcard matching with backtracking to the last `*`: O(n·m) worst case.
        var (t, p) = (0, 0)
        var star: (piece: Int, text: Int)? = nil
        while t < text.count {
            if p < pieces.count {
                switch pieces[p] {
                case .any: star = (p, t); p += 1; continue
                case .one: t += 1; p += 1; continue
                case let .literal(c) where c == text[t]: t += 1; p += 1; continue
                case .literal: break
                }
            }
            guard let s = star else { return false }
            star = (s.piece, s.text + 1)
            p = s.piece + 1
            t = s.text + 1
        }
        while p < pieces.count, pieces[p] == .any { p += 1 }
        return p == pieces.count
    }

    /// `MATCHES`: the whole string must match the ICU regular expression. `[c]` compiles the
    /// pattern case-insensitively; `[d]` folds diacritics off both the string and the pattern.
    static func matches(_ s: String, _ pattern: String, _ options: PredicateStringOptions) throws -> Bool {
        var regexOptions: NSRegularExpression.Options = []
        if options.contains(.caseInsensitive) { regexOptions.insert(.caseInsensitive) }
        let fold: CdValueComparisonOptions = options.contains(.diacriticInsensitive) ? .diacriticInsensitive : []
        let (text, source) = (CdValue.fold(s, fold), CdValue.fold(pattern, fold))
        do {
            // Compile the pattern alone first: only a pattern that is valid on its own can be
            // wrapped in a group without changing its meaning.
            _ = try NSRegularExpression(pattern: source, options: regexOptions)
            let regex = try NSRegularExpression(pattern: "(?:" + source + ")\\z", options: regexOptions)
            let range = NSRange(text.startIndex..., in: text)
            return regex.firstMatch(in: text, options: [.anchored], range: range) != nil
        } catch {
            throw CdPredicateError(.invalidRegex, "MATCHES pattern '\(pattern)' is not a valid regular expression")
        }
    }
}

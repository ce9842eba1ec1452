// The ASCII path of BEGINSWITH, ENDSWITH and CONTAINS (see PredicateStringMatching.swift).
//
// Invariants:
//  AM1. An answer is given only when both operands are ASCII and contain no carriage return: then
//       each Character is exactly one byte (CR LF is the one ASCII grapheme of two scalars),
//       diacritic folding is the identity, and case folding maps A–Z to a–z and nothing else.
//       Otherwise `match` returns nil and the caller folds with Foundation.
//  AM2. No copy of either operand is made; the search reads the strings' UTF-8 in place.

enum ASCIIMatch {
    enum Position { case prefix, suffix, anywhere }

    /// Whether `part` occurs in `s` at `position`, or nil when AM1 does not hold.
    static func match(_ s: String, _ part: String, _ position: Position, caseInsensitive: Bool) -> Bool? {
        var s = s, part = part
        return s.withUTF8 { text in
            part.withUTF8 { needle -> Bool? in
                guard isPlainASCII(needle), isPlainASCII(text) else { return nil }
                if needle.isEmpty { return true }
                guard needle.count <= text.count else { return false }
                switch position {
                case .prefix: return equal(text, at: 0, needle, caseInsensitive)
                case .suffix: return equal(text, at: text.count - needle.count, needle, caseInsensitive)
                case .anywhere:
                    let first = caseInsensitive ? lower(needle[0]) : needle[0]
                    for start in 0...(text.count - needle.count) {
                        let c = caseInsensitive ? lower(text[start]) : text[start]
                        if c == first && equal(text, at: start, needle, caseInsensitive) { return true }
                    }
                    return false
                }
            }
        }
    }

    private static func isPlainASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for b in bytes where b >= 0x80 || b == 0x0D { return false }
        return true
    }

    @inline(__always) private static func lower(_ b: UInt8) -> UInt8 {
        b &- 0x41 < 26 ? b | 0x20 : b
    }

    private static func equal(
        _ text: UnsafeBufferPointer<UInt8>, at start: Int, _ needle: UnsafeBufferPointer<UInt8>,
        _ caseInsensitive: Bool
    ) -> Bool {
        if caseInsensitive {
            for i in 0..<needle.count where lower(text[start + i]) != lower(needle[i]) { return false }
        } else {
            for i in 0..<needle.count where text[start + i] != needle[i] { return false }
        }
        return true
    }
}

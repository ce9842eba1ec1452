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
            part.withUTF8 { needle in match(text, needle, position, caseInsensitive: caseInsensitive) }
        }
    }

    /// The same answer over UTF-8 bytes, read in place (a compiled predicate passes a string
    /// field's bytes straight from the encoded record): nil when AM1 does not hold.
    static func match(
        _ text: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>, _ position: Position,
        caseInsensitive: Bool
    ) -> Bool? {
        guard isPlainASCII(needle) else { return nil }
        if position == .anywhere && !needle.isEmpty && needle.count <= text.count {
            return occurs(needle, in: text, caseInsensitive)  // checks the text as it searches
        }
        guard isPlainASCII(text) else { return nil }
        if needle.isEmpty { return true }
        guard needle.count <= text.count else { return false }
        switch position {
        case .prefix: return equal(text, at: 0, needle, caseInsensitive)
        case .suffix: return equal(text, at: text.count - needle.count, needle, caseInsensitive)
        case .anywhere: return occurs(needle, in: text, caseInsensitive)
        }
    }

    // MARK: - Eight bytes at a time

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let high: UInt64 = 0x8080_8080_8080_8080
    private static let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F

    /// 0x80 in each byte of `x` that is zero and 0 in every other byte (exact, no carries
    /// between bytes).
    @inline(__always) private static func zeroBytes(_ x: UInt64) -> UInt64 {
        ~(((x & low) &+ low) | x | low)
    }

    /// Eight bytes from `offset`, byte `offset + k` in bits 8k.
    @inline(__always) private static func word(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: Int) -> UInt64 {
        UInt64(
            littleEndian: UnsafeRawPointer(bytes.baseAddress!).loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// Whether `needle` (plain ASCII, not empty, not longer than `text`) occurs in `text`, or nil
    /// when the text is not plain ASCII (AM1), found in the same pass. Candidate starts are the
    /// bytes equal to the needle's first two bytes (either case of a letter under [c]), found a
    /// word at a time; each is then compared in full.
    private static func occurs(
        _ needle: UnsafeBufferPointer<UInt8>, in text: UnsafeBufferPointer<UInt8>, _ caseInsensitive: Bool
    ) -> Bool? {
        // Only A–Z and a–z fold: for a letter, `b | 0x20` is its lower case exactly when b is
        // either case of it; any other byte must match exactly.
        func anchor(_ b: UInt8) -> (target: UInt8, fold: UInt64, pattern: UInt64) {
            let folds = caseInsensitive && (b | 0x20) &- 0x61 < 26
            let target = folds ? b | 0x20 : b
            return (target, folds ? ones &* 0x20 : 0, ones &* UInt64(target))
        }
        let (target, fold, pattern) = anchor(needle[0])
        // The second byte too (when there is one): candidates are then rare even for a common
        // first letter. The word at i + 1 is inside the text while i + 8 <= last + 1.
        let (_, fold2, pattern2) = needle.count > 1 ? anchor(needle[1]) : (0, 0, 0)
        let last = text.count - needle.count
        let cr = ones &* 0x0D
        var i = 0
        while i + 8 <= last + 1 {
            let w = word(text, i)
            if w & high != 0 || zeroBytes(w ^ cr) != 0 { return nil }
            var hits = zeroBytes((w | fold) ^ pattern)
            if needle.count > 1 { hits &= zeroBytes((word(text, i + 1) | fold2) ^ pattern2) }
            while hits != 0 {
                if equal(text, at: i + hits.trailingZeroBitCount / 8, needle, caseInsensitive) {
                    // A match counts only if the rest of the text is plain ASCII too.
                    return isPlainASCII(UnsafeBufferPointer(rebasing: text[i...])) ? true : nil
                }
                hits &= hits &- 1
            }
            i += 8
        }
        guard isPlainASCII(UnsafeBufferPointer(rebasing: text[i...])) else { return nil }
        while i <= last {
            if (text[i] | UInt8(truncatingIfNeeded: fold)) == target && equal(text, at: i, needle, caseInsensitive) {
                return true
            }
            i += 1
        }
        return false
    }

    /// No byte at or above 0x80 and no carriage return (AM1), a word at a time.
    static func isPlainASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let cr = ones &* 0x0D
        var i = 0
        while i + 8 <= bytes.count {
            let w = word(bytes, i)
            if w & high != 0 || zeroBytes(w ^ cr) != 0 { return false }
            i += 8
        }
        while i < bytes.count {
            if bytes[i] >= 0x80 || bytes[i] == 0x0D { return false }
            i += 1
        }
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

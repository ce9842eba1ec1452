// The ASCII path of BEGINSWITH / ENDSWITH / CONTAINS must answer exactly as the Foundation
// folding path does (AM1 of ASCIIMatch.swift), and must step aside for anything else.

import CdStore
import CdStoreTesting
import Foundation
import Testing
@testable import CdObjects

@Suite("ASCII string matching")
struct ASCIIMatchTests {
    /// The Foundation path, as PredicateStringMatching takes it when the ASCII path declines.
    static func folded(_ s: String, _ part: String, _ position: ASCIIMatch.Position, caseInsensitive: Bool) -> Bool {
        let o: CdValueComparisonOptions = caseInsensitive ? .caseInsensitive : []
        let (text, needle) = (CdValue.fold(s, o), CdValue.fold(part, o))
        switch position {
        case .prefix: return text.hasPrefix(needle)
        case .suffix: return text.hasSuffix(needle)
        case .anywhere: return needle.isEmpty || text.contains(needle)
        }
    }

    /// Every printable ASCII character plus tab, newline, NUL and other controls (not CR).
    static let alphabet: [UInt8] = Array(0x20...0x7E) + [0x00, 0x01, 0x09, 0x0A, 0x1B, 0x7F] + Array("aAbBzZ".utf8)

    static func randomString(_ rng: inout SplitMix64, maxLength: Int) -> String {
        let n = Int.random(in: 0...maxLength, using: &rng)
        return String(decoding: (0..<n).map { _ in alphabet.randomElement(using: &rng)! }, as: UTF8.self)
    }

    @Test(arguments: [4, 5] as [UInt64])
    func agreesWithFoundationOnLongTextsAWordAtATime(seed: UInt64) {
        // Texts past several eight-byte words, needles cut from them at every alignment.
        var rng = SplitMix64(seed: seed)
        for _ in 0..<1_000 {
            let text = Self.randomString(&rng, maxLength: 90)
            let bytes = Array(text.utf8)
            var needle = Self.randomString(&rng, maxLength: 3)
            if Bool.random(using: &rng), !bytes.isEmpty {
                let a = Int.random(in: 0..<bytes.count, using: &rng)
                let b = min(bytes.count, a + Int.random(in: 1...9, using: &rng))
                needle = String(decoding: bytes[a..<b].map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }, as: UTF8.self)
            }
            for caseInsensitive in [false, true] {
                let fast = ASCIIMatch.match(text, needle, .anywhere, caseInsensitive: caseInsensitive)
                let slow = Self.folded(text, needle, .anywhere, caseInsensitive: caseInsensitive)
                #expect(
                    fast == slow,
                    "seed \(seed): \(caseInsensitive) \(text.debugDescription) ~ \(needle.debugDescription)")
            }
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func agreesWithFoundationOnRandomASCII(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        for _ in 0..<3_000 {
            let text = Self.randomString(&rng, maxLength: 24)
            var needle = Self.randomString(&rng, maxLength: 4)
            if Bool.random(using: &rng), !text.isEmpty {
                // A slice of the text, its case flipped at random, so that matches are common.
                let bytes = Array(text.utf8)
                let a = Int.random(in: 0..<bytes.count, using: &rng), b = Int.random(in: a...bytes.count, using: &rng)
                needle = String(
                    decoding: bytes[a..<b].map {
                        Bool.random(using: &rng) && $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0
                    }, as: UTF8.self)
            }
            for position in [ASCIIMatch.Position.prefix, .suffix, .anywhere] {
                for caseInsensitive in [false, true] {
                    let fast = ASCIIMatch.match(text, needle, position, caseInsensitive: caseInsensitive)
                    let slow = Self.folded(text, needle, position, caseInsensitive: caseInsensitive)
                    #expect(
                        fast == slow,
                        """
                        seed \(seed): \(position) \(caseInsensitive) \
                        \(text.debugDescription) ~ \(needle.debugDescription)
                        """
                    )
                }
            }
        }
    }

    @Test func declinesWhatIsNotPlainASCII() {
        #expect(ASCIIMatch.match("café", "CAF", .prefix, caseInsensitive: true) == nil)
        #expect(ASCIIMatch.match("abc", "é", .anywhere, caseInsensitive: false) == nil)
        #expect(ASCIIMatch.match("a\r\nb", "\n", .anywhere, caseInsensitive: false) == nil)
        // The Foundation path then gives the answer, through the operator.
        #expect(PredicateStringMatching.contains("Ünïcode", "unic", [.caseInsensitive, .diacriticInsensitive]))
        #expect(
            PredicateStringMatching.contains("a\r\nb", "\n", [])
                == Self.folded("a\r\nb", "\n", .anywhere, caseInsensitive: false))
    }

    @Test func answersTheUsualCases() {
        #expect(ASCIIMatch.match("Lisbon office", "LISBON", .anywhere, caseInsensitive: true) == true)
        #expect(ASCIIMatch.match("Lisbon office", "LISBON", .anywhere, caseInsensitive: false) == false)
        #expect(ASCIIMatch.match("Lisbon office", "OFFICE", .suffix, caseInsensitive: true) == true)
        #expect(ASCIIMatch.match("Lisbon", "", .prefix, caseInsensitive: false) == true)
        #expect(ASCIIMatch.match("Li", "Lisbon", .anywhere, caseInsensitive: false) == false)
        #expect(ASCIIMatch.match("[@]", "@", .anywhere, caseInsensitive: true) == true)
        #expect(ASCIIMatch.match("`", "@", .anywhere, caseInsensitive: true) == false)
    }
}

// The unmade to-ones of a model (UnmadeToOnes UT1): the same answers as a dictionary by slot, for
// random sequences of sets and removals of a few slots (seeded), the first entry inline or not.

import CdObjects
import Foundation
@testable import SwiftData
import Testing

@Suite struct UnmadeToOnesTests {
    @Test func answersAsADictionaryBySlot() {
        // CADMIUM_SEED replays a run.
        let seed =
            ProcessInfo.processInfo.environment["CADMIUM_SEED"].flatMap(UInt64.init)
            ?? UInt64.random(in: 1...UInt64.max)
        print("UnmadeToOnesTests seed \(seed) (CADMIUM_SEED=\(seed) replays it)")
        var random = SplitMix(seed: seed)
        for _ in 0..<200 {
            var unmade = UnmadeToOnes()
            var reference: [Int: ObjectID?] = [:]
            for _ in 0..<12 {
                let slot = Int(random.next() % 4)
                switch random.next() % 4 {
                case 0:
                    unmade.set(slot, nil)
                    reference[slot] = .some(nil)
                case 1:
                    let target = ObjectID(entity: "Department", primaryKey: Int64(random.next() % 50 + 1))
                    unmade.set(slot, target)
                    reference[slot] = .some(target)
                case 2:
                    #expect(unmade.remove(slot) == reference.removeValue(forKey: slot), "seed \(seed)")
                default:
                    unmade.removeAll()
                    reference = [:]
                }
            }
            for slot in 0..<4 {  // UT1: each slot answers once, then has no entry
                #expect(unmade.remove(slot) == reference.removeValue(forKey: slot), "seed \(seed)")
                #expect(unmade.remove(slot) == nil, "seed \(seed)")
            }
        }
    }
}

/// A small seeded generator (SplitMix64), so that a failing sequence can be replayed.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

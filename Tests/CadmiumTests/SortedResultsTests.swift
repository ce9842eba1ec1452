// `SortedResults`: random inserts and removals against a sorted array, across chunk splits and
// drops (OB7–OB9); prints its seed, replay with CADMIUM_SEED.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct SortedResultsStorage {
        @Test func matchesASortedArrayThroughSplitsAndDrops() {
            let seed =
                ProcessInfo.processInfo.environment["CADMIUM_SEED"].flatMap(UInt64.init)
                ?? UInt64.random(in: 1...UInt64.max)
            print("SortedResultsStorage seed \(seed) (replay with CADMIUM_SEED=\(seed))")
            var random = ObservationRandomized.Generator(state: seed | 1)
            var model: [Int] = []
            var storage = SortedResults<Int>(sorted: Array(stride(from: 0, to: 3_000, by: 3)), by: <)
            model = Array(stride(from: 0, to: 3_000, by: 3))
            for step in 0..<6_000 {
                let value = Int(random.next() % 4_000)
                // Grow for the first half (splits), shrink for the second (drops).
                if random.next() % 10 < (step < 3_000 ? 7 : 2) {
                    if !model.contains(value) {
                        let at = storage.insert(value)
                        let expected = model.firstIndex { $0 > value } ?? model.count
                        model.insert(value, at: expected)
                        #expect(at == expected, "seed \(seed) step \(step): insert \(value)")
                    }
                } else {
                    let removed = storage.remove(value)
                    let expected = model.firstIndex(of: value)
                    if let expected { model.remove(at: expected) }
                    #expect(removed == expected, "seed \(seed) step \(step): remove \(value)")
                }
            }
            #expect(storage.elements == model && storage.count == model.count, "seed \(seed)")
            #expect(storage.chunks.allSatisfy { !$0.isEmpty && $0.count <= SortedResults<Int>.chunkLimit })
            for (i, v) in model.enumerated() where i % 7 == 0 {
                #expect(storage.index(of: v) == i && storage.element(at: i) == v)
            }
            #expect(storage.index(of: -1) == nil && storage.index(of: 5_000) == nil)
        }
    }
}

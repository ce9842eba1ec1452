import Foundation
import Testing
@testable import CdStore

/// Random sequences of put, delete, range scan, commit, abort, reopen and checkpoint, checked
/// against an in-memory sorted map. A failure prints the seed; `CADMIUM_SEED=n` replays one.
@Suite struct StoreModelTests {
    /// `CADMIUM_LONG=1` runs the deep campaign (64 seeds × 1,500 steps) instead of the quick one.
    static let long = ProcessInfo.processInfo.environment["CADMIUM_LONG"] == "1"
    static let seeds = testSeeds(Array(1...(long ? 64 : 8)))
    static let steps = long ? 1500 : 300

    @Test(arguments: seeds)
    func randomOperationsMatchModel(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let fs = InMemoryFileSystem()
        var options = StoreOptions(fileSystem: fs)
        options.pageSize = [4096, 8192, 16384][Int(seed % 3)]
        options.cacheBytes = options.pageSize * 24  // tiny cache: eviction on every run
        options.checkpointThresholdBytes = UInt64([16_384, 65_536, 1 << 20][Int(seed % 3)])
        options.durability = .off
        options.compressionLevel = Int(seed % 4) == 0 ? 0 : 1
        let path = "/store"
        var store = try Store.open(path: path, options: options)
        var committed = StoreModel()
        let treeNames = ["alpha", "beta", "gamma"]
        let maxKey = BTree.maxKeySize(pageSize: options.pageSize)
        var held: [(ReadTransaction, StoreModel)] = []

        func key(_ rng: inout SeededGenerator) -> [UInt8] {
            // A small key space so that deletes and overwrites hit existing keys.
            let n = Int.random(in: 0..<400, using: &rng)
            let long = Int.random(in: 0..<20, using: &rng) == 0
            return Array("k\(n)".utf8) + (long ? [UInt8](repeating: UInt8(n % 251), count: min(maxKey - 8, 300)) : [])
        }
        func value(_ rng: inout SeededGenerator) -> [UInt8] {
            switch Int.random(in: 0..<20, using: &rng) {
            case 0:  // an overflow value
                return randomBytes(Int.random(in: options.pageSize / 2...options.pageSize * 3, using: &rng), &rng)
            case 1: return []
            default:
                return Array(
                    String(
                        repeating: "v\(Int.random(in: 0..<1000, using: &rng)) ",
                        count: Int.random(in: 1...12, using: &rng)
                    ).utf8)
            }
        }

        for step in 0..<Self.steps {
            var working = committed
            let tx = try store.beginWrite()
            for _ in 0..<Int.random(in: 1...25, using: &rng) {
                let name = treeNames[Int.random(in: 0..<treeNames.count, using: &rng)]
                switch Int.random(in: 0..<100, using: &rng) {
                case 0..<55:
                    let k = key(&rng), v = value(&rng)
                    try tx.openOrCreateTree(name).put(k, v)
                    working.trees[name, default: [:]][k] = v
                case 55..<85:
                    let k = key(&rng)
                    if let t = try tx.tree(name) {
                        let existed = try t.delete(k)
                        let modelHad = working.trees[name]?.removeValue(forKey: k) != nil
                        #expect(
                            existed == modelHad,
                            "seed \(seed) step \(step): delete of \(describe(k)) returned \(existed)")
                    }
                case 85..<95:
                    let k = key(&rng)
                    let got = try tx.tree(name)?.get(k)
                    #expect(got == working.trees[name]?[k], "seed \(seed) step \(step): get \(describe(k)) in \(name)")
                    let lent = try tx.tree(name)?.withValue(forKey: k) { $0.map { Array($0) } }
                    #expect(lent == got, "seed \(seed) step \(step): lent get \(describe(k)) in \(name)")
                case 95..<98:
                    if let t = try tx.tree(name) {
                        var lo = key(&rng), hi = key(&rng)
                        if hi.lexicographicallyPrecedes(lo) { swap(&lo, &hi) }
                        var got: [[UInt8]] = []
                        try t.scan(from: lo, upTo: hi) { k, _ in
                            got.append(k); return true
                        }
                        let expected = working.sortedEntries(name).map(\.0).filter {
                            !$0.lexicographicallyPrecedes(lo) && $0.lexicographicallyPrecedes(hi)
                        }
                        #expect(got == expected, "seed \(seed) step \(step): range scan of \(name)")
                        var lent: [([UInt8], [UInt8])] = []
                        try t.scanBorrowing(from: lo, upTo: hi) { k, v in
                            lent.append((Array(k), Array(v))); return true
                        }
                        let entries = working.sortedEntries(name).filter {
                            !$0.0.lexicographicallyPrecedes(lo) && $0.0.lexicographicallyPrecedes(hi)
                        }
                        #expect(
                            lent.map(\.0) == entries.map(\.0) && lent.map(\.1) == entries.map(\.1),
                            "seed \(seed) step \(step): lending range scan of \(name)")
                    }
                default:
                    if try tx.tree(name) != nil {
                        try tx.dropTree(name)
                        working.trees[name] = nil
                    }
                }
            }
            if Int.random(in: 0..<10, using: &rng) == 0 {
                tx.abort()
            } else {
                try tx.commit()
                committed = working
            }
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<3:
                for (r, _) in held { r.end() }
                held = []
                try store.close()
                store = try Store.open(path: path, options: options)
            case 3..<8:
                try store.checkpoint()
            case 8..<14:
                if held.count < 3 { held.append((try store.beginRead(), committed)) }
            case 14..<18:
                if !held.isEmpty { held.removeFirst().0.end() }
            default: break
            }
            if step % 60 == 0 || step == Self.steps - 1 {
                let diff = try store.read { try firstDifference($0, committed) }
                try #require(diff == nil, "seed \(seed) after step \(step): \(diff ?? "")")
                for (r, model) in held {
                    let d = try firstDifference(r, model)
                    try #require(d == nil, "seed \(seed) step \(step): held snapshot \(r.snapshot): \(d ?? "")")
                }
            }
        }
        for (r, _) in held { r.end() }
        try store.close()
        let reopened = try Store.open(path: path, options: options)
        let diff = try reopened.read { try firstDifference($0, committed) }
        #expect(diff == nil, "seed \(seed) after reopen: \(diff ?? "")")
        try reopened.close()
    }
}

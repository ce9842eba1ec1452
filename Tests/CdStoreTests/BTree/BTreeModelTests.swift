// Model-based test: random puts (keys of 0…maxKeySize bytes, values up to several pages so that
// overflow chains come and go), deletes, gets, seeks and cursor walks in both directions, checked
// step by step against a dictionary, with BTreeChecker run after every batch.
//
// Replay a failure with BTREE_SEED=<seed> (and BTREE_OPS=<count> for a longer run):
//   BTREE_SEED=3 swift test --filter BTreeModelTests

import Testing
@testable import CdStore

@Suite struct BTreeModelTests {
    @Test(arguments: [4096, 8192, 65536])
    func randomOperationsMatchDictionary(pageSize: Int) throws {
        let operations = environmentInt("BTREE_OPS", default: pageSize == 65536 ? 1500 : 3000)
        for seed in testSeeds("BTREE_SEED", defaults: [1, 2, 3, 4]) {
            var run = try ModelRun(seed: seed, pageSize: pageSize)
            if let failure = try run.execute(operations: operations) {
                Issue.record("BTREE_SEED=\(seed) page size \(pageSize): \(failure)")
            }
        }
    }
}

/// One randomized run: the tree under test and the dictionary it must agree with.
private struct ModelRun {
    var rng: SeededGenerator
    let sink: InMemoryPageSink
    let tree: BTree
    let maxKey: Int
    /// Random bytes that keys and values are sliced from (cheap to build in debug builds).
    let pool: [UInt8]
    var model: [[UInt8]: [UInt8]] = [:]
    /// The model's keys in no order, for picking an existing key, with each key's position.
    var keys: [[UInt8]] = []
    var positions: [[UInt8]: Int] = [:]
    var sortedCache: [[UInt8]]?

    init(seed: UInt64, pageSize: Int) throws {
        rng = SeededGenerator(seed: seed)
        sink = InMemoryPageSink(pageSize: pageSize)
        tree = try BTree.create(in: sink)
        maxKey = BTree.maxKeySize(pageSize: pageSize)
        var poolRng = SeededGenerator(seed: seed ^ 0xA5A5)
        pool = (0..<4 * pageSize).map { _ in UInt8.random(in: 0...255, using: &poolRng) }
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }

    mutating func slice(_ count: Int) -> [UInt8] {
        let start = int(0...pool.count - count)
        return Array(pool[start..<start + count])
    }

    mutating func randomKey() -> [UInt8] {
        let roll = int(0...99)
        if roll < 25, !keys.isEmpty { return keys[int(0...keys.count - 1)] }
        if roll < 60 {  // short keys from a tiny alphabet: many collisions and shared prefixes
            return (0..<int(0...3)).map { _ in [0, 1, 2, 255][int(0...3)] }
        }
        if roll < 92 { return slice(int(4...24)) }
        return slice(int(25...maxKey))
    }

    mutating func randomValue() -> [UInt8] {
        let pageSize = sink.pageSize
        let roll = int(0...99)
        if roll < 60 { return slice(int(0...64)) }
        if roll < 88 { return slice(int(65...pageSize / 2)) }
        return slice(int(pageSize / 2...3 * pageSize))
    }

    var sortedKeys: [[UInt8]] {
        mutating get {
            if let sortedCache { return sortedCache }
            let sorted = keys.sorted { $0.lexicographicallyPrecedes($1) }
            sortedCache = sorted
            return sorted
        }
    }

    mutating func setModel(_ key: [UInt8], _ value: [UInt8]?) {
        if let value {
            if model.updateValue(value, forKey: key) == nil {
                positions[key] = keys.count
                keys.append(key)
                sortedCache = nil
            }
        } else if model.removeValue(forKey: key) != nil {
            let position = positions.removeValue(forKey: key)!
            let moved = keys.removeLast()
            if position < keys.count {
                keys[position] = moved
                positions[moved] = position
            }
            sortedCache = nil
        }
    }

    /// Runs the operations; returns a description of the first difference, or nil.
    mutating func execute(operations: Int) throws -> String? {
        for step in 0..<operations {
            let roll = int(0...99)
            let key = randomKey()
            if roll < 45 {
                let value = randomValue()
                try tree.put(key, value, in: sink)
                setModel(key, value)
            } else if roll < 70 {
                let removed = try tree.delete(key, in: sink)
                if removed != (model[key] != nil) { return "step \(step): delete(\(key)) returned \(removed)" }
                setModel(key, nil)
            } else if roll < 92 {
                let found = try tree.get(key, in: sink)
                if found != model[key] {
                    return
                        "step \(step): get(\(key)) returned \(found.map { "\($0.count) bytes" } ?? "nil"), "
                        + "model has \(model[key].map { "\($0.count) bytes" } ?? "nil")"
                }
            } else if let failure = try checkSeek(key, step: step) {
                return failure
            }
            if step % 500 == 499 || step == operations - 1, let failure = try checkWhole(step: step) {
                return failure
            }
        }
        return nil
    }

    /// seek(atLeast:) then a few steps forward and back, against the sorted model.
    mutating func checkSeek(_ key: [UInt8], step: Int) throws -> String? {
        let sorted = sortedKeys
        var index = sorted.partitionPoint { !$0.lexicographicallyPrecedes(key) }
        let cursor = tree.cursor(in: sink)
        var onEntry = try cursor.seek(atLeast: key)
        for move in 0..<8 {
            if onEntry != (index < sorted.count) || (onEntry && cursor.key != sorted[index]) {
                return
                    "step \(step): seek(atLeast: \(key)) then \(move) moves: "
                    + "cursor \(onEntry ? "at \(cursor.key)" : "off the end"), "
                    + "model index \(index) of \(sorted.count)"
            }
            if onEntry, try cursor.value() != model[sorted[index]] {
                return "step \(step): cursor value differs at \(sorted[index])"
            }
            if !onEntry { break }
            if move < 5 {
                onEntry = try cursor.next()
                index += 1
            } else {
                onEntry = try cursor.previous()
                index -= 1
            }
        }
        return nil
    }

    /// Checker clean, entry count right, full scans forward and backward equal the model.
    mutating func checkWhole(step: Int) throws -> String? {
        let report = BTreeChecker.check(tree, in: sink)
        if !report.problems.isEmpty { return "step \(step): checker found \(report.problems.prefix(5))" }
        if report.entryCount != model.count {
            return "step \(step): checker counted \(report.entryCount) entries, model has \(model.count)"
        }
        if report.pages.count != sink.liveCount {
            return "step \(step): tree reaches \(report.pages.count) pages, \(sink.liveCount) are live: a leak"
        }
        let sorted = sortedKeys
        let cursor = tree.cursor(in: sink)
        var index = 0
        var more = try cursor.first()
        while more {
            if index >= sorted.count || cursor.key != sorted[index] {
                return
                    "step \(step): forward scan entry \(index) is \(cursor.key), "
                    + "model has \(index < sorted.count ? "\(sorted[index])" : "no more")"
            }
            if try cursor.value() != model[sorted[index]] {
                return "step \(step): forward scan value differs at \(sorted[index])"
            }
            index += 1
            more = try cursor.next()
        }
        if index != sorted.count { return "step \(step): forward scan ended after \(index) of \(sorted.count) keys" }
        index = sorted.count - 1
        more = try cursor.last()
        while more {
            if index < 0 || cursor.key != sorted[index] {
                return "step \(step): backward scan differs at model index \(index)"
            }
            index -= 1
            more = try cursor.previous()
        }
        if index != -1 { return "step \(step): backward scan stopped at model index \(index)" }
        return nil
    }
}

private extension Array {
    /// The first index whose element satisfies `predicate` (which must be false, then true).
    func partitionPoint(_ predicate: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if predicate(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}

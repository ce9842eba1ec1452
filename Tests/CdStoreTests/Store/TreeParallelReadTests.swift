import CdStoreTesting
import Foundation
import Synchronization
import Testing
@testable import CdStore

/// Reads of one tree in pieces on several threads (Tree+Parallel.swift, ParallelPieces.swift): the
/// same entries in the same order as one cursor, the same first error, no read of a small tree or
/// of a write transaction split, and a snapshot that a concurrent writer and checkpoint leave alone.
@Suite struct TreeParallelReadTests {
    /// An in-memory store with 4 KiB pages and a small cache (most reads inflate).
    static func store(_ fs: InMemoryFileSystem = InMemoryFileSystem()) throws -> Store {
        var o = StoreOptions(fileSystem: fs)
        o.pageSize = 4096
        o.cacheBytes = 4096 * 32
        o.durability = .off
        o.checkpointThresholdBytes = 64 << 10
        return try Store.open(path: "/p", options: o)
    }

    /// `count` random entries: keys of 1–40 bytes, values of 0–300 bytes and one in 50 past a
    /// page (an overflow chain).
    static func fill(_ store: Store, count: Int, seed: UInt64) throws -> [([UInt8], [UInt8])] {
        var rng = SeededGenerator(seed: seed)
        var model: [[UInt8]: [UInt8]] = [:]
        try store.write { tx in
            let t = try tx.createTree("t")
            for _ in 0..<count {
                let key = (0..<Int.random(in: 1...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                let length = Int.random(in: 0..<50, using: &rng) == 0 ? 9000 : Int.random(in: 0...300, using: &rng)
                let value = (0..<length).map { _ in UInt8.random(in: 97...122, using: &rng) }
                try t.put(key, value)
                model[key] = value
            }
        }
        return model.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { ($0.key, $0.value) }
    }

    /// Every entry through `scanInPieces`, pieces concatenated in order; nil when not split.
    static func piecewise(_ tree: Tree, threads: Int) throws -> [([UInt8], [UInt8])]? {
        try tree.scanInPieces(threads: threads) { piece in
            var entries: [EntryBytes] = []
            let done = try piece.forEach { k, v in
                entries.append(EntryBytes(key: Array(k), value: Array(v))); return true
            }
            return .init(entries, stopped: !done)
        }?.flatMap { $0.map { ($0.key, $0.value) } }
    }

    struct EntryBytes: Sendable {
        var key: [UInt8]
        var value: [UInt8]
    }

    @Test(arguments: testSeeds([1, 2, 3]))
    func piecesGiveTheEntriesOfOneCursorInOrder(seed: UInt64) throws {
        let store = try Self.store()
        defer { try? store.close() }
        let expected = try Self.fill(store, count: 3000, seed: seed)
        try store.checkpoint()
        for threads in [2, 3, 4, 16] {
            let splitBefore = store.parallelReadCount
            let got = try store.read { tx in
                let tree = try #require(try tx.tree("t"))
                return try Self.piecewise(tree, threads: threads)
            }
            let entries = try #require(got, "3000 entries on 4 KiB pages were not split (seed \(seed))")
            #expect(store.parallelReadCount == splitBefore + 1)
            #expect(entries.count == expected.count, "seed \(seed), \(threads) threads")
            #expect(
                zip(entries, expected).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 },
                "seed \(seed), \(threads) threads: entries differ from the model's order")
        }
    }

    @Test func keyedLookupsInPiecesFindWhatOneCursorFinds() throws {
        let store = try Self.store()
        defer { try? store.close() }
        try store.write { tx in
            let t = try tx.createTree("r")
            for k in stride(from: 0, to: 20_000, by: 2) {
                try t.put(
                    withUnsafeBytes(of: UInt64(k).bigEndian, Array.init), [UInt8](repeating: UInt8(k % 251), count: 40))
            }
        }
        var rng = SeededGenerator(seed: 11)
        let keys = (0..<3000).map { _ in UInt64.random(in: 0..<20_000, using: &rng) }.sorted()
        let expected = keys.map { $0 % 2 == 0 ? Int($0 % 251) : -1 }
        let got = try store.read { tx -> [Int]? in
            let tree = try #require(try tx.tree("r"))
            return try tree.lookUpInPieces(keyCount: keys.count, threads: 4) { piece in
                var found: [Int] = []
                for i in piece.keys {
                    found.append(try piece.withValue(forBigEndianKey: keys[i]) { $0.map { Int($0[0]) } ?? -1 })
                }
                return .init(found, stopped: false)
            }?.flatMap { $0 }
        }
        let found = try #require(got)
        #expect(found == expected)
    }

    @Test func smallTreesShortListsAndOneThreadStayOnTheCallingThread() throws {
        let store = try Self.store()
        defer { try? store.close() }
        try store.write { tx in
            let one = try tx.createTree("one")
            for i in 0..<10 { try one.put([UInt8(i)], [1]) }
            let few = try tx.createTree("few")
            // About 10 leaves: below the minimum of 32.
            for i in 0..<300 {
                try few.put(withUnsafeBytes(of: UInt32(i).bigEndian, Array.init), [UInt8](repeating: 1, count: 100))
            }
        }
        _ = try Self.fill(store, count: 3000, seed: 5)
        try store.read { tx in
            let one = try #require(try tx.tree("one"))
            let few = try #require(try tx.tree("few"))
            let t = try #require(try tx.tree("t"))
            #expect(try Self.piecewise(one, threads: 4) == nil, "a one-leaf tree")
            #expect(try Self.piecewise(few, threads: 16) == nil, "a few leaves")
            #expect(try Self.piecewise(t, threads: 1) == nil, "one thread")
            #expect(try t.lookUpInPieces(keyCount: 511, threads: 4) { _ in .init(0, stopped: false) } == nil)
        }
        #expect(store.parallelReadCount == 0)
        try store.write { tx in
            let t = try #require(try tx.tree("t"))
            let split = try Self.piecewise(t, threads: 4)
            #expect(split == nil, "a write transaction")
        }
    }

    /// The runner keeps the one-thread order of values, stops and errors (PP1, PP2), for random
    /// placements of stopping and failing pieces.
    @Test(arguments: testSeeds([21, 22, 23, 24]))
    func runnerGivesTheOneThreadOutcome(seed: UInt64) throws {
        struct PieceFailed: Error, Equatable { let piece: Int }
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<40 {
            let count = Int.random(in: 1...60, using: &rng)
            let fails = Set(
                (0..<Int.random(in: 0...2, using: &rng)).map { _ in Int.random(in: 0..<count, using: &rng) })
            let stops = Set(
                (0..<Int.random(in: 0...2, using: &rng)).map { _ in Int.random(in: 0..<count, using: &rng) })
            let threads = Int.random(in: 1...8, using: &rng)
            // One thread, in order: what the runner must give.
            var expected: Result<[Int], PieceFailed> = .success([])
            for p in 0..<count {
                if fails.contains(p) { expected = .failure(PieceFailed(piece: p)); break }
                if case .success(let v) = expected { expected = .success(v + [p]) }
                if stops.contains(p) { break }
            }
            let got = Result {
                try ParallelPieces.run(count: count, threads: threads) { p, _ in
                    if p % 3 == 0 { Thread.sleep(forTimeInterval: 0.0002) }
                    if fails.contains(p) { throw PieceFailed(piece: p) }
                    return .init(p, stopped: stops.contains(p))
                }
            }.mapError { $0 as? PieceFailed ?? PieceFailed(piece: -1) }
            #expect(got == expected, "seed \(seed): \(count) pieces, fails \(fails), stops \(stops)")
        }
    }

    /// A leaf whose image is damaged in the page file: the scan in pieces throws the error the
    /// one-cursor scan throws, and with two damaged leaves the first in key order.
    @Test func damagedLeafGivesTheOneCursorError() throws {
        let fs = InMemoryFileSystem()
        var store = try Self.store(fs)
        _ = try Self.fill(store, count: 3000, seed: 9)
        try store.close()
        store = try Self.store(fs)
        let leaves = try store.read { tx -> [PageNumber] in
            let tree = try #require(try tx.tree("t"))
            var pages: [PageNumber] = []
            func walk(_ page: PageNumber) throws {
                let node = try BTreeNode(tx.page(page), number: page)
                if node.isLeaf { pages.append(page); return }
                for i in 0...node.count { try walk(try node.child(i)) }
            }
            try walk(tree.root)
            return pages
        }
        let images = leaves.map { store.map[Int($0.rawValue)] }
        try store.close()
        for damaged in [[leaves.count / 2], [leaves.count * 3 / 4, leaves.count / 3]] {
            var files = Dictionary(
                uniqueKeysWithValues: fs.paths.compactMap { p in fs.contents(of: p).map { (p, $0) } })
            for leaf in damaged {
                let image = images[leaf]
                files["/p"]![Int(image.offset) + Int(image.length) / 2] ^= 0x5A
            }
            let damagedStore = try Self.store(InMemoryFileSystem(files: files))
            defer { try? damagedStore.close() }
            let oneCursor = String(
                describing: try #require(
                    Result { try damagedStore.read { tx in try tx.tree("t")!.scanBorrowing { _, _ in true } } }
                        .failure))
            for threads in [2, 4, 16] {
                let pieces = Result {
                    try damagedStore.read { tx in try Self.piecewise(tx.tree("t")!, threads: threads) }
                }
                let error = String(describing: try #require(pieces.failure, "damaged leaves \(damaged) read fine"))
                #expect(error == oneCursor, "\(threads) threads")
                #expect(error.contains("page \(leaves[damaged.min()!])"), "\(error)")
            }
        }
    }

    /// Pieces read the snapshot they began on while another thread commits, checkpoints and
    /// frees the pages of older versions (SN1).
    @Test func piecesReadTheirSnapshotWhileAWriterCommitsAndCheckpoints() throws {
        final class WriterControl: Sendable {
            let stop = Atomic<Bool>(false)
            let finished = Atomic<Bool>(false)
            let checkpoints = Atomic<Int>(0)
        }
        let store = try Self.store()
        defer { try? store.close() }
        let expected = try Self.fill(store, count: 3000, seed: 13)
        let control = WriterControl()
        let writer = Thread {
            var round: UInt64 = 0
            while !control.stop.load(ordering: .relaxed) {
                round += 1
                try? store.write { tx in
                    let t = try tx.tree("t")!
                    var rng = SeededGenerator(seed: round)
                    for _ in 0..<200 {
                        let key = [UInt8.random(in: 0...255, using: &rng), UInt8.random(in: 0...255, using: &rng)]
                        if Bool.random(using: &rng) {
                            try t.put(key, [UInt8](repeating: 9, count: 200))
                        } else {
                            _ = try t.delete(key)
                        }
                    }
                }
                if round % 4 == 0, (try? store.checkpoint()) != nil {
                    control.checkpoints.wrappingAdd(1, ordering: .relaxed)
                }
            }
            control.finished.store(true, ordering: .releasing)
        }
        try store.read { tx in
            writer.start()
            defer { control.stop.store(true, ordering: .relaxed) }
            var reads = 0
            let deadline = Date().addingTimeInterval(60)
            // Read until the writer has checkpointed several times under the held snapshot.
            while reads < 5 || (control.checkpoints.load(ordering: .relaxed) < 3 && Date() < deadline) {
                let tree = try #require(try tx.tree("t"))
                let entries = try #require(try Self.piecewise(tree, threads: 4))
                #expect(entries.count == expected.count)
                #expect(zip(entries, expected).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }, "read \(reads)")
                reads += 1
            }
        }
        while !control.finished.load(ordering: .acquiring) { Thread.sleep(forTimeInterval: 0.001) }
        #expect(control.checkpoints.load(ordering: .relaxed) >= 3, "the writer checkpointed while the reads ran")
        // The writer's commits are there for a new snapshot: the old one was not the last.
        let now = try store.read { tx in
            let tree = try #require(try tx.tree("t"))
            return try Self.piecewise(tree, threads: 4)
        }
        let keysNow = try #require(now).map(\.0)
        #expect(keysNow != expected.map(\.0))
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }
}

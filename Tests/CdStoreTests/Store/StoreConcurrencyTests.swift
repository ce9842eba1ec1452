import Foundation
import Testing
@testable import CdStore

/// Readers holding snapshots while a writer commits and checkpoints see exactly their snapshot.
@Suite struct StoreConcurrencyTests {
    @Test func readersSeeTheirSnapshotDuringCommitsAndCheckpoints() async throws {
        let fs = InMemoryFileSystem()
        var o = StoreOptions(fileSystem: fs)
        o.pageSize = 4096
        o.cacheBytes = 4096 * 64
        o.checkpointThresholdBytes = 16_384
        o.durability = .off
        let store = try Store.open(path: "/c", options: o)
        try store.write { tx in
            let t = try tx.createTree("counter")
            for i in 0..<200 { try t.put(Array("k\(i)".utf8), Array("0".utf8)) }
        }
        let rounds = 120
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for r in 1...rounds {
                    try store.write { tx in
                        let t = try tx.tree("counter")!
                        // Every key holds the round number: a reader must never see two values.
                        for i in 0..<200 {
                            try t.put(Array("k\(i)".utf8), Array("\(r)".utf8) + [UInt8](repeating: 7, count: r % 50))
                        }
                    }
                    if r % 10 == 0 { try store.checkpoint() }
                }
            }
            for reader in 0..<3 {
                group.addTask {
                    for _ in 0..<40 {
                        try store.read { tx in
                            var seen = Set<[UInt8]>()
                            try tx.tree("counter")!.scan { _, v in
                                seen.insert(Array(v.prefix { $0 != 7 })); return true
                            }
                            #expect(
                                seen.count == 1,
                                "reader \(reader) at snapshot \(tx.snapshot) saw \(seen.count) different rounds")
                            // Hold the snapshot across the writer's next commits and read again.
                            let first = try tx.tree("counter")!.get(Array("k0".utf8))
                            Thread.sleep(forTimeInterval: 0.001)
                            #expect(try tx.tree("counter")!.get(Array("k0".utf8)) == first)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(
            try store.read { try $0.tree("counter")!.get(Array("k5".utf8)) }.map { Array($0.prefix(3)) }
                == Array("\(rounds)".utf8))
        try store.close()
    }

    @Test func secondOpenOfAStoreOpenedExclusivelyIsLocked() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("locked.cdstore")
        var exclusive = StoreOptions()
        exclusive.sharing = .exclusive
        let store = try Store.open(path: path, options: exclusive)
        #expect(throws: StoreError.locked(path: path)) { _ = try Store.open(path: path) }
        #expect(throws: StoreError.locked(path: path)) { _ = try Store.open(path: path, options: exclusive) }
        var ro = StoreOptions(); ro.readOnly = true
        #expect(throws: StoreError.locked(path: path)) { _ = try Store.open(path: path, options: ro) }
        try store.close()
        let again = try Store.open(path: path)
        try again.close()
    }
}

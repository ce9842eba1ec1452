import Foundation
import Testing
@testable import CdStore

/// Insert/delete churn reuses freed pages and extents: the file stops growing.
@Suite struct StoreSpaceTests {
    @Test func churnDoesNotGrowTheFileWithoutBound() throws {
        let fs = InMemoryFileSystem()
        var o = StoreOptions(fileSystem: fs)
        o.pageSize = 4096
        o.durability = .off
        o.checkpointThresholdBytes = 64 << 10
        let store = try Store.open(path: "/churn", options: o)
        var rng = SeededGenerator(seed: 99)
        var sizes: [Int] = []
        for round in 0..<30 {
            try store.write { tx in
                let t = try tx.openOrCreateTree("data")
                for i in 0..<600 {
                    try t.put(Array("r\(round)-\(i)".utf8), randomBytes(Int.random(in: 20...400, using: &rng), &rng))
                }
            }
            try store.write { tx in
                let t = try tx.tree("data")!
                for i in 0..<600 { try t.delete(Array("r\(round)-\(i)".utf8)) }
            }
            try store.checkpoint()
            sizes.append(fs.contents(of: "/churn")!.count)
        }
        let early = sizes[4], late = sizes.last!
        #expect(late <= early * 3 / 2, "file grew from \(early) to \(late) bytes under churn: \(sizes)")
        #expect(store.statistics.pageCount < 400, "page count \(store.statistics.pageCount) keeps growing")
        try store.close()
    }
}

import Foundation
import Testing
@testable import CdStore
import CdStoreTesting

/// The bytes a commit writes grow with the pages it changed, never with the size of the store:
/// a one-record commit writes the same handful of page images into a store of 2,000 records and
/// into one of 40,000.
@Suite struct StoreCommitCostTests {
    /// Bytes written (to any file) by one durable one-record commit into a store of `records`.
    static func oneRecordCommitBytes(records: Int) throws -> (wal: Int, pageFile: Int, depthPages: Int) {
        let fs = FaultInjectingFileSystem(logsOperations: true)
        var o = StoreOptions(fileSystem: fs)
        o.checkpointThresholdBytes = 1 << 40
        let store = try Store.open(path: "/cost", options: o)
        var rng = SeededGenerator(seed: 3)
        for batch in stride(from: 0, to: records, by: 10_000) {
            try store.write { tx in
                let t = try tx.openOrCreateTree("records")
                for i in batch..<min(records, batch + 10_000) {
                    try t.put(
                        Array(String(format: "rec-%08d", i).utf8), Array("record \(i) ".utf8) + randomBytes(60, &rng))
                }
            }
        }
        try store.checkpoint()
        fs.clearOperationLog()
        try store.write { tx in try tx.tree("records")!.put(Array("rec-00000777".utf8), Array("changed".utf8)) }
        let wal = fs.bytesWritten(to: "/cost-wal")
        let pageFile = fs.bytesWritten(to: "/cost")
        let depth = try store.read { tx in try BTreeChecker.check(tx.tree("records")!.btree, in: tx).depth }
        try store.close()
        return (wal, pageFile, depth)
    }

    @Test func oneRecordCommitCostDoesNotGrowWithTheStore() throws {
        let small = try Self.oneRecordCommitBytes(records: 2_000)
        let large = try Self.oneRecordCommitBytes(records: 40_000)
        #expect(small.pageFile == 0 && large.pageFile == 0, "a commit must not write the page file")
        // The path from the root to the leaf, the meta page, the commit record: one image per level.
        let perLevel = 8192 + PageImage.headerSize + WALLayout.frameHeaderSize
        #expect(large.wal <= (large.depthPages + 1) * perLevel + 64)
        #expect(
            large.wal < small.wal * 3, "one-record commit wrote \(small.wal) bytes at 2k records, \(large.wal) at 40k")
    }

    @Test func oneRecordCommitLogsItsMetaPageCompressed() throws {
        let small = try Self.oneRecordCommitBytes(records: 2_000)
        // One raw leaf image; the meta page, nearly all zeros, deflated to a few dozen bytes
        // (WriteTransaction R5); the commit record.
        let rawImage = 8192 + PageImage.headerSize + WALLayout.frameHeaderSize
        #expect(small.wal > rawImage && small.wal < rawImage + 512, "one-record commit wrote \(small.wal) bytes")
    }
}

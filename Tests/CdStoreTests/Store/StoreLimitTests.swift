// Files that claim huge lengths must not make the engine or the verifier allocate or loop
// without bound (issue 7, item 6). Covered elsewhere: huge page counts and directories outside
// the file (StoreHostileFileTests, VerifyHostileInputTests), huge WAL frame lengths, map extents
// and WAL pages beyond the page count (the same), branch cycles (BTreeCorruptionTests: depth is
// bounded by BTreeLayout.maxDepth), overflow loops in a tree (BTreeLimitTests). Here: the same
// overflow loop inside a real store file (the regression fixture), and a decompression bomb.

import CdFaultSupport
import Foundation
import Testing
@testable import CdStore

@Suite struct StoreLimitTests {
    static let loopFixture = "fuzz/store-open/regressions/overflow-loop-1gib.cdfz"

    /// A checkpointed test store whose first "blobs" value over two overflow pages claims
    /// ~1 GiB and whose first overflow page points at itself — all checksums right (the edit goes
    /// through the engine). Set CADMIUM_WRITE_FIXTURES=1 to rewrite `loopFixture` from it.
    static func storeWithLoopingOverflowChain() throws -> (StoreFiles, [UInt8]) {
        var target: [UInt8] = []
        let files = try TestStores.build(.checkpointed).editedWithEngine(close: true) { store in
            try store.write { tx in
                let blobs = try #require(try tx.tree("blobs"))
                try blobs.scan { k, v in
                    if v.count > 2 * 4096 { target = k; return false }; return true
                }
                var path: [PathStep]? = nil
                let leafNumber = try blobs.btree.descend(to: target, in: tx, path: &path).number
                let leaf = try BTreeNode(tx.writablePage(leafNumber), number: leafNumber)
                let index = try leaf.lowerBound(target).index
                let cell = try leaf.leafCell(index)
                let first = PageNumber(leaf.bytes.leU32(at: cell.valueStart))
                let capacity = BTreeLayout.overflowCapacity(pageSize: TestStores.pageSize)
                let length = (BTree.maxValueSize / capacity) * capacity
                try leaf.buffer.mutableBytes.setLEU32(
                    UInt32(length), at: leaf.cellOffset(index) + BTreeLayout.leafValueLengthOffset)
                try tx.writablePage(first).mutableBytes.setLEU32(first.rawValue, at: BTreeLayout.overflowNextOffset)
            }
        }
        return (files, target)
    }

    @Test func overflowLoopInAStoreFileIsCorruptionNotAGigabyte() throws {
        let (built, key) = try Self.storeWithLoopingOverflowChain()
        let url = fixturesDirectory().appendingPathComponent(Self.loopFixture)
        if ProcessInfo.processInfo.environment["CADMIUM_WRITE_FIXTURES"] == "1" {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(StoreFuzzInput(pageFile: built.pageFile, wal: built.wal).packed()).write(to: url)
        }
        let saved = StoreFuzzInput.unpack([UInt8](try Data(contentsOf: url)))
        var options = StoreOptions(fileSystem: InMemoryFileSystem(files: [StoreFiles.path: saved.pageFile]))
        options.readOnly = true
        let store = try Store.open(path: StoreFiles.path, options: options)
        defer { try? store.close() }
        do {
            _ = try store.read { try $0.tree("blobs")?.get(key) }
            Issue.record("a value whose overflow chain loops was read")
        } catch let StoreError.corruption(_, _, detail) {
            #expect(detail.contains("twice"), "the walk must stop at the loop, not at the claimed length: \(detail)")
        }
        let report = try StoreFiles(files: [StoreFiles.path: saved.pageFile]).verify()
        #expect(report.problemsOnly.contains { $0.message.contains("overflow") }, "\(report.problemsOnly.prefix(3))")
    }

    /// A WAL page image whose deflate stream expands to 64 pages, with every checksum right:
    /// decompression stops at one page (PageCodec Z1) and the page is corrupt, for the engine
    /// and for the verifier.
    @Test func decompressionBombIsCorruptionNotAnAllocation() throws {
        var files = try TestStores.build(.wal)
        let a = try StoreAnatomy(files)
        let scan = try #require(a.scan)
        let header = try WALLayout.Header.decode(Array(files.wal[0..<WALLayout.headerSize])).get()
        let last = try #require(scan.commits.last)
        let commit = last.commit.next
        let victim = try #require(a.pageFilePages(.leaf, tree: "alpha").first)
        let bombSize = 64 * TestStores.pageSize
        let big = PageBuffer(zeroed: bombSize)
        big.mutableBytes[0] = PageType.leaf.rawValue
        let image = PageImage.encode(
            page: big, number: victim, commit: commit,
            compressor: PageCompressor(level: 9, pageSize: bombSize))
        #expect(
            image.count < PageImage.maxImageSize(pageSize: TestStores.pageSize),
            "the bomb must fit the image limit to reach the inflater")
        var tail: [UInt8] = []
        var crc = WALLayout.appendFrame(
            kind: .page, page: victim, commit: commit, salt: header.salt, payload: image,
            previousCRC: last.endCRC, to: &tail)
        crc = WALLayout.appendFrame(
            kind: .commit, page: .none, commit: commit, salt: header.salt,
            payload: WALLayout.commitPayload(frameCount: 1, pageCount: last.pageCount), previousCRC: crc, to: &tail)
        files.wal.replaceSubrange(Int(last.endOffset)..., with: tail)

        var options = StoreOptions(fileSystem: InMemoryFileSystem(files: files.files))
        options.readOnly = true
        do {
            let store = try Store.open(path: StoreFiles.path, options: options)
            defer { try? store.close() }
            _ = try store.read { tx in try tx.page(victim) }
            Issue.record("a page that inflates to 64 pages was read")
        } catch let StoreError.corruption(_, _, detail) {
            #expect(detail.contains("more than one page"), "\(detail)")
        }
        let problems = try files.verify().problemsOnly
        #expect(
            problems.contains { $0.location.page == victim.rawValue && $0.message.contains("more than one page") },
            "\(problems.prefix(4))")
    }
}

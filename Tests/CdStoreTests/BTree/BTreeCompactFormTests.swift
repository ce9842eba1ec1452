// The compact form in which B+tree pages are deflated (BTreeCompactForm FZ3, FZ4; PageCodec Z3):
// the same tree, page for page, with cells packed in key order and a zeroed gap; damaged pages are
// left alone, and whatever a page's bytes say, packing never reads or writes outside the page.

import CZlib
import CdStoreTesting
import Foundation
import Testing
@testable import CdStore

@Suite struct BTreeCompactFormTests {
    /// A tree whose pages have cells in insertion order, fragments of deleted cells, overflow
    /// chains, and stale bytes in their gaps after splits.
    static func churnedTree(pageSize: Int) throws -> (BTree, InMemoryPageSink) {
        let sink = InMemoryPageSink(pageSize: pageSize)
        let tree = try BTree.create(in: sink)
        var rng = SeededGenerator(seed: 21)
        for i in Array(0..<4000).shuffled(using: &rng) {
            try tree.put(intKey(i), patternValue(i, count: i % 500 == 0 ? pageSize : 5 + i % 40), in: sink)
        }
        for i in 0..<4000 where i % 3 == 0 { try tree.delete(intKey(i), in: sink) }
        return (tree, sink)
    }

    /// The compact form of `page`, or nil when `write` declines it.
    static func compact(_ page: PageBuffer) -> PageBuffer? {
        let out = PageBuffer(zeroed: page.count)
        return BTreeCompactForm.write(page.bytes, into: out.mutableBytes) ? out : nil
    }

    @Test(arguments: [4096, 8192])
    func compactPagesHoldTheSameTree(pageSize: Int) throws {
        let (tree, sink) = try Self.churnedTree(pageSize: pageSize)
        let report = expectClean(tree, sink)
        let compacted = sink.copy()
        var fragmentedPages = 0
        for (number, type) in report.pages where type == .leaf || type == .branch {
            let original = try BTreeNode(sink.page(number), number: number)
            if original.bytes.leU32(at: BTreeLayout.fragmentedOffset) > 0 { fragmentedPages += 1 }
            let packed = try #require(Self.compact(sink.page(number)), "page \(number)")
            let node = try BTreeNode(packed, number: number)
            // FZ3: same header fields and the same cells in the same slot order.
            #expect(node.isLeaf == original.isLeaf && node.count == original.count)
            #expect(node.leftmostChild == original.leftmostChild)
            for i in 0..<node.count { #expect(try node.cellBytes(i) == original.cellBytes(i)) }
            #expect(packed.bytes.leU32(at: BTreeLayout.fragmentedOffset) == 0)
            let gap = (BTreeLayout.headerSize + node.count * BTreeLayout.slotSize)..<node.contentStart
            #expect(packed.bytes[gap].allSatisfy { $0 == 0 }, "page \(number): gap not zeroed")
            try compacted.page(number).base.copyMemory(from: packed.base, byteCount: pageSize)
        }
        #expect(fragmentedPages > 0, "the churn leaves fragments to pack")
        let after = expectClean(tree, compacted)
        #expect(after.entryCount == report.entryCount)
        #expect(try allKeys(tree, compacted) == allKeys(tree, sink))
        for i in 0..<4000 where i % 3 != 0 {
            #expect(try tree.get(intKey(i), in: compacted) == tree.get(intKey(i), in: sink))
        }
    }

    @Test func otherPagesAreDeclined() {
        let page = PageBuffer(zeroed: 4096)
        for type in [PageType.meta, .overflow, .freeList] {
            page.base.storeBytes(of: type.rawValue, as: UInt8.self)
            #expect(Self.compact(page) == nil, "\(type)")
        }
    }

    /// FZ3, FZ4: mutated pages are either declined or packed into a page with the same cells;
    /// never a read or write past the page (debug builds trap on one).
    @Test func damagedPagesAreDeclinedOrPackedWithinBounds() throws {
        let (tree, sink) = try Self.churnedTree(pageSize: 4096)
        let leaves = expectClean(tree, sink).pages.filter { $0.value == .leaf || $0.value == .branch }.keys
        var rng = SeededGenerator(seed: 8)
        var declined = 0
        for number in leaves.sorted().prefix(20) {
            let good = try sink.page(number)
            for _ in 0..<200 {
                let bad = PageBuffer(copying: good)
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    // Mostly header and slot bytes, where a lie points elsewhere.
                    let at =
                        Bool.random(using: &rng)
                        ? Int.random(in: 0..<64, using: &rng) : Int.random(in: 0..<4096, using: &rng)
                    bad.mutableBytes[at] = UInt8.random(in: 0...255, using: &rng)
                }
                if Self.compact(bad) == nil { declined += 1 }
            }
        }
        #expect(declined > 0)
    }

    /// Z3 end to end: a store whose pages were written in random order is checkpointed; its page
    /// file verifies clean, zlib inflates its images, and its content reads back after a reopen.
    @Test func checkpointedStoreVerifiesAndReadsBack() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("compact.cdstore")
        var rng = SeededGenerator(seed: 4)
        var model = StoreModel()
        model.trees["t"] = [:]
        do {
            let store = try Store.open(path: path)
            for round in 0..<3 {
                try store.write { tx in
                    let tree = try tx.tree("t") ?? tx.createTree("t")
                    for i in Array(0..<3000).shuffled(using: &rng) where (i + round) % 4 != 0 {
                        let value = patternValue(i * 7 + round, count: 10 + i % 60)
                        try tree.put(intKey(i), value)
                        model.trees["t"]?[intKey(i)] = value
                    }
                    for i in stride(from: round, to: 3000, by: 5) {
                        _ = try tree.delete(intKey(i))
                        model.trees["t"]?[intKey(i)] = nil
                    }
                }
            }
            try store.checkpoint()
            try store.close()
        }
        let report = try StoreVerifier.verify(path: path)
        #expect(report.isClean, "\(report.problemsOnly.prefix(3))")
        #expect(try PageCodecInteropTests.zlibInflatedImages(path: path) > 20)
        let store = try Store.open(path: path)
        defer { try? store.close() }
        #expect(try store.read { try firstDifference($0, model) } == nil)
    }
}

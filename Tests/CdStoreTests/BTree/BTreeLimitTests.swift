// Limits on what a hostile page can make a reader do: a leaf cell may claim any value length up
// to `BTree.maxValueSize` (1 GiB), so the overflow walk must not trust it to bound the work — a
// chain that loops must stop at the loop, not after a gigabyte of copies of one page.

import Testing
@testable import CdStore

@Suite struct BTreeLimitTests {
    /// Points the overflow chain of key 7 at itself from its first page and makes the leaf cell
    /// claim `length` bytes; returns the sink, tree, key and the looping page.
    static func loopingChain(length: Int) throws -> (InMemoryPageSink, BTree, [UInt8], PageNumber) {
        let (sink, tree) = try BTreeCorruptionTests.makeTree()
        let (key, pages) = try BTreeCorruptionTests.overflowChain(tree, sink)
        let leafNumber = try BTreeCorruptionTests.leaf(of: key, tree, sink)
        let leaf = try BTreeNode(sink.page(leafNumber), number: leafNumber)
        let offset = try leaf.cellOffset(leaf.lowerBound(key).index)
        try sink.page(leafNumber).mutableBytes.setLEU32(UInt32(length), at: offset + BTreeLayout.leafValueLengthOffset)
        try sink.page(pages[0]).mutableBytes.setLEU32(pages[0].rawValue, at: BTreeLayout.overflowNextOffset)
        return (sink, tree, key, pages[0])
    }

    @Test func overflowLoopUnderAHugeClaimedLengthStopsAtTheLoop() throws {
        // A whole number of full pages, so every page of the loop passes the per-page checks.
        let capacity = BTreeLayout.overflowCapacity(pageSize: 4096)
        let length = (BTree.maxValueSize / capacity) * capacity
        let (sink, tree, key, looping) = try Self.loopingChain(length: length)
        for (what, read) in [
            ("get", { _ = try tree.get(key, in: sink) }),
            (
                "cursor",
                {
                    let c = tree.cursor(in: sink); _ = try c.seek(atLeast: key); _ = try c.value()
                }
            ),
        ] as [(String, () throws -> Void)] {
            do {
                try read()
                Issue.record("\(what): a looping chain was read")
            } catch let StoreError.corruption(_, location, detail) {
                #expect(location == .page(looping), "\(what): \(detail)")
                #expect(
                    detail.contains("twice"),
                    "\(what): the walk must stop at the loop, not at the claimed length: \(detail)")
            }
        }
        #expect(
            BTreeChecker.check(tree, in: sink).problems.contains {
                $0.detail.contains("twice") || $0.detail.contains("reached before")
            })
        #expect { try tree.delete(key, in: sink) } throws: { isCorruption($0, at: looping) }
    }
}

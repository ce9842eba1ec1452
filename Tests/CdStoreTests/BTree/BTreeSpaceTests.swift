// Space behaviour: insert/delete churn returns pages to the pager instead of growing the store,
// and loads in key order fill leaves (the rightmost split leaves the full page full), as do
// interleaved runs in the middle of a tree (FZ1).

import Testing
@testable import CdStore

@Suite struct BTreeSpaceTests {
    @Test func churnKeepsPageCountBounded() throws {
        let sink = InMemoryPageSink()
        let tree = try BTree.create(in: sink)
        var rng = SeededGenerator(seed: 11)
        var peaks: [Int] = []
        for round in 0..<4 {
            var order = Array(0..<3000).shuffled(using: &rng)
            var peak = 0
            for i in order {
                try tree.put(intKey(i), patternValue(i + round, count: i % 100 == 0 ? 10000 : 50), in: sink)
                peak = max(peak, sink.liveCount)
            }
            #expect(expectClean(tree, sink).entryCount == 3000)
            order.shuffle(using: &rng)
            for i in order { #expect(try tree.delete(intKey(i), in: sink)) }
            #expect(sink.liveCount == 1, "round \(round): an empty tree is its root leaf alone")
            expectClean(tree, sink)
            peaks.append(peak)
        }
        #expect(peaks.last! <= peaks.first! + peaks.first! / 10, "peaks \(peaks)")
    }

    @Test func halfDeletedTreeMergesItsPages() throws {
        let sink = InMemoryPageSink()
        let tree = try BTree.create(in: sink)
        for i in 0..<4000 { try tree.put(intKey(i), patternValue(i, count: 60), in: sink) }
        let full = sink.liveCount
        // Deleting three keys in four leaves a quarter of the data: merges must give back pages.
        for i in 0..<4000 where i % 4 != 0 { try tree.delete(intKey(i), in: sink) }
        expectClean(tree, sink)
        #expect(sink.liveCount < full * 2 / 3, "\(sink.liveCount) pages left of \(full)")
    }

    @Test(arguments: [4096, 8192, 65536])
    func sequentialLoadFillsLeaves(pageSize: Int) throws {
        let sink = InMemoryPageSink(pageSize: pageSize)
        let tree = try BTree.create(in: sink)
        let count = pageSize == 65536 ? 40000 : 20000
        for i in 0..<count { try tree.put(intKey(i), patternValue(i, count: 20), in: sink) }
        let fill = try leafFill(tree, sink)
        #expect(fill > 0.9, "average leaf fill \(fill)")
    }

    /// Keys `source ‖ target` with targets increasing and each insert's source drawn at random:
    /// the insert pattern of a to-many relationship tree when objects are created in key order.
    @Test(arguments: [4096, 8192])
    func interleavedRunsFillLeaves(pageSize: Int) throws {
        let sink = InMemoryPageSink(pageSize: pageSize)
        let tree = try BTree.create(in: sink)
        var rng = SeededGenerator(seed: 5)
        for target in 0..<80000 {
            let source = Int.random(in: 0..<20, using: &rng)
            try tree.put(intKey(source) + intKey(target), [0], in: sink)
        }
        #expect(expectClean(tree, sink).entryCount == 80000)
        let fill = try leafFill(tree, sink)
        #expect(fill > 0.85, "average leaf fill \(fill)")
    }

    /// Random inserts keep their usual fill (about ln 2 or better): the run rule (FZ1) is rare there
    /// and never leaves a left page below a balanced split's.
    @Test func randomInsertsKeepTheirFill() throws {
        let sink = InMemoryPageSink()
        let tree = try BTree.create(in: sink)
        var rng = SeededGenerator(seed: 9)
        for i in Array(0..<30000).shuffled(using: &rng) { try tree.put(intKey(i), patternValue(i, count: 9), in: sink) }
        #expect(expectClean(tree, sink).entryCount == 30000)
        let fill = try leafFill(tree, sink)
        #expect(fill > 0.62, "average leaf fill \(fill)")
    }

    /// The used bytes of the tree's leaves over their usable bytes.
    private func leafFill(_ tree: BTree, _ sink: InMemoryPageSink) throws -> Double {
        let report = expectClean(tree, sink)
        var used = 0
        var leaves = 0
        for (page, type) in report.pages where type == .leaf {
            used += try BTreeNode(sink.page(page), number: page).usedBytes
            leaves += 1
        }
        return Double(used) / Double(leaves * BTreeLayout.usableBytes(pageSize: sink.pageSize))
    }
}

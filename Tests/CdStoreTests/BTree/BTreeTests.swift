// Basic behaviour of BTree: empty trees, insert/replace/delete, limits, overflow values, drop,
// the fixed root, and trees sharing one store.

import Testing
@testable import CdStore

@Suite struct BTreeTests {
    @Test func emptyTreeHasNoEntries() throws {
        let sink = InMemoryPageSink()
        let tree = try BTree.create(in: sink)
        #expect(try tree.get([], in: sink) == nil)
        let cursor = tree.cursor(in: sink)
        #expect(try !cursor.first())
        #expect(try !cursor.last())
        #expect(try !cursor.seek(atLeast: []))
        let report = expectClean(tree, sink)
        #expect(report.entryCount == 0 && report.depth == 1 && report.pages == [tree.root: .leaf])
    }

    @Test func putReplacesAndDeleteRemoves() throws {
        let sink = InMemoryPageSink()
        let tree = try BTree.create(in: sink)
        try tree.put(bytes("apple"), bytes("red"), in: sink)
        try tree.put(bytes(""), bytes(""), in: sink)
        try tree.put(bytes("app"), bytes("prefix"), in: sink)
        #expect(try tree.get(bytes("apple"), in: sink) == bytes("red"))
        try tree.put(bytes("apple"), bytes("green"), in: sink)
        #expect(try tree.get(bytes("apple"), in: sink) == bytes("green"))
        try tree.put(bytes("apple"), bytes("olive"), in: sink)  // same length: overwritten in place
        try tree.put(bytes(""), bytes(""), in: sink)
        #expect(try tree.get(bytes("apple"), in: sink) == bytes("olive"))
        #expect(try tree.get(bytes(""), in: sink) == [])
        #expect(try allKeys(tree, sink) == [bytes(""), bytes("app"), bytes("apple")])
        #expect(try tree.delete(bytes("apple"), in: sink))
        #expect(try !tree.delete(bytes("apple"), in: sink))
        #expect(try !tree.delete(bytes("zebra"), in: sink))
        #expect(try tree.get(bytes("apple"), in: sink) == nil)
        #expect(try tree.get(bytes("app"), in: sink) == bytes("prefix"))
        expectClean(tree, sink)
    }

    @Test(arguments: [4096, 8192, 65536])
    func keyLimitAllowsFourMaxCellsPerPage(pageSize: Int) throws {
        let limit = BTree.maxKeySize(pageSize: pageSize)
        let worstCell =
            BTreeLayout.slotSize + BTreeLayout.leafCellHeaderSize + limit + BTreeLayout.overflowReferenceSize
        #expect(4 * worstCell <= pageSize - BTreeLayout.headerSize)
        let sink = InMemoryPageSink(pageSize: pageSize)
        let tree = try BTree.create(in: sink)
        #expect(throws: StoreError.keyTooLarge(size: limit + 1, limit: limit)) {
            try tree.put([UInt8](repeating: 1, count: limit + 1), [], in: sink)
        }
        // Many maximum keys with values just too large to be inline: deep splits of big cells.
        for i in 0..<40 {
            var key = [UInt8](repeating: 7, count: limit)
            key.replaceSubrange(limit - 4..<limit, with: intKey(i * 7919 % 40))
            try tree.put(key, patternValue(i, count: 20), in: sink)
        }
        let report = expectClean(tree, sink)
        #expect(report.entryCount == 40 && report.depth >= 2)
    }

    @Test func valueOverLimitIsRejected() throws {
        let sink = InMemoryPageSink()
        let tree = try BTree.create(in: sink)
        let size = BTree.maxValueSize + 1
        // Not touched before the size check, so the allocation stays virtual.
        let huge = [UInt8](unsafeUninitializedCapacity: size) { _, count in count = size }
        #expect(throws: StoreError.valueTooLarge(size: size, limit: BTree.maxValueSize)) {
            try tree.put(bytes("k"), huge, in: sink)
        }
        #expect(sink.liveCount == 1)
    }

    @Test func unsupportedPageSizeIsRejected() throws {
        #expect(throws: StoreError.self) { try BTree.create(in: InMemoryPageSink(pageSize: 256)) }
    }

    @Test(arguments: [4096, 65536])
    func overflowValuesRoundTripAndAreFreed(pageSize: Int) throws {
        let sink = InMemoryPageSink(pageSize: pageSize)
        let tree = try BTree.create(in: sink)
        let capacity = BTreeLayout.overflowCapacity(pageSize: pageSize)
        let sizes = [capacity - 1, capacity, capacity + 1, 3 * capacity + 5, pageSize / 4]
        for (i, size) in sizes.enumerated() { try tree.put(intKey(i), patternValue(i, count: size), in: sink) }
        for (i, size) in sizes.enumerated() {
            #expect(try tree.get(intKey(i), in: sink) == patternValue(i, count: size))
        }
        let report = expectClean(tree, sink)
        #expect(report.pagesByType[.overflow] == 1 + 1 + 2 + 4 + 1)
        // Replacing with an inline value frees the chain.
        try tree.put(intKey(3), bytes("small"), in: sink)
        #expect(expectClean(tree, sink).pagesByType[.overflow] == 1 + 1 + 2 + 1)
        for i in sizes.indices { try tree.delete(intKey(i), in: sink) }
        #expect(sink.liveCount == 1)
    }

    @Test func dropFreesEveryPage() throws {
        let sink = InMemoryPageSink()
        let tree = try BTree.create(in: sink)
        for i in 0..<3000 { try tree.put(intKey(i), patternValue(i, count: i % 50 == 0 ? 9000 : 40), in: sink) }
        #expect(expectClean(tree, sink).depth >= 2)
        try tree.drop(in: sink)
        #expect(sink.liveCount == 0)
    }

    @Test func rootPageNeverChanges() throws {
        let sink = InMemoryPageSink()
        let tree = try BTree.create(in: sink)
        // Long shared prefixes keep separators long, so branches split too.
        let key = { (i: Int) in [UInt8](repeating: 0x55, count: 96) + intKey(i) }
        for i in 0..<5000 { try tree.put(key(i), patternValue(i, count: 30), in: sink) }
        #expect(try sink.page(tree.root).pageType == .branch)
        #expect(expectClean(tree, sink).depth == 3)
        for i in 0..<5000 { #expect(try tree.delete(key(i), in: sink)) }
        #expect(try sink.page(tree.root).pageType == .leaf)
        #expect(sink.liveCount == 1)
        #expect(expectClean(tree, sink).depth == 1)
    }

    @Test func treesInOneStoreShareNoPages() throws {
        let sink = InMemoryPageSink()
        let trees = try (0..<3).map { _ in try BTree.create(in: sink) }
        for i in 0..<2000 {
            try trees[i % 3].put(intKey(i), patternValue(i, count: i % 97 == 0 ? 5000 : 60), in: sink)
        }
        var seen: [PageNumber: PageType] = [:]
        for tree in trees {
            let report = expectClean(tree, sink)
            #expect(report.entryCount == 667 || report.entryCount == 666)
            #expect(Set(seen.keys).isDisjoint(with: report.pages.keys))
            seen.merge(report.pages) { a, _ in a }
        }
        #expect(Set(seen.keys) == Set(sink.pages.keys), "every live page belongs to exactly one tree")
    }
}

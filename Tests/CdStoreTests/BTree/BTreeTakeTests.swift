// BTree.take: the value lent to the caller and the key removed in one descent, only when the
// caller keeps the value; inline and overflow values; the tree stays balanced and clean through
// a take of every other key, in key order, as an object store's delete makes them.

import Testing
@testable import CdStore

@Suite struct BTreeTakeTests {
    @Test func takeLendsTheValueAndRemovesTheKey() throws {
        let sink = InMemoryPageSink()
        let tree = try BTree.create(in: sink)
        try tree.put(bytes("apple"), bytes("red"), in: sink)
        try tree.put(bytes("pear"), bytes("green"), in: sink)
        #expect(try tree.take(bytes("apple"), in: sink) { Array($0) } == bytes("red"))
        #expect(try tree.get(bytes("apple"), in: sink) == nil)
        #expect(try tree.get(bytes("pear"), in: sink) == bytes("green"))
        expectClean(tree, sink)
    }

    @Test func aMissingKeyIsNotLentAndChangesNothing() throws {
        let sink = InMemoryPageSink()
        let tree = try BTree.create(in: sink)
        try tree.put(bytes("apple"), bytes("red"), in: sink)
        var calls = 0
        let taken = try tree.take(bytes("zebra"), in: sink) { _ -> Int? in
            calls += 1
            return 1
        }
        #expect(taken == nil && calls == 0)
        #expect(try allKeys(tree, sink) == [bytes("apple")])
    }

    @Test func aValueTheCallerRefusesStays() throws {
        let sink = InMemoryPageSink()
        let tree = try BTree.create(in: sink)
        try tree.put(bytes("apple"), bytes("red"), in: sink)
        var seen: [UInt8] = []
        let taken = try tree.take(bytes("apple"), in: sink) { value -> Int? in
            seen = Array(value)
            return nil
        }
        #expect(taken == nil && seen == bytes("red"))
        #expect(try tree.get(bytes("apple"), in: sink) == bytes("red"))
    }

    @Test func whatTheCallerThrowsLeavesTheKey() throws {
        struct Refused: Error {}
        let sink = InMemoryPageSink()
        let tree = try BTree.create(in: sink)
        try tree.put(bytes("apple"), bytes("red"), in: sink)
        #expect(throws: Refused.self) { try tree.take(bytes("apple"), in: sink) { _ -> Int? in throw Refused() } }
        #expect(try tree.get(bytes("apple"), in: sink) == bytes("red"))
    }

    @Test(arguments: [4096, 65536])
    func anOverflowValueIsLentWholeAndItsChainFreed(pageSize: Int) throws {
        let sink = InMemoryPageSink(pageSize: pageSize)
        let tree = try BTree.create(in: sink)
        let size = 3 * BTreeLayout.overflowCapacity(pageSize: pageSize) + 5
        try tree.put(intKey(1), patternValue(1, count: size), in: sink)
        try tree.put(intKey(2), bytes("small"), in: sink)
        #expect(try tree.take(intKey(1), in: sink) { Array($0) } == patternValue(1, count: size))
        #expect(expectClean(tree, sink).pagesByType[.overflow] == nil)
        #expect(sink.liveCount == 1)
        #expect(try allKeys(tree, sink) == [intKey(2)])
    }

    /// Every other key of a deep tree taken in key order: each value is the one stored, the rest
    /// stays, and the merges leave the tree clean.
    @Test func takingEveryOtherKeyInOrderKeepsTheTreeClean() throws {
        let sink = InMemoryPageSink(pageSize: 4096)
        let tree = try BTree.create(in: sink)
        let count = 3000
        for i in 0..<count { try tree.put(intKey(i), patternValue(i, count: 40 + i % 50), in: sink) }
        #expect(expectClean(tree, sink).depth >= 2)
        for i in stride(from: 0, to: count, by: 2) {
            #expect(try tree.take(intKey(i), in: sink) { Array($0) } == patternValue(i, count: 40 + i % 50))
        }
        let report = expectClean(tree, sink)
        #expect(report.entryCount == count / 2)
        #expect(try allKeys(tree, sink) == stride(from: 1, to: count, by: 2).map(intKey))
    }
}

// Cursor semantics: the unpositioned and exhausted states, seeks between, before and after keys,
// and direction changes across leaf boundaries.

import Testing
@testable import CdStore

@Suite struct BTreeCursorTests {
    /// Keys 0, 2, 4, … 3998 as 4-byte big-endian integers: about twenty leaves.
    static func evenTree() throws -> (InMemoryPageSink, BTree) {
        let sink = InMemoryPageSink()
        let tree = try BTree.create(in: sink)
        for i in stride(from: 0, to: 4000, by: 2) { try tree.put(intKey(i), patternValue(i, count: 150), in: sink) }
        #expect(expectClean(tree, sink).depth >= 2)
        return (sink, tree)
    }

    @Test func seekLandsOnFirstKeyAtLeast() throws {
        let (sink, tree) = try Self.evenTree()
        let cursor = tree.cursor(in: sink)
        #expect(try cursor.seek(atLeast: intKey(1001)) && cursor.key == intKey(1002))
        #expect(try cursor.value() == patternValue(1002, count: 150))
        #expect(try cursor.seek(atLeast: intKey(1000)) && cursor.key == intKey(1000))
        #expect(try cursor.seek(atLeast: []) && cursor.key == intKey(0))
        #expect(try cursor.seek(atLeast: intKey(3997)) && cursor.key == intKey(3998))
        #expect(try !cursor.seek(atLeast: intKey(3999)))
        #expect(try !cursor.next(), "a cursor that ran off the end stays exhausted")
        #expect(try !cursor.previous())
        #expect(try cursor.seek(atLeast: intKey(3999) + [0]) == false)
    }

    /// Lookups through one cursor, ascending, descending, shuffled and between moves, give what
    /// `get` gives: the remembered path is reused only for keys its separators cover.
    @Test func lookupsThroughOneCursorMatchGet() throws {
        let (sink, tree) = try Self.evenTree()
        let lookup = tree.cursor(in: sink)
        func lent(_ i: Int) throws -> [UInt8]? {
            try intKey(i).withUnsafeBytes { k in try lookup.withValue(forKey: k) { $0.map { Array($0) } } }
        }
        var rng = SeededGenerator(seed: 7)
        let orders: [[Int]] = [Array(-3..<4003), Array((-3..<4003).reversed()), Array(-3..<4003).shuffled(using: &rng)]
        for order in orders {
            for i in order {
                let expected = (0..<4000).contains(i) && i % 2 == 0 ? patternValue(i, count: 150) : nil
                #expect(try lent(i) == expected, "lookup of \(i)")
            }
        }
        #expect(try lent(1000) != nil)
        #expect(try lookup.next() && lookup.key == intKey(0), "after a lookup, next() acts as first()")
        #expect(try lookup.seek(atLeast: intKey(2001)) && lookup.key == intKey(2002))
        #expect(try lent(2002) == patternValue(2002, count: 150))
        #expect(try lent(10) == patternValue(10, count: 150))
        #expect(try lent(3998) == patternValue(3998, count: 150))
    }

    @Test func unpositionedCursorStartsAtAnEnd() throws {
        let (sink, tree) = try Self.evenTree()
        let forward = tree.cursor(in: sink)
        #expect(try forward.next() && forward.key == intKey(0))
        let backward = tree.cursor(in: sink)
        #expect(try backward.previous() && backward.key == intKey(3998))
    }

    @Test func directionChangesAcrossEveryLeafBoundary() throws {
        let (sink, tree) = try Self.evenTree()
        let cursor = tree.cursor(in: sink)
        #expect(try cursor.first())
        for i in stride(from: 2, to: 4000, by: 2) {
            #expect(try cursor.next() && cursor.key == intKey(i))
            #expect(try cursor.previous() && cursor.key == intKey(i - 2))
            #expect(try cursor.next() && cursor.key == intKey(i))
        }
        #expect(try !cursor.next())
        #expect(try cursor.last() && cursor.key == intKey(3998))
        #expect(try cursor.first() && !cursor.previous())
    }

    @Test func overflowValuesReadThroughTheCursor() throws {
        let sink = InMemoryPageSink()
        let tree = try BTree.create(in: sink)
        for i in 0..<20 { try tree.put(intKey(i), patternValue(i, count: i * 1000), in: sink) }
        let cursor = tree.cursor(in: sink)
        var i = 19
        var more = try cursor.last()
        while more {
            #expect(cursor.key == intKey(i))
            #expect(try cursor.value() == patternValue(i, count: i * 1000))
            i -= 1
            more = try cursor.previous()
        }
        #expect(i == -1)
    }
}

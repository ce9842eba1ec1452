// Hostile pages: damage pages that the tree built (zero a page, break header fields and cells,
// point a branch at itself, break key order, cut overflow chains, flip random bytes) and check
// that reads throw StoreError.corruption naming the page, never crash, and that BTreeChecker
// reports the damage at the right page.

import Testing
@testable import CdStore

@Suite struct BTreeCorruptionTests {
    /// A tree of depth >= 2 with some overflow values; key i has value `valueFor(i)`.
    static func makeTree() throws -> (InMemoryPageSink, BTree) {
        let sink = InMemoryPageSink()
        let tree = try BTree.create(in: sink)
        for i in 0..<600 { try tree.put(intKey(i), valueFor(i), in: sink) }
        return (sink, tree)
    }

    static func valueFor(_ i: Int) -> [UInt8] { patternValue(i, count: i % 50 == 7 ? 9000 : 40) }

    /// The leaf holding `key`.
    static func leaf(of key: [UInt8], _ tree: BTree, _ sink: InMemoryPageSink) throws -> PageNumber {
        var path: [PathStep]? = nil
        return try tree.descend(to: key, in: sink, path: &path).number
    }

    /// Reads every key and value by cursor; returns the first error.
    /// The error of a scan that lends every entry and reads every byte lent (BL2: a lent buffer
    /// never spans more than its checked cell), or nil.
    static func lendingScanError(_ tree: BTree, _ sink: InMemoryPageSink) -> (any Error)? {
        do {
            let cursor = tree.cursor(in: sink)
            var more = try cursor.first()
            while more {
                try cursor.withEntry { key, value in
                    _ = key.reduce(0) { $0 &+ Int($1) } &+ value.reduce(0) { $0 &+ Int($1) }
                }
                more = try cursor.next()
            }
            return nil
        } catch {
            return error
        }
    }

    static func scanError(_ tree: BTree, _ sink: InMemoryPageSink) -> (any Error)? {
        do {
            let cursor = tree.cursor(in: sink)
            var more = try cursor.first()
            while more {
                _ = try cursor.value()
                more = try cursor.next()
            }
            return nil
        } catch {
            return error
        }
    }

    @Test func zeroedLeafIsCorruption() throws {
        let (sink, tree) = try Self.makeTree()
        let page = try Self.leaf(of: intKey(300), tree, sink)
        try sink.page(page).mutableBytes.initializeMemory(as: UInt8.self, repeating: 0)
        #expect { try tree.get(intKey(300), in: sink) } throws: { isCorruption($0, at: page) }
        #expect(try tree.get(intKey(0), in: sink) == Self.valueFor(0), "other leaves still read")
        #expect(Self.scanError(tree, sink).map { isCorruption($0, at: page) } == true)
        #expect { try tree.put(intKey(300), [1], in: sink) } throws: { isCorruption($0, at: page) }
        let problems = BTreeChecker.check(tree, in: sink).problems
        #expect(problems.contains { $0.page == page }, "\(problems)")
    }

    @Test func branchPointingAtItselfIsCorruption() throws {
        let (sink, tree) = try Self.makeTree()
        let root = try sink.page(tree.root)
        #expect(root.pageType == .branch)
        root.mutableBytes.setLEU32(tree.root.rawValue, at: BTreeLayout.leftmostChildOffset)
        #expect { try tree.get(intKey(0), in: sink) } throws: { isCorruption($0) }
        #expect { try tree.cursor(in: sink).first() } throws: { isCorruption($0) }
        let live = sink.liveCount
        #expect { try tree.drop(in: sink) } throws: { isCorruption($0, at: tree.root) }
        #expect(sink.liveCount == live, "drop frees nothing when it finds damage")
        let problems = BTreeChecker.check(tree, in: sink).problems
        // The test sink's root is page 2, which no branch may name (BTreeLayout.canBeChild);
        // a deeper page would be caught as reached twice.
        #expect(
            problems.contains {
                $0.page == tree.root && ($0.detail.contains("reached twice") || $0.detail.contains("never a child"))
            },
            "\(problems)")
    }

    @Test func brokenKeyOrderIsReported() throws {
        let (sink, tree) = try Self.makeTree()
        let page = try Self.leaf(of: intKey(300), tree, sink)
        let bytes = try sink.page(page).mutableBytes
        let first = BTreeLayout.headerSize
        let second = first + BTreeLayout.slotSize
        let slot0 = UnsafeRawBufferPointer(bytes).leU16(at: first)
        bytes.setLEU16(UnsafeRawBufferPointer(bytes).leU16(at: second), at: first)
        bytes.setLEU16(slot0, at: second)
        let problems = BTreeChecker.check(tree, in: sink).problems
        #expect(problems.contains { $0.page == page && $0.key != nil && $0.detail.contains("T4") }, "\(problems)")
    }

    @Test func keyOutsideItsSeparatorsIsReported() throws {
        let (sink, tree) = try Self.makeTree()
        let page = try Self.leaf(of: intKey(0), tree, sink)
        let node = try BTreeNode(sink.page(page), number: page)
        // Make the leftmost leaf's last key larger than every key in the tree.
        let last = try node.keyRange(node.count - 1)
        try sink.page(page).mutableBytes[last.start] = 0xFF
        let problems = BTreeChecker.check(tree, in: sink).problems
        #expect(
            problems.contains { $0.page == page && $0.detail.contains("T5") && $0.key?.first == 0xFF }, "\(problems)")
    }

    /// Damage to one field of a leaf page: a name for the failure message, and the change.
    static let leafDamage: [(String, @Sendable (BTreeNode) throws -> Void)] = [
        ("cell count past the page", { $0.buffer.mutableBytes.setLEU16(0xFFFF, at: BTreeLayout.cellCountOffset) }),
        (
            "content start past the page",
            { $0.buffer.mutableBytes.setLEU32(0xFFFF_FFFF, at: BTreeLayout.contentStartOffset) }
        ),
        (
            "fragment count past the page",
            { $0.buffer.mutableBytes.setLEU32(0x10000, at: BTreeLayout.fragmentedOffset) }
        ),
        ("type byte is overflow", { $0.buffer.mutableBytes[0] = PageType.overflow.rawValue }),
        ("type byte is unknown", { $0.buffer.mutableBytes[0] = 0x77 }),
        ("type byte is branch", { $0.buffer.mutableBytes[0] = PageType.branch.rawValue }),
        ("slot points past the page", { $0.buffer.mutableBytes.setLEU16(4094, at: BTreeLayout.headerSize + 2) }),
        ("slot points into the slot array", { $0.buffer.mutableBytes.setLEU16(2, at: BTreeLayout.headerSize + 2) }),
        (
            "key length past the page",
            { node in
                try node.buffer.mutableBytes.setLEU16(0xFFFF, at: node.cellOffset(node.count - 1))
            }
        ),
        (
            "unknown value kind",
            { node in
                try node.buffer.mutableBytes[node.cellOffset(node.count - 1) + BTreeLayout.leafValueKindOffset] = 9
            }
        ),
        (
            "inline value length past the page",
            { node in
                try node.buffer.mutableBytes.setLEU32(
                    0x00FF_FFFF, at: node.cellOffset(node.count - 1) + BTreeLayout.leafValueLengthOffset)
            }
        ),
    ]

    @Test(arguments: leafDamage.indices)
    func damagedLeafFieldIsCorruption(damage: Int) throws {
        let (name, apply) = Self.leafDamage[damage]
        let (sink, tree) = try Self.makeTree()
        let page = try Self.leaf(of: intKey(300), tree, sink)
        try apply(BTreeNode(sink.page(page), number: page))
        let error = Self.scanError(tree, sink)
        #expect(error.map { isCorruption($0, at: page) } == true, "\(name): scan gave \(String(describing: error))")
        let lendingError = Self.lendingScanError(tree, sink)
        #expect(
            lendingError.map { isCorruption($0, at: page) } == true,
            "\(name): lending scan gave \(String(describing: lendingError))")
        let problems = BTreeChecker.check(tree, in: sink).problems
        #expect(problems.contains { $0.page == page }, "\(name): \(problems)")
    }

    /// The leaf cell of the first overflow value and its chain's pages.
    static func overflowChain(_ tree: BTree, _ sink: InMemoryPageSink) throws -> (key: [UInt8], pages: [PageNumber]) {
        let key = intKey(7)
        let leaf = try BTreeNode(sink.page(try leaf(of: key, tree, sink)), number: try leaf(of: key, tree, sink))
        let cell = try leaf.leafCell(leaf.lowerBound(key).index)
        var pages: [PageNumber] = []
        try BTreeOverflow.walk(
            first: PageNumber(leaf.bytes.leU32(at: cell.valueStart)), length: cell.valueLength,
            owner: leaf.number, in: sink
        ) { page, _, _ in pages.append(page) }
        return (key, pages)
    }

    @Test func brokenOverflowChainsAreCorruption() throws {
        let cases: [(String, ([PageNumber], InMemoryPageSink) throws -> PageNumber?)] = [
            (
                "chain cut short",
                { pages, sink in
                    try sink.page(pages[0]).mutableBytes.setLEU32(0, at: BTreeLayout.overflowNextOffset); return nil
                }
            ),
            (
                "chain loops to itself",
                { pages, sink in
                    try sink.page(pages[1]).mutableBytes.setLEU32(
                        pages[1].rawValue, at: BTreeLayout.overflowNextOffset);
                    return pages[1]
                }
            ),
            (
                "wrong page type in chain",
                { pages, sink in
                    try sink.page(pages[1]).mutableBytes[0] = PageType.leaf.rawValue; return pages[1]
                }
            ),
            (
                "wrong used count",
                { pages, sink in
                    try sink.page(pages[0]).mutableBytes.setLEU32(17, at: BTreeLayout.overflowUsedOffset);
                    return pages[0]
                }
            ),
            (
                "chain continues past its length",
                { pages, sink in
                    try sink.page(pages[2]).mutableBytes.setLEU32(
                        pages[0].rawValue, at: BTreeLayout.overflowNextOffset);
                    return pages[2]
                }
            ),
        ]
        for (name, damage) in cases {
            let (sink, tree) = try Self.makeTree()
            let (key, pages) = try Self.overflowChain(tree, sink)
            #expect(pages.count == 3)
            let expectedPage = try damage(pages, sink)
            #expect { try tree.get(key, in: sink) } throws: {
                isCorruption($0, at: expectedPage) || (expectedPage == nil && isCorruption($0))
            }
            #expect { try tree.delete(key, in: sink) } throws: { isCorruption($0) }
            let problems = BTreeChecker.check(tree, in: sink).problems
            #expect(problems.contains { $0.key == key || $0.page == expectedPage }, "\(name): \(problems)")
        }
    }

    /// Random byte flips in random tree pages: every operation either works or throws a
    /// StoreError; nothing crashes, and the checker always returns. BTREE_FLIPS=<n> runs n seeds,
    /// BTREE_FLIP_SEED=<seed> replays one.
    @Test func randomByteFlipsNeverCrash() throws {
        let (original, tree) = try Self.makeTree()
        let treePages = Array(BTreeChecker.check(tree, in: original).pages.keys).sorted()
        var detected = 0
        for seed in testSeeds(
            "BTREE_FLIP_SEED", defaults: Array(1...UInt64(environmentInt("BTREE_FLIPS", default: 150))))
        {
            var rng = SeededGenerator(seed: seed)
            let sink = original.copy()
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let page = treePages.randomElement(using: &rng)!
                // Headers and slot arrays are where damage hurts most: aim there half the time.
                let offset =
                    Bool.random(using: &rng)
                    ? Int.random(in: 0..<64, using: &rng) : Int.random(in: 0..<4096, using: &rng)
                try sink.page(page).mutableBytes[offset] ^= UInt8.random(in: 1...255, using: &rng)
            }
            var errors: [any Error] = []
            func attempt(_ body: () throws -> Void) {
                do { try body() } catch { errors.append(error) }
            }
            let report = BTreeChecker.check(tree, in: sink)
            for i in stride(from: 0, to: 600, by: 7) { attempt { _ = try tree.get(intKey(i), in: sink) } }
            if let error = Self.scanError(tree, sink) { errors.append(error) }
            attempt {
                let cursor = tree.cursor(in: sink)
                var more = try cursor.last()
                while more { more = try cursor.previous() }
            }
            for i in stride(from: 0, to: 600, by: 13) { attempt { try tree.delete(intKey(i), in: sink) } }
            for i in stride(from: 1, to: 600, by: 11) {
                attempt { try tree.put(intKey(i), Self.valueFor(i + 1), in: sink) }
            }
            attempt { try tree.drop(in: sink) }
            for error in errors {
                #expect(error is StoreError, "seed \(seed): \(error)")
            }
            if !errors.isEmpty || !report.problems.isEmpty { detected += 1 }
        }
        #expect(detected > 0)
    }
}

// A B+tree of variable-length byte keys and values over the pager's logical pages.
//
// Keys are ordered bytewise (memcmp; a proper prefix sorts first). Leaves hold every entry;
// branches hold separators that route a search. Page layouts: BTreeLayout.swift and
// docs/FORMAT.md. Splits and merges: BTree+Insert.swift and BTree+Delete.swift.
//
// Invariants (BTreeChecker checks all of them; the code that keeps one names it):
//  T1. The root page number never changes while the tree exists. A root split moves the root's
//      content into a new page and makes the root a branch over it; a root that is a branch with
//      one child takes that child's content back (the child page is freed).
//  T2. Every page reachable from the root is a branch or a leaf of this tree, reached exactly once
//      (no cycles, no page shared with another tree or between two parents).
//  T3. All leaves are at the same depth.
//  T4. Keys in a page are strictly increasing in memcmp order (slot order is key order).
//  T5. In a branch with leftmost child C0 and cells (K1, C1) … (Kn, Cn), every key in the subtree
//      of Ci is >= Ki (for i > 0) and < Ki+1 (for i < n); the bounds of the branch itself also
//      hold for all of them.
//  T6. Every page except the root has at least one cell; a root branch has at least one cell.
//  T7. A leaf value is inline iff its cell fits `BTreeLayout.maxCellBytes`; otherwise its cell
//      holds the value length and the first page of an overflow chain of exactly
//      ceil(length / capacity) pages, each full except the last, the last with next = 0.
//  T8. Every cell lies within [content start, pageSize), cells do not overlap, and the cell bytes
//      plus the fragmented byte count equal pageSize - content start.
//
// Confinement: a `BTree` is a value (its root page number); it does no locking. Reads run on a
// `PageSource` snapshot, writes inside the one write transaction's `PageSink`, on whatever
// thread owns that transaction.

/// A B+tree identified by its root page, which never changes for the tree's life.
///
/// ```swift
/// let tree = try BTree.create(in: transaction)
/// try tree.put(Array("apple".utf8), Array("red".utf8), in: transaction)
/// let colour = try tree.get(Array("apple".utf8), in: transaction)   // "red"
/// ```
public struct BTree: Sendable, Hashable {
    /// The root page: the tree's identity (T1).
    ///
    /// ```swift
    /// catalog[name] = tree.root
    /// ```
    public let root: PageNumber

    /// The tree whose root is `root` (for example, as recorded in the catalog).
    ///
    /// ```swift
    /// let tree = BTree(root: catalog[name]!)
    /// ```
    public init(root: PageNumber) { self.root = root }

    /// The largest value accepted by `put`.
    ///
    /// ```swift
    /// precondition(blob.count <= BTree.maxValueSize)
    /// ```
    public static let maxValueSize = 1 << 30

    /// The longest key accepted by `put` for `pageSize`: four cells with such keys fit a page.
    ///
    /// ```swift
    /// BTree.maxKeySize(pageSize: 4096)   // 1007
    /// ```
    public static func maxKeySize(pageSize: Int) -> Int { BTreeLayout.maxKeySize(pageSize: pageSize) }

    /// Allocates an empty leaf as the root of a new tree.
    ///
    /// ```swift
    /// let tree = try BTree.create(in: transaction)
    /// ```
    /// - Throws: `StoreError.invalidArgument` when the page size is not supported by the format.
    public static func create(in sink: PageSink) throws -> BTree {
        try checkPageSize(sink.pageSize)
        let root = try sink.allocatePage()
        BTreeNode.format(try sink.writablePage(root), leaf: true, leftmost: .none)
        return BTree(root: root)
    }

    /// The value stored under `key`, or nil.
    ///
    /// ```swift
    /// if let value = try tree.get(Array("apple".utf8), in: snapshot) { … }
    /// ```
    /// - Throws: `StoreError.corruption` when a page on the way is damaged.
    public func get(_ key: [UInt8], in source: PageSource) throws -> [UInt8]? {
        var noPath: [PathStep]? = nil
        let leaf = try descend(to: key, in: source, path: &noPath)
        let (index, found) = try leaf.lowerBound(key)
        guard found else { return nil }
        return try leaf.value(index, in: source)
    }

    /// A cursor over the tree, positioned nowhere until a move.
    ///
    /// ```swift
    /// let cursor = tree.cursor(in: snapshot)
    /// var more = try cursor.first()
    /// while more { print(cursor.key); more = try cursor.next() }
    /// ```
    public func cursor(in source: PageSource) -> BTreeCursor { BTreeCursor(tree: self, source: source) }

    #if DEBUG
    /// Debug builds only: traps with the checker's findings when the tree breaks an invariant.
    ///
    /// ```swift
    /// try tree.put(key, value, in: transaction)
    /// tree.checkInvariants(in: transaction)
    /// ```
    public func checkInvariants(in source: PageSource) {
        let problems = BTreeChecker.check(self, in: source).problems
        precondition(problems.isEmpty, "B-tree \(root) breaks its invariants: \(problems)")
    }
    #endif

    // MARK: - Internals shared by reads and writes

    static func checkPageSize(_ pageSize: Int) throws {
        guard pageSize >= BTreeLayout.minPageSize, pageSize <= BTreeLayout.maxPageSize else {
            throw StoreError.invalidArgument(
                "B-tree page size \(pageSize) is outside \(BTreeLayout.minPageSize)...\(BTreeLayout.maxPageSize)")
        }
    }

    /// Descends from the root to the leaf whose range holds `key`, recording the branches passed
    /// in `path` when given. Bounded by `BTreeLayout.maxDepth` so that a cycle is corruption.
    func descend(to key: [UInt8], in source: PageSource, path: inout [PathStep]?) throws -> BTreeNode {
        var page = root
        for _ in 0..<BTreeLayout.maxDepth {
            let node = try BTreeNode(source.page(page), number: page)
            if node.isLeaf { return node }
            let index = try node.childIndex(for: key)
            path?.append(PathStep(page: page, index: index, isLast: index == node.count))
            page = try node.child(index)
        }
        throw btreeCorruption(page, "tree deeper than \(BTreeLayout.maxDepth) levels below root \(root): a cycle?")
    }
}

/// One branch passed on the way down: the page and the child index taken.
struct PathStep {
    var page: PageNumber
    /// 0 = leftmost child, i > 0 = child of cell i - 1.
    var index: Int
    /// Whether `index` was the branch's last child.
    var isLast: Bool
}

extension BTreeNode {
    /// The value of leaf cell `index`, read from its overflow chain when it has one.
    func value(_ index: Int, in source: PageSource) throws -> [UInt8] {
        let cell = try leafCell(index)
        if cell.isOverflow {
            let first = PageNumber(bytes.leU32(at: cell.valueStart))
            return try BTreeOverflow.read(first: first, length: cell.valueLength, owner: number, in: source)
        }
        return Array(bytes[cell.valueStart..<cell.valueStart + cell.valueLength])
    }
}

// Ordered iteration over a tree. The cursor keeps the path from the root to its leaf as a stack of
// (page, index) frames, so `next` and `previous` cost O(1) page reads amortised; leaves carry no
// sibling links. Every page it reads is validated like any other read, and a descent deeper than
// `BTreeLayout.maxDepth` is reported as corruption (a cycle).

/// A position in a tree, moved by `first`, `last`, `seek(atLeast:)`, `next` and `previous`.
///
/// A new cursor is positioned nowhere; `next()` on it acts as `first()` and `previous()` as
/// `last()`. Once a move returns false the cursor is exhausted and further `next`/`previous` calls
/// return false until `first`, `last` or `seek` repositions it.
///
/// Confinement: a cursor belongs to the thread that owns its `PageSource` and is valid while that
/// snapshot or transaction lives; a write to the tree through a `PageSink` invalidates cursors over
/// the same sink (reposition them with `seek`).
///
/// ```swift
/// let cursor = tree.cursor(in: snapshot)
/// var more = try cursor.seek(atLeast: Array("m".utf8))
/// while more {
///     print(cursor.key, try cursor.value())
///     more = try cursor.next()
/// }
/// ```
public final class BTreeCursor {
    private enum State { case unpositioned, positioned, exhausted }

    private struct Frame {
        var node: BTreeNode
        /// Leaf: the cell. Branch: the child index taken (0 = leftmost).
        var index: Int
    }

    private let tree: BTree
    private let source: PageSource
    private var stack: [Frame] = []
    private var state = State.unpositioned
    private var currentKey: [UInt8] = []

    init(tree: BTree, source: PageSource) {
        self.tree = tree
        self.source = source
    }

    /// The key at the cursor; valid after a move returned true.
    ///
    /// ```swift
    /// if try cursor.first() { print(cursor.key) }
    /// ```
    public var key: [UInt8] {
        precondition(state == .positioned, "BTreeCursor.key read while the cursor is not on an entry")
        return currentKey
    }

    /// The value at the cursor, read from its overflow chain when it has one.
    ///
    /// ```swift
    /// if try cursor.seek(atLeast: key) { let value = try cursor.value() }
    /// ```
    public func value() throws -> [UInt8] {
        precondition(state == .positioned, "BTreeCursor.value() called while the cursor is not on an entry")
        let leaf = stack[stack.count - 1]
        return try leaf.node.value(leaf.index, in: source)
    }

    /// Moves to the smallest key; false when the tree is empty.
    ///
    /// ```swift
    /// let isEmpty = try !cursor.first()
    /// ```
    @discardableResult
    public func first() throws -> Bool {
        try move {
            try descendEdge(from: tree.root, first: true)
            return try settle(forward: true)
        }
    }

    /// Moves to the largest key; false when the tree is empty.
    ///
    /// ```swift
    /// if try cursor.last() { print("largest:", cursor.key) }
    /// ```
    @discardableResult
    public func last() throws -> Bool {
        try move {
            try descendEdge(from: tree.root, first: false)
            return try settle(forward: false)
        }
    }

    /// Moves to the first key >= `key`; false when there is none.
    ///
    /// ```swift
    /// if try cursor.seek(atLeast: prefix), cursor.key.starts(with: prefix) { … }
    /// ```
    @discardableResult
    public func seek(atLeast key: [UInt8]) throws -> Bool {
        try move {
            var page = tree.root
            while true {
                let node = try load(page)
                if node.isLeaf {
                    stack.append(Frame(node: node, index: try node.lowerBound(key).index))
                    return try settle(forward: true)
                }
                let index = try node.childIndex(for: key)
                stack.append(Frame(node: node, index: index))
                page = try node.child(index)
            }
        }
    }

    /// Moves to the next larger key; false past the last one.
    ///
    /// ```swift
    /// while try cursor.next() { count += 1 }
    /// ```
    @discardableResult
    public func next() throws -> Bool { try step(forward: true) }

    /// Moves to the next smaller key; false before the first one.
    ///
    /// ```swift
    /// while try cursor.previous() { keys.append(cursor.key) }
    /// ```
    @discardableResult
    public func previous() throws -> Bool { try step(forward: false) }

    // MARK: - Movement

    private func step(forward: Bool) throws -> Bool {
        switch state {
        case .unpositioned: return forward ? try first() : try last()
        case .exhausted: return false
        case .positioned:
            return try move(keepingPath: true) {
                stack[stack.count - 1].index += forward ? 1 : -1
                return try settle(forward: forward)
            }
        }
    }

    /// Runs one move; a move that throws leaves the cursor unpositioned rather than half-way
    /// down a path.
    private func move(keepingPath: Bool = false, _ body: () throws -> Bool) throws -> Bool {
        if !keepingPath { stack.removeAll(keepingCapacity: true) }
        do {
            return try body()
        } catch {
            stack.removeAll()
            state = .unpositioned
            throw error
        }
    }

    private func load(_ page: PageNumber) throws -> BTreeNode {
        guard stack.count < BTreeLayout.maxDepth else {
            throw btreeCorruption(
                page, "tree deeper than \(BTreeLayout.maxDepth) levels below root \(tree.root): a cycle?")
        }
        return try BTreeNode(source.page(page), number: page)
    }

    /// Pushes frames from `page` down to its first (or last) leaf entry.
    private func descendEdge(from page: PageNumber, first: Bool) throws {
        var page = page
        while true {
            let node = try load(page)
            if node.isLeaf {
                stack.append(Frame(node: node, index: first ? 0 : node.count - 1))
                return
            }
            let index = first ? 0 : node.count
            stack.append(Frame(node: node, index: index))
            page = try node.child(index)
        }
    }

    /// Makes the leaf frame point at an entry, crossing to neighbouring leaves when its index ran
    /// off the leaf; records the key or marks the cursor exhausted.
    private func settle(forward: Bool) throws -> Bool {
        while true {
            let leaf = stack[stack.count - 1]
            if leaf.index >= 0, leaf.index < leaf.node.count {
                currentKey = try leaf.node.key(leaf.index)
                state = .positioned
                return true
            }
            stack.removeLast()
            var moved = false
            while let top = stack.last {
                let index = top.index + (forward ? 1 : -1)
                if index >= 0, index <= top.node.count {
                    stack[stack.count - 1].index = index
                    try descendEdge(from: try top.node.child(index), first: forward)
                    moved = true
                    break
                }
                stack.removeLast()
            }
            if !moved {
                state = .exhausted
                return false
            }
        }
    }
}

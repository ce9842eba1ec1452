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
    enum State { case unpositioned, positioned, exhausted }

    struct Frame {
        var node: BTreeNode
        /// Leaf: the cell. Branch: the child index taken (0 = leftmost).
        var index: Int
    }

    let tree: BTree
    private let source: PageSource
    /// The path from the root: internal for the subtree moves of BTree+Subtrees.swift.
    var stack: [Frame] = []
    private(set) var state = State.unpositioned
    /// Where the current key lies in the leaf frame's page, validated by `settle` (range
    /// checked against the page like every cell read), so a move copies no key bytes.
    private var currentKey: (start: Int, length: Int) = (0, 0)

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
        let bytes = stack[stack.count - 1].node.bytes
        return Array(bytes[currentKey.start..<currentKey.start + currentKey.length])
    }

    /// Lends the current entry's key and value bytes to `body`, copying neither when the value is
    /// inline (an overflow value is read into one array first). Keeps BL1–BL3 (BTree+Borrowing.swift):
    /// the buffers are valid only during the call and must not be kept or returned.
    ///
    /// ```swift
    /// while try cursor.next() {
    ///     try cursor.withEntry { key, value in total += value.count }
    /// }
    /// ```
    public func withEntry<R>(
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> R
    ) throws -> R {
        precondition(state == .positioned, "BTreeCursor.withEntry called while the cursor is not on an entry")
        let leaf = stack[stack.count - 1]
        let key = UnsafeRawBufferPointer(
            rebasing: leaf.node.bytes[currentKey.start..<currentKey.start + currentKey.length])
        return try leaf.node.withValue(leaf.index, in: source) { value in try body(key, value) }
    }

    /// Lends the current key's bytes to `body` (valid only during the call, BL1).
    ///
    /// ```swift
    /// let isPast = cursor.withKey { key in compare(key, upper) >= 0 }
    /// ```
    public func withKey<R>(_ body: (_ key: UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        precondition(state == .positioned, "BTreeCursor.withKey called while the cursor is not on an entry")
        let node = stack[stack.count - 1].node
        return try withExtendedLifetime(node) {
            try body(
                UnsafeRawBufferPointer(rebasing: node.bytes[currentKey.start..<currentKey.start + currentKey.length]))
        }
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

    /// Lends the value stored under `key` to `body` (nil when there is none), like
    /// `BTree.withValue(forKey:in:_:)`, but reusing this cursor's path: when the key lies within
    /// the separators above the leaf of the previous lookup or move, only that leaf is searched,
    /// so lookups in key order load no page twice. Afterwards the cursor is unpositioned for
    /// moves (`next()` acts as `first()`). Keeps BL1 (the buffer is valid only during the call).
    ///
    /// Like every cursor, only while the tree does not change (a snapshot, or a write transaction
    /// between its writes): a write through the sink makes the remembered path stale.
    ///
    /// ```swift
    /// let lookup = tree.cursor(in: snapshot)
    /// for key in sortedKeys { total += try lookup.withValue(forKey: key) { $0?.count ?? 0 } }
    /// ```
    public func withValue<R>(
        forKey key: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer?) throws -> R
    ) throws -> R {
        state = .unpositioned
        let leaf: BTreeNode
        do {
            if let last = stack.last, last.node.isLeaf, try pathCovers(key) {
                leaf = last.node
            } else {
                stack.removeAll(keepingCapacity: true)
                var page = tree.root
                while true {
                    let node = try load(page)
                    if node.isLeaf {
                        stack.append(Frame(node: node, index: 0))
                        leaf = node
                        break
                    }
                    let index = try node.childIndex(for: key)
                    stack.append(Frame(node: node, index: index))
                    page = try node.child(index)
                }
            }
        } catch {
            stack.removeAll()
            throw error
        }
        let (index, found) = try leaf.lowerBound(key)
        guard found else { return try body(nil) }
        return try leaf.withValue(index, in: source, body)
    }

    /// Whether `key` lies within the separators that bound the stack's leaf (T5): the nearest
    /// branch frame that took a child after its first bounds it below, the nearest that took a
    /// child before its last bounds it above.
    private func pathCovers(_ key: UnsafeRawBufferPointer) throws -> Bool {
        var needLower = true, needUpper = true
        var level = stack.count - 2
        while level >= 0, needLower || needUpper {
            let frame = stack[level]
            if needLower, frame.index > 0 {
                if try frame.node.compare(frame.index - 1, key) > 0 { return false }
                needLower = false
            }
            if needUpper, frame.index < frame.node.count {
                if try frame.node.compare(frame.index, key) <= 0 { return false }
                needUpper = false
            }
            level -= 1
        }
        return true
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
    func move(keepingPath: Bool = false, _ body: () throws -> Bool) throws -> Bool {
        if !keepingPath { stack.removeAll(keepingCapacity: true) }
        do {
            return try body()
        } catch {
            stack.removeAll()
            state = .unpositioned
            throw error
        }
    }

    func load(_ page: PageNumber) throws -> BTreeNode {
        guard stack.count < BTreeLayout.maxDepth else {
            throw btreeCorruption(
                page, "tree deeper than \(BTreeLayout.maxDepth) levels below root \(tree.root): a cycle?")
        }
        return try BTreeNode(source.page(page), number: page)
    }

    /// Pushes frames from `page` down to its first (or last) leaf entry.
    func descendEdge(from page: PageNumber, first: Bool) throws {
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
    func settle(forward: Bool) throws -> Bool {
        while true {
            let leaf = stack[stack.count - 1]
            if leaf.index >= 0, leaf.index < leaf.node.count {
                currentKey = try leaf.node.keyRange(leaf.index)
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

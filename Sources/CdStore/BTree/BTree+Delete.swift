// Delete, the merges and redistributions it causes, and dropping a whole tree.
//
// After a cell is removed, a page left less than a third full is balanced with a sibling: when
// both fit one page they merge (the right page is freed and its separator leaves the parent,
// which may then be underfull in turn); otherwise their cells are shared out evenly and the
// separator between them is replaced. A root branch left with a single child takes that child's
// content (keeps T1). Emptied pages and overflow chains go back to the pager, so churn does not
// grow the file.

extension BTree {
    /// Removes `key` and its value; returns whether the key was present.
    ///
    /// ```swift
    /// let removed = try tree.delete(Array("apple".utf8), in: transaction)
    /// ```
    /// - Throws: `StoreError.corruption` when a page on the way is damaged.
    @discardableResult
    public func delete(_ key: [UInt8], in sink: PageSink) throws -> Bool {
        try BTree.checkPageSize(sink.pageSize)
        var path: [PathStep]? = []
        path!.reserveCapacity(8)  // one allocation for any realistic depth, not regrowth per level
        let found = try descend(to: key, in: sink, path: &path)
        let (index, exists) = try found.lowerBound(key)
        guard exists else { return false }
        var leaf = try BTreeNode(sink.writablePage(found.number), number: found.number, expectLeaf: true)
        try leaf.freeOverflow(index, in: sink)
        try leaf.remove(at: index)
        try rebalance(leaf, path: path ?? [], in: sink)
        return true
    }

    /// Lends the value stored under `key` to `body` and, when `body` returns a result, removes
    /// the key in the same descent: a caller that reads what it is about to remove (a deleted
    /// object's record) reads the leaf once, not once to read and again to delete. Returns nil,
    /// changing nothing, when the key is not there or `body` returns nil. The value is lent
    /// before the leaf is written (BL1, BL3).
    ///
    /// ```swift
    /// let old = try tree.take(key, in: transaction) { Array($0) }
    /// ```
    /// - Throws: `StoreError.corruption` when a page on the way is damaged, or what `body` throws
    ///   (nothing is removed then).
    public func take<R>(
        _ key: [UInt8], in sink: PageSink, _ body: (UnsafeRawBufferPointer) throws -> R?
    ) throws -> R? {
        try BTree.checkPageSize(sink.pageSize)
        var path: [PathStep]? = []
        path!.reserveCapacity(8)
        let found = try descend(to: key, in: sink, path: &path)
        let (index, exists) = try found.lowerBound(key)
        guard exists, let result = try found.withValue(index, in: sink, body) else { return nil }
        var leaf = try BTreeNode(sink.writablePage(found.number), number: found.number, expectLeaf: true)
        try leaf.freeOverflow(index, in: sink)
        try leaf.remove(at: index)
        try rebalance(leaf, path: path ?? [], in: sink)
        return result
    }

    /// Frees every page of the tree: branches, leaves, overflow chains and the root. The whole
    /// tree is checked for cycles and shared pages before any page is freed.
    ///
    /// ```swift
    /// try tree.drop(in: transaction)
    /// catalog[name] = nil
    /// ```
    /// - Throws: `StoreError.corruption` when a page is damaged or reached twice.
    public func drop(in sink: PageSink) throws {
        var pages: [PageNumber] = []
        var seen = Set<PageNumber>()
        func visit(_ page: PageNumber) throws {
            guard seen.insert(page).inserted else {
                throw btreeCorruption(page, "page reached twice while dropping tree \(root)")
            }
            pages.append(page)
        }
        var level = [root]
        for _ in 0..<BTreeLayout.maxDepth {
            var below: [PageNumber] = []
            for page in level {
                try visit(page)
                let node = try BTreeNode(sink.page(page), number: page)
                if node.isLeaf {
                    for i in 0..<node.count {
                        let cell = try node.leafCell(i)
                        guard cell.isOverflow else { continue }
                        let first = PageNumber(node.bytes.leU32(at: cell.valueStart))
                        try BTreeOverflow.walk(first: first, length: cell.valueLength, owner: page, in: sink) {
                            overflow, _, _ in
                            try visit(overflow)
                        }
                    }
                } else {
                    for i in 0...node.count { below.append(try node.child(i)) }
                }
            }
            if below.isEmpty {
                for page in pages { try sink.freePage(page) }
                return
            }
            level = below
        }
        throw btreeCorruption(root, "tree deeper than \(BTreeLayout.maxDepth) levels: a cycle?")
    }

    /// Restores T6 and the fill bound after `node` lost a cell, walking up `path` while merges
    /// leave parents underfull.
    func rebalance(_ node: BTreeNode, path: [PathStep], in sink: PageSink) throws {
        var node = node
        var path = path
        while let step = path.last {
            // A third, not a half: fewer rebalances on delete-heavy work, and a merged or
            // redistributed pair is then at least half full.
            let underfull = BTreeLayout.usableBytes(pageSize: node.pageSize) / 3
            if node.count > 0, node.usedBytes >= underfull { return }
            var parent = try BTreeNode(sink.writablePage(step.page), number: step.page, expectLeaf: false)
            guard parent.count > 0 else { throw btreeCorruption(step.page, "branch has no separator cells") }
            // The pair is (child leftIndex, child leftIndex + 1); parent cell leftIndex separates them.
            let leftIndex = step.index < parent.count ? step.index : step.index - 1
            let leftPage = try parent.child(leftIndex)
            let rightPage = try parent.child(leftIndex + 1)
            guard leftPage != rightPage, leftPage != parent.number, rightPage != parent.number else {
                throw btreeCorruption(
                    parent.number,
                    "children \(leftIndex) and \(leftIndex + 1) are pages \(leftPage) and \(rightPage): "
                        + "a shared page or a cycle"
                )
            }
            var left = try BTreeNode(sink.writablePage(leftPage), number: leftPage, expectLeaf: node.isLeaf)
            var right = try BTreeNode(sink.writablePage(rightPage), number: rightPage, expectLeaf: node.isLeaf)
            var cells = try left.allCells()
            if !node.isLeaf {
                cells.append(BTreeNode.makeBranchCell(try parent.key(leftIndex), child: right.leftmostChild))
            }
            cells.append(contentsOf: try right.allCells())
            let bytes = cells.reduce(0) { $0 + $1.count + BTreeLayout.slotSize }
            if bytes <= BTreeLayout.usableBytes(pageSize: node.pageSize) {
                try left.rewrite(leftmost: left.leftmostChild, cells: cells)
                try sink.freePage(rightPage)
                try parent.remove(at: leftIndex)
                node = parent
                path.removeLast()
                continue
            }
            let separator: [UInt8]
            if node.isLeaf {
                let split = BTree.balancedSplit(cells, isLeaf: true)
                try left.rewrite(leftmost: .none, cells: cells[..<split])
                try right.rewrite(leftmost: .none, cells: cells[split...])
                separator = BTree.shortestSeparator(
                    BTreeNode.cellKey(cells[split - 1], leaf: true), BTreeNode.cellKey(cells[split], leaf: true))
            } else {
                let middle = BTree.balancedSplit(cells, isLeaf: false)
                try left.rewrite(leftmost: left.leftmostChild, cells: cells[..<middle])
                try right.rewrite(leftmost: BTreeNode.cellChild(cells[middle]), cells: cells[(middle + 1)...])
                separator = Array(BTreeNode.cellKey(cells[middle], leaf: false))
            }
            // The new separator may be longer than the old one, so the parent may have to split.
            try parent.remove(at: leftIndex)
            try insert(
                BTreeNode.makeBranchCell(separator, child: rightPage), at: leftIndex, into: &parent,
                path: Array(path.dropLast()), in: sink)
            return
        }
        try shrinkRoot(node, in: sink)
    }

    /// While the root is a branch with a single child, moves that child's content into the root
    /// and frees the child (keeps T1 and T6).
    private func shrinkRoot(_ rootNode: BTreeNode, in sink: PageSink) throws {
        var rootNode = rootNode
        for _ in 0..<BTreeLayout.maxDepth {
            guard !rootNode.isLeaf, rootNode.count == 0 else { return }
            let childPage = rootNode.leftmostChild
            guard childPage != root else { throw btreeCorruption(root, "root branch points at itself") }
            let child = try BTreeNode(sink.page(childPage), number: childPage)
            rootNode.buffer.base.copyMemory(from: child.buffer.base, byteCount: rootNode.pageSize)
            try sink.freePage(childPage)
            rootNode = try BTreeNode(rootNode.buffer, number: root)
        }
        throw btreeCorruption(root, "root branch chain deeper than \(BTreeLayout.maxDepth) levels")
    }
}

// Insert and replace, and the page splits they cause.
//
// A cell goes into its leaf in place (a slot shift, and a compaction when the free space is
// fragmented). A full page splits in two; its new right sibling's separator goes into the parent,
// which may split in turn. A split of the root first moves the root's content into a new child
// (keeps T1). Appending past the last key of the rightmost page (a bulk load in key order) leaves
// the full page as it is and starts the new sibling with just the new cell, like SQLite's quick
// balance, so that sequential loads fill pages instead of leaving them half empty.
//
// Invariants:
//  FZ1. A leaf split after an insert that continues a run (the cell just before the new one is
//       the page's most recently written cell, at its content start) never leaves the left page
//       less full than a balanced split: the new cell ends the left page when that keeps at least
//       half the bytes there, and starts a page of its own when it is the page's last cell. Runs
//       in the middle of a tree (a to-many relationship tree, keyed by source then target, gets one
//       run per source) then fill their pages instead of leaving them half empty.
//  FZ2. The new cell is the lowest cell of the page it lands in after such a split, so that the
//       next insert of the run is recognised again.

extension BTree {
    /// Stores `value` under `key`, replacing any value it had.
    ///
    /// ```swift
    /// try tree.put(Array("apple".utf8), Array("green".utf8), in: transaction)
    /// ```
    /// - Throws: `StoreError.keyTooLarge`, `StoreError.valueTooLarge`, or `StoreError.corruption`
    ///   when a page on the way is damaged.
    public func put(_ key: [UInt8], _ value: [UInt8], in sink: PageSink) throws {
        let pageSize = sink.pageSize
        try BTree.checkPageSize(pageSize)
        let keyLimit = BTree.maxKeySize(pageSize: pageSize)
        guard key.count <= keyLimit else { throw StoreError.keyTooLarge(size: key.count, limit: keyLimit) }
        guard value.count <= BTree.maxValueSize else {
            throw StoreError.valueTooLarge(size: value.count, limit: BTree.maxValueSize)
        }
        var path: [PathStep]? = []
        path!.reserveCapacity(8)  // one allocation for any realistic depth, not regrowth per level
        let found = try descend(to: key, in: sink, path: &path)
        var leaf = try BTreeNode(sink.writablePage(found.number), number: found.number, expectLeaf: true)
        let (index, exists) = try leaf.lowerBound(key)
        if exists {
            let old = try leaf.leafCell(index)
            if !old.isOverflow, old.valueLength == value.count {
                // Same key, same inline length: overwrite the value bytes, nothing moves.
                value.withUnsafeBytes { new in
                    guard let source = new.baseAddress else { return }  // an empty value: nothing to copy
                    (leaf.buffer.base + old.valueStart).copyMemory(from: source, byteCount: new.count)
                }
                return
            }
            try leaf.freeOverflow(index, in: sink)
            try leaf.remove(at: index)
        }
        let cell = try makeLeafCell(key, value, in: sink)
        try insert(cell, at: index, into: &leaf, path: path ?? [], in: sink)
    }

    /// A leaf cell for `key` and `value`, writing the value's overflow chain when it is not inline (T7).
    private func makeLeafCell(_ key: [UInt8], _ value: [UInt8], in sink: PageSink) throws -> [UInt8] {
        let inline = BTreeLayout.isInline(keyLength: key.count, valueLength: value.count, pageSize: sink.pageSize)
        var cell: [UInt8] = []
        cell.reserveCapacity(BTreeLayout.leafCellHeaderSize + key.count + (inline ? value.count : 4))
        cell.appendLEU16(key.count)
        cell.append(inline ? BTreeLayout.valueKindInline : BTreeLayout.valueKindOverflow)
        cell.appendLEU32(UInt32(value.count))
        cell.append(contentsOf: key)
        if inline {
            cell.append(contentsOf: value)
        } else {
            cell.appendLEU32(try BTreeOverflow.write(value, in: sink).rawValue)
        }
        return cell
    }

    /// Inserts `cell` as cell `index` of `node`, splitting it (and its ancestors on `path`) when
    /// it does not fit.
    func insert(_ cell: [UInt8], at index: Int, into node: inout BTreeNode, path: [PathStep], in sink: PageSink) throws
    {
        if node.fits(cell.count) {
            try node.insert(cell, at: index)
            return
        }
        let continuesRun = try node.isLeaf && index > 0 && node.cellOffset(index - 1) == node.contentStart
        var cells = try node.allCells()
        cells.insert(cell, at: index)
        if cells.reduce(0, { $0 + $1.count + BTreeLayout.slotSize }) <= BTreeLayout.usableBytes(pageSize: node.pageSize)
        {
            // Only a damaged header (an overstated fragment count) gets here: the cells do fit.
            try node.rewrite(leftmost: node.leftmostChild, cells: cells)
            return
        }
        // More than a page of cells, none over a quarter page: at least five, so both halves are non-empty.
        var path = path
        if path.isEmpty {
            node = try pushRootDown(node, in: sink)
            path = [PathStep(page: root, index: 0, isLast: true)]
        }
        let appending = index == cells.count - 1 && path.allSatisfy(\.isLast)
        let rightPage = try sink.allocatePage()
        let rightBuffer = try sink.writablePage(rightPage)
        let separator: [UInt8]
        if node.isLeaf {
            let split =
                appending
                ? cells.count - 1
                : BTree.leafSplit(cells, inserted: index, continuesRun: continuesRun, pageSize: node.pageSize)
            var right = try BTreeNode.empty(rightBuffer, number: rightPage, leaf: true, leftmost: .none)
            try node.rewrite(leftmost: .none, cells: cells[..<split])
            try right.rewrite(leftmost: .none, cells: cells[split...])
            separator = BTree.shortestSeparator(
                BTreeNode.cellKey(cells[split - 1], leaf: true), BTreeNode.cellKey(cells[split], leaf: true))
        } else {
            // The middle cell moves up: its key becomes the separator, its child the right page's leftmost.
            let middle = appending ? cells.count - 2 : BTree.balancedSplit(cells, isLeaf: false)
            let rightLeftmost = BTreeNode.cellChild(cells[middle])
            var right = try BTreeNode.empty(rightBuffer, number: rightPage, leaf: false, leftmost: rightLeftmost)
            try node.rewrite(leftmost: node.leftmostChild, cells: cells[..<middle])
            try right.rewrite(leftmost: rightLeftmost, cells: cells[(middle + 1)...])
            separator = Array(BTreeNode.cellKey(cells[middle], leaf: false))
        }
        let step = path.removeLast()
        var parent = try BTreeNode(sink.writablePage(step.page), number: step.page, expectLeaf: false)
        try insert(
            BTreeNode.makeBranchCell(separator, child: rightPage), at: step.index, into: &parent, path: path, in: sink)
    }

    /// Moves the root's content into a new page and makes the root a branch whose only child is
    /// that page (keeps T1). Returns the new child.
    private func pushRootDown(_ rootNode: BTreeNode, in sink: PageSink) throws -> BTreeNode {
        let childPage = try sink.allocatePage()
        let childBuffer = try sink.writablePage(childPage)
        childBuffer.base.copyMemory(from: rootNode.buffer.base, byteCount: rootNode.pageSize)
        BTreeNode.format(rootNode.buffer, leaf: false, leftmost: childPage)
        return try BTreeNode(childBuffer, number: childPage, expectLeaf: rootNode.isLeaf)
    }

    /// The split point of a full leaf's `cells` (the new one at `inserted` included): balanced,
    /// unless the insert continues a run (keeps FZ1, FZ2: the new cell is then the last cell
    /// written to its page, by `rewrite`, which writes cells downwards in list order).
    static func leafSplit(_ cells: [[UInt8]], inserted: Int, continuesRun: Bool, pageSize: Int) -> Int {
        let balanced = balancedSplit(cells, isLeaf: true)
        guard continuesRun else { return balanced }
        if inserted == cells.count - 1 { return inserted }
        guard inserted + 1 > balanced else { return balanced }
        let leftBytes = cells[...inserted].reduce(0) { $0 + $1.count + BTreeLayout.slotSize }
        return leftBytes <= BTreeLayout.usableBytes(pageSize: pageSize) ? inserted + 1 : balanced
    }

    /// The split point of `cells` that balances their bytes: for a leaf the first cell of the right
    /// half, for a branch the cell that moves up. Both halves fit a page because no cell takes
    /// more than a quarter of it.
    static func balancedSplit(_ cells: [[UInt8]], isLeaf: Bool) -> Int {
        let total = cells.reduce(0) { $0 + $1.count + BTreeLayout.slotSize }
        var left = 0
        var split = 0
        while split < cells.count, left + cells[split].count + BTreeLayout.slotSize <= total / 2 {
            left += cells[split].count + BTreeLayout.slotSize
            split += 1
        }
        return isLeaf ? min(max(split, 1), cells.count - 1) : min(max(split, 1), cells.count - 2)
    }

    /// The shortest key `s` with `low < s <= high` (suffix truncation; `low < high`).
    static func shortestSeparator(_ low: ArraySlice<UInt8>, _ high: ArraySlice<UInt8>) -> [UInt8] {
        var common = 0
        while common < low.count, common < high.count,
            low[low.startIndex + common] == high[high.startIndex + common]
        {
            common += 1
        }
        return Array(high.prefix(common + 1))
    }
}

extension BTreeNode {
    /// An empty branch or leaf in `buffer`.
    static func empty(_ buffer: PageBuffer, number: PageNumber, leaf: Bool, leftmost: PageNumber) throws -> BTreeNode {
        format(buffer, leaf: leaf, leftmost: leftmost)
        return try BTreeNode(buffer, number: number)
    }

    /// Frees the overflow chain of leaf cell `index`, if it has one.
    func freeOverflow(_ index: Int, in sink: PageSink) throws {
        let cell = try leafCell(index)
        guard cell.isOverflow else { return }
        let first = PageNumber(bytes.leU32(at: cell.valueStart))
        try BTreeOverflow.free(first: first, length: cell.valueLength, owner: number, in: sink)
    }
}

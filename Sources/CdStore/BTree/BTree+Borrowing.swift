// Reads that lend a tree's bytes instead of copying them: a point lookup that passes the stored
// value to a closure, and the cursor's `withEntry`/`withKey` (BTreeCursor.swift). A scan or a
// lookup that only inspects an entry then allocates nothing for it.
//
// Invariants:
//  BL1. A lent buffer is valid only while the closure it is passed to runs. It points into a
//       `PageBuffer` that the lender keeps alive for that call (the node's buffer, held by the
//       node and `withExtendedLifetime`) or into an array the lender owns for that call (an
//       overflow value); it must not be stored, returned or captured by an escaping closure.
//  BL2. A lent buffer never spans more than the checked cell: its range comes from `leafCell` or
//       `keyRange`, which check every offset and length against the page (hostile pages are
//       corruption errors, never reads past the page), so a lent buffer is bounds-checked data.
//  BL3. Pages are never written while lent (PB2): readers get shared, read-only buffers, and a
//       writer's own pages are not changed while one of its reads is lending them (a closure
//       that writes to the same tree breaks this and is a programming error).

extension BTree {
    /// Lends the value stored under `key` to `body` (nil when there is none), without copying an
    /// inline value. The buffer is valid only during the call (BL1).
    ///
    /// ```swift
    /// let length = try tree.withValue(forKey: keyBytes, in: snapshot) { $0?.count }
    /// ```
    /// - Throws: `StoreError.corruption` when a page on the way is damaged, or what `body` throws.
    public func withValue<R>(
        forKey key: UnsafeRawBufferPointer, in source: PageSource, _ body: (UnsafeRawBufferPointer?) throws -> R
    ) throws -> R {
        var page = root
        for _ in 0..<BTreeLayout.maxDepth {
            let node = try BTreeNode(source.page(page), number: page)
            if node.isLeaf {
                let (index, found) = try node.lowerBound(key)
                guard found else { return try body(nil) }
                return try node.withValue(index, in: source) { try body($0) }
            }
            page = try node.child(try node.childIndex(for: key))
        }
        throw btreeCorruption(page, "tree deeper than \(BTreeLayout.maxDepth) levels below root \(root): a cycle?")
    }
}

extension BTreeNode {
    /// Lends the value of leaf cell `index` to `body`: the inline bytes in place, an overflow
    /// value read into an array first. Keeps BL1 and BL2.
    func withValue<R>(_ index: Int, in source: PageSource, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        let cell = try leafCell(index)
        if cell.isOverflow {
            let first = PageNumber(bytes.leU32(at: cell.valueStart))
            let value = try BTreeOverflow.read(first: first, length: cell.valueLength, owner: number, in: source)
            return try value.withUnsafeBytes { try body($0) }
        }
        return try withExtendedLifetime(buffer) {
            try body(UnsafeRawBufferPointer(rebasing: bytes[cell.valueStart..<cell.valueStart + cell.valueLength]))
        }
    }
}

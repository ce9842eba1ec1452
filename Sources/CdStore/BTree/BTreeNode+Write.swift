// Changing a slotted page in place: insert and remove one cell (O(page) at worst, for the slot
// shift and an occasional compaction), and rewrite a page wholesale from a list of cells when a
// split or merge redistributes them.

extension BTreeNode {
    // MARK: - Cells moved between pages

    /// The key bytes of a cell taken out of a page with `BTreeNode.cellBytes`.
    static func cellKey(_ cell: [UInt8], leaf: Bool) -> ArraySlice<UInt8> {
        let length = Int(cell[0]) | Int(cell[1]) << 8
        let start = leaf ? BTreeLayout.leafCellHeaderSize : BTreeLayout.branchCellHeaderSize
        return cell[start..<start + length]
    }

    /// The child of a branch cell taken out of a page.
    static func cellChild(_ cell: [UInt8]) -> PageNumber {
        let o = BTreeLayout.branchChildOffset
        return PageNumber(
            UInt32(cell[o]) | UInt32(cell[o + 1]) << 8 | UInt32(cell[o + 2]) << 16 | UInt32(cell[o + 3]) << 24)
    }

    /// A branch cell for `key` pointing at `child`.
    static func makeBranchCell<Key: Collection<UInt8>>(_ key: Key, child: PageNumber) -> [UInt8] {
        var cell: [UInt8] = []
        cell.reserveCapacity(BTreeLayout.branchCellHeaderSize + key.count)
        cell.appendLEU16(key.count)
        cell.appendLEU32(child.rawValue)
        cell.append(contentsOf: key)
        return cell
    }

    // MARK: - In-place changes

    /// Formats `buffer` as an empty branch or leaf page.
    static func format(_ buffer: PageBuffer, leaf: Bool, leftmost: PageNumber) {
        let m = buffer.mutableBytes
        for i in 0..<BTreeLayout.headerSize { m[i] = 0 }
        m[BTreeLayout.typeOffset] = leaf ? PageType.leaf.rawValue : PageType.branch.rawValue
        m.setLEU32(UInt32(buffer.count), at: BTreeLayout.contentStartOffset)
        m.setLEU32(leftmost.rawValue, at: BTreeLayout.leftmostChildOffset)
    }

    /// Whether a cell of `size` bytes fits, compacting the page first if need be.
    func fits(_ size: Int) -> Bool {
        usedBytes + size + BTreeLayout.slotSize <= BTreeLayout.usableBytes(pageSize: pageSize)
    }

    /// Inserts `cell` so that it becomes cell `index`. The caller checked `fits` (keeps the slot
    /// order: the caller found `index` by searching the key).
    mutating func insert(_ cell: [UInt8], at index: Int) throws {
        precondition(index >= 0 && index <= count && fits(cell.count), "insert without room")
        if contentStart - slotsEnd < cell.count + BTreeLayout.slotSize {
            try compact()
            guard contentStart - slotsEnd >= cell.count + BTreeLayout.slotSize else {
                throw btreeCorruption(number, "header claims free space the cells do not leave")
            }
        }
        let m = buffer.mutableBytes
        let start = contentStart - cell.count
        cell.withUnsafeBytes {
            m.baseAddress!.advanced(by: start).copyMemory(from: $0.baseAddress!, byteCount: cell.count)
        }
        let slot = BTreeLayout.headerSize + index * BTreeLayout.slotSize
        (m.baseAddress! + slot + BTreeLayout.slotSize).copyMemory(
            from: m.baseAddress! + slot, byteCount: (count - index) * BTreeLayout.slotSize)
        m.setLEU16(start, at: slot)
        count += 1
        m.setLEU16(count, at: BTreeLayout.cellCountOffset)
        m.setLEU32(UInt32(start), at: BTreeLayout.contentStartOffset)
    }

    /// Removes cell `index`; its bytes become a fragment unless they were the lowest cell.
    mutating func remove(at index: Int) throws {
        let offset = try cellOffset(index)
        let size = isLeaf ? try leafCell(index).size : try branchCell(index).size
        let m = buffer.mutableBytes
        let slot = BTreeLayout.headerSize + index * BTreeLayout.slotSize
        (m.baseAddress! + slot).copyMemory(
            from: m.baseAddress! + slot + BTreeLayout.slotSize,
            byteCount: (count - index - 1) * BTreeLayout.slotSize)
        count -= 1
        m.setLEU16(count, at: BTreeLayout.cellCountOffset)
        if offset == contentStart {
            m.setLEU32(UInt32(offset + size), at: BTreeLayout.contentStartOffset)
        } else {
            m.setLEU32(UInt32(min(fragmented + size, pageSize - contentStart)), at: BTreeLayout.fragmentedOffset)
        }
    }

    /// Sets child `index` (0 = leftmost, `i > 0` = child of cell `i - 1`).
    func setChild(_ index: Int, to page: PageNumber) throws {
        let m = buffer.mutableBytes
        if index == 0 {
            m.setLEU32(page.rawValue, at: BTreeLayout.leftmostChildOffset)
        } else {
            _ = try branchCell(index - 1)
            m.setLEU32(page.rawValue, at: try cellOffset(index - 1) + BTreeLayout.branchChildOffset)
        }
    }

    /// Every cell's bytes, in key order; throws when they could not all fit the page (overlapping
    /// cells in a damaged page), so that splits and merges never overflow a page.
    func allCells() throws -> [[UInt8]] {
        var cells: [[UInt8]] = []
        cells.reserveCapacity(count)
        var total = 0
        for i in 0..<count {
            let cell = try cellBytes(i)
            total += cell.count + BTreeLayout.slotSize
            cells.append(cell)
        }
        guard total <= BTreeLayout.usableBytes(pageSize: pageSize) else {
            throw btreeCorruption(
                number,
                "cells overlap: \(total) bytes of cells and slots in "
                    + "\(BTreeLayout.usableBytes(pageSize: pageSize)) bytes of room"
            )
        }
        return cells
    }

    /// Moves the cells together at the end of the page, removing fragments.
    mutating func compact() throws {
        try rewrite(leftmost: leftmostChild, cells: try allCells())
    }

    /// Replaces the whole content of the page with `cells` (already in key order). Throws, before
    /// changing anything, when they do not fit: only cells from a damaged page can cause that.
    mutating func rewrite<Cells: Collection<[UInt8]>>(leftmost: PageNumber, cells: Cells) throws {
        let total = cells.reduce(0) { $0 + $1.count + BTreeLayout.slotSize }
        guard total <= BTreeLayout.usableBytes(pageSize: pageSize) else {
            throw btreeCorruption(number, "\(total) bytes of cells from a damaged page do not fit one page")
        }
        BTreeNode.format(buffer, leaf: isLeaf, leftmost: leftmost)
        let m = buffer.mutableBytes
        var start = pageSize
        var slot = BTreeLayout.headerSize
        for cell in cells {
            start -= cell.count
            cell.withUnsafeBytes {
                m.baseAddress!.advanced(by: start).copyMemory(from: $0.baseAddress!, byteCount: cell.count)
            }
            m.setLEU16(start, at: slot)
            slot += BTreeLayout.slotSize
        }
        count = cells.count
        m.setLEU16(count, at: BTreeLayout.cellCountOffset)
        m.setLEU32(UInt32(start), at: BTreeLayout.contentStartOffset)
    }
}

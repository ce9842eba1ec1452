// The form in which a branch or leaf page is deflated: the same cells, slots and header fields,
// with the cells packed in key order from the page end down and the free gap zeroed.
//
// A slotted page in memory keeps its cells in insertion order, with fragments of removed cells
// and stale bytes of earlier contents in its free gap (a split's `rewrite` only overwrites what
// the new cells take). Neither means anything, and both cost deflate: stale bytes compress like
// data, and neighbouring keys (which share prefixes, big-endian numbers most of all) lie far apart.
// Packing them in key order and zeroing the gap shrinks index and relationship pages by a fifth to
// a third and makes them faster to deflate. The page it produces is a valid page of the same tree
// (BTree T4–T8) with the same slot order, so a reader cannot tell it from the one in memory but
// by cell offsets, which nothing keeps across reads.
//
// Invariants:
//  FZ3. `write` either returns false and leaves the page to be compressed as it is (not a branch
//       or leaf, or header and cells that disagree: a damaged page is stored unchanged for the
//       reader and the verifier to report), or produces a page with the same type, flags, cell
//       count, leftmost child, and cells in the same slot order, with no fragments and a zeroed gap.
//  FZ4. It reads only inside `page` and writes only inside `out`, whatever the page's bytes say.

/// Packs a branch or leaf page for compression (FZ3, FZ4).
enum BTreeCompactForm {
    /// Writes the compact form of `page` into `out` (of the same length) and returns true, or
    /// returns false (leaving `out` unspecified) when `page` is not a well-formed branch or leaf.
    static func write(_ page: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) -> Bool {
        let pageSize = page.count
        guard out.count == pageSize, pageSize >= BTreeLayout.headerSize, let source = page.baseAddress,
            let target = out.baseAddress
        else { return false }
        let type = page[BTreeLayout.typeOffset]
        let isLeaf: Bool
        switch type {
        case PageType.leaf.rawValue: isLeaf = true
        case PageType.branch.rawValue: isLeaf = false
        default: return false
        }
        let count = Int(page.leU16(at: BTreeLayout.cellCountOffset))
        let contentStart = Int(page.leU32(at: BTreeLayout.contentStartOffset))
        let fragmented = Int(page.leU32(at: BTreeLayout.fragmentedOffset))
        let slotsEnd = BTreeLayout.headerSize + count * BTreeLayout.slotSize
        guard slotsEnd <= contentStart, contentStart <= pageSize, fragmented <= pageSize - contentStart else {
            return false
        }
        let cellHeader = isLeaf ? BTreeLayout.leafCellHeaderSize : BTreeLayout.branchCellHeaderSize
        target.copyMemory(from: source, byteCount: BTreeLayout.headerSize)
        var end = pageSize
        for i in 0..<count {
            let slot = BTreeLayout.headerSize + i * BTreeLayout.slotSize
            let offset = Int(page.leU16(at: slot))
            guard offset >= contentStart, offset + cellHeader <= pageSize else { return false }
            var size = cellHeader + Int(page.leU16(at: offset))  // both key lengths are at offset 0
            if isLeaf {
                guard
                    let stored = BTreeLayout.storedValueBytes(
                        kind: page[offset + BTreeLayout.leafValueKindOffset],
                        valueLength: Int(page.leU32(at: offset + BTreeLayout.leafValueLengthOffset)))
                else { return false }
                size += stored
            }
            // FZ4: the cell lies inside the page, and the packed cells never reach the slot array.
            guard size <= pageSize - offset, size <= end - slotsEnd else { return false }
            end -= size
            (target + end).copyMemory(from: source + offset, byteCount: size)
            out.setLEU16(end, at: slot)
        }
        // FZ3: cells plus fragments cover exactly [content start, page end) (BTree T8).
        guard (pageSize - end) + fragmented == pageSize - contentStart else { return false }
        (target + slotsEnd).initializeMemory(as: UInt8.self, repeating: 0, count: end - slotsEnd)
        out.setLEU32(UInt32(end), at: BTreeLayout.contentStartOffset)
        out.setLEU32(0, at: BTreeLayout.fragmentedOffset)
        return true
    }
}

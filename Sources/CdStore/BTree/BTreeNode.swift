// A validated view of one branch or leaf page, read in place: lookups binary-search the slot array
// and compare keys directly in the page bytes; nothing is decoded into arrays.
//
// Defence against hostile pages: `init` checks the type byte and that the header's cell count,
// content start and fragment count fit the page; every cell accessor checks its slot offset and
// every length it reads against the page size before touching the bytes. Anything that does not
// fit throws `StoreError.corruption` naming the page and what failed.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The corruption error of this layer: the path is unknown here, the pager fills it in.
func btreeCorruption(_ page: PageNumber, _ detail: String) -> StoreError {
    .corruption(path: "", location: .page(page), detail: detail)
}

/// A leaf cell's fields, as offsets into its page.
struct LeafCell {
    var keyStart: Int
    var keyLength: Int
    var valueLength: Int
    /// Offset of the inline value, or of the overflow reference.
    var valueStart: Int
    var isOverflow: Bool
    /// Bytes of the cell itself (without its slot).
    var size: Int
}

/// A branch cell's fields.
struct BranchCell {
    var keyStart: Int
    var keyLength: Int
    var child: PageNumber
    var size: Int
}

/// One branch or leaf page, validated on construction (see the header comment).
struct BTreeNode {
    let number: PageNumber
    let buffer: PageBuffer
    let isLeaf: Bool
    /// The cell count; kept equal to the header field by every change.
    var count: Int

    var pageSize: Int { buffer.count }
    var bytes: UnsafeRawBufferPointer { buffer.bytes }

    /// Validates the header of `buffer`; `expectLeaf` nil accepts either kind.
    init(_ buffer: PageBuffer, number: PageNumber, expectLeaf: Bool? = nil) throws {
        self.number = number
        self.buffer = buffer
        let size = buffer.count
        guard size >= BTreeLayout.minPageSize, size <= BTreeLayout.maxPageSize else {
            throw btreeCorruption(
                number, "page size \(size) is outside \(BTreeLayout.minPageSize)...\(BTreeLayout.maxPageSize)")
        }
        let b = buffer.bytes
        let type = b[BTreeLayout.typeOffset]
        switch type {
        case PageType.leaf.rawValue: isLeaf = true
        case PageType.branch.rawValue: isLeaf = false
        default:
            let name = PageType(rawValue: type).map { "\($0)" } ?? "unknown type \(type)"
            throw btreeCorruption(number, "expected a B-tree page, found \(name)")
        }
        if let expectLeaf, expectLeaf != isLeaf {
            throw btreeCorruption(
                number, "expected a \(expectLeaf ? "leaf" : "branch") page, found a \(isLeaf ? "leaf" : "branch")")
        }
        count = b.leU16(at: BTreeLayout.cellCountOffset)
        let contentStart = Int(b.leU32(at: BTreeLayout.contentStartOffset))
        let slotsEnd = BTreeLayout.headerSize + count * BTreeLayout.slotSize
        guard slotsEnd <= contentStart, contentStart <= size else {
            throw btreeCorruption(
                number, "cell count \(count) and content start \(contentStart) do not fit a page of \(size) bytes")
        }
        let fragmented = Int(b.leU32(at: BTreeLayout.fragmentedOffset))
        guard fragmented <= size - contentStart else {
            throw btreeCorruption(number, "fragmented byte count \(fragmented) exceeds the cell area")
        }
        if !isLeaf {
            let leftmost = PageNumber(b.leU32(at: BTreeLayout.leftmostChildOffset))
            guard leftmost != .none else { throw btreeCorruption(number, "branch has no leftmost child") }
            guard BTreeLayout.canBeChild(leftmost) else {
                throw btreeCorruption(number, "leftmost child is page \(leftmost), which is never a child")
            }
        }
    }

    // MARK: - Header fields

    var contentStart: Int { Int(bytes.leU32(at: BTreeLayout.contentStartOffset)) }
    var fragmented: Int { Int(bytes.leU32(at: BTreeLayout.fragmentedOffset)) }
    var slotsEnd: Int { BTreeLayout.headerSize + count * BTreeLayout.slotSize }
    /// Bytes taken by cells and their slots, per the header.
    var usedBytes: Int { pageSize - contentStart - fragmented + count * BTreeLayout.slotSize }
    var leftmostChild: PageNumber { PageNumber(bytes.leU32(at: BTreeLayout.leftmostChildOffset)) }

    // MARK: - Cells

    /// The validated offset of cell `index`'s first byte.
    @inline(__always) func cellOffset(_ index: Int) throws -> Int {
        precondition(index >= 0 && index < count, "cell index out of range")
        let offset = bytes.leU16(at: BTreeLayout.headerSize + index * BTreeLayout.slotSize)
        let minimum = isLeaf ? BTreeLayout.leafCellHeaderSize : BTreeLayout.branchCellHeaderSize
        guard offset >= contentStart, offset + minimum <= pageSize else {
            throw btreeCorruption(number, "slot \(index) points at \(offset), outside the cell area")
        }
        return offset
    }

    /// Cell `index` of a leaf, every length checked against the page.
    func leafCell(_ index: Int) throws -> LeafCell {
        let offset = try cellOffset(index)
        let b = bytes
        let keyLength = b.leU16(at: offset + BTreeLayout.leafKeyLengthOffset)
        let kind = b[offset + BTreeLayout.leafValueKindOffset]
        let valueLength = Int(b.leU32(at: offset + BTreeLayout.leafValueLengthOffset))
        let keyStart = offset + BTreeLayout.leafCellHeaderSize
        let valueStart = keyStart + keyLength
        guard let stored = BTreeLayout.storedValueBytes(kind: kind, valueLength: valueLength) else {
            throw btreeCorruption(number, "cell \(index) has unknown value kind \(kind)")
        }
        guard valueStart + stored <= pageSize else {
            throw btreeCorruption(
                number, "cell \(index) (key \(keyLength) bytes, value \(stored) bytes) runs past the page end")
        }
        let size = BTreeLayout.leafCellHeaderSize + keyLength + stored
        guard size + BTreeLayout.slotSize <= BTreeLayout.maxCellBytes(pageSize: pageSize) else {
            throw btreeCorruption(number, "cell \(index) takes \(size) bytes, over the cell limit")
        }
        return LeafCell(
            keyStart: keyStart, keyLength: keyLength, valueLength: valueLength, valueStart: valueStart,
            isOverflow: kind == BTreeLayout.valueKindOverflow,
            size: size)
    }

    /// Cell `index` of a branch, every length checked against the page.
    func branchCell(_ index: Int) throws -> BranchCell {
        let offset = try cellOffset(index)
        let b = bytes
        let keyLength = b.leU16(at: offset + BTreeLayout.branchKeyLengthOffset)
        let child = PageNumber(b.leU32(at: offset + BTreeLayout.branchChildOffset))
        let keyStart = offset + BTreeLayout.branchCellHeaderSize
        guard keyStart + keyLength <= pageSize else {
            throw btreeCorruption(number, "cell \(index) key of \(keyLength) bytes runs past the page end")
        }
        guard BTreeLayout.canBeChild(child) else {
            throw btreeCorruption(number, "cell \(index) has child page \(child), which is never a child")
        }
        guard
            BTreeLayout.branchCellHeaderSize + keyLength + BTreeLayout.slotSize
                <= BTreeLayout.maxCellBytes(pageSize: pageSize)
        else {
            throw btreeCorruption(number, "cell \(index) key of \(keyLength) bytes is over the cell limit")
        }
        return BranchCell(
            keyStart: keyStart, keyLength: keyLength, child: child,
            size: BTreeLayout.branchCellHeaderSize + keyLength)
    }

    /// The key range (start, length) of cell `index`.
    @inline(__always) func keyRange(_ index: Int) throws -> (start: Int, length: Int) {
        if isLeaf {
            let offset = try cellOffset(index)
            let length = bytes.leU16(at: offset + BTreeLayout.leafKeyLengthOffset)
            let start = offset + BTreeLayout.leafCellHeaderSize
            guard start + length <= pageSize, length <= BTreeLayout.maxKeySize(pageSize: pageSize) else {
                throw btreeCorruption(number, "cell \(index) key of \(length) bytes runs past the page end")
            }
            return (start, length)
        }
        let cell = try branchCell(index)
        return (cell.keyStart, cell.keyLength)
    }

    func key(_ index: Int) throws -> [UInt8] {
        let range = try keyRange(index)
        return Array(bytes[range.start..<range.start + range.length])
    }

    /// The bytes of cell `index` as stored, for moving it to another page.
    func cellBytes(_ index: Int) throws -> [UInt8] {
        let offset = try cellOffset(index)
        let size = isLeaf ? try leafCell(index).size : try branchCell(index).size
        return Array(bytes[offset..<offset + size])
    }

    /// Child `index` of a branch: 0 is the leftmost child, `i > 0` the child of cell `i - 1`.
    func child(_ index: Int) throws -> PageNumber {
        index == 0 ? leftmostChild : try branchCell(index - 1).child
    }

    // MARK: - Search

    /// memcmp order of cell `index`'s key against `key`; shorter prefix first.
    @inline(__always) func compare(_ index: Int, _ key: UnsafeRawBufferPointer) throws -> Int {
        let range = try keyRange(index)
        let common = min(range.length, key.count)
        if common > 0 {
            let c = memcmp(bytes.baseAddress! + range.start, key.baseAddress!, common)
            if c != 0 { return c < 0 ? -1 : 1 }
        }
        return range.length == key.count ? 0 : (range.length < key.count ? -1 : 1)
    }

    /// Leaf search: the first cell whose key is >= `key`, and whether it is equal.
    func lowerBound(_ key: [UInt8]) throws -> (index: Int, found: Bool) {
        try key.withUnsafeBytes { try lowerBound($0) }
    }

    /// `lowerBound` of a key lent in place.
    func lowerBound(_ k: UnsafeRawBufferPointer) throws -> (index: Int, found: Bool) {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            let c = try compare(mid, k)
            if c < 0 { low = mid + 1 } else if c > 0 { high = mid } else { return (mid, true) }
        }
        return (low, false)
    }

    /// Branch search: the child index whose subtree may hold `key` (number of separators <= key).
    func childIndex(for key: [UInt8]) throws -> Int {
        try key.withUnsafeBytes { try childIndex(for: $0) }
    }

    /// `childIndex` of a key lent in place.
    func childIndex(for k: UnsafeRawBufferPointer) throws -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if try compare(mid, k) <= 0 { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

extension BTree {
    /// memcmp order of two byte strings; shorter prefix first.
    static func compareKeys(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in
                let common = min(x.count, y.count)
                if common > 0 {
                    let c = memcmp(x.baseAddress!, y.baseAddress!, common)
                    if c != 0 { return c < 0 ? -1 : 1 }
                }
                return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
            }
        }
    }
}

// Byte layout of the B+tree's pages: branch and leaf pages (one slotted format) and overflow
// pages. Every offset and size of these structures lives here; docs/FORMAT.md repeats the
// tables with a worked example. All integers are little-endian and written field by field.
//
// Slotted page header (branch and leaf pages):
//
//   OFFSET  SIZE  DESCRIPTION
//   0       1     page type: 2 = branch, 3 = leaf (PageType raw value)
//   1       1     flags, reserved: 0
//   2       2     cell count N
//   4       4     content start: offset of the lowest cell byte; pageSize when there are no cells
//   8       4     fragmented bytes: bytes in [content start, pageSize) not covered by any cell
//   12      4     branch: leftmost child page number (keys < separator 0); leaf: 0
//   16      2*N   slot array: u16 offset of each cell, sorted by the cell's key
//   ...           free gap
//   content start ... pageSize: cells, in any order, possibly with fragments between them
//
// Leaf cell:
//
//   OFFSET  SIZE  DESCRIPTION
//   0       2     key length K
//   2       1     value kind: 0 = inline, 1 = overflow chain
//   3       4     value length V (total bytes of the value)
//   7       K     key bytes
//   7+K     V     inline: the value bytes
//   7+K     4     overflow: page number of the first overflow page
//
// Branch cell (child holds keys >= this key and < the next cell's key):
//
//   OFFSET  SIZE  DESCRIPTION
//   0       2     key length K
//   2       4     child page number
//   6       K     separator key bytes
//
// Overflow page:
//
//   OFFSET  SIZE  DESCRIPTION
//   0       1     page type: 4 = overflow
//   1       3     reserved: 0
//   4       4     next overflow page number, 0 on the last page of the chain
//   8       4     payload bytes used on this page
//   12      ...   payload (pageSize - 12 bytes of room)
//
// Size limits: a cell plus its slot never takes more than a quarter of the room below the header
// (`maxCellBytes`), so a split of a full page always yields two pages that fit and any page holds
// at least four cells. A leaf value is stored inline when its whole cell fits that bound, else in
// an overflow chain; the key limit is what still fits with a 4-byte overflow reference.

/// Offsets and sizes of the B+tree's page formats (see the table at the top of this file).
enum BTreeLayout {
    /// Whether a branch may name `page` as a child: page 0 is "none", page 1 the meta page and
    /// page 2 the catalog's root, which is a root only. A child naming one of them would share a
    /// page between trees, and a write through one would change the other.
    static func canBeChild(_ page: PageNumber) -> Bool { page.rawValue > 2 }

    // MARK: - Slotted page header

    static let typeOffset = 0
    static let flagsOffset = 1
    static let cellCountOffset = 2
    static let contentStartOffset = 4
    static let fragmentedOffset = 8
    static let leftmostChildOffset = 12
    static let headerSize = 16
    static let slotSize = 2

    // MARK: - Leaf cell

    static let leafKeyLengthOffset = 0
    static let leafValueKindOffset = 2
    static let leafValueLengthOffset = 3
    static let leafCellHeaderSize = 7
    static let overflowReferenceSize = 4
    static let valueKindInline: UInt8 = 0
    static let valueKindOverflow: UInt8 = 1

    /// The bytes a leaf cell's value takes in the page: `valueLength` inline, an overflow
    /// reference otherwise; nil for a kind that is neither (a damaged cell).
    @inline(__always)
    static func storedValueBytes(kind: UInt8, valueLength: Int) -> Int? {
        switch kind {
        case valueKindInline: valueLength
        case valueKindOverflow: overflowReferenceSize
        default: nil
        }
    }

    // MARK: - Branch cell

    static let branchKeyLengthOffset = 0
    static let branchChildOffset = 2
    static let branchCellHeaderSize = 6

    // MARK: - Overflow page

    static let overflowNextOffset = 4
    static let overflowUsedOffset = 8
    static let overflowHeaderSize = 12

    // MARK: - Limits

    /// Smallest and largest page sizes the format supports (slots are u16 offsets).
    static let minPageSize = 512
    static let maxPageSize = 65536

    /// Deepest tree a reader will descend before calling the structure a cycle.
    static let maxDepth = 64

    /// The most bytes one cell plus its slot may take: a quarter of the room below the header.
    static func maxCellBytes(pageSize: Int) -> Int { (pageSize - headerSize) / 4 }

    /// Room for cells and slots in an empty slotted page.
    static func usableBytes(pageSize: Int) -> Int { pageSize - headerSize }

    /// Payload room of one overflow page.
    static func overflowCapacity(pageSize: Int) -> Int { pageSize - overflowHeaderSize }

    /// Whether a leaf value of `valueLength` bytes under a key of `keyLength` bytes is inline.
    static func isInline(keyLength: Int, valueLength: Int, pageSize: Int) -> Bool {
        slotSize + leafCellHeaderSize + keyLength + valueLength <= maxCellBytes(pageSize: pageSize)
    }

    /// The longest key: a leaf cell with an overflow reference still fits `maxCellBytes`.
    static func maxKeySize(pageSize: Int) -> Int {
        maxCellBytes(pageSize: pageSize) - slotSize - leafCellHeaderSize - overflowReferenceSize
    }
}

// MARK: - Little-endian field access

extension UnsafeRawBufferPointer {
    @inline(__always) func leU16(at offset: Int) -> Int {
        Int(self[offset]) | Int(self[offset + 1]) << 8
    }

    @inline(__always) func leU32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) | UInt32(self[offset + 1]) << 8
            | UInt32(self[offset + 2]) << 16 | UInt32(self[offset + 3]) << 24
    }
}

extension UnsafeMutableRawBufferPointer {
    @inline(__always) func setLEU16(_ value: Int, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value)
        self[offset + 1] = UInt8(truncatingIfNeeded: value >> 8)
    }

    @inline(__always) func setLEU32(_ value: UInt32, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value)
        self[offset + 1] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset + 2] = UInt8(truncatingIfNeeded: value >> 16)
        self[offset + 3] = UInt8(truncatingIfNeeded: value >> 24)
    }
}

extension Array where Element == UInt8 {
    @inline(__always) mutating func appendLEU16(_ value: Int) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }

    @inline(__always) mutating func appendLEU32(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 24))
    }
}

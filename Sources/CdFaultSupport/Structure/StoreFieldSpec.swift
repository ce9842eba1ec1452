// The catalogue of every field of the store format (docs/FORMAT.md) that the structure-aware
// mutator can set. Each entry names the FORMAT.md table and row it stands for — the table's title,
// the row's OFFSET and SIZE cells exactly as written there — so `StoreFieldCatalogueTests` can
// check that every row of every table has an entry and every entry a row: the catalogue and the
// format document cannot drift apart. Two structures are described in prose rather than a table
// (the WAL commit record payload, the catalog's values); their entries name the prose's heading.
//
// `offset` and `width` place the field inside its structure; fields inside a variable part (a
// cell, a slot, a trunk entry) are placed by the layout that finds the structure
// (`StoreLayout`), which adds the cell's or entry's own offset.

/// What a field means, which decides the hostile values tried on it (`HostileValues`).
public enum FieldRole: String, Sendable, CaseIterable {
    case magic, version, pageSize, pageType, codec, reserved, checksum, salt, valueKind, frameKind
    /// Checkpoint sequence, WAL generation.
    case sequence
    /// A commit sequence.
    case commit
    /// A reference to a logical page.
    case pageNumber
    /// A number of logical pages.
    case pageCount
    /// A number of entries, cells or chunks; `unit` bytes each.
    case count
    /// An offset in the page file.
    case fileOffset
    /// A length in bytes.
    case length
    /// An offset inside a logical page (content start, a slot).
    case pageOffset
    /// A region of variable size: keys, values, payloads, stored streams, gaps.
    case bytes
}

/// Where the bytes of a structure live, which decides which checksums the mutator recomputes.
public enum FieldContainer: String, Sendable {
    /// Raw bytes of the page file (headers, directory, map chunks, image headers).
    case pageFile
    /// Raw bytes of the WAL (its header, frame headers, image headers, commit records).
    case wal
    /// Inside a decompressed logical page: the image is re-encoded around it.
    case page
}

/// One field of the format.
public struct StoreFieldSpec: Sendable, Hashable {
    /// The FORMAT.md table title (a heading or a bold line before the table), or the heading of
    /// the prose that describes the structure.
    public var table: String
    /// The OFFSET and SIZE cells of its FORMAT.md row, verbatim; nil for a prose structure.
    public var docOffset: String?
    public var docSize: String?
    /// The field's name in mutation ids and in docs/TESTING.md.
    public var name: String
    public var role: FieldRole
    /// Offset inside the structure (or inside the cell / entry for repeated parts).
    public var offset: Int
    /// Width in bytes for an integer field (1, 2, 4, 8); 0 for a `.bytes` region.
    public var width: Int
    /// For counts: the size of what is counted (products with it can overflow). For offsets: 0.
    public var unit: Int

    init(
        _ table: String, _ docOffset: String?, _ docSize: String?, _ name: String, _ role: FieldRole,
        at offset: Int, width: Int, unit: Int = 0
    ) {
        self.table = table; self.docOffset = docOffset; self.docSize = docSize; self.name = name
        self.role = role; self.offset = offset; self.width = width; self.unit = unit
    }

    /// The size of a `.bytes` region whose FORMAT.md SIZE is a number (reserved bytes).
    var fixedRegionSize: Int? { width == 0 ? docSize.flatMap { Int($0) } : nil }
}

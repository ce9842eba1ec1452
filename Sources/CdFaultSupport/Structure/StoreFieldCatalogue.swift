// Every field of docs/FORMAT.md, grouped by structure (see StoreFieldSpec for how the catalogue is
// kept in step with the document).

public enum StoreFieldCatalogue {
    typealias F = StoreFieldSpec

    static let header: [F] = [
        F("The page file header", "0", "8", "magic", .magic, at: 0, width: 8),
        F("The page file header", "8", "4", "format version", .version, at: 8, width: 4),
        F("The page file header", "12", "4", "page size", .pageSize, at: 12, width: 4),
        F("The page file header", "16", "8", "checkpoint sequence", .sequence, at: 16, width: 8),
        F("The page file header", "24", "8", "commit sequence", .commit, at: 24, width: 8),
        F("The page file header", "32", "4", "page count", .pageCount, at: 32, width: 4),
        F("The page file header", "36", "4", "map chunk count", .count, at: 36, width: 4, unit: 16),
        F("The page file header", "40", "8", "directory offset", .fileOffset, at: 40, width: 8),
        F("The page file header", "48", "4", "directory length", .length, at: 48, width: 4),
        F("The page file header", "52", "4", "directory CRC", .checksum, at: 52, width: 4),
        F("The page file header", "56", "8", "data end", .fileOffset, at: 56, width: 8),
        F("The page file header", "64", "4", "entries per map chunk", .count, at: 64, width: 4, unit: 24),
        F("The page file header", "68", "56", "reserved", .bytes, at: 68, width: 0),
        F("The page file header", "124", "4", "header CRC", .checksum, at: 124, width: 4),
    ]

    static let image: [F] = [
        F("Page images", "0", "1", "image page type", .pageType, at: 0, width: 1),
        F("Page images", "1", "1", "codec", .codec, at: 1, width: 1),
        F("Page images", "2", "2", "image reserved", .reserved, at: 2, width: 2),
        F("Page images", "4", "4", "image page number", .pageNumber, at: 4, width: 4),
        F("Page images", "8", "8", "image commit", .commit, at: 8, width: 8),
        F("Page images", "16", "4", "stored length", .length, at: 16, width: 4),
        F("Page images", "20", "4", "image CRC", .checksum, at: 20, width: 4),
        F("Page images", "24", "*N*", "stored bytes", .bytes, at: 24, width: 0),
    ]

    static let mapEntry: [F] = [
        F("Map entry", "0", "8", "entry offset", .fileOffset, at: 0, width: 8),
        F("Map entry", "8", "4", "entry length", .length, at: 8, width: 4),
        F("Map entry", "12", "4", "entry CRC copy", .checksum, at: 12, width: 4),
        F("Map entry", "16", "8", "entry commit", .commit, at: 16, width: 8),
    ]

    static let chunk: [F] = [
        F("Map chunk", "0", "4", "chunk magic", .magic, at: 0, width: 4),
        F("Map chunk", "4", "4", "chunk index", .count, at: 4, width: 4, unit: 24 * 1024),
        F("Map chunk", "8", "4", "chunk entry count", .count, at: 8, width: 4, unit: 24),
        F("Map chunk", "12", "4", "chunk CRC", .checksum, at: 12, width: 4),
        F("Map chunk", "16", "24 · *E*", "chunk entries", .bytes, at: 16, width: 0),
    ]

    static let directory: [F] = [
        F("Directory", "0", "4", "directory magic", .magic, at: 0, width: 4),
        F("Directory", "4", "4", "directory chunk count", .count, at: 4, width: 4, unit: 16),
        F("Directory", "8", "16 · *C*", "directory chunk offset", .fileOffset, at: 0, width: 8),
        F("Directory", "8", "16 · *C*", "directory chunk length", .length, at: 8, width: 4),
        F("Directory", "8", "16 · *C*", "directory chunk CRC", .checksum, at: 12, width: 4),
    ]

    static let meta: [F] = [
        F("Meta page", "0", "1", "meta page type", .pageType, at: 0, width: 1),
        F("Meta page", "1", "7", "meta reserved", .bytes, at: 1, width: 0),
        F("Meta page", "8", "8", "meta commit", .commit, at: 8, width: 8),
        F("Meta page", "16", "4", "meta page count", .pageCount, at: 16, width: 4),
        F("Meta page", "20", "4", "catalog root", .pageNumber, at: 20, width: 4),
        F("Meta page", "24", "4", "free-list head", .pageNumber, at: 24, width: 4),
        F("Meta page", "28", "4", "free count", .count, at: 28, width: 4, unit: 4),
    ]

    static let trunk: [F] = [
        F("Free-list trunk", "0", "1", "trunk page type", .pageType, at: 0, width: 1),
        F("Free-list trunk", "1", "3", "trunk reserved", .bytes, at: 1, width: 0),
        F("Free-list trunk", "4", "4", "trunk next", .pageNumber, at: 4, width: 4),
        F("Free-list trunk", "8", "4", "trunk entry count", .count, at: 8, width: 4, unit: 4),
        F("Free-list trunk", "12", "4 · *N*", "trunk entry", .pageNumber, at: 0, width: 4),
    ]

    static let node: [F] = [
        F("Branch and leaf pages (slotted pages)", "0", "1", "node page type", .pageType, at: 0, width: 1),
        F("Branch and leaf pages (slotted pages)", "1", "1", "node flags", .reserved, at: 1, width: 1),
        F("Branch and leaf pages (slotted pages)", "2", "2", "cell count", .count, at: 2, width: 2, unit: 2),
        F("Branch and leaf pages (slotted pages)", "4", "4", "content start", .pageOffset, at: 4, width: 4),
        F("Branch and leaf pages (slotted pages)", "8", "4", "fragmented bytes", .length, at: 8, width: 4),
        F("Branch and leaf pages (slotted pages)", "12", "4", "leftmost child", .pageNumber, at: 12, width: 4),
        F("Branch and leaf pages (slotted pages)", "16", "2·N", "cell pointer", .pageOffset, at: 0, width: 2),
        F("Branch and leaf pages (slotted pages)", "16 + 2·N", "…", "free gap", .bytes, at: 0, width: 0),
        F("Branch and leaf pages (slotted pages)", "content start", "…", "cell area", .bytes, at: 0, width: 0),
    ]

    static let leafCell: [F] = [
        F("Leaf cell", "0", "2", "leaf key length", .length, at: 0, width: 2),
        F("Leaf cell", "2", "1", "value kind", .valueKind, at: 2, width: 1),
        F("Leaf cell", "3", "4", "value length", .length, at: 3, width: 4),
        F("Leaf cell", "7", "K", "leaf key", .bytes, at: 7, width: 0),
        F("Leaf cell", "7 + K", "V", "inline value", .bytes, at: 7, width: 0),
        F("Leaf cell", "7 + K", "4", "first overflow page", .pageNumber, at: 7, width: 4),
    ]

    static let branchCell: [F] = [
        F("Branch cell", "0", "2", "branch key length", .length, at: 0, width: 2),
        F("Branch cell", "2", "4", "child page", .pageNumber, at: 2, width: 4),
        F("Branch cell", "6", "K", "separator key", .bytes, at: 6, width: 0),
    ]

    static let overflow: [F] = [
        F("Overflow pages", "0", "1", "overflow page type", .pageType, at: 0, width: 1),
        F("Overflow pages", "1", "3", "overflow reserved", .bytes, at: 1, width: 0),
        F("Overflow pages", "4", "4", "overflow next", .pageNumber, at: 4, width: 4),
        F("Overflow pages", "8", "4", "payload used", .length, at: 8, width: 4),
        F("Overflow pages", "12", "pageSize − 12", "overflow payload", .bytes, at: 12, width: 0),
    ]

    /// The catalog's value (prose in FORMAT.md): root page u32 and 4 reserved bytes; offsets are
    /// relative to the start of the value inside its leaf cell.
    static let catalogValue: [F] = [
        F("The catalog", nil, nil, "catalog tree root", .pageNumber, at: 0, width: 4),
        F("The catalog", nil, nil, "catalog reserved", .bytes, at: 4, width: 0),
    ]

    static let walHeader: [F] = [
        F("WAL header", "0", "8", "WAL magic", .magic, at: 0, width: 8),
        F("WAL header", "8", "4", "WAL format version", .version, at: 8, width: 4),
        F("WAL header", "12", "4", "WAL page size", .pageSize, at: 12, width: 4),
        F("WAL header", "16", "8", "generation", .sequence, at: 16, width: 8),
        F("WAL header", "24", "4", "WAL salt", .salt, at: 24, width: 4),
        F("WAL header", "28", "4", "WAL header CRC", .checksum, at: 28, width: 4),
    ]

    static let frame: [F] = [
        F("Frame", "0", "1", "frame kind", .frameKind, at: 0, width: 1),
        F("Frame", "1", "3", "frame reserved", .bytes, at: 1, width: 0),
        F("Frame", "4", "4", "frame page number", .pageNumber, at: 4, width: 4),
        F("Frame", "8", "8", "frame commit", .commit, at: 8, width: 8),
        F("Frame", "16", "4", "payload length", .length, at: 16, width: 4),
        F("Frame", "20", "4", "frame salt", .salt, at: 20, width: 4),
        F("Frame", "24", "4", "chained CRC", .checksum, at: 24, width: 4),
        F("Frame", "28", "4", "frame reserved 2", .reserved, at: 28, width: 4),
        F("Frame", "32", "…", "frame payload", .bytes, at: 32, width: 0),
    ]

    /// The commit record's payload (prose in FORMAT.md), relative to the payload's start.
    static let commitRecord: [F] = [
        F("Commit record payload", nil, nil, "commit frame count", .count, at: 0, width: 4, unit: 32),
        F("Commit record payload", nil, nil, "commit page count", .pageCount, at: 4, width: 4),
        F("Commit record payload", nil, nil, "commit reserved", .bytes, at: 8, width: 0),
    ]

    /// Every field the mutator knows, in FORMAT.md order.
    public static let all: [StoreFieldSpec] =
        header + image + mapEntry + chunk + directory + meta + trunk + node
        + leafCell + branchCell + overflow + catalogValue + walHeader + frame + commitRecord

    /// The field called `name` (names are unique).
    public static func spec(_ name: String) -> StoreFieldSpec? { all.first { $0.name == name } }

    /// The catalogue as the Markdown table docs/TESTING.md carries (checked by a test).
    public static func markdownTable() -> String {
        var lines = ["| structure (FORMAT.md) | offset | size | field | hostile values |", "|---|---|---|---|---|"]
        for spec in all {
            lines.append(
                "| \(spec.table) | \(spec.docOffset ?? "(prose)") | \(spec.docSize ?? "") | "
                    + "\(spec.name) | \(spec.role.rawValue) |"
            )
        }
        return lines.joined(separator: "\n")
    }
}

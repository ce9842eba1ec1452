// Logical page 1, the meta page, and the free-page list it heads.
//
// Meta page (type .meta):
//   OFFSET SIZE DESCRIPTION
//        0    1 page type (1)
//        1    7 reserved, zero
//        8    8 commit sequence that last wrote it
//       16    4 page count: logical pages 1..<count exist (0 is never a page)
//       20    4 catalog tree root (always 2)
//       24    4 first free-list trunk page (0: none)
//       28    4 free page count (pages listed in trunks, trunks excluded)
//
// Free-list trunk page (type .freeList):
//        0    1 page type (5)
//        1    3 reserved, zero
//        4    4 next trunk page (0: last)
//        8    4 entry count N
//       12  4·N free page numbers
//
// Invariants:
//  M1. A page is either reachable from the catalog (a tree or overflow page), a trunk, listed in
//      exactly one trunk, or the meta page; nothing else below the page count.
//  M2. A listed free page has no image: the commit that freed it wrote a tombstone frame, and the
//      checkpoint that copied it dropped its map entry.

struct MetaPage: Equatable {
    static let number = PageNumber(1)
    static let catalogRoot = PageNumber(2)

    var commit: CommitSequence
    var pageCount: UInt32
    var catalogRoot: PageNumber
    var freeListHead: PageNumber
    var freeCount: UInt32

    static func decode(_ page: PageBuffer) -> Result<MetaPage, DamageReport> {
        let r = ByteReader(page.bytes)
        guard r.u8(0) == PageType.meta.rawValue else { return .failure("page 1 has type \(r.u8(0)), not meta") }
        let m = MetaPage(
            commit: CommitSequence(r.u64(8)), pageCount: r.u32(16), catalogRoot: PageNumber(r.u32(20)),
            freeListHead: PageNumber(r.u32(24)), freeCount: r.u32(28))
        guard m.pageCount >= 3 else { return .failure("meta page count \(m.pageCount) is below 3") }
        guard m.catalogRoot == catalogRoot else { return .failure("catalog root is \(m.catalogRoot), not 2") }
        guard m.freeListHead.rawValue < m.pageCount else {
            return .failure("free-list head \(m.freeListHead) is past the page count \(m.pageCount)")
        }
        return .success(m)
    }

    func write(into page: PageBuffer) {
        var w = ByteWriter(capacity: 32)
        w.u8(PageType.meta.rawValue); w.zeros(7)
        w.u64(commit.rawValue)
        w.u32(pageCount)
        w.u32(catalogRoot.rawValue)
        w.u32(freeListHead.rawValue)
        w.u32(freeCount)
        page.base.initializeMemory(as: UInt8.self, repeating: 0, count: page.count)
        w.bytes.withUnsafeBytes { page.base.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
    }
}

/// Reads and edits one free-list trunk page in place.
struct FreeListTrunk {
    static let headerSize = 12
    let page: PageBuffer

    static func capacity(pageSize: Int) -> Int { (pageSize - headerSize) / 4 }

    var next: PageNumber {
        get { PageNumber(ByteReader(page.bytes).u32(4)) }
        nonmutating set { store(newValue.rawValue, at: 4) }
    }
    var count: Int {
        get { Int(ByteReader(page.bytes).u32(8)) }
        nonmutating set { store(UInt32(newValue), at: 8) }
    }
    func entry(_ i: Int) -> PageNumber { PageNumber(ByteReader(page.bytes).u32(Self.headerSize + 4 * i)) }
    func setEntry(_ i: Int, _ p: PageNumber) { store(p.rawValue, at: Self.headerSize + 4 * i) }

    /// Formats the page as an empty trunk pointing at `next`.
    static func format(_ page: PageBuffer, next: PageNumber) -> FreeListTrunk {
        page.base.initializeMemory(as: UInt8.self, repeating: 0, count: page.count)
        page.base.storeBytes(of: PageType.freeList.rawValue, as: UInt8.self)
        let t = FreeListTrunk(page: page)
        t.next = next
        t.count = 0
        return t
    }

    /// Checks the trunk's fields against the page size and page count.
    func validate(pageCount: UInt32) -> DamageReport? {
        guard page.pageType == .freeList else { return "free-list page has type \(page.base.load(as: UInt8.self))" }
        guard count <= Self.capacity(pageSize: page.count) else { return "free-list trunk claims \(count) entries" }
        guard next.rawValue < pageCount else { return "free-list next page \(next) is past the page count" }
        for i in 0..<count where entry(i).rawValue < 3 || entry(i).rawValue >= pageCount {
            return "free-list entry \(i) is page \(entry(i)), outside 3..<\(pageCount)"
        }
        return nil
    }

    private func store(_ v: UInt32, at offset: Int) {
        for i in 0..<4 {
            page.base.storeBytes(
                of: UInt8(truncatingIfNeeded: v >> (8 * UInt32(i))), toByteOffset: offset + i, as: UInt8.self)
        }
    }
}

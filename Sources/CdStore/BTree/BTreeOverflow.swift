// Overflow chains: a value too large for its leaf cell is stored in a singly linked chain of
// overflow pages (layout in BTreeLayout.swift). The leaf cell holds the total length and the
// first page; every walk is bounded by that declared length, so an overlong chain is reported as
// corruption instead of looping. The declared length itself comes from disk (up to
// `BTree.maxValueSize`), so a walk also refuses to visit a page twice: a chain that loops stops at
// the loop instead of copying one page a quarter of a million times.

/// Reading, writing and freeing overflow chains.
enum BTreeOverflow {
    /// Number of pages a chain for `length` bytes takes.
    static func pageCount(length: Int, pageSize: Int) -> Int {
        let capacity = BTreeLayout.overflowCapacity(pageSize: pageSize)
        return (length + capacity - 1) / capacity
    }

    /// Writes `value` into a new chain and returns its first page.
    static func write(_ value: [UInt8], in sink: PageSink) throws -> PageNumber {
        let pageSize = sink.pageSize
        let capacity = BTreeLayout.overflowCapacity(pageSize: pageSize)
        let pages = try (0..<pageCount(length: value.count, pageSize: pageSize)).map { _ in try sink.allocatePage() }
        try value.withUnsafeBytes { source in
            for (i, page) in pages.enumerated() {
                let m = try sink.writablePage(page).mutableBytes
                let start = i * capacity
                let used = min(capacity, value.count - start)
                m[0] = PageType.overflow.rawValue
                m[1] = 0; m[2] = 0; m[3] = 0
                m.setLEU32(i + 1 < pages.count ? pages[i + 1].rawValue : 0, at: BTreeLayout.overflowNextOffset)
                m.setLEU32(UInt32(used), at: BTreeLayout.overflowUsedOffset)
                (m.baseAddress! + BTreeLayout.overflowHeaderSize).copyMemory(
                    from: source.baseAddress! + start, byteCount: used)
            }
        }
        return pages[0]
    }

    /// Walks the chain of `length` bytes from `first`, checking each page, and calls `body` with
    /// each page number, its buffer and the payload range it contributes.
    /// `owner` is the leaf page that references the chain (named in errors about the reference).
    static func walk(
        first: PageNumber, length: Int, owner: PageNumber, in source: PageSource,
        _ body: (PageNumber, PageBuffer, Range<Int>) throws -> Void
    ) throws {
        let pageSize = source.pageSize
        let capacity = BTreeLayout.overflowCapacity(pageSize: pageSize)
        let expected = pageCount(length: length, pageSize: pageSize)
        guard expected > 0, length <= BTree.maxValueSize else {
            throw btreeCorruption(owner, "overflow reference with a value of \(length) bytes")
        }
        var page = first
        var remaining = length
        var visited = Set<PageNumber>()
        for index in 0..<expected {
            guard page != .none else {
                throw btreeCorruption(owner, "overflow chain ends after \(index) of \(expected) pages")
            }
            guard visited.insert(page).inserted else {
                throw btreeCorruption(
                    page, "overflow chain reaches page \(page) twice (a cycle) at page \(index + 1) of \(expected)")
            }
            let buffer = try source.page(page)
            let b = buffer.bytes
            guard buffer.count == pageSize, b[0] == PageType.overflow.rawValue else {
                let name = PageType(rawValue: b[0]).map { "\($0)" } ?? "unknown type \(b[0])"
                throw btreeCorruption(page, "expected an overflow page, found \(name)")
            }
            let used = Int(b.leU32(at: BTreeLayout.overflowUsedOffset))
            let want = min(capacity, remaining)
            guard used == want else {
                throw btreeCorruption(page, "overflow page holds \(used) bytes, chain needs \(want) here")
            }
            let next = PageNumber(b.leU32(at: BTreeLayout.overflowNextOffset))
            if index == expected - 1, next != .none {
                throw btreeCorruption(
                    page, "overflow chain continues to page \(next) past its declared length \(length)")
            }
            try body(page, buffer, BTreeLayout.overflowHeaderSize..<BTreeLayout.overflowHeaderSize + used)
            remaining -= used
            page = next
        }
    }

    /// The value stored in the chain.
    static func read(first: PageNumber, length: Int, owner: PageNumber, in source: PageSource) throws -> [UInt8] {
        var value: [UInt8] = []
        value.reserveCapacity(min(length, 1 << 20))  // the length is not trusted yet
        try walk(first: first, length: length, owner: owner, in: source) { _, buffer, range in
            value.append(contentsOf: buffer.bytes[range])
        }
        return value
    }

    /// Frees every page of the chain; checks the whole chain before freeing any page.
    static func free(first: PageNumber, length: Int, owner: PageNumber, in sink: PageSink) throws {
        var pages: [PageNumber] = []
        var seen = Set<PageNumber>()
        try walk(first: first, length: length, owner: owner, in: sink) { page, _, _ in
            guard seen.insert(page).inserted else {
                throw btreeCorruption(page, "overflow chain visits this page twice")
            }
            pages.append(page)
        }
        for page in pages { try sink.freePage(page) }
    }
}

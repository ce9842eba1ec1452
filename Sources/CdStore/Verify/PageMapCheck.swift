// Pass 2: the page map (PageMapLayout) and the data area it describes. Reads the directory and
// each chunk through PageFileStructure, the reader `Store.open` uses too (so the two cannot
// disagree), after checking that the header's lengths fit inside the file; checks every
// entry's extent (inside the file and the data area, aligned to the granule, written by a commit
// the page file holds), then sweeps all used extents — images, chunks, directory — for overlaps
// and measures the free space between them (FreeSpace S1, S2). A damaged chunk is one problem;
// its pages become unknown (VerificationContext V1) instead of one problem each.

struct PageMapCheck: VerificationPass {
    let name = "page map"

    func run(_ context: VerificationContext) throws {
        guard let header = context.header else { return }
        let size = context.fileSize
        let pageCount = Int(header.pageCount)
        func mapProblem(_ text: String, offset: UInt64? = nil) {
            context.problem(VerificationLocation(area: .pageMap, offset: offset), text)
        }
        // Refuse to believe (and allocate for) more pages than the file can describe (PageFileStructure G2).
        if let why = PageFileStructure.checkMapSize(header, fileSize: size) {
            mapProblem(why.text)
            context.halted = true
            return
        }
        context.map = Array(repeating: nil, count: pageCount)
        var used: [(start: UInt64, length: UInt64, what: String, page: UInt32?)] = []
        var chunks: [ChunkLocation] = []
        if header.chunkCount > 0 {
            switch try PageFileStructure.readDirectory(context.file, header: header, fileSize: size) {
            case .success(let c):
                chunks = c
                used.append((header.directoryOffset, UInt64(header.directoryLength), "the map directory", nil))
            case .failure(let why):
                mapProblem(why.text, offset: header.directoryOffset)
                if PageFileStructure.extentFits(
                    offset: header.directoryOffset, length: UInt64(header.directoryLength),
                    fileSize: size)
                {
                    used.append((header.directoryOffset, UInt64(header.directoryLength), "the map directory", nil))
                }
                mapProblem("pages 1..<\(pageCount) cannot be located: the directory is unreadable")
            }
        }
        for (i, c) in chunks.enumerated() {
            context.progress(name, i, chunks.count)
            let pages = PageFileStructure.pages(ofChunk: i, header: header)
            let expected = PageMapLayout.chunkHeaderSize + pages.count * PageMapLayout.entrySize
            if Int(c.length) == expected,
                PageFileStructure.extentFits(offset: c.offset, length: UInt64(c.length), fileSize: size)
            {
                used.append((c.offset, UInt64(c.length), "map chunk \(i)", nil))
            }
            switch try PageFileStructure.readChunk(context.file, index: i, location: c, header: header, fileSize: size)
            {
            case .failure(let why): mapProblem(why.text, offset: c.offset)
            case .success(let entries): for (j, e) in entries.enumerated() { context.map[pages.lowerBound + j] = e }
            }
        }
        checkEntries(context, header: header, used: &used)
        sweep(context, header: header, used: used)
    }

    /// Each present entry: inside the data area and the file, aligned, from a commit the page file holds.
    private func checkEntries(
        _ context: VerificationContext, header: FileHeader,
        used: inout [(start: UInt64, length: UInt64, what: String, page: UInt32?)]
    ) {
        let size = context.fileSize
        let maxImage = PageImage.maxImageSize(pageSize: Int(header.pageSize))
        for n in context.map.indices {
            guard let e = context.map[n], e.isPresent else { continue }
            let page = PageNumber(UInt32(n))
            let location = VerificationLocation(area: .page, page: page, offset: e.offset)
            let bad = PageFileStructure.checkEntry(e, page: n, header: header, fileSize: size)?.text
            if let bad {
                context.problem(location, bad)
                context.map[n] = nil
                // Kept for the overlap sweep when its end cannot overflow (a bounded length).
                if n != 0, e.offset >= FileHeader.dataStart, e.offset <= size, Int(e.length) <= maxImage {
                    used.append((e.offset, UInt64(e.length), "page \(n)'s image", UInt32(n)))
                }
                continue
            }
            used.append((e.offset, UInt64(e.length), "page \(n)'s image", UInt32(n)))
        }
    }

    /// No two used extents overlap, none ends past the data end; the gaps are free space.
    private func sweep(
        _ context: VerificationContext, header: FileHeader,
        used: [(start: UInt64, length: UInt64, what: String, page: UInt32?)]
    ) {
        var cursor = FileHeader.dataStart
        var previous = "the header area"
        var free: UInt64 = 0
        var end = FileHeader.dataStart
        for e in used.sorted(by: { ($0.start, $0.length) < ($1.start, $1.length) }) {
            let rounded = PageMapLayout.roundUp(e.length)
            let area: VerificationLocation.Area = e.page == nil ? .pageMap : .page
            if e.start < cursor {
                context.problem(
                    VerificationLocation(area: area, page: e.page.map { PageNumber($0) }, offset: e.start),
                    "\(e.what) at offset \(e.start) overlaps \(previous)")
            } else {
                free += e.start - cursor
            }
            if e.start + rounded > cursor { cursor = e.start + rounded; previous = "\(e.what) at offset \(e.start)" }
            end = max(end, e.start + rounded)
            if e.start + rounded > header.dataEnd {
                context.problem(
                    VerificationLocation(area: area, page: e.page.map { PageNumber($0) }, offset: e.start),
                    "\(e.what) at offset \(e.start) ends past the header's data end \(header.dataEnd)")
            }
        }
        let dataEnd = max(header.dataEnd, end)
        let fileSize = context.fileSize
        free += min(dataEnd, max(fileSize, cursor)) > cursor ? min(dataEnd, max(fileSize, cursor)) - cursor : 0
        context.updateSummary { s in
            s.freeBytes = free
            s.fileTailBytes = fileSize > dataEnd ? fileSize - dataEnd : 0
        }
    }
}

// Pass 2: the page map (PageMapLayout) and the data area it describes. Reads the directory and
// each chunk only after checking that the header's lengths fit inside the file, checks every
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
        // A map for `pageCount` pages takes 24 bytes per page in the file: refuse to believe (and
        // allocate for) more pages than the file can describe.
        guard UInt64(pageCount) * UInt64(PageMapLayout.entrySize) <= size else {
            mapProblem("page count \(pageCount) needs a map larger than the file (\(size) bytes)")
            context.halted = true
            return
        }
        context.map = Array(repeating: nil, count: pageCount)
        var used: [(start: UInt64, length: UInt64, what: String, page: UInt32?)] = []
        let chunkCount = Int(header.chunkCount)
        var chunks: [ChunkLocation] = []
        if chunkCount > 0 {
            let dirLength = PageMapLayout.directoryHeaderSize + chunkCount * PageMapLayout.directoryEntrySize
            if Int(header.directoryLength) != dirLength {
                mapProblem("directory length \(header.directoryLength), expected \(dirLength)", offset: header.directoryOffset)
            } else if header.directoryOffset < FileHeader.dataStart || header.directoryOffset > size
                        || UInt64(dirLength) > size - header.directoryOffset {
                mapProblem("directory at offset \(header.directoryOffset) lies outside the file (\(size) bytes)", offset: header.directoryOffset)
            } else {
                let bytes = try context.file.readExactly(dirLength, at: header.directoryOffset, location: .pageMap(detail: "directory"))
                used.append((header.directoryOffset, UInt64(dirLength), "the map directory", nil))
                if Checksum.crc32(bytes) != header.directoryCRC {
                    mapProblem("directory checksum mismatch", offset: header.directoryOffset)
                } else {
                    switch PageMapLayout.decodeDirectory(bytes, chunkCount: chunkCount) {
                    case .success(let c): chunks = c
                    case .failure(let why): mapProblem(why.text, offset: header.directoryOffset)
                    }
                }
            }
            if chunks.isEmpty {
                mapProblem("pages 1..<\(pageCount) cannot be located: the directory is unreadable")
            }
        }
        let perChunk = Int(header.entriesPerChunk)
        for (i, c) in chunks.enumerated() {
            context.progress(name, i, chunks.count)
            let first = i * perChunk
            let count = min(perChunk, pageCount - first)
            let expected = PageMapLayout.chunkHeaderSize + count * PageMapLayout.entrySize
            let pages = "pages \(first)..<\(first + count)"
            guard Int(c.length) == expected else {
                mapProblem("chunk \(i) (\(pages)) is \(c.length) bytes, expected \(expected)", offset: c.offset); continue
            }
            guard c.offset >= FileHeader.dataStart, c.offset <= size, UInt64(c.length) <= size - c.offset else {
                mapProblem("chunk \(i) (\(pages)) at offset \(c.offset) lies outside the file (\(size) bytes)", offset: c.offset); continue
            }
            used.append((c.offset, UInt64(c.length), "map chunk \(i)", nil))
            let bytes = try context.file.readExactly(expected, at: c.offset, location: .pageMap(detail: "chunk \(i)"))
            guard Checksum.crc32(bytes) == c.crc else {
                mapProblem("chunk \(i) (\(pages)) fails the checksum in the directory", offset: c.offset); continue
            }
            switch PageMapLayout.decodeChunk(bytes, index: UInt32(i), expectedCount: count) {
            case .failure(let why): mapProblem("\(why.text) (\(pages))", offset: c.offset)
            case .success(let entries): for (j, e) in entries.enumerated() { context.map[first + j] = e }
            }
        }
        checkEntries(context, header: header, used: &used)
        sweep(context, header: header, used: used)
    }

    /// Each present entry: inside the data area and the file, aligned, from a commit the page file holds.
    private func checkEntries(_ context: VerificationContext, header: FileHeader,
                              used: inout [(start: UInt64, length: UInt64, what: String, page: UInt32?)]) {
        let size = context.fileSize
        let maxImage = UInt64(PageImage.maxImageSize(pageSize: Int(header.pageSize)))
        for n in context.map.indices {
            guard let e = context.map[n], e.isPresent else { continue }
            let page = PageNumber(UInt32(n))
            let location = VerificationLocation(area: .page, page: page, offset: e.offset)
            var bad: String?
            if n == 0 {
                bad = "page 0 is never a page, but the map gives it an image"
            } else if e.offset < FileHeader.dataStart {
                bad = "image at offset \(e.offset) lies inside the header area"
            } else if UInt64(e.length) <= UInt64(PageImage.headerSize) || UInt64(e.length) > maxImage {
                bad = "image length \(e.length) is outside \(PageImage.headerSize + 1)...\(maxImage)"
            } else if e.offset > size || UInt64(e.length) > size - e.offset {
                bad = "image at offset \(e.offset) length \(e.length) lies past the end of the file (\(size) bytes): truncated?"
            } else if e.offset % PageMapLayout.granule != 0 {
                bad = "image offset \(e.offset) is not a multiple of \(PageMapLayout.granule)"
            } else if e.commit > header.commitSequence {
                bad = "image is from commit \(e.commit), newer than the page file's commit \(header.commitSequence)"
            }
            if let bad {
                context.problem(location, bad)
                context.map[n] = nil
                if n != 0, e.offset >= FileHeader.dataStart, e.offset <= size {
                    used.append((e.offset, UInt64(e.length), "page \(n)'s image", UInt32(n)))
                }
                continue
            }
            used.append((e.offset, UInt64(e.length), "page \(n)'s image", UInt32(n)))
        }
    }

    /// No two used extents overlap, none ends past the data end; the gaps are free space.
    private func sweep(_ context: VerificationContext, header: FileHeader,
                       used: [(start: UInt64, length: UInt64, what: String, page: UInt32?)]) {
        var cursor = FileHeader.dataStart
        var previous = "the header area"
        var free: UInt64 = 0
        var end = FileHeader.dataStart
        for e in used.sorted(by: { ($0.start, $0.length) < ($1.start, $1.length) }) {
            let rounded = PageMapLayout.roundUp(e.length)
            let area: VerificationLocation.Area = e.page == nil ? .pageMap : .page
            if e.start < cursor {
                context.problem(VerificationLocation(area: area, page: e.page.map { PageNumber($0) }, offset: e.start),
                                "\(e.what) at offset \(e.start) overlaps \(previous)")
            } else {
                free += e.start - cursor
            }
            if e.start + rounded > cursor { cursor = e.start + rounded; previous = "\(e.what) at offset \(e.start)" }
            end = max(end, e.start + rounded)
            if e.start + rounded > header.dataEnd {
                context.problem(VerificationLocation(area: area, page: e.page.map { PageNumber($0) }, offset: e.start),
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

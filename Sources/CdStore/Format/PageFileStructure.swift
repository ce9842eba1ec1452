// The one reader of the page file's structure: the two header copies, the map directory and the
// map chunks. `Store.open` and the verifier both read through it, so that what one accepts the
// other accepts too: open throws at the first damage it returns, the verifier reports each damage
// and goes on.
//
// Nothing read from the file is trusted before it is checked against what the rest of the file
// says:
//  G1. Every extent (offset, length) is checked with arithmetic that cannot overflow: the offset
//      is compared with the file size first, then the length with what is left of the file
//      (`offset + length` is never computed on unchecked values).
//  G2. A count is checked against the bytes that would hold it before anything is allocated for
//      it: the header's page count needs 24 bytes of map per page and 16 per chunk inside the file.
//  G3. Sequences stay below `CommitSequence.limit` (FileHeader FH3), so `+ 1` on them never wraps.
//  G4. A header whose commit is 0 describes an empty store (no pages, no chunks); any other
//      header with commit 0 is damaged, so that a writable open never formats over a store.

/// One header copy as found in the file.
struct HeaderCopy: Sendable {
    /// 0 for the copy at offset 0, 1 for the copy at offset 4096.
    var slot: Int
    /// The copy's offset in the file.
    var offset: UInt64
    /// The decoded copy, or why it was rejected; nil when the file ends before the copy.
    var decoded: Result<FileHeader, FileHeader.Rejection>?
    /// Whether the copy's bytes are all zero (a copy never written).
    var isAllZero: Bool

    var header: FileHeader? {
        if case .success(let h)? = decoded { return h }
        return nil
    }

    /// Whether the copy carries the store magic (valid or not): the file is a store.
    var hasMagic: Bool {
        switch decoded {
        case .success?, .failure(.badChecksum)?, .failure(.unsupportedVersion)?, .failure(.badField)?: return true
        case .failure(.badMagic)?, nil: return false
        }
    }
}

enum PageFileStructure {
    // MARK: - Extents (G1)

    /// Whether `length` bytes at `offset` lie inside the data area of a file of `fileSize` bytes.
    static func extentFits(offset: UInt64, length: UInt64, fileSize: UInt64) -> Bool {
        offset >= FileHeader.dataStart && offset <= fileSize && length <= fileSize - offset
    }

    // MARK: - Header copies

    /// Reads and decodes both header copies (FH1). Throws only I/O errors.
    static func readHeaderCopies(_ file: any StoreFile, fileSize: UInt64) throws -> [HeaderCopy] {
        try FileHeader.slotOffsets.enumerated().map { slot, offset in
            guard fileSize >= offset, fileSize - offset >= UInt64(FileHeader.size) else {
                return HeaderCopy(slot: slot, offset: offset, decoded: nil, isAllZero: false)
            }
            let bytes = try file.readExactly(FileHeader.size, at: offset, location: .header(offset: offset))
            return HeaderCopy(
                slot: slot, offset: offset, decoded: FileHeader.decode(bytes),
                isAllZero: bytes.allSatisfy { $0 == 0 })
        }
    }

    /// The copy open uses: the valid one with the higher checkpoint sequence (FH1).
    static func current(of copies: [HeaderCopy]) -> (header: FileHeader, slot: Int)? {
        var best: (header: FileHeader, slot: Int)?
        for c in copies {
            guard let h = c.header else { continue }
            if best == nil || h.checkpointSequence > best!.header.checkpointSequence { best = (h, c.slot) }
        }
        return best
    }

    /// Why no copy can be used, as the error open throws: not a store, a version this build does
    /// not read, or damage to both copies.
    static func noUsableHeader(_ copies: [HeaderCopy], path: String, fileSize: UInt64) -> StoreError {
        if !copies.contains(where: \.hasMagic) {
            return .notAStore(
                path: path,
                detail: fileSize < UInt64(FileHeader.size)
                    ? "the file is only \(fileSize) bytes" : "no Cadmium header magic")
        }
        for c in copies {
            if case .failure(.unsupportedVersion(let v))? = c.decoded {
                return .unsupportedFormatVersion(path: path, found: v, supported: FileHeader.formatVersion)
            }
        }
        let reasons = copies.map { c -> String in
            switch c.decoded {
            case nil: return "copy \(c.slot): the file ends before it"
            case .success?: return "copy \(c.slot): valid"
            case .failure(let why)?: return "copy \(c.slot): \(why.text)"
            }
        }
        return .corruption(
            path: path, location: .header(offset: 0),
            detail: "both header copies are damaged: \(reasons.joined(separator: "; "))")
    }

    // MARK: - The page map

    /// The map's size against the file (G2): a header claiming more pages than the file could map
    /// is damaged, and must not make anyone allocate for them.
    static func checkMapSize(_ header: FileHeader, fileSize: UInt64) -> DamageReport? {
        let mapBytes =
            UInt64(header.pageCount) * UInt64(PageMapLayout.entrySize)
            + UInt64(header.chunkCount) * UInt64(PageMapLayout.chunkHeaderSize)
        guard mapBytes <= fileSize else {
            return "page count \(header.pageCount) needs \(mapBytes) bytes of map, more than the file's \(fileSize)"
        }
        return nil
    }

    /// The pages chunk `index` maps.
    static func pages(ofChunk index: Int, header: FileHeader) -> Range<Int> {
        let perChunk = Int(header.entriesPerChunk)
        let first = index * perChunk
        return first..<min(first + perChunk, Int(header.pageCount))
    }

    /// Reads and checks the directory the header locates (its length, extent, CRC and contents).
    /// Call only after `checkMapSize` passed. Throws only I/O errors.
    static func readDirectory(
        _ file: any StoreFile, header: FileHeader,
        fileSize: UInt64
    ) throws -> Result<[ChunkLocation], DamageReport> {
        let chunkCount = Int(header.chunkCount)
        guard chunkCount > 0 else { return .success([]) }
        let length = PageMapLayout.directoryHeaderSize + chunkCount * PageMapLayout.directoryEntrySize
        guard Int(header.directoryLength) == length else {
            return .failure("directory length \(header.directoryLength), expected \(length)")
        }
        guard extentFits(offset: header.directoryOffset, length: UInt64(length), fileSize: fileSize) else {
            return .failure("directory at offset \(header.directoryOffset) lies outside the file (\(fileSize) bytes)")
        }
        let bytes = try file.readExactly(length, at: header.directoryOffset, location: .pageMap(detail: "directory"))
        guard Checksum.crc32(bytes) == header.directoryCRC else { return .failure("directory checksum mismatch") }
        return PageMapLayout.decodeDirectory(bytes, chunkCount: chunkCount)
    }

    /// Reads and checks map chunk `index` at `location` (length, extent, CRC, contents).
    /// Throws only I/O errors.
    static func readChunk(
        _ file: any StoreFile, index: Int, location: ChunkLocation, header: FileHeader,
        fileSize: UInt64
    ) throws -> Result<[MapEntry], DamageReport> {
        let pages = pages(ofChunk: index, header: header)
        let expected = PageMapLayout.chunkHeaderSize + pages.count * PageMapLayout.entrySize
        // Named only in a report: every chunk is read at each open.
        var what: String { "chunk \(index) (pages \(pages.lowerBound)..<\(pages.upperBound))" }
        guard Int(location.length) == expected else {
            return .failure("\(what) is \(location.length) bytes, expected \(expected)")
        }
        guard extentFits(offset: location.offset, length: UInt64(location.length), fileSize: fileSize) else {
            return .failure("\(what) at offset \(location.offset) lies outside the file (\(fileSize) bytes)")
        }
        let bytes = try file.readExactly(expected, at: location.offset, location: .pageMap(detail: "chunk \(index)"))
        guard Checksum.crc32(bytes) == location.crc else {
            return .failure("\(what) fails the checksum in the directory")
        }
        return PageMapLayout.decodeChunk(bytes, index: UInt32(index), expectedCount: pages.count)
            .mapError { DamageReport("\($0.text) (pages \(pages.lowerBound)..<\(pages.upperBound))") }
    }

    /// Checks one present map entry: not page 0, inside the data area and the file, a plausible
    /// length, aligned to the granule, written by a commit the page file holds.
    static func checkEntry(_ entry: MapEntry, page: Int, header: FileHeader, fileSize: UInt64) -> DamageReport? {
        let maxImage = UInt64(PageImage.maxImageSize(pageSize: Int(header.pageSize)))
        if page == 0 { return "page 0 is never a page, but the map gives it an image" }
        if entry.offset < FileHeader.dataStart { return "image at offset \(entry.offset) lies inside the header area" }
        if UInt64(entry.length) <= UInt64(PageImage.headerSize) || UInt64(entry.length) > maxImage {
            return "image length \(entry.length) is outside \(PageImage.headerSize + 1)...\(maxImage)"
        }
        if !extentFits(offset: entry.offset, length: UInt64(entry.length), fileSize: fileSize) {
            return """
                image at offset \(entry.offset) length \(entry.length) \
                lies past the end of the file (\(fileSize) bytes): truncated?
                """
        }
        if entry.offset % PageMapLayout.granule != 0 {
            return "image offset \(entry.offset) is not a multiple of \(PageMapLayout.granule)"
        }
        if entry.commit > header.commitSequence {
            return "image is from commit \(entry.commit), newer than the page file's commit \(header.commitSequence)"
        }
        return nil
    }
}

// Counters and offsets read from the file are checked before they are trusted (PageFileStructure
// G1–G4, FileHeader FH3–FH4, WriteTransaction R4): each case here crafts a store whose checksums are
// all valid, so that the hostile value reaches the logic behind them, and expects a typed error
// or a clean result — never a trap, a runaway allocation, or a store formatted over.

import Testing
@testable import CdStore

@Suite struct StoreHostileCounterTests {
    // MARK: - Crafting

    /// Rewrites both valid header copies with `edit` applied, checksums recomputed.
    static func editingHeaders(_ files: StoreFiles, _ edit: (inout FileHeader) -> Void) -> StoreFiles {
        var out = files
        for offset in FileHeader.slotOffsets.map(Int.init) {
            guard case .success(var h) = FileHeader.decode(Array(out.pageFile[offset..<(offset + FileHeader.size)]))
            else { continue }
            edit(&h)
            out.pageFile.replaceSubrange(offset..<(offset + FileHeader.size), with: h.encoded())
        }
        return out
    }

    /// The current header, its directory and its map.
    static func structure(_ files: StoreFiles) throws -> (FileHeader, [ChunkLocation], [MapEntry]) {
        let file = try InMemoryFileSystem(files: files.files).open(StoreFiles.path, mode: .readOnly)
        let (header, _) = try Store.readHeader(file, size: try file.size())
        let (map, chunks) = try Store.loadPageMap(file, header: header, fileSize: try file.size())
        return (header, chunks, map)
    }

    /// Rewrites the directory in place with `edit` applied; the header's directory CRC follows.
    static func editingDirectory(_ files: StoreFiles, _ edit: (inout [ChunkLocation]) -> Void) throws -> StoreFiles {
        try editingDirectory(files, structure: try structure(files), edit)
    }

    static func editingDirectory(
        _ files: StoreFiles, structure: (FileHeader, [ChunkLocation], [MapEntry]),
        _ edit: (inout [ChunkLocation]) -> Void
    ) throws -> StoreFiles {
        var (header, chunks, _) = structure
        edit(&chunks)
        var out = files
        let dir = PageMapLayout.encodeDirectory(chunks)
        let at = Int(header.directoryOffset)
        out.pageFile.replaceSubrange(at..<(at + dir.count), with: dir)
        header.directoryCRC = Checksum.crc32(dir)
        return editingHeaders(out) { $0.directoryCRC = header.directoryCRC }
    }

    /// Rewrites map entry `page` in place; its chunk's CRC and the directory follow.
    static func editingMapEntry(_ files: StoreFiles, page: Int, _ edit: (inout MapEntry) -> Void) throws -> StoreFiles {
        let before = try structure(files)
        let (header, chunks, map) = before
        let index = page / Int(header.entriesPerChunk)
        let range = PageFileStructure.pages(ofChunk: index, header: header)
        var entries = Array(map[range])
        edit(&entries[page - range.lowerBound])
        let bytes = PageMapLayout.encodeChunk(index: UInt32(index), entries: entries[...])
        var out = files
        let at = Int(chunks[index].offset)
        out.pageFile.replaceSubrange(at..<(at + bytes.count), with: bytes)
        return try editingDirectory(out, structure: before) { $0[index].crc = Checksum.crc32(bytes) }
    }

    /// Appends one commit to the WAL that writes the meta page with `edit` applied, its commit
    /// record counting `recordPageCount` pages (the meta page's own count when nil).
    static func appendingMetaCommit(
        _ files: StoreFiles, recordPageCount: UInt32? = nil,
        _ edit: (PageBuffer) -> Void
    ) throws -> StoreFiles {
        let fs = InMemoryFileSystem(files: files.files)
        var options = StoreOptions(fileSystem: fs)
        options.readOnly = true
        let store = try Store.open(path: StoreFiles.path, options: options)
        defer { try? store.close() }
        let meta = try store.read { PageBuffer(copying: try $0.page(MetaPage.number)) }
        let scan = try WALScan.scan(try fs.open(StoreFiles.walPath, mode: .readOnly), pageSize: store.pageSize)
        let header = try #require(scan.header)
        let commit = store.lastCommit.next
        meta.mutableBytes.storeBytes(of: commit.rawValue.littleEndian, toByteOffset: 8, as: UInt64.self)
        edit(meta)
        let pageCount =
            recordPageCount ?? UInt32(littleEndian: meta.bytes.loadUnaligned(fromByteOffset: 16, as: UInt32.self))
        let image = PageImage.encode(page: meta, number: MetaPage.number, commit: commit, compressor: nil)
        var out: [UInt8] = []
        var crc = WALLayout.appendFrame(
            kind: .page, page: MetaPage.number, commit: commit, salt: header.salt,
            payload: image, previousCRC: scan.validEndCRC, to: &out)
        crc = WALLayout.appendFrame(
            kind: .commit, page: .none, commit: commit, salt: header.salt,
            payload: WALLayout.commitPayload(frameCount: 1, pageCount: pageCount),
            previousCRC: crc, to: &out)
        var result = files
        result.wal = Array(files.wal[0..<Int(scan.validEnd)]) + out
        return result
    }

    static func setU32(_ page: PageBuffer, at offset: Int, _ value: UInt32) {
        page.mutableBytes.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self)
    }

    // MARK: - Running

    static func options(_ fs: InMemoryFileSystem, readOnly: Bool) -> StoreOptions {
        var o = StoreOptions(fileSystem: fs)
        o.readOnly = readOnly
        o.durability = .off
        o.cacheBytes = 1 << 20
        return o
    }

    /// Opens (recovery and checkpoint when writable), reads every tree and, when writable, makes
    /// two commits, the second allocating many pages. Returns the error, if any.
    static func openReadAndWrite(_ files: StoreFiles, readOnly: Bool) -> (any Error)? {
        let fs = InMemoryFileSystem(files: files.files)
        do {
            let store = try Store.open(path: StoreFiles.path, options: options(fs, readOnly: readOnly))
            defer { try? store.close() }
            try readEveryTreeOfStore(store)
            guard !readOnly else { return nil }
            try store.write { try $0.openOrCreateTree("x").put([1], [1]) }
            try store.write { tx in
                let t = try tx.openOrCreateTree("bulk")
                for i in 0..<400 { try t.put(Array("k\(i)".utf8), [UInt8](repeating: UInt8(i & 0xFF), count: 300)) }
            }
            return nil
        } catch {
            return error
        }
    }

    static func readEveryTreeOfStore(_ store: Store) throws {
        try store.read { tx in
            for name in try tx.treeNames() { _ = try tx.tree(name)?.count() }
        }
    }

    static func expectCorruption(
        _ error: (any Error)?, _ what: Comment, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard case .corruption? = error as? StoreError else {
            Issue.record(
                "\(what): expected StoreError.corruption, got \(String(describing: error))",
                sourceLocation: sourceLocation)
            return
        }
    }

    static func verifyProblems(_ files: StoreFiles) throws -> Int { try files.verify().problemCount }

    // MARK: - Offsets that overflow a sum (G1)

    @Test(arguments: [UInt64.max, UInt64.max - 63, UInt64.max - 4096, 1 << 63])
    func directoryOffsetNearTheTopIsCorruption(offset: UInt64) throws {
        let files = Self.editingHeaders(try TestStores.build(.checkpointed)) { $0.directoryOffset = offset }
        for readOnly in [true, false] {
            Self.expectCorruption(Self.openReadAndWrite(files, readOnly: readOnly), "directory at \(offset)")
        }
        #expect(try Self.verifyProblems(files) > 0)
    }

    @Test(arguments: [UInt64.max, UInt64.max - 63, 1 << 63])
    func chunkOffsetNearTheTopIsCorruption(offset: UInt64) throws {
        let files = try Self.editingDirectory(try TestStores.build(.checkpointed)) { $0[0].offset = offset }
        for readOnly in [true, false] {
            Self.expectCorruption(Self.openReadAndWrite(files, readOnly: readOnly), "chunk at \(offset)")
        }
        #expect(try Self.verifyProblems(files) > 0)
    }

    @Test(arguments: [UInt64.max, UInt64.max - 63, 1 << 63])
    func mapEntryOffsetNearTheTopIsCorruption(offset: UInt64) throws {
        let files = try Self.editingMapEntry(try TestStores.build(.checkpointed), page: 2) { $0.offset = offset }
        for readOnly in [true, false] {
            Self.expectCorruption(Self.openReadAndWrite(files, readOnly: readOnly), "page 2's image at \(offset)")
        }
        #expect(try Self.verifyProblems(files) > 0)
    }

    // MARK: - Sequences at their maximum (FH3)

    @Test(arguments: [UInt64.max, UInt64.max - 1, CommitSequence.limit.rawValue + 1])
    func commitSequencePastTheLimitIsADamagedHeader(value: UInt64) throws {
        // The WAL holds commits, so the verifier's WAL pass runs after the header's commit.
        let files = Self.editingHeaders(try TestStores.build(.wal)) { $0.commitSequence = CommitSequence(value) }
        for readOnly in [true, false] {
            Self.expectCorruption(Self.openReadAndWrite(files, readOnly: readOnly), "commit \(value)")
        }
        #expect(try Self.verifyProblems(files) > 0)
    }

    @Test(arguments: [UInt64.max, UInt64.max - 1, CommitSequence.limit.rawValue + 1, 0])
    func checkpointSequenceOutsideItsRangeIsADamagedHeader(value: UInt64) throws {
        let files = Self.editingHeaders(try TestStores.build(.wal)) { $0.checkpointSequence = value }
        for readOnly in [true, false] {
            Self.expectCorruption(Self.openReadAndWrite(files, readOnly: readOnly), "checkpoint \(value)")
        }
        #expect(try Self.verifyProblems(files) > 0)
    }

    @Test func checkpointSequenceAtTheLimitRefusesTheNextCheckpoint() throws {
        let limit = CommitSequence.limit.rawValue
        let files = Self.editingHeaders(try TestStores.build(.wal)) { $0.checkpointSequence = limit - (limit & 1) }
        #expect(Self.openReadAndWrite(files, readOnly: true) == nil, "the limit itself is a valid value")
        let error = Self.openReadAndWrite(files, readOnly: false)
        guard case .invalidArgument(let text)? = error as? StoreError else {
            Issue.record("expected the checkpoint limit, got \(String(describing: error))"); return
        }
        #expect(text.contains("limit"))
    }

    // MARK: - A header with commit 0 (FH4)

    @Test func headerWithCommitZeroAndPagesIsNeverFormattedOver() throws {
        let original = try TestStores.build(.checkpointed)
        let files = Self.editingHeaders(original) { $0.commitSequence = CommitSequence(0) }
        let fs = InMemoryFileSystem(files: files.files)
        #expect(throws: StoreError.self) {
            try Store.open(path: StoreFiles.path, options: Self.options(fs, readOnly: false))
        }
        #expect(fs.contents(of: StoreFiles.path) == files.pageFile, "a refused open must leave the file as it was")
        #expect(try Self.verifyProblems(files) > 0)
    }

    @Test func oneHeaderCopyWithCommitZeroFallsBackToTheOtherCopy() throws {
        let original = try TestStores.build(.checkpointed)
        let (header, _, _) = try Self.structure(original)
        let active = FileHeader.slotOffsets.firstIndex { off in
            FileHeader.decode(Array(original.pageFile[Int(off)..<(Int(off) + FileHeader.size)])) == .success(header)
        }!
        var files = original
        var damaged = header
        damaged.commitSequence = CommitSequence(0)
        let at = Int(FileHeader.slotOffsets[active])
        files.pageFile.replaceSubrange(at..<(at + FileHeader.size), with: damaged.encoded())
        let fs = InMemoryFileSystem(files: files.files)
        let store = try Store.open(path: StoreFiles.path, options: Self.options(fs, readOnly: false))
        defer { try? store.close() }
        #expect(store.lastCommit != CommitSequence(0), "the older copy's store is opened, not a new one")
        #expect(try store.read { try $0.treeNames() }.isEmpty == false)
    }

    // MARK: - Meta page counters (R4)

    @Test(arguments: [UInt32(0x8000_0000), 0xFFFF_FFFF, 0xFFFF_FFFE])
    func metaPageCountDisagreeingWithTheLogIsCorruption(count: UInt32) throws {
        let real = try Self.realCountOfWAL()
        // The commit record agrees with the meta page: recovery refuses a commit that grows the
        // store by more pages than it writes, so the store opens at the commit before it.
        let grows = try Self.appendingMetaCommit(try TestStores.build(.wal)) { Self.setU32($0, at: 16, count) }
        #expect(Self.openReadAndWrite(grows, readOnly: false) == nil)
        #expect(try grows.verify().problems.contains { $0.message.contains("recovery ignores this one") })
        // The commit record keeps the real count: the writer refuses the meta page's.
        let disagrees = try Self.appendingMetaCommit(try TestStores.build(.wal), recordPageCount: real) {
            Self.setU32($0, at: 16, count)
        }
        Self.expectCorruption(Self.openReadAndWrite(disagrees, readOnly: false), "meta page count \(count)")
        #expect(try Self.verifyProblems(disagrees) > 0)
    }

    /// The page count of the last commit of `TestStores.build(.wal)`.
    static func realCountOfWAL() throws -> UInt32 {
        let files = try TestStores.build(.wal)
        let fs = InMemoryFileSystem(files: files.files)
        let store = try Store.open(path: StoreFiles.path, options: options(fs, readOnly: true))
        defer { try? store.close() }
        return UInt32(store.statistics.pageCount)
    }

    @Test(arguments: [UInt32(0), 0xFFFF_FFFF, 0xFFFF_FFFE])
    func metaFreeCountDisagreeingWithTheFreeListIsCorruption(count: UInt32) throws {
        let base = try TestStores.build(.checkpointed)
        let files = try Self.appendingMetaCommit(base) { Self.setU32($0, at: 28, count) }
        Self.expectCorruption(Self.openReadAndWrite(files, readOnly: false), "free count \(count)")
        #expect(try Self.verifyProblems(files) > 0)
    }
}

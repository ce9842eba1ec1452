// Inputs built to lie with good checksums — a header, map or WAL whose fields are hostile but
// whose CRCs are right, random garbage, random truncation — must end in a report or a
// StoreError, never a trap or a huge allocation.

import Testing
@testable import CdStore

@Suite struct VerifyHostileInputTests {
    /// Re-encodes the active header copy after `change`, with a correct CRC.
    static func rewriteHeader(_ files: inout StoreFiles, _ change: (inout FileHeader) -> Void) throws {
        rewriteHeader(&files, anatomy: try StoreAnatomy(files), change)
    }

    static func rewriteHeader(_ files: inout StoreFiles, anatomy a: StoreAnatomy, _ change: (inout FileHeader) -> Void)
    {
        var h = a.header
        change(&h)
        let at = Int(FileHeader.slotOffsets[a.activeSlot])
        files.pageFile.replaceSubrange(at..<at + FileHeader.size, with: h.encoded())
    }

    /// Re-encodes map chunk 0 after `change`, then the directory and the header, all with correct CRCs.
    static func rewriteChunk0(_ files: inout StoreFiles, _ change: (inout [MapEntry]) -> Void) throws {
        let a = try StoreAnatomy(files)
        let perChunk = Int(a.header.entriesPerChunk)
        var entries = Array(a.map.prefix(perChunk))
        change(&entries)
        let chunk = PageMapLayout.encodeChunk(index: 0, entries: entries[...])
        var chunks = a.chunks
        files.pageFile.replaceSubrange(Int(chunks[0].offset)..<Int(chunks[0].offset) + chunk.count, with: chunk)
        chunks[0].crc = Checksum.crc32(chunk)
        let dir = PageMapLayout.encodeDirectory(chunks)
        let dirAt = Int(a.header.directoryOffset)
        files.pageFile.replaceSubrange(dirAt..<dirAt + dir.count, with: dir)
        rewriteHeader(&files, anatomy: a) { $0.directoryCRC = Checksum.crc32(dir) }
    }

    @Test func headerClaimingBillionsOfPagesIsAProblemNotAnAllocation() throws {
        var files = try TestStores.build(.checkpointed)
        try Self.rewriteHeader(&files) { h in
            h.pageCount = UInt32.max - 1
            h.entriesPerChunk = 65536
            h.chunkCount = (UInt32.max - 1) / 65536 + 1
        }
        let report = try files.verify()
        #expect(report.problemsOnly.contains { $0.location.area == .pageMap })
    }

    @Test func directoryOutsideTheFileIsAProblem() throws {
        var files = try TestStores.build(.checkpointed)
        try Self.rewriteHeader(&files) { $0.directoryOffset = UInt64.max - 100 }
        #expect(try files.verify().problemsOnly.contains { $0.location.area == .pageMap })
    }

    @Test func mapEntriesWithHostileExtentsNameTheirPages() throws {
        var files = try TestStores.build(.checkpointed)
        try Self.rewriteChunk0(&files) { entries in
            entries[3] = MapEntry(offset: UInt64.max - 5, length: UInt32.max, crc: 1, commit: CommitSequence(1))
            entries[4].length = 10
            entries[5].offset = entries[6].offset  // two pages share one extent
        }
        let problems = try files.verify().problemsOnly
        for page in [3, 4, 5] as [UInt32] {
            #expect(problems.contains { $0.location.page == page }, "page \(page): \(problems.prefix(8))")
        }
    }

    @Test func walCommitWithLyingFieldsIsReported() throws {
        var files = try TestStores.build(.wal)
        let a = try StoreAnatomy(files)
        let scan = try #require(a.scan)
        let header = try WALLayout.Header.decode(Array(files.wal[0..<WALLayout.headerSize])).get()
        let last = try #require(scan.commits.last)
        let commit = last.commit.next
        let page = PageBuffer(zeroed: Int(a.header.pageSize))
        page.base.storeBytes(of: PageType.leaf.rawValue, as: UInt8.self)
        let far = PageNumber(900_000)
        let image = PageImage.encode(
            page: page, number: far, commit: commit, compressor: PageCompressor(level: 1, pageSize: page.count))
        var tail: [UInt8] = []
        var crc = WALLayout.appendFrame(
            kind: .page, page: far, commit: commit, salt: header.salt, payload: image,
            previousCRC: last.endCRC, to: &tail)
        crc = WALLayout.appendFrame(
            kind: .commit, page: .none, commit: commit, salt: header.salt,
            payload: WALLayout.commitPayload(frameCount: 1, pageCount: 3), previousCRC: crc, to: &tail)
        files.wal.replaceSubrange(Int(last.endOffset)..., with: tail)
        let problems = try files.verify().problemsOnly
        // Recovery refuses a commit whose frames name pages beyond its own page count, so the
        // verifier reports the frame as damage that a commit record follows.
        #expect(
            problems.contains {
                $0.location.area == .wal && $0.message.contains("names page \(far.rawValue), outside 1..<3")
            },
            "\(problems.prefix(4))")
    }

    @Test func structuralGarbageWithGoodChecksumsIsReported() throws {
        let clean = try TestStores.build(.checkpointed)
        let a = try StoreAnatomy(clean)
        for (type, tree) in [(PageType.leaf, "alpha"), (.branch, "alpha"), (.overflow, "blobs"), (.leaf, "(catalog)")] {
            let target = try #require(a.pageFilePages(type, tree: tree).first)
            let files = try clean.editedWithEngine(close: true) { store in
                try store.write { tx in
                    let m = try tx.writablePage(target).mutableBytes
                    for i in 1..<16 { m[i] = UInt8(truncatingIfNeeded: i &* 37 &+ 0x90) }
                }
            }
            let problems = try files.verify().problemsOnly
            #expect(
                problems.contains { $0.location.page == target.rawValue },
                "\(type) page \(target): \(problems.prefix(5))")
        }
    }

    @Test(arguments: testSeeds("CD_VERIFY_SEED", defaults: [0x7EE_5EED]))
    func randomPageContentWithGoodChecksumsNeverTraps(_ seed: UInt64) throws {
        print("VerifyHostileInputTests page-content seed \(seed) (replay with CD_VERIFY_SEED=\(seed))")
        let clean = try TestStores.build(.checkpointed)
        let a = try StoreAnatomy(clean)
        let targets = a.pages.keys.sorted()
        var rng = SeededGenerator(seed: seed)
        var reported = 0
        let rounds = 40
        for _ in 0..<rounds {
            let target = targets[Int.random(in: 0..<targets.count, using: &rng)]
            let edits = (0..<Int.random(in: 1...4, using: &rng)).map { _ in
                (Int.random(in: 0..<64, using: &rng), UInt8.random(in: 1...255, using: &rng))
            }
            let files = try clean.editedWithEngine(close: true) { store in
                try store.write { tx in
                    let m = try tx.writablePage(target).mutableBytes
                    for (at, mask) in edits { m[at] ^= mask }
                }
            }
            if try files.verify().problemCount > 0 { reported += 1 }
        }
        print(
            "VerifyHostileInputTests page-content seed \(seed): \(reported) of \(rounds) edits to page headers reported"
        )
        #expect(reported > rounds / 2)
    }

    @Test(arguments: testSeeds("CD_VERIFY_SEED", defaults: [0xBAD_5EED]))
    func randomGarbageAndTruncationEndInAReportOrAStoreError(_ seed: UInt64) throws {
        print("VerifyHostileInputTests seed \(seed) (replay with CD_VERIFY_SEED=\(seed))")
        let clean = try TestStores.build(.wal)
        var rng = SeededGenerator(seed: seed)
        for round in 0..<120 {
            var files = clean
            let inWAL = Bool.random(using: &rng)
            var bytes = inWAL ? files.wal : files.pageFile
            switch round % 3 {
            case 0:
                bytes.removeLast(Int.random(in: 1...bytes.count, using: &rng))
            case 1:
                let start = Int.random(in: 0..<bytes.count, using: &rng)
                let end = min(bytes.count, start + Int.random(in: 1...600, using: &rng))
                for i in start..<end { bytes[i] = UInt8.random(in: 0...255, using: &rng) }
            default:
                for _ in 0..<8 {
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng)
                }
            }
            if inWAL { files.wal = bytes } else { files.pageFile = bytes }
            do {
                _ = try files.verify()
            } catch let error as StoreError {
                switch error {
                case .notAStore, .unsupportedFormatVersion: break
                default: Issue.record("round \(round) (seed \(seed)): unexpected \(error)")
                }
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Checkpoint: copy committed page images from the WAL into the page file, then start a new WAL
// generation when nothing in the old one is needed any more.
//
// Order of a checkpoint (each step a write barrier, as SQLite orders its own: sync the WAL, copy, sync the page file):
//  0. (durability full) wait for the commits still waiting for their sync (GroupCommit), so that
//     the checkpoint sees every written commit and never copies one a failed sync may take back.
//  1. (durability normal) fsync the WAL, so the page file never gets ahead of a log that a crash
//     could still lose.
//  2. Copy each page's newest image ≤ the bound (P2) into *free* extents (copy-on-write: no extent
//     the durable header references is touched), rewrite the map chunks that changed and the
//     directory the same way.
//  3. fsync the page file.
//  4. Write the header copy not written last time (checkpoint sequence + 1); fsync.
//  5. Publish under the file lock: the new map and header, and the extents the old ones used
//     become free (S3).
//  6. If every commit is now in the page file and no reader is behind (P3): write a new WAL header
//     with a fresh salt, fsync. An automatic checkpoint keeps the log file's length (up to twice
//     the checkpoint threshold) so that the next commits overwrite blocks the file system already
//     allocated: their fdatasync then flushes data only, not the file's size (SQLite's WAL reuse).
//     The frames of the old generation past the new log's end carry the old salt, so recovery
//     stops at the first of them (W2). An explicit checkpoint and close truncate the log.
// A crash before step 4 completes leaves the old header, whose extents were not touched; a crash
// after it leaves the new one. Recovery then replays the WAL commits newer than the header.

/// What a checkpoint did.
public struct CheckpointResult: Sendable, Equatable {
    /// Pages copied from the WAL into the page file.
    public var pagesCopied: Int
    /// The commit the page file holds after the checkpoint.
    public var pageFileCommit: CommitSequence
    /// Whether the WAL was emptied and a new generation started.
    public var walReset: Bool
}

extension Store {
    /// Copies every commit that no reader still needs into the page file, and empties the WAL when
    /// nothing in it is needed any more. Readers keep working meanwhile; a write transaction in
    /// progress makes this wait for it.
    @discardableResult
    public func checkpoint() throws -> CheckpointResult {
        if isReadOnly { throw StoreError.readOnly(path: path) }
        try acquireWriter()
        defer { releaseWriter() }
        try checkUsable()
        return try checkpointLocked(resetLog: true, forceReset: false, keepLogFile: false)
    }

    /// Runs a checkpoint; the caller holds the writer gate. `keepLogFile` keeps the WAL file's
    /// length at a reset (step 6) unless it is over twice the checkpoint threshold.
    func checkpointLocked(resetLog: Bool, forceReset: Bool, keepLogFile: Bool) throws -> CheckpointResult {
        // Commits written but still waiting for their sync are made durable first (one sync shared
        // with their writers), so the checkpoint sees every commit and may reset the log.
        if options.durability == .full {
            let last = lastWritten
            if last > lastCommit { try waitDurable(last) }
        }
        // Other processes' readers count too (StoreCoordination CN3); while one reads, the WAL
        // stays (its process's index points into it).
        let others = try coordination.beginCheckpoint()
        defer { coordination.endCheckpoint() }
        let bound = stateLock.withLock {
            min(committed, readers.keys.min() ?? committed, others.oldest ?? committed)
        }
        var copied = 0
        if bound > header.commitSequence, let wal {
            // FileHeader FH3: the sequence read from the file is at most the limit; never wrap it.
            guard header.checkpointSequence < CommitSequence.limit.rawValue else {
                throw StoreError.invalidArgument(
                    "the store has reached its limit of \(CommitSequence.limit) checkpoints")
            }
            if options.durability == .normal { try syncOrPoison(wal, what: "WAL") }
            let (changes, newCount) = stateLock.withLock {
                (walIndex.latest(after: header.commitSequence, upTo: bound), walIndex.pageCount(atOrBefore: bound))
            }
            let pageCount = Int(max(newCount ?? header.pageCount, header.pageCount))
            var space = freeSpace
            var toFree: [(UInt64, UInt64)] = []
            var updates: [Int: MapEntry] = [:]
            updates.reserveCapacity(changes.count)
            for (page, entry) in changes {
                let n = Int(page.rawValue)
                if n < map.count, map[n].isPresent { toFree.append((map[n].offset, UInt64(map[n].length))) }
                if entry.isTombstone { updates[n] = .absent; continue }
                var image = try wal.readExactly(Int(entry.length), at: entry.offset, location: .page(page))
                var crc = entry.imageCRC
                if let compressed = try compressedCopy(of: image, page: page, commit: entry.commit) {
                    image = compressed
                    crc = compressed.withUnsafeBytes { PageImage.header(of: $0).crc }
                }
                let offset = space.allocate(UInt64(image.count))
                try file.write(image, at: offset)
                updates[n] = MapEntry(offset: offset, length: UInt32(image.count), crc: crc, commit: entry.commit)
                copied += 1
            }

            // Map chunks: rewrite those with a changed entry, and those whose length changes.
            let perChunk = Int(header.entriesPerChunk)
            let chunkCount = (pageCount + perChunk - 1) / perChunk
            var touched = Set(updates.keys.map { $0 / perChunk })
            for i in 0..<chunkCount {
                let oldCount = max(0, min(perChunk, map.count - i * perChunk))
                let newCountInChunk = min(perChunk, pageCount - i * perChunk)
                if i >= chunks.count || oldCount != newCountInChunk { touched.insert(i) }
            }
            var newChunks = chunks
            for i in touched.sorted() {
                let lo = i * perChunk, hi = min(lo + perChunk, pageCount)
                let entries = (lo..<hi).map { n in updates[n] ?? (n < map.count ? map[n] : .absent) }
                let bytes = PageMapLayout.encodeChunk(index: UInt32(i), entries: entries[...])
                if i < chunks.count { toFree.append((chunks[i].offset, UInt64(chunks[i].length))) }
                let offset = space.allocate(UInt64(bytes.count))
                try file.write(bytes, at: offset)
                let location = ChunkLocation(offset: offset, length: UInt32(bytes.count), crc: Checksum.crc32(bytes))
                if i < newChunks.count { newChunks[i] = location } else { newChunks.append(location) }
            }
            var newHeader = header
            if !touched.isEmpty || header.chunkCount != UInt32(chunkCount) {
                let dir = PageMapLayout.encodeDirectory(newChunks)
                if header.chunkCount > 0 { toFree.append((header.directoryOffset, UInt64(header.directoryLength))) }
                let offset = space.allocate(UInt64(dir.count))
                try file.write(dir, at: offset)
                newHeader.directoryOffset = offset
                newHeader.directoryLength = UInt32(dir.count)
                newHeader.directoryCRC = Checksum.crc32(dir)
            }
            if options.durability != .off { try syncOrPoison(file, what: "page file") }
            newHeader.checkpointSequence += 1
            newHeader.commitSequence = bound
            newHeader.pageCount = UInt32(pageCount)
            newHeader.chunkCount = UInt32(chunkCount)
            newHeader.dataEnd = space.dataEnd
            let slot = 1 - activeSlot
            do {
                try file.write(newHeader.encoded(), at: FileHeader.slotOffsets[slot])
            } catch {
                setPoison("writing the page file header failed: \(error)")
                throw error
            }
            if options.durability != .off { try syncOrPoison(file, what: "page file") }

            fileLock.withWriteLock {
                if map.count < pageCount {
                    map.append(contentsOf: repeatElement(MapEntry.absent, count: pageCount - map.count))
                }
                for (n, e) in updates { map[n] = e }
                chunks = newChunks
                header = newHeader
                activeSlot = slot
                for (start, length) in toFree { space.free(start, length: length) }
                freeSpace = space
                checkpointCount += 1
            }
            publishSharedState()
            try trimFileTail()
        }

        var reset = false
        if resetLog, let wal, !isReadOnly {
            let canReset = stateLock.withLock {
                written == committed && committed == header.commitSequence
                    && (readers.keys.min().map { $0 >= committed } ?? true) && !others.othersReading
            }
            let headerEnd = UInt64(WALLayout.headerSize)
            let fileSize = canReset ? try wal.size() : 0
            let truncate = !keepLogFile || fileSize > 2 * options.checkpointThresholdBytes
            if canReset && (walEnd > headerEnd || forceReset || (truncate && fileSize > headerEnd)) {
                try fileLock.withWriteLock {
                    do {
                        var salt: UInt32 = 0
                        repeat { salt = UInt32.random(in: 1...UInt32.max) } while salt == walSalt
                        let h = WALLayout.Header(
                            pageSize: UInt32(pageSize), generation: header.checkpointSequence, salt: salt)
                        try wal.write(h.encoded(), at: 0)
                        if truncate { try wal.truncate(to: headerEnd) }
                        if options.durability != .off { try wal.sync() }
                        stateLock.withLock {
                            walIndex = WALIndex()
                            walEnd = UInt64(WALLayout.headerSize)
                            committedWALEnd = walEnd
                        }
                        walChainCRC = h.chainSeed
                        walSalt = salt
                        publishSharedState()
                    } catch {
                        setPoison("resetting the WAL failed: \(error)")
                        throw error
                    }
                }
                reset = true
            }
        }
        return CheckpointResult(pagesCopied: copied, pageFileCommit: header.commitSequence, walReset: reset)
    }

    /// The compressed image of a raw WAL image (R5 of WriteTransaction), or nil when `image` is
    /// already compressed, compression is off, or the page does not compress. The raw image is
    /// checked first, so that damage is reported, never sealed under a fresh checksum.
    private func compressedCopy(of image: [UInt8], page: PageNumber, commit: CommitSequence) throws -> [UInt8]? {
        guard compressor.level > 0, image.count >= PageImage.headerSize,
            image[1] == PageCodecID.raw.rawValue
        else { return nil }
        let decoded = image.withUnsafeBytes {
            PageImage.decode(
                $0, expected: page, expectedCommit: commit, pageSize: pageSize, pool: decompressors, pages: pages)
        }
        switch decoded {
        case .failure(let why):
            throw StoreError.corruption(path: walPath, location: .page(page), detail: why.text)
        case .success(let buffer):
            let compressed = PageImage.encode(page: buffer, number: page, commit: commit, compressor: compressor)
            return compressed[1] == PageCodecID.raw.rawValue ? nil : compressed
        }
    }

    /// Gives back the file's unused tail once it is large (1 MiB or an eighth of the file).
    private func trimFileTail() throws {
        let size = try file.size()
        let end = freeSpace.dataEnd
        guard size > end, size - end >= max(1 << 20, size / 8) else { return }
        try file.truncate(to: end)
    }

    func syncOrPoison(_ f: any StoreFile, what: String) throws {
        do { try f.sync() } catch {
            setPoison("fsync of the \(what) failed: \(error)")
            throw error
        }
    }
}

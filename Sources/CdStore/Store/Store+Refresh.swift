// How a process keeps up with the others (SharedStoreCoordination): the writer lock around every
// write transaction and checkpoint, and catching up — the page file header another process's
// checkpoint wrote, the commits another process appended to the WAL, a new WAL generation — before
// a write transaction or a read transaction begins.
//
// Invariants:
//  MP1. A write transaction, checkpoint or close holds the in-process gate and then the writer lock
//       (CN1), and begins only once this process's view equals the shared state: it builds on the
//       last commit any process wrote.
//  MP2. A reader's snapshot is a commit of the shared state this process has caught up with, and
//       its mark is published before it reads a page; if the shared state moved or another
//       process's checkpoint ran meanwhile (CN3), the reader starts over, so no checkpoint it did
//       not count overwrites or frees what it reads.
//  MP3. Catching up changes nothing while this process holds the writer lock (nobody else can
//       publish, CN1), so it never races the writer; it runs under `refreshLock`.
//  MP5. A commit another process wrote becomes visible here once this process caught up with it
//       when this store's durability is `normal` or `off` (it acknowledges its own commits before
//       they are durable, so it reads others' the same way), and once the shared durable word
//       reaches it with `full`. So a durable word lowered by a hostile value never hides an
//       acknowledged commit from a `normal` store; with `full` it delays it until the next commit
//       of any process raises the word again (a lowered word looks exactly like a sync in flight).
//  MP4. A shared state that fails its checks (checksum, a half-published sequence, a commit or log
//       end the files do not hold) is rebuilt from the page file and the WAL under the writer lock,
//       after an fsync of the WAL: whatever it then claims is in the files and durable.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Store {
    /// Why catching up failed (the shared state moved meanwhile, or it claims what the files lack).
    struct CatchUpFailure: Error { let detail: String }

    // MARK: - The writer lock (MP1)

    /// Takes the in-process gate and the writer lock, and catches up with the shared state.
    func acquireWriter() throws {
        writerGate.acquire()
        do {
            let suspect = try coordination.lockWriter()
            if coordination.isShared {
                try refreshLock.withLock {
                    if suspect {
                        try rebuildSharedState()
                    } else if let read = coordination.readState() {
                        if read.sequence != stateLock.withLock({ sharedSequence }) {
                            do { try catchUp(to: read.0, sequence: read.sequence) } catch is CatchUpFailure {
                                try rebuildSharedState()
                            }
                        }
                    } else {
                        try rebuildSharedState()
                    }
                    adoptDurable()
                }
            }
        } catch {
            coordination.unlockWriter()
            writerGate.release()
            throw error
        }
    }

    /// Releases the writer lock and the gate.
    func releaseWriter() {
        coordination.unlockWriter()
        writerGate.release()
    }

    /// Publishes this process's state after a commit, checkpoint or WAL reset (under the writer
    /// lock, CN2).
    func publishSharedState() {
        guard coordination.isShared else { return }
        let state = stateLock.withLock {
            SharedStoreState(
                written: written, walEnd: walEnd, walChainCRC: walChainCRC, walSalt: walSalt,
                checkpointSequence: header.checkpointSequence, headerCommit: header.commitSequence)
        }
        let sequence = coordination.publish(state)
        stateLock.withLock { sharedSequence = sequence }
    }

    // MARK: - Readers (MP2)

    /// Catches up with the shared state when it moved (one atomic load when it did not).
    func catchUpIfMoved() throws {
        let stamp = coordination.stamp()
        let (seen, visible) = stateLock.withLock { (sharedSequence, committed) }
        if stamp.sequence == seen {
            if stamp.durable > visible.rawValue { refreshLock.withLock { adoptDurable() } }
            return
        }
        var repair = false
        try refreshLock.withLock {
            for attempt in 0..<64 {
                guard let read = coordination.readState() else { repair = true; return }
                let sequence = read.sequence
                if sequence == stateLock.withLock({ sharedSequence }) { adoptDurable(); return }
                do {
                    try catchUp(to: read.0, sequence: sequence)
                    adoptDurable()
                    return
                } catch is CatchUpFailure {
                    // Moved meanwhile (a checkpoint or reset under the scan): try again; the
                    // same state failing twice is damage, repaired under the writer lock (MP4).
                    if coordination.stamp().sequence != sequence { continue }
                    if attempt >= 1 { repair = true; return }
                }
            }
            repair = true
        }
        if repair {
            try acquireWriter()
            releaseWriter()
        }
    }

    /// Waits while another process's checkpoint runs (CN3), repairing the checkpoint word of a
    /// process that died in one.
    func waitForOtherCheckpoint() throws {
        var rounds = 0
        while coordination.checkpointOfOtherRunning() {
            rounds += 1
            usleep(rounds < 20 ? 50 : 500)
            if rounds % 200 == 0, !coordination.writerHeldByOther() {
                // A checkpoint runs under the writer lock; nobody holds it, so its process died:
                // the next writer (this one) clears the word (SharedStoreCoordination.lockWriter).
                try acquireWriter()
                releaseWriter()
            }
        }
    }

    /// Raises `committed` to the last commit other processes made visible (MP5).
    func adoptDurable() {
        let durable = options.durability == .full ? coordination.durableCommit() : CommitSequence.limit
        stateLock.withLock {
            let visible = min(durable, written)
            if visible > committed {
                committed = visible
                committedWALEnd = walEnd
            }
        }
    }

    // MARK: - Catching up

    /// Brings the page map, free space and WAL index up to `state` (MP3). Throws `CatchUpFailure`
    /// when the files do not hold what it names.
    func catchUp(to state: SharedStoreState, sequence: UInt64) throws {
        do {
            try catchUpReading(to: state)
        } catch let error as StoreError {
            // Without the writer lock another process may checkpoint, reset or cut the WAL under
            // the reads: what they found is no damage until the same state fails again.
            throw CatchUpFailure(detail: "\(error)")
        }
        stateLock.withLock { sharedSequence = sequence }
    }

    private func catchUpReading(to state: SharedStoreState) throws {
        if state.checkpointSequence != header.checkpointSequence {
            try reloadPageFile(checkpointSequence: state.checkpointSequence, commit: state.headerCommit)
        }
        let (localEnd, localWritten) = stateLock.withLock { (walEnd, written) }
        if state.walSalt != walSalt || state.walEnd < localEnd {
            try reindexLog(upTo: state)
        } else if state.walEnd > localEnd {
            try indexLogTail(from: localEnd, upTo: state)
        } else if state.written != localWritten {
            throw CatchUpFailure(
                detail: "the log ends at \(localEnd) with commit \(localWritten), not \(state.written)")
        }
    }

    /// Loads the page file header copy of `checkpointSequence`, its map and free space.
    private func reloadPageFile(checkpointSequence: UInt64, commit: CommitSequence) throws {
        let size = try file.size()
        let copies = try PageFileStructure.readHeaderCopies(file, fileSize: size)
        guard let index = copies.firstIndex(where: { $0.header?.checkpointSequence == checkpointSequence }),
            let newHeader = copies[index].header, newHeader.commitSequence == commit
        else {
            throw CatchUpFailure(detail: "no page file header of checkpoint \(checkpointSequence), commit \(commit)")
        }
        let loaded: ([MapEntry], [ChunkLocation], FreeSpace)
        do {
            let (newMap, newChunks) = try Self.loadPageMap(file, header: newHeader, fileSize: size)
            let space = try Self.deriveFreeSpace(path: path, header: newHeader, map: newMap, chunks: newChunks)
            loaded = (newMap, newChunks, space)
        } catch let error as StoreError {
            throw CatchUpFailure(detail: "\(error)")
        }
        fileLock.withWriteLock {
            header = newHeader
            activeSlot = index
            map = loaded.0
            chunks = loaded.1
            freeSpace = loaded.2
        }
    }

    /// Indexes the WAL again from its header (a new generation, or a first look).
    private func reindexLog(upTo state: SharedStoreState) throws {
        guard let wal else { throw CatchUpFailure(detail: "no WAL") }
        let scan = try WALScan.scan(wal, pageSize: pageSize)
        guard let walHeader = scan.header, walHeader.salt == state.walSalt else {
            throw CatchUpFailure(detail: "the WAL is not of generation \(state.walSalt)")
        }
        let plan = WALRecoveryPlan(scan: scan, after: header.commitSequence, pageCount: header.pageCount)
        var index = WALIndex()
        var last = header.commitSequence
        var end = UInt64(WALLayout.headerSize)
        var crc = walHeader.chainSeed
        for c in plan.commits where c.endOffset <= state.walEnd {
            index.add(commit: c.commit, frames: c.frames, pageCount: c.pageCount)
            (last, end, crc) = (c.commit, c.endOffset, c.endCRC)
        }
        // Commits the page file holds already end the log at their own end.
        if end < state.walEnd, let c = scan.commits.last(where: { $0.endOffset == state.walEnd }),
            c.commit <= header.commitSequence
        {
            (last, end, crc) = (c.commit, c.endOffset, c.endCRC)
        }
        guard end == state.walEnd, last == state.written, crc == state.walChainCRC else {
            throw CatchUpFailure(detail: "the WAL does not end at \(state.walEnd) with commit \(state.written)")
        }
        fileLock.withWriteLock {
            stateLock.withLock {
                walIndex = index
                noteForeign(after: written, through: last)  // NC1
                written = last
                committed = min(committed, last)
                walEnd = end
                committedWALEnd = min(committedWALEnd, end)
            }
            walChainCRC = crc
            walSalt = walHeader.salt
        }
    }

    /// Indexes the commits another process appended after `start`.
    private func indexLogTail(from start: UInt64, upTo state: SharedStoreState) throws {
        guard let wal else { throw CatchUpFailure(detail: "no WAL") }
        let walHeader = WALLayout.Header(pageSize: UInt32(pageSize), generation: 0, salt: walSalt)
        let next = stateLock.withLock { written.next }
        let scan = try WALScan.scanTail(
            wal, header: walHeader, pageSize: pageSize, from: start, crc: walChainCRC, next: next, end: state.walEnd)
        guard let last = scan.commits.last, last.endOffset == state.walEnd, last.commit == state.written,
            last.endCRC == state.walChainCRC
        else {
            throw CatchUpFailure(detail: "the WAL does not hold commits up to \(state.written) at \(state.walEnd)")
        }
        stateLock.withLock {
            for c in scan.commits { walIndex.add(commit: c.commit, frames: c.frames, pageCount: c.pageCount) }
            noteForeign(after: written, through: last.commit)  // NC1
            written = last.commit
            walEnd = last.endOffset
        }
        walChainCRC = last.endCRC
    }

    // MARK: - Rebuilding (MP4)

    /// Rebuilds this process's view and the shared state from the files (under the writer lock).
    func rebuildSharedState() throws {
        let size = try file.size()
        let (newHeader, slot) = try Self.readHeader(file, size: size)
        let (newMap, newChunks) = try Self.loadPageMap(file, header: newHeader, fileSize: size)
        let space = try Self.deriveFreeSpace(path: path, header: newHeader, map: newMap, chunks: newChunks)
        var index = WALIndex()
        var last = newHeader.commitSequence
        var end = UInt64(0), crc: UInt32 = 0, salt: UInt32 = 0
        if let wal {
            // Whatever a process that died left complete in the log becomes durable now (MP4).
            try syncOrPoison(wal, what: "WAL")
            let scan = try WALScan.scan(wal, pageSize: pageSize)
            if scan.header == nil, !isReadOnly {
                // No generation at all (an empty log of a store first opened read-only, or a
                // damaged header, which leaves no frame valid): start one.
                var fresh: UInt32 = 0
                repeat { fresh = UInt32.random(in: 1...UInt32.max) } while fresh == walSalt
                let h = WALLayout.Header(
                    pageSize: UInt32(pageSize), generation: newHeader.checkpointSequence, salt: fresh)
                try wal.write(h.encoded(), at: 0)
                try wal.truncate(to: UInt64(WALLayout.headerSize))
                try syncOrPoison(wal, what: "WAL")
                (end, crc, salt) = (UInt64(WALLayout.headerSize), h.chainSeed, fresh)
            }
            if let h = scan.header {
                end = UInt64(WALLayout.headerSize)
                crc = h.chainSeed
                salt = h.salt
                if let c = scan.commits.last, scan.commits.allSatisfy({ $0.commit <= newHeader.commitSequence }) {
                    (end, crc) = (c.endOffset, c.endCRC)
                }
                let plan = WALRecoveryPlan(scan: scan, after: newHeader.commitSequence, pageCount: newHeader.pageCount)
                for c in plan.commits {
                    index.add(commit: c.commit, frames: c.frames, pageCount: c.pageCount)
                    (last, end, crc) = (c.commit, c.endOffset, c.endCRC)
                }
            }
        }
        fileLock.withWriteLock {
            header = newHeader
            activeSlot = slot
            map = newMap
            chunks = newChunks
            freeSpace = space
            stateLock.withLock {
                walIndex = index
                noteForeign(after: written, through: last)  // NC1
                written = last
                committed = last
                walEnd = end
                committedWALEnd = end
            }
            walChainCRC = crc
            walSalt = salt
        }
        if let shared = coordination as? SharedStoreCoordination { shared.resetDurable(last) }
        publishSharedState()
    }
}

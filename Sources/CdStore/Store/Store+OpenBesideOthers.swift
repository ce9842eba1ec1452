// Opening a store that other processes have open. Those processes write, checkpoint and reset the
// WAL while this one opens it, and nothing stops them: the opener holds no reader mark and no
// writer lock yet. So the open reads the page file as a reader reads shared state — optimistically,
// checking that nothing moved — and leaves the WAL to catching up (Store+Refresh), which already
// tolerates a log that changes under it.
//
// Invariants:
//  OP1. An open beside others never scans the WAL itself: the shared state says where the log ends
//       and of which generation it is, and catching up (MP2) indexes it, starting over when the log
//       was cut or reset meanwhile. A log cut under the open is another process's checkpoint, never
//       reported as damage.
//  OP2. The page file header, map and free space are read without a lock; a read that fails while
//       the shared state moved (a checkpoint published, and a later one may reuse the extents that
//       the header read names) is read again. The same state failing twice is read once more under
//       the writer lock, where no checkpoint runs: what fails then is damage, and is thrown.
//  OP3. Only a store that opens alone creates, formats or recovers the files (Store+Open); an open
//       beside others writes nothing, except the repair any writer makes under the writer lock of
//       a shared state a dead process left half-written (MP4).

extension Store {
    /// What an open reads from the page file: the current header (and its slot), the page map and
    /// the free space it implies.
    struct PageFileState {
        var header: FileHeader
        var slot: Int
        var map: [MapEntry]
        var chunks: [ChunkLocation]
        var freeSpace: FreeSpace
    }

    /// Reads the page file's current header, map and free space.
    static func readPageFile(_ file: any StoreFile, path: String) throws -> PageFileState {
        let size = try file.size()
        let (header, slot) = try readHeader(file, size: size)
        let (map, chunks) = try loadPageMap(file, header: header, fileSize: size)
        let freeSpace = try deriveFreeSpace(path: path, header: header, map: map, chunks: chunks)
        return PageFileState(header: header, slot: slot, map: map, chunks: chunks, freeSpace: freeSpace)
    }

    /// Opens the store beside the processes that have it open (OP1–OP3). `walFile` receives the
    /// WAL handle as soon as it is open, so that the caller closes it when this throws.
    static func openBesideOthers(
        path: String, options: StoreOptions, file: any StoreFile, coordination: any StoreCoordination,
        walFile: inout (any StoreFile)?
    ) throws -> Store {
        var holdsWriterLock = false
        defer { if holdsWriterLock { coordination.unlockWriter() } }
        var suspect = false
        let state: PageFileState
        if let read = try readPageFileOptimistically(file, path: path, coordination: coordination) {
            state = read
        } else {
            // OP2: the same state failed twice; no checkpoint runs under the writer lock.
            suspect = try coordination.lockWriter()
            holdsWriterLock = true
            state = try readPageFile(file, path: path)
        }
        let fs = options.fileSystem
        let walPath = path + "-wal"
        if fs.fileExists(walPath) || !options.readOnly {
            let walExisted = fs.fileExists(walPath)
            walFile = try fs.open(walPath, mode: options.readOnly ? .readOnly : .createIfMissing)
            if !walExisted, options.durability != .off { try fs.syncDirectory(containing: walPath) }
        }
        // No WAL position yet (OP1): the first catch-up indexes the log of the shared state's
        // generation from its header. An odd sequence is never a published one, so that catch-up
        // always runs, whatever the shared sequence word holds.
        let store = Store(
            path: path, options: options, file: file, wal: walFile, header: state.header, activeSlot: state.slot,
            map: state.map, chunks: state.chunks, freeSpace: state.freeSpace, scan: nil, coordination: coordination)
        store.sharedSequence = .max
        if holdsWriterLock {
            // A process died holding the writer lock and left the shared state half-written: it is
            // rebuilt from the files, as the next writer would (MP4).
            if suspect { try store.rebuildSharedState() }
            coordination.unlockWriter()
            holdsWriterLock = false
        }
        try store.catchUpIfMoved()
        return store
    }

    /// Reads the page file while other processes may checkpoint into it (OP2): nil when the same
    /// shared state failed twice, so the caller reads it under the writer lock.
    private static func readPageFileOptimistically(
        _ file: any StoreFile, path: String, coordination: any StoreCoordination
    ) throws -> PageFileState? {
        var failuresOfOneState = 0
        var moves = 0
        while failuresOfOneState < 2 {
            let before = coordination.stamp().sequence
            do {
                return try readPageFile(file, path: path)
            } catch let error as StoreError {
                if case .io = error { throw error }
                if coordination.stamp().sequence != before, moves < 1_000 {
                    moves += 1
                } else {
                    failuresOfOneState += 1
                }
            }
        }
        return nil
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Opening a store: lock, header, page map, free space, WAL recovery, and for a new store the
// first commit that formats the meta page and the catalog.
//
// Recovery (read-write open): scan the WAL, index exactly the complete commits newer than the
// page file's header commit, then checkpoint them all and start a fresh WAL generation, so that a
// torn tail can never be continued by later frames. Read-only opens index the same commits in
// memory and write nothing.

extension Store {
    /// Opens the store at `path`, creating it when it is missing (unless read-only or
    /// `createIfMissing` is off).
    ///
    /// Throws `StoreError.locked` when another handle has it open, `.notAStore` for a file that is
    /// not a store, `.unsupportedFormatVersion`, `.corruption` naming what is damaged, and `.io`.
    public static func open(path: String, options: StoreOptions = StoreOptions()) throws -> Store {
        let fs = options.fileSystem
        let exists = fs.fileExists(path)
        if !exists && (options.readOnly || !options.createIfMissing) {
            throw StoreError.io(operation: "open", path: path, errno: ENOENT)
        }
        if !exists && !FileHeader.isValidPageSize(options.pageSize) {
            throw StoreError.invalidArgument("page size \(options.pageSize) is not a power of two from 4096 to 65536")
        }
        let file = try fs.open(path, mode: options.readOnly ? .readOnly : .createIfMissing)
        var walFile: (any StoreFile)?
        var coordination: (any StoreCoordination)?
        do {
            coordination = try attach(file, options: options)
            guard coordination!.openedAlone else {
                // Others have it open and may checkpoint meanwhile (Store+OpenBesideOthers, OP1–OP3).
                return try openBesideOthers(
                    path: path, options: options, file: file, coordination: coordination!, walFile: &walFile)
            }
            let size = try file.size()
            let unfinishedCreation =
                try !options.readOnly && size <= FileHeader.dataStart && isAllZero(file, size: size)
            if size == 0 || unfinishedCreation {
                // Empty, or a creation that a crash cut off before any header landed: an all-zero
                // file shorter than the data area holds nothing to lose.
                guard !options.readOnly else { throw StoreError.notAStore(path: path, detail: "the file is empty") }
                try writeInitialHeaders(file, pageSize: options.pageSize, durability: options.durability)
                if !exists, options.durability != .off { try fs.syncDirectory(containing: path) }
            }
            let pageFile = try readPageFile(file, path: path)
            let header = pageFile.header

            let walPath = path + "-wal"
            var scan: WALScanResult?
            if fs.fileExists(walPath) || !options.readOnly {
                let walExisted = fs.fileExists(walPath)
                walFile = try fs.open(walPath, mode: options.readOnly ? .readOnly : .createIfMissing)
                if !walExisted, options.durability != .off { try fs.syncDirectory(containing: walPath) }
                scan = try WALScan.scan(walFile!, pageSize: Int(header.pageSize))
            }
            let store = Store(
                path: path, options: options, file: file, wal: walFile, header: header,
                activeSlot: pageFile.slot, map: pageFile.map, chunks: pageFile.chunks, freeSpace: pageFile.freeSpace,
                scan: scan, coordination: coordination!)
            if let scan { store.indexRecoveredCommits(scan) }
            defer { if let shared = coordination as? SharedStoreCoordination { try? shared.finishAttach() } }
            if options.readOnly {
                store.publishSharedState()
                store.coordination.publishDurable(store.committed)
            } else {
                store.writerGate.acquire()
                defer { store.writerGate.release() }
                let walIsClean =
                    scan.map {
                        $0.header != nil && $0.commits.isEmpty && $0.tailBytes == 0 && $0.fileSize == $0.validEnd
                    } ?? false
                if !walIsClean {
                    _ = try store.checkpointLocked(resetLog: true, forceReset: true, keepLogFile: false)
                }
                // Commit 0 with no WAL commit is a store created but never formatted: its header
                // has no pages and no map (FileHeader FH4), so formatting overwrites nothing.
                if store.committed == CommitSequence(0) { try store.formatNewStore() }
                store.publishSharedState()
                store.coordination.publishDurable(store.committed)
            }
            return store
        } catch {
            coordination?.detach()
            try? walFile?.close()
            try? file.close()
            throw error
        }
    }

    /// Locks the page file and attaches to the other processes that have it open. With a file
    /// system that shares regions, every store holds a shared `flock` on the page file (so a build
    /// that takes an exclusive one, as those before several processes did, is refused while any
    /// is open, and refuses them while it is) and attaches to `NAME-shm`; otherwise, or when the
    /// shared file cannot be opened, the store is one process's alone, as before: an exclusive
    /// `flock` (a shared one read-only).
    static func attach(_ file: any StoreFile, options: StoreOptions) throws -> any StoreCoordination {
        if options.sharing == .processes, let provider = sharedRegionProvider(of: options.fileSystem) {
            try file.lock(.shared, waitingUpTo: options.lockWaitSeconds)
            let region: any SharedRegion
            do {
                region = try provider.openSharedRegion(file.path + "-shm", size: SharedStateLayout.size)
            } catch StoreError.io(_, _, let code) where options.readOnly && (code == EACCES || code == EROFS) {
                // A read-only store on a medium it may not write: nobody can write it either.
                try file.lock(.exclusive, waitingUpTo: options.lockWaitSeconds)
                return SingleProcessCoordination()
            }
            return try SharedStoreCoordination(region: region)
        }
        try file.lock(options.readOnly ? .shared : .exclusive, waitingUpTo: options.lockWaitSeconds)
        return SingleProcessCoordination()
    }

    // MARK: - Header

    static func isAllZero(_ file: any StoreFile, size: UInt64) throws -> Bool {
        let bytes = try file.readExactly(Int(size), at: 0, location: .offset(0))
        return bytes.allSatisfy { $0 == 0 }
    }

    static func writeInitialHeaders(_ file: any StoreFile, pageSize: Int, durability: Durability) throws {
        let header = FileHeader(
            pageSize: UInt32(pageSize), checkpointSequence: 1, commitSequence: CommitSequence(0),
            pageCount: 0, chunkCount: 0, directoryOffset: 0, directoryLength: 0, directoryCRC: 0,
            dataEnd: FileHeader.dataStart, entriesPerChunk: PageMapLayout.defaultEntriesPerChunk)
        var bytes = [UInt8](repeating: 0, count: Int(FileHeader.dataStart))
        let encoded = header.encoded()
        bytes.replaceSubrange(0..<encoded.count, with: encoded)
        try file.write(bytes, at: 0)
        if durability != .off { try file.sync() }
    }

    /// Picks the valid header copy with the higher checkpoint sequence (FH1), through the one
    /// structure reader the verifier uses too (PageFileStructure).
    static func readHeader(_ file: any StoreFile, size: UInt64) throws -> (FileHeader, Int) {
        let copies = try PageFileStructure.readHeaderCopies(file, fileSize: size)
        guard let best = PageFileStructure.current(of: copies) else {
            throw PageFileStructure.noUsableHeader(copies, path: file.path, fileSize: size)
        }
        return best
    }

    // MARK: - Page map

    /// Reads and checks the directory and every map chunk, and every present entry (PageFileStructure
    /// G1, G2): the first damage is thrown.
    static func loadPageMap(
        _ file: any StoreFile, header: FileHeader, fileSize: UInt64
    ) throws -> ([MapEntry], [ChunkLocation]) {
        let path = file.path
        func damaged(_ why: DamageReport) -> StoreError {
            StoreError.corruption(path: path, location: .pageMap(detail: why.text), detail: why.text)
        }
        guard header.chunkCount > 0 else { return ([], []) }
        if let why = PageFileStructure.checkMapSize(header, fileSize: fileSize) { throw damaged(why) }
        let chunks: [ChunkLocation]
        switch try PageFileStructure.readDirectory(file, header: header, fileSize: fileSize) {
        case .success(let c): chunks = c
        case .failure(let why): throw damaged(why)
        }
        var map: [MapEntry] = []
        map.reserveCapacity(Int(header.pageCount))
        for (i, c) in chunks.enumerated() {
            switch try PageFileStructure.readChunk(file, index: i, location: c, header: header, fileSize: fileSize) {
            case .success(let entries): map.append(contentsOf: entries)
            case .failure(let why): throw damaged(why)
            }
        }
        for (n, e) in map.enumerated() where e.isPresent {
            if let why = PageFileStructure.checkEntry(e, page: n, header: header, fileSize: fileSize) {
                throw StoreError.corruption(path: path, location: .page(PageNumber(UInt32(n))), detail: why.text)
            }
        }
        return (map, chunks)
    }

    static func usedExtents(header: FileHeader, map: [MapEntry], chunks: [ChunkLocation]) -> [UsedExtent] {
        var used: [UsedExtent] = []
        used.reserveCapacity(map.count + chunks.count + 1)
        for (n, e) in map.enumerated() where e.isPresent {
            used.append(UsedExtent(start: e.offset, length: UInt64(e.length), owner: .page(n)))
        }
        for (i, c) in chunks.enumerated() {
            used.append(UsedExtent(start: c.offset, length: UInt64(c.length), owner: .mapChunk(i)))
        }
        if header.chunkCount > 0 {
            used.append(
                UsedExtent(start: header.directoryOffset, length: UInt64(header.directoryLength), owner: .mapDirectory))
        }
        return used
    }

    static func deriveFreeSpace(
        path: String, header: FileHeader, map: [MapEntry], chunks: [ChunkLocation]
    ) throws -> FreeSpace {
        let used = usedExtents(header: header, map: map, chunks: chunks)
        let end = max(
            header.dataEnd, used.map { PageMapLayout.roundUp($0.start + $0.length) }.max() ?? FileHeader.dataStart)
        switch FreeSpace.derive(used: used, dataEnd: end) {
        case .success(let s): return s
        case .failure(let why):
            throw StoreError.corruption(path: path, location: .pageMap(detail: "extents"), detail: why.text)
        }
    }

    // MARK: - WAL recovery

    /// Indexes the WAL's complete commits that recovery applies (WALRecoveryPlan Y1, Y2).
    func indexRecoveredCommits(_ scan: WALScanResult) {
        for c in WALRecoveryPlan(scan: scan, after: header.commitSequence, pageCount: header.pageCount).commits {
            walIndex.add(commit: c.commit, frames: c.frames, pageCount: c.pageCount)
            committed = c.commit
            written = c.commit
            committedWALEnd = c.endOffset
        }
    }

    /// The first commit of a new store: the meta page and the empty catalog tree.
    func formatNewStore() throws {
        let tx = try WriteTransaction(store: self, gateHeld: true)
        try tx.formatStore()
        try tx.commitHoldingGate()
        _ = try checkpointLocked(resetLog: true, forceReset: false, keepLogFile: false)
    }
}

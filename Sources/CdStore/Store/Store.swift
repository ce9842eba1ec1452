#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

// The store: one page file `NAME` and its write-ahead log `NAME-wal`, one writer at a time and
// any number of snapshot readers.
//
// Concurrency (who owns what):
//  - `writerGate` admits one write transaction at a time; checkpoints run under it too, so the
//    checkpoint state below (header, map, chunks, free space, WAL tail) changes only there.
//  - `stateLock` guards the snapshot state readers consult: `committed`, the WAL index and the
//    reader registry, plus `closed` and `poison`.
//  - `fileLock` is shared by every page read (lookup + pread) and taken exclusively to publish a
//    checkpoint's new map and free space, and to reset the WAL. A reader therefore never reads an
//    extent or WAL frame that is being reused under it.
//
// Invariants:
//  P1. `written` is the last commit whose frames (all of them) are in the WAL and the index; the
//      writer builds on it. `committed` ≤ `written` is the last commit readers see: with
//      durability `full` the last one whose frames are durable (GroupCommit GC4), otherwise
//      `written`. A snapshot ≤ `committed` never reads a frame of a later commit.
//  P2. Every registered reader's snapshot is ≤ `committed`; a checkpoint copies only commits
//      ≤ the oldest registered snapshot, so no reader's version of a page is overwritten in the
//      page file while it may still read it (SQLite's read marks).
//  P3. The WAL is reset only when every commit is in the page file and no reader's snapshot is
//      older than the last commit: then the page file is exactly every reader's snapshot.
//  P4. After a failed fsync the store is poisoned: nothing more is written and every call throws
//      `StoreError.poisoned` until it is reopened (Linux may drop dirty pages after a writeback
//      error, so a retried fsync can succeed over lost data; PostgreSQL panics and replays its
//      WAL for the same reason).

/// A Cadmium store file: named B+trees of byte keys and values, with snapshot transactions.
///
/// ```swift
/// let store = try Store.open(path: "/tmp/app.cdstore")
/// try store.write { tx in
///     let people = try tx.createTree("people")
///     try people.put(Array("ada".utf8), Array("Ada Lovelace".utf8))
/// }
/// let name = try store.read { tx in try tx.tree("people")?.get(Array("ada".utf8)) }
/// try store.close()
/// ```
public final class Store: @unchecked Sendable {
    /// The page file's path.
    public let path: String
    /// The WAL's path: the page file's path with `-wal` appended.
    public let walPath: String
    /// The logical page size, fixed at creation.
    public let pageSize: Int
    /// Whether the store was opened read-only.
    public let isReadOnly: Bool
    let options: StoreOptions
    let file: any StoreFile
    let wal: (any StoreFile)?
    let decompressors = PageDecompressorPool()
    let cache: PageCache
    /// The memory of every page this store makes, shared by its threads (PageBufferPool BP1–BP5).
    let pages: PageBufferPool
    /// The catalog entries of the newest commit a reader looked up, shared by its readers.
    let catalogRoots = CatalogRoots()
    let writerGate = WriterGate()
    let stateLock = Lock()
    let groupCommit: GroupCommit
    let fileLock = ReadWriteLock()
    /// The other processes that may have the store open (StoreCoordination CN1–CN3).
    let coordination: any StoreCoordination
    /// Serialises catching up with the shared state (Store+Refresh MP3).
    let refreshLock = Lock()
    /// How many reads ran in pieces on several threads (Tree+Parallel.swift), for tests and tools.
    let parallelReads = Atomic<Int>(0)

    // Snapshot state (stateLock).
    var committed: CommitSequence
    var written: CommitSequence
    /// The WAL end after `committed` (for cutting off the commits a failed sync leaves behind).
    var committedWALEnd: UInt64
    var walIndex = WALIndex()
    var readers: [CommitSequence: Int] = [:]
    /// The sequence of the shared state this process has caught up with (Store+Refresh MP1–MP3).
    var sharedSequence: UInt64 = 0
    /// The newest commit another process wrote that this process's snapshots show, and newer
    /// ones not durable yet, oldest first (Store+ForeignCommits NC1, NC2).
    var foreignVisible = CommitSequence(0)
    var foreignPending: [ClosedRange<CommitSequence>] = []
    var closed = false
    var poison: String?

    // Checkpoint state (writerGate; published under fileLock exclusively). `walEnd` changes
    // under stateLock too, so that `statistics` may read it from any thread.
    var header: FileHeader
    var activeSlot: Int
    var map: [MapEntry]
    var chunks: [ChunkLocation]
    var freeSpace: FreeSpace
    var walEnd: UInt64
    var walChainCRC: UInt32
    var walSalt: UInt32
    /// What recovery found in the WAL at open (for statistics and the verifier).
    let recoveredWAL: WALScanResult?
    var checkpointCount = 0

    // Writer-only (writerGate).
    let compressor: PageCompressor
    /// The bytes of the last commit's WAL write, kept for their capacity: a stream of small
    /// commits builds each write in the same memory instead of allocating (and, off the main
    /// thread, growing and trimming a malloc arena) tens of KiB per commit. Empty between commits.
    var commitBuffer: [UInt8] = []
    /// The largest `commitBuffer` capacity kept after a commit (a bulk commit's is released).
    static let commitBufferLimit = 1 << 20
    /// The last private cache key handed to a spilled page (SpillLog SP4).
    private var spillCacheKey: UInt64 = 0

    /// A cache key commit no snapshot ever uses (≥ 2^63, above every commit sequence) for a
    /// spilled page (SpillLog SP4). Writer-only.
    func nextSpillCacheKey() -> UInt64 {
        spillCacheKey &+= 1
        return (1 << 63) | spillCacheKey
    }

    init(
        path: String, options: StoreOptions, file: any StoreFile, wal: (any StoreFile)?, header: FileHeader,
        activeSlot: Int, map: [MapEntry], chunks: [ChunkLocation], freeSpace: FreeSpace, scan: WALScanResult?,
        coordination: any StoreCoordination
    ) {
        self.coordination = coordination
        self.path = path
        self.walPath = path + "-wal"
        self.pageSize = Int(header.pageSize)
        self.isReadOnly = options.readOnly
        self.options = options
        self.file = file
        self.wal = wal
        self.cache = PageCache(budgetBytes: options.cacheBytes, pageSize: Int(header.pageSize))
        self.pages = PageBufferPool(pageSize: Int(header.pageSize), cacheCapacity: cache.capacity)
        self.header = header
        self.activeSlot = activeSlot
        self.map = map
        self.chunks = chunks
        self.freeSpace = freeSpace
        self.committed = header.commitSequence
        self.written = header.commitSequence
        self.groupCommit = GroupCommit(path: path + "-wal", durable: header.commitSequence)
        self.walEnd = scan?.validEnd ?? 0
        self.committedWALEnd = scan?.validEnd ?? 0
        self.walChainCRC = scan?.validEndCRC ?? 0
        self.walSalt = scan?.header?.salt ?? 0
        self.recoveredWAL = scan
        self.compressor = PageCompressor(level: options.compressionLevel, pageSize: Int(header.pageSize))
    }

    // MARK: - State checks

    /// Throws when the store is closed or poisoned (P4).
    func checkUsable() throws {
        try stateLock.withLock {
            if closed { throw StoreError.closed(path: path) }
            if let poison { throw StoreError.poisoned(path: path, cause: poison) }
        }
    }

    func setPoison(_ cause: String) {
        stateLock.withLock { if poison == nil { poison = cause } }
    }

    /// The most threads one read may use (`StoreOptions.readThreads`, at least 1).
    package var readThreads: Int { max(1, options.readThreads) }

    /// How many reads of this store have run in pieces on several threads so far.
    package var parallelReadCount: Int { parallelReads.load(ordering: .relaxed) }

    /// The last committed sequence number: the newest commit a read transaction sees.
    public var lastCommit: CommitSequence { stateLock.withLock { committed } }

    /// The last commit written to the WAL, durable or not (P1): what the next writer builds on.
    var lastWritten: CommitSequence { stateLock.withLock { written } }

    /// The second half of a commit (`WriteTransaction.commitWithoutWaiting()`): waits until
    /// `commit` is durable (with durability `full`; group commit) and then runs the automatic
    /// checkpoint when the WAL has grown past its threshold. Returns once the commit is durable
    /// and visible to new readers.
    package func finishCommit(_ commit: CommitSequence) throws {
        try finishCommit(commit, gateOwned: true)
    }

    func finishCommit(_ commit: CommitSequence, gateOwned: Bool) throws {
        if options.durability == .full { try waitDurable(commit) }
        let threshold = options.checkpointThresholdBytes
        guard stateLock.withLock({ walEnd }) > threshold else { return }
        // The commit is done; a failing automatic checkpoint must not undo it. A durability
        // failure inside it poisons the store (P4), which the next call reports.
        if gateOwned { try acquireWriter() }
        defer { if gateOwned { releaseWriter() } }
        if walEnd > threshold {
            _ = try? checkpointLocked(resetLog: true, forceReset: false, keepLogFile: true)
        }
    }

    /// Returns once `commit` is durable, sharing the fsync with every commit waiting at the same
    /// time (GroupCommit GC1–GC4). Called without the writer gate.
    func waitDurable(_ commit: CommitSequence) throws {
        guard let wal else { throw StoreError.readOnly(path: path) }
        try groupCommit.waitDurable(
            commit,
            target: { stateLock.withLock { (written, walEnd) } },
            sync: { try wal.sync() },
            publish: { covered in
                stateLock.withLock {
                    if covered.0 > committed {
                        committed = covered.0
                        committedWALEnd = covered.1
                    }
                }
                coordination.publishDurable(covered.0)
            },
            poison: { cause in
                setPoison(cause)
                // Best effort: cut the unsynced commits off so that a reopen does not find the
                // commits this reports as failed. The store stays poisoned either way (P4). Other
                // processes may have appended after them: a shared log is left as it is.
                guard !coordination.isShared else { return }
                let end = stateLock.withLock { committedWALEnd }
                try? wal.truncate(to: end)
            })
    }

    // MARK: - Reader registry (P2)

    /// Registers a reader on the last commit (P2); with other processes, on the last commit of
    /// the shared state, marked for their checkpoints (Store+Refresh MP2).
    func registerReader() throws -> CommitSequence {
        guard coordination.isShared else { return try registerLocalReader() }
        while true {
            try catchUpIfMoved()
            let (snapshot, seen) = try stateLock.withLock {
                let snapshot = try registerLocalReader()
                return (snapshot, sharedSequence)
            }
            // MP2: the mark is out; a checkpoint that began before it, or a state that moved since
            // this process caught up, sends the reader round again.
            if !coordination.checkpointOfOtherRunning() && coordination.stamp().sequence == seen { return snapshot }
            unregisterReader(snapshot)
            try waitForOtherCheckpoint()
        }
    }

    /// Registers a reader on this process's last commit and publishes the process's oldest
    /// snapshot as its mark. Under `stateLock` when shared.
    private func registerLocalReader() throws -> CommitSequence {
        let register = {
            if self.closed { throw StoreError.closed(path: self.path) }
            if let poison = self.poison { throw StoreError.poisoned(path: self.path, cause: poison) }
            self.readers[self.committed, default: 0] += 1
            if self.coordination.isShared, self.readers[self.committed] == 1 {
                self.coordination.setReaderMark(self.readers.keys.min())
            }
            return self.committed
        }
        return coordination.isShared ? try register() : try stateLock.withLock(register)
    }

    func unregisterReader(_ snapshot: CommitSequence) {
        stateLock.withLock {
            if let n = readers[snapshot] {
                readers[snapshot] = n > 1 ? n - 1 : nil
                if n == 1, coordination.isShared { coordination.setReaderMark(readers.keys.min()) }
            }
        }
    }

    // MARK: - Reading pages

    /// Whether page `number` has an image at `snapshot` (a WAL image that is not a tombstone, else
    /// a page-map entry). A page listed free has none (MetaPage M2).
    func hasImage(_ number: PageNumber, snapshot: CommitSequence) -> Bool {
        fileLock.withReadLock {
            if let e = stateLock.withLock({ walIndex.lookup(number, atOrBefore: snapshot) }) { return !e.isTombstone }
            let i = Int(number.rawValue)
            return i < map.count && map[i].isPresent
        }
    }

    /// The version of page `number` a snapshot at `snapshot` sees: from the cache, the WAL or the
    /// page file, checked (CRC, page number, commit) and decompressed.
    func loadPage(_ number: PageNumber, snapshot: CommitSequence) throws -> PageBuffer {
        enum Found { case cached(PageBuffer), stored([UInt8], PageCache.Key) }
        let found: Found = try fileLock.withReadLock {
            let walEntry: WALIndex.Entry? = try stateLock.withLock {
                if closed { throw StoreError.closed(path: path) }
                return walIndex.lookup(number, atOrBefore: snapshot)
            }
            if let e = walEntry {
                if e.isTombstone {
                    throw StoreError.corruption(
                        path: walPath, location: .page(number),
                        detail: "page \(number) was freed by commit \(e.commit) but is still referenced")
                }
                let key = PageCache.Key(page: number.rawValue, commit: e.commit.rawValue)
                if let hit = cache.get(key) { return .cached(hit) }
                guard let wal else { throw StoreError.closed(path: path) }
                return .stored(try wal.readExactly(Int(e.length), at: e.offset, location: .page(number)), key)
            }
            guard Int(number.rawValue) < map.count, number != .none else {
                throw StoreError.corruption(
                    path: path, location: .page(number),
                    detail: "page \(number) is past the page map (\(map.count) pages)")
            }
            let entry = map[Int(number.rawValue)]
            guard entry.isPresent else {
                throw StoreError.corruption(
                    path: path, location: .page(number), detail: "page \(number) has no image in the page map")
            }
            let key = PageCache.Key(page: number.rawValue, commit: entry.commit.rawValue)
            if let hit = cache.get(key) { return .cached(hit) }
            return .stored(try file.readExactly(Int(entry.length), at: entry.offset, location: .page(number)), key)
        }
        switch found {
        case .cached(let page):
            return page
        case .stored(let bytes, let key):
            let decoded = bytes.withUnsafeBytes {
                PageImage.decode(
                    $0, expected: number, expectedCommit: CommitSequence(key.commit),
                    pageSize: pageSize, pool: decompressors, pages: pages)
            }
            switch decoded {
            case .success(let page):
                cache.put(key, page)
                return page
            case .failure(let why):
                throw StoreError.corruption(path: path, location: .page(number), detail: why.text)
            }
        }
    }
}

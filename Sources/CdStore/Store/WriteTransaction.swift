// The one write transaction: private copies of the pages it changes, page allocation from the
// free list, and the commit that appends them to the WAL.
//
// Invariants:
//  R1. `dirty` holds this transaction's version of every page it changed, except those it spilled
//      (`spill`, SpillLog SP1–SP4) and did not change since; nothing else sees them before commit,
//      and after commit they are handed to the cache and never written again (PB2).
//  R2. `freed` holds pages that had an image before this transaction and are now listed free;
//      commit writes a tombstone for each (M2). A freed page allocated again leaves `freed`.
//  R3. The commit writes frames for exactly the pages in `dirty`, the spilled pages and `freed`,
//      then the commit record; its bytes grow with the pages changed, never with the store.
//  R6. At most `dirtyPageLimit` pages stay in `dirty` between tree operations: when a put or
//      delete begins with more, every dirty page is spilled to the WAL first. Spills happen only
//      there, when no tree operation holds a page buffer, never inside one.
//  R9. Inside `withSequentialWrites` the limit is a quarter of the default: the caller changes
//      each page once, in key order (an update or a delete applied tree by tree), so a spilled
//      page is not changed again and spilling earlier costs no extra write; the pages it holds
//      sit in the cache's budget (SP4) instead of beside it. Other writes (a bulk insert that
//      comes back to the same index leaves) keep the whole limit, where an early spill would
//      write those pages again and again.
//  R4. The meta page's counters are checked before the writer trusts them: its page count
//      against the store's (the header's or the last WAL commit record's, both bounded by the
//      file), its commit against the snapshot, its free count against its page count at the
//      start and against the free list at every allocation and free; a page popped from the
//      free list must have no image (MetaPage M2). A disagreement is corruption, never an
//      allocation for a page count nobody wrote, a wrapped counter, or a live page handed out.
//  R7. A commit files its pages in the cache in place of the WAL versions they supersede when no
//      reader of this process is registered (every registered snapshot is older than the commit
//      and may still read them): the next snapshots read the new versions, so the old ones would
//      only take cache room until evicted. A reader that begins before the commit is durable
//      reads a superseded version from the WAL again; the cache only ever saves reads (PC1).
//  R5. A commit of at most `rawImagePageLimit` pages writes its images raw: a stream of small
//      commits rewrites the same few pages, and compressing each version would cost a deflate per
//      page per commit; the checkpoint compresses the one version it copies. Larger commits
//      compress at commit, so a bulk load's WAL stays as small as its page file. Mostly-empty
//      pages are the exception: the meta page (32 bytes of counters and zeros) and tree pages at
//      most an eighth full are deflated by `SparsePageDeflate`, a single pass that costs about what
//      the raw image's CRC and copy would, where the raw image would be a whole page of every
//      commit's log and fsync.
//  R8. A commit builds its frames in a buffer of about `commitWriteBytes` and writes it to the log
//      each time it fills, at the offsets the frames will keep, the commit record last: a commit of
//      thousands of pages holds one write's frames, not a copy of every frame at once. Frames
//      written before a failure or a crash are a tail without a commit record, which no reader
//      indexes and recovery drops (WALScan), exactly as a torn single write of them would be.

/// A write transaction. Only one exists at a time; ``Store/write(_:)`` is the usual way in.
///
/// Changes are private until ``commit()``; ``abort()`` (or letting it go uncommitted) discards
/// them all.
public final class WriteTransaction: Transaction, PageSink {
    private var dirty: [PageNumber: PageBuffer] = [:]
    private var freed: Set<PageNumber> = []
    private var meta: MetaPage
    private let ownsGate: Bool
    /// The pages written to the WAL ahead of the commit record (R6); nil until the first spill.
    private var spill: SpillLog?
    /// How many changed pages stay in memory before a spill (R6): `defaultDirtyPageLimit`, or
    /// less while `withSequentialWrites` runs.
    private(set) var dirtyPageLimit: Int
    /// The limit the options set (R6).
    let defaultDirtyPageLimit: Int

    init(store: Store, gateHeld: Bool) throws {
        ownsGate = !gateHeld
        if !gateHeld { try store.acquireWriter() }
        let spillBytes = store.options.spillThresholdBytes ?? store.options.cacheBytes
        defaultDirtyPageLimit = max(16, spillBytes / store.pageSize)
        dirtyPageLimit = defaultDirtyPageLimit
        do {
            if store.isReadOnly { throw StoreError.readOnly(path: store.path) }
            try store.checkUsable()
        } catch {
            if !gateHeld { store.releaseWriter() }
            throw error
        }
        let snapshot = store.lastWritten  // Store P1: the writer builds on every written commit
        meta = MetaPage(
            commit: snapshot, pageCount: 1, catalogRoot: MetaPage.catalogRoot,
            freeListHead: .none, freeCount: 0)
        super.init(store: store, snapshot: snapshot)
        if snapshot != CommitSequence(0) {
            do {
                switch MetaPage.decode(try page(MetaPage.number)) {
                case .success(let m): meta = m
                case .failure(let why):
                    throw StoreError.corruption(path: store.path, location: .page(MetaPage.number), detail: why.text)
                }
                if let why = Self.disagreement(of: meta, snapshot: snapshot, pageCount: store.pageCount(at: snapshot)) {
                    throw StoreError.corruption(path: store.path, location: .page(MetaPage.number), detail: why.text)
                }
            } catch {
                finished = true
                if ownsGate { store.releaseWriter() }
                throw error
            }
        }
    }

    deinit { if !finished { abort() } }

    /// Why the meta page cannot be trusted for writing (R4): the writer allocates from its page
    /// count and keeps its free count, so both must agree with the rest of the store. Its page
    /// count must be the one the header or the last WAL commit record gives (bounded by the file's
    /// map), its commit the snapshot's, its free count below its page count.
    static func disagreement(of meta: MetaPage, snapshot: CommitSequence, pageCount: UInt32) -> DamageReport? {
        if meta.commit != snapshot {
            return "the meta page was written by commit \(meta.commit), the last commit is \(snapshot)"
        }
        if meta.pageCount != pageCount {
            return "the meta page counts \(meta.pageCount) pages, the store's map and log \(pageCount)"
        }
        if meta.freeCount >= meta.pageCount {
            return "the meta page counts \(meta.freeCount) free pages of \(meta.pageCount)"
        }
        return nil
    }

    /// The most pages a commit writes as raw images (R5).
    static let rawImagePageLimit = 8
    /// The bytes of frames a commit builds before it writes them to the log (R8).
    static let commitWriteBytes = 1 << 20

    /// The deflate stream of a mostly-empty page of a small commit (R5), from the cheap sparse
    /// encoder: the meta page, or a tree page whose cells and slots take at most an eighth of it.
    /// Nil for any other page, or when the stream would not be under a quarter of the page.
    static func sparseImage(_ page: PageBuffer, _ number: PageNumber) -> [UInt8]? {
        if number != MetaPage.number {
            guard page.pageType == .leaf || page.pageType == .branch,
                let node = try? BTreeNode(page, number: number), node.usedBytes <= page.count / 8
            else { return nil }
        }
        return SparsePageDeflate.encode(page.bytes, limit: page.count / 4)
    }

    // MARK: - PageSource / PageSink

    public override func page(_ number: PageNumber) throws -> PageBuffer {
        if finished { throw StoreError.transactionFinished }
        if let d = dirty[number] { return d }
        if let spill, let wal = store.wal,
            let spilled = try spill.read(number, commit: snapshot.next, store: store, wal: wal)
        {
            return spilled
        }
        return try store.loadPage(number, snapshot: snapshot)
    }

    public func writablePage(_ number: PageNumber) throws -> PageBuffer {
        if finished { throw StoreError.transactionFinished }
        if let d = dirty[number] { return d }
        guard number != .none, number.rawValue < meta.pageCount else {
            throw StoreError.corruption(
                path: store.path, location: .page(number),
                detail: "write to page \(number) outside 1..<\(meta.pageCount)")
        }
        let copy: PageBuffer
        if let spill, let wal = store.wal, let slot = spill.slot(number),
            let spilled = try spill.read(number, commit: snapshot.next, store: store, wal: wal)
        {
            copy = PageBuffer(copying: spilled, into: store.pages)
            store.cache.remove(slot.cacheKey)  // keeps SpillLog SP4: the spilled version is dead now
        } else {
            copy = PageBuffer(copying: try store.loadPage(number, snapshot: snapshot), into: store.pages)
        }
        dirty[number] = copy
        return copy
    }

    public func allocatePage() throws -> PageNumber {
        if finished { throw StoreError.transactionFinished }
        if meta.freeListHead != .none {
            let head = meta.freeListHead
            let trunk = FreeListTrunk(page: try writablePage(head))
            if let why = trunk.validate(pageCount: meta.pageCount) {
                throw StoreError.corruption(path: store.path, location: .page(head), detail: why.text)
            }
            let number: PageNumber
            if trunk.count > 0 {
                number = trunk.entry(trunk.count - 1)
                // R4: the count read from the file must agree with the list it counts.
                guard meta.freeCount > 0 else {
                    throw StoreError.corruption(
                        path: store.path, location: .page(MetaPage.number),
                        detail: "the meta page counts no free pages, but trunk \(head) lists \(trunk.count)")
                }
                // MetaPage M2: a listed page has no image, unless this transaction freed it. One
                // that has is in use: handing it out would overwrite a live page.
                if !freed.contains(number), store.hasImage(number, snapshot: snapshot) {
                    throw StoreError.corruption(
                        path: store.path, location: .page(head),
                        detail: "free-list trunk \(head) lists page \(number), which is in use")
                }
                trunk.count -= 1
                meta.freeCount -= 1
                freed.remove(number)
            } else {
                number = head
                meta.freeListHead = trunk.next
            }
            dirty[number] = PageBuffer(zeroed: store.pages)
            return number
        }
        guard meta.pageCount < UInt32.max - 1 else {
            throw StoreError.invalidArgument("the store has reached its limit of \(UInt32.max - 1) pages")
        }
        let number = PageNumber(meta.pageCount)
        if store.hasImage(number, snapshot: snapshot) {
            throw StoreError.corruption(
                path: store.path, location: .page(MetaPage.number),
                detail: "the meta page counts \(meta.pageCount) pages, but page \(number) is in use")
        }
        meta.pageCount += 1
        dirty[number] = PageBuffer(zeroed: store.pages)
        return number
    }

    public func freePage(_ number: PageNumber) throws {
        if finished { throw StoreError.transactionFinished }
        guard number.rawValue >= 3, number.rawValue < meta.pageCount else {
            throw StoreError.corruption(
                path: store.path, location: .page(number), detail: "freeing page \(number), which cannot be free")
        }
        dirty[number] = nil
        if meta.freeListHead != .none {
            let trunk = FreeListTrunk(page: try writablePage(meta.freeListHead))
            if trunk.count < FreeListTrunk.capacity(pageSize: pageSize) {
                trunk.setEntry(trunk.count, number)
                guard meta.freeCount < meta.pageCount else {
                    throw StoreError.corruption(
                        path: store.path, location: .page(MetaPage.number),
                        detail: "the meta page counts \(meta.freeCount) free pages of \(meta.pageCount)")
                }
                trunk.count += 1
                meta.freeCount += 1
                freed.insert(number)
                return
            }
        }
        let page = PageBuffer(zeroed: store.pages)
        _ = FreeListTrunk.format(page, next: meta.freeListHead)
        dirty[number] = page
        meta.freeListHead = number
    }

    // MARK: - Trees

    /// Creates an empty tree named `name`; throws `treeExists` when there is one.
    public func createTree(_ name: String) throws -> Tree {
        try Catalog.validateName(name)
        if try tree(name) != nil { throw StoreError.treeExists(name) }
        catalogChanged = true
        let t = try BTree.create(in: self)
        try catalog.put(Array(name.utf8), Catalog.encodeRoot(t), in: self)
        trees[name] = t
        return Tree(name: name, btree: t, transaction: self)
    }

    /// The tree named `name`, created when missing.
    public func openOrCreateTree(_ name: String) throws -> Tree {
        if let t = try tree(name) { return t }
        return try createTree(name)
    }

    /// Deletes the tree named `name` and frees its pages; throws `treeNotFound` when missing.
    public func dropTree(_ name: String) throws {
        guard let t = try tree(name) else { throw StoreError.treeNotFound(name) }
        catalogChanged = true
        try t.btree.drop(in: self)
        try catalog.delete(Array(name.utf8), in: self)
        trees[name] = nil
    }

    /// Formats a new store: the meta page (1) and the empty catalog tree (2).
    func formatStore() throws {
        catalogChanged = true
        let metaPage = try allocatePage()
        let catalogTree = try BTree.create(in: self)
        precondition(
            metaPage == MetaPage.number && catalogTree.root == MetaPage.catalogRoot,
            "a new store allocates pages 1 and 2 first")
    }

    // MARK: - Commit and abort

    /// Makes the changes durable (per the store's durability) and visible to new transactions.
    /// A transaction that changed nothing commits nothing.
    ///
    /// With durability `full` the frames are written under the writer gate and the call then waits,
    /// without the gate, for an fsync that covers them: commits that wait at the same time share
    /// one (group commit, `GroupCommit`). The call returns only once the commit is durable; a
    /// failed fsync poisons the store and fails every commit waiting for it.
    public func commit() throws {
        guard let sequence = try commitWithoutWaiting() else { return }
        try store.finishCommit(sequence, gateOwned: ownsGate)
    }

    /// The first half of `commit()`: writes the frames and releases the writer gate, without
    /// waiting for durability. Returns the commit's sequence (nil when nothing changed); the caller
    /// must pass it to ``Store/finishCommit(_:)`` before it treats the commit as done. A layer
    /// that orders its own work by commit (under a lock of its own) takes that lock around this
    /// call only, so that its commits still share fsyncs.
    package func commitWithoutWaiting() throws -> CommitSequence? {
        if finished { throw StoreError.transactionFinished }
        defer {
            finished = true
            if ownsGate { store.releaseWriter() }
        }
        return try commitHoldingGate()
    }

    // MARK: - Spilling (R6)

    /// Changed pages held in memory now.
    var dirtyPageCount: Int { dirty.count }
    /// Pages spilled to the WAL so far (one frame each, SpillLog SP3).
    var spilledPageCount: Int { spill?.order.count ?? 0 }

    /// Runs `body` with a quarter of the dirty-page limit (R9): for writes that change each page of
    /// a tree once, in key order, such as an update or a delete of many stored objects.
    package func withSequentialWrites<T>(_ body: () throws -> T) rethrows -> T {
        let limit = dirtyPageLimit
        dirtyPageLimit = max(16, min(limit, defaultDirtyPageLimit / 4))
        defer { dirtyPageLimit = limit }
        return try body()
    }

    /// Spills every dirty page when more than `dirtyPageLimit` are held. Called by tree operations
    /// before they begin (R6). A failed write ends the transaction: a frame overwritten in place may
    /// be torn, so nothing it spilled can be trusted any more.
    func spillIfNeeded() throws {
        if finished { throw StoreError.transactionFinished }
        guard dirty.count > dirtyPageLimit, let wal = store.wal else { return }
        try store.checkUsable()
        var log = spill ?? SpillLog(start: store.walEnd, pageSize: pageSize)
        let pages = dirty.keys.sorted().map { ($0, dirty[$0]!) }
        do {
            try log.spill(
                pages, commit: snapshot.next, salt: store.walSalt, wal: wal, cache: store.cache,
                nextCacheKey: store.nextSpillCacheKey)
        } catch {
            abort()
            throw error
        }
        spill = log
        dirty = [:]
    }

    /// Discards every change.
    public func abort() {
        guard !finished else { return }
        finished = true
        dirty = [:]
        freed = []
        spill = nil
        if ownsGate { store.releaseWriter() }
    }

    /// Writes the frames and indexes the commit (R3); returns its sequence, or nil when there was
    /// nothing to commit. The caller holds the writer gate. With durability `full` readers see the
    /// commit once a sync covers it (`Store.waitDurable`); otherwise at once.
    @discardableResult
    func commitHoldingGate() throws -> CommitSequence? {
        try store.checkUsable()
        guard !dirty.isEmpty || !freed.isEmpty || spill != nil else { finished = true; return nil }
        guard let wal = store.wal else { throw StoreError.readOnly(path: store.path) }
        guard snapshot < CommitSequence.limit else {
            throw StoreError.invalidArgument("the store has reached its limit of \(CommitSequence.limit) commits")
        }
        let sequence = snapshot.next
        meta.commit = sequence
        let metaPage = dirty[MetaPage.number] ?? PageBuffer(zeroed: store.pages)
        meta.write(into: metaPage)
        dirty[MetaPage.number] = metaPage

        // Spilled pages changed again are overwritten in their frames; then the spilled frames are
        // chained and the rest follows them (SpillLog SP2, SP3).
        var start = store.walEnd
        var crc = store.walChainCRC
        var frames: [WALFrameRecord] = []
        if var log = spill {
            let respilled = dirty.keys.filter { log.slot($0) != nil }.sorted()
            try log.spill(
                respilled.map { ($0, dirty[$0]!) }, commit: sequence, salt: store.walSalt, wal: wal,
                cache: store.cache, nextCacheKey: store.nextSpillCacheKey)
            for number in respilled { dirty[number] = nil }
            (frames, crc) = try log.chain(from: crc, commit: sequence, wal: wal, walPath: store.walPath)
            start = log.end
            spill = log
        }
        let pages = dirty.keys.sorted()
        // R5: a small commit writes raw images but for the meta page; the checkpoint compresses
        // each page once.
        let raw = pages.count <= Self.rawImagePageLimit
        let compressor = raw ? nil : store.compressor
        // The previous commit's buffer, taken (not shared, so not copied) and emptied.
        var out = store.commitBuffer
        store.commitBuffer = []
        out.removeAll(keepingCapacity: true)
        // Room for the frames of one write (R8), so it is built without regrowing (and copying).
        let imageBound = raw ? PageImage.maxImageSize(pageSize: pageSize) : pageSize / 2
        let frameBound = imageBound + WALLayout.frameHeaderSize
        out.reserveCapacity(
            min((dirty.count + freed.count + 1) * frameBound, Self.commitWriteBytes + frameBound) + 64)
        frames.reserveCapacity(frames.count + dirty.count + freed.count)
        // Bytes of this commit's frames already written at `start` (R8).
        var flushed: UInt64 = 0
        // Keeps R8: once the buffer holds a write's worth of frames, they go to the log.
        func writeFullBuffer() throws {
            guard out.count >= Self.commitWriteBytes else { return }
            try wal.write(out, at: start + flushed)
            flushed += UInt64(out.count)
            out.removeAll(keepingCapacity: true)
        }
        for number in pages {
            let page = dirty[number]!
            let payloadOffset = start + flushed + UInt64(out.count + WALLayout.frameHeaderSize)
            // The image's stored bytes go from the page (or the compressor's output) straight
            // into the log write, and one CRC pass over them serves the image and the chain.
            func appendImage(_ codec: PageCodecID, _ stored: UnsafeRawBufferPointer) -> WALFrameRecord {
                let storedCRC = Checksum.crc32(stored)
                let head = PageImage.header(
                    type: page.base.load(as: UInt8.self), codec: codec, number: number, commit: sequence,
                    storedCount: stored.count, storedCRC: storedCRC)
                crc = WALLayout.appendFrame(
                    kind: .page, page: number, commit: sequence, salt: store.walSalt, head: head, body: stored,
                    bodyCRC: storedCRC, previousCRC: crc, to: &out)
                return WALFrameRecord(
                    kind: .page, page: number, payloadOffset: payloadOffset,
                    payloadLength: UInt32(head.count + stored.count),
                    imageCRC: head.withUnsafeBytes { PageImage.header(of: $0).crc }, frameIndex: frames.count)
            }
            let frame: WALFrameRecord
            if raw, let sparse = Self.sparseImage(page, number) {
                frame = sparse.withUnsafeBytes { appendImage(.deflate, $0) }
            } else if let pageCompressor = compressor {
                let (codec, stored) = pageCompressor.compress(page.bytes)
                frame = stored.withUnsafeBytes { appendImage(codec, $0) }
            } else {
                frame = appendImage(.raw, page.bytes)
            }
            frames.append(frame)
            try writeFullBuffer()
        }
        for number in freed.sorted() where dirty[number] == nil {
            crc = WALLayout.appendFrame(
                kind: .tombstone, page: number, commit: sequence, salt: store.walSalt,
                payload: [], previousCRC: crc, to: &out)
            frames.append(
                WALFrameRecord(
                    kind: .tombstone, page: number, payloadOffset: start + flushed + UInt64(out.count),
                    payloadLength: 0, imageCRC: 0, frameIndex: frames.count))
            try writeFullBuffer()
        }
        crc = WALLayout.appendFrame(
            kind: .commit, page: .none, commit: sequence, salt: store.walSalt,
            payload: WALLayout.commitPayload(frameCount: UInt32(frames.count), pageCount: meta.pageCount),
            previousCRC: crc, to: &out)

        // A failed write leaves `walEnd` where it was: the next commit overwrites the partial
        // frames, and recovery stops at them (their chain CRC cannot match). The fsync comes after
        // the gate is released (`commit()`, GroupCommit).
        try wal.write(out, at: start + flushed)
        let written = flushed + UInt64(out.count)
        if out.capacity <= Store.commitBufferLimit {
            out.removeAll(keepingCapacity: true)
            store.commitBuffer = out
        }
        let durable = store.options.durability != .full
        // R7: the WAL versions this commit supersedes (for `pages`, then the spilled pages), looked
        // up before it is indexed; only while no reader of this process holds a snapshot (every
        // registered one is older).
        var superseded: [PageCache.Key?] = []
        var supersededSpilled: [PageCache.Key] = []
        store.stateLock.withLock {
            if store.readers.isEmpty {
                func version(_ number: PageNumber) -> PageCache.Key? {
                    guard let e = store.walIndex.lookup(number, atOrBefore: snapshot), !e.isTombstone else {
                        return nil
                    }
                    return PageCache.Key(page: number.rawValue, commit: e.commit.rawValue)
                }
                superseded = pages.map(version)
                if let spill { supersededSpilled = spill.order.compactMap(version) }
            }
            store.walIndex.add(commit: sequence, frames: frames, pageCount: meta.pageCount)
            store.written = sequence
            store.walEnd = start + written
            if durable {
                store.committed = sequence
                store.committedWALEnd = store.walEnd
            }
        }
        store.walChainCRC = crc
        // CatalogRoots CR4: the trees this transaction knows, at the commit just written (their
        // roots never move, BTree T1; a tree it dropped is not among them).
        store.catalogRoots.noteWritten(trees, at: sequence)
        store.publishSharedState()
        if durable { store.coordination.publishDurable(sequence) }
        store.cache.putCommitted(
            pages.map { ($0, dirty[$0]!) }, commit: sequence.rawValue, superseding: superseded)
        for old in supersededSpilled { store.cache.remove(old) }
        if let spill {
            // A spilled version that is the commit's (not freed since) is now the committed one.
            for number in spill.order where !(freed.contains(number) && dirty[number] == nil) {
                store.cache.rename(
                    spill.slot(number)!.cacheKey, to: PageCache.Key(page: number.rawValue, commit: sequence.rawValue))
            }
        }
        dirty = [:]
        freed = []
        spill = nil
        finished = true
        return sequence
    }
}

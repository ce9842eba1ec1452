// The frames a large write transaction has already written to the WAL before its commit record
// (a spill, as SQLite's pager spills a cache full of dirty pages): the transaction keeps at most
// `WriteTransaction.dirtyPageLimit` changed pages in memory, so a transaction of a million inserts
// needs the cache budget plus one batch, not a copy of every page it changed.
//
// Spilled frames are ordinary page frames of the commit to come (kind 1, its commit sequence, this
// generation's salt), always raw images, so every one has the same size and a page spilled again
// overwrites its frame in place: the spill region holds one frame per page, however often the
// transaction changes it. A spill is a plain write: no CRC is computed for a frame that may be
// overwritten a moment later. The commit reads the region back once, fills in each frame's image
// CRC and chain CRC, appends the rest of its frames and the commit record; until then nothing
// refers to them.
//
// Invariants:
//  SP1. Spilled frames lie at or after the store's WAL end, in the region [start, end) that no
//       committed frame uses; they enter the WAL index only with the commit record that closes
//       them, so no reader, checkpoint or recovery ever uses one before that.
//  SP2. Until the commit chains them, every spilled frame carries a chain CRC and an image CRC of
//       zero; a chain CRC of zero never continues the chain: the scan stops at the first one
//       (FORMAT.md, recovery), so a crash during or after a spill, or a rollback, leaves a torn
//       tail that recovery ignores and the next commit overwrites.
//  SP3. One frame per page: frame i lies at start + i · frameSize and holds page `order[i]`; a page
//       spilled again overwrites its own frame (raw images all have one size).
//  SP4. A spilled page's latest version is its frame; the transaction reads it back from there,
//       through the shared cache under a private key (commit ≥ 2^63, one per slot, never reused
//       by another transaction) that no snapshot ever asks for, so readers never see it and a
//       rolled-back version is never mistaken for a commit's. A re-spill replaces the cached
//       version under the same key. A version the transaction changes again is dead (the dirty
//       copy supersedes it until the next spill) and leaves the cache at once.
//  SP5. Bytes read back from a frame are trusted only when their fast sum (`Slot.sum`, taken from
//       memory when the page was spilled) matches: the transaction's own read-backs, and the
//       commit's read-back that computes the frames' CRCs, so a frame damaged between its spill
//       and the commit is never given a valid CRC.

/// The spill region of one write transaction.
struct SpillLog {
    struct Slot {
        /// The frame's index in the region (SP3).
        var index: Int
        /// Where the spilled version is cached (SP4).
        var cacheKey: PageCache.Key
        /// The fast sum of the spilled page's bytes, from memory (SP5).
        var sum: UInt64
    }

    /// The WAL offset of the first spilled frame: the store's WAL end when the spill began.
    let start: UInt64
    /// Bytes of one spilled frame: frame header, image header, raw page.
    let frameSize: Int
    private(set) var slots: [PageNumber: Slot] = [:]
    /// The page of each frame, in WAL order (SP3).
    private(set) var order: [PageNumber] = []

    init(start: UInt64, pageSize: Int) {
        self.start = start
        self.frameSize = WALLayout.frameHeaderSize + PageImage.maxImageSize(pageSize: pageSize)
    }

    /// The offset just past the last spilled frame.
    var end: UInt64 { start + UInt64(order.count * frameSize) }

    /// The WAL offset of frame `index`.
    func frameOffset(_ index: Int) -> UInt64 { start + UInt64(index * frameSize) }

    func slot(_ page: PageNumber) -> Slot? { slots[page] }

    /// Writes `pages` (page number and current version) as spilled frames of `commit`: pages
    /// spilled before overwrite their frames in place (SP3), the others are appended. Frames go
    /// out in index order, a run of adjacent ones (up to about 1 MiB) in one write, without CRCs
    /// (SP2). On a failed write the caller abandons the transaction: an overwritten frame may be
    /// torn, and `slots` may name frames that were never written.
    mutating func spill(
        _ pages: [(PageNumber, PageBuffer)], commit: CommitSequence, salt: UInt32, wal: any StoreFile,
        cache: PageCache, nextCacheKey: () -> UInt64
    ) throws {
        var targets: [(index: Int, number: PageNumber, page: PageBuffer)] = []
        targets.reserveCapacity(pages.count)
        var appended = 0
        for (number, page) in pages {
            if let old = slots[number] {
                targets.append((old.index, number, page))
            } else {
                targets.append((order.count + appended, number, page))
                appended += 1
            }
        }
        targets.sort { $0.index < $1.index }
        let batchFrames = max(1, (1 << 20) / frameSize)
        var run: [UInt8] = []
        run.reserveCapacity(min(targets.count, batchFrames) * frameSize)
        var runNumbers: [PageNumber] = []
        var runFirst = 0
        for (index, number, page) in targets {
            if !runNumbers.isEmpty, index != runFirst + runNumbers.count || runNumbers.count == batchFrames {
                try flush()
            }
            if runNumbers.isEmpty { runFirst = index }
            Self.appendUnchainedFrame(page: page, number: number, commit: commit, salt: salt, to: &run)
            runNumbers.append(number)
            // One private key per slot: a page spilled again replaces its cached version, so the
            // cache never holds dead versions of the transaction's pages (SP4).
            let key = slots[number]?.cacheKey ?? PageCache.Key(page: number.rawValue, commit: nextCacheKey())
            slots[number] = Slot(index: index, cacheKey: key, sum: Self.sum(page.bytes))
            cache.put(key, page)
        }
        try flush()

        /// Writes the run; a new frame counts in `order` only once written (SP3).
        func flush() throws {
            guard !runNumbers.isEmpty else { return }
            try wal.write(run, at: frameOffset(runFirst))
            for (k, number) in runNumbers.enumerated() where runFirst + k == order.count { order.append(number) }
            run.removeAll(keepingCapacity: true)
            runNumbers.removeAll(keepingCapacity: true)
        }
    }

    /// Appends a page frame whose chain CRC and image CRC are zero (SP2): its header and the raw
    /// image of `page` (PageImage layout, codec raw).
    private static func appendUnchainedFrame(
        page: PageBuffer, number: PageNumber, commit: CommitSequence, salt: UInt32, to out: inout [UInt8]
    ) {
        var w = ByteWriter(capacity: WALLayout.frameHeaderSize + PageImage.headerSize)
        w.u8(WALLayout.FrameKind.page.rawValue); w.u8(0); w.u16(0)
        w.u32(number.rawValue)
        w.u64(commit.rawValue)
        w.u32(UInt32(PageImage.headerSize + page.count))
        w.u32(salt)
        w.u32(0)  // the chain CRC, written by `chain` (SP2)
        w.u32(0)
        // The image header (PageImage): type, codec raw, page, commit, length, CRC (by `chain`).
        w.u8(page.base.load(as: UInt8.self)); w.u8(PageCodecID.raw.rawValue); w.u16(0)
        w.u32(number.rawValue)
        w.u64(commit.rawValue)
        w.u32(UInt32(page.count))
        w.u32(0)
        out.append(contentsOf: w.bytes)
        out.append(contentsOf: page.bytes)
    }

    /// A fast 64-bit sum of `bytes` (a multiple of 32 bytes long, as every page is): four
    /// Fletcher-style lanes over little-endian words. It guards a frame read back within one
    /// transaction (SP5); it is never stored.
    static func sum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        guard let base = bytes.baseAddress else { return 0 }
        var a0: UInt64 = 1, a1: UInt64 = 2, a2: UInt64 = 3, a3: UInt64 = 4
        var b0: UInt64 = 0, b1: UInt64 = 0, b2: UInt64 = 0, b3: UInt64 = 0
        var offset = 0
        while offset + 32 <= bytes.count {
            a0 &+= UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)); b0 &+= a0
            a1 &+= UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)); b1 &+= a1
            a2 &+= UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self)); b2 &+= a2
            a3 &+= UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self)); b3 &+= a3
            offset += 32
        }
        while offset < bytes.count {
            a0 &+= UInt64(base.load(fromByteOffset: offset, as: UInt8.self)); b0 &+= a0
            offset += 1
        }
        let k: UInt64 = 0x9E37_79B9_7F4A_7C15
        var h = a0
        for v in [a1, a2, a3, b0, b1, b2, b3] { h = (h ^ v) &* k }
        return h
    }

    /// Why the image part of a spilled frame read back (image header and raw page) is not the
    /// version spilled as `slot` of page `number` for `commit`, or nil when it is (SP5).
    private static func damage(
        of image: UnsafeRawBufferPointer, number: PageNumber, commit: CommitSequence, slot: Slot
    ) -> DamageReport? {
        let h = PageImage.header(of: image)
        let page = UnsafeRawBufferPointer(rebasing: image[PageImage.headerSize...])
        guard h.page == number, h.commit == commit, h.codec == PageCodecID.raw.rawValue, h.storedLength == page.count
        else {
            return "spilled frame \(slot.index) holds page \(h.page) of commit \(h.commit), expected page \(number)"
        }
        guard sum(page) == slot.sum, page.first == h.type else {
            return "spilled frame \(slot.index) of page \(number) differs from the version written"
        }
        return nil
    }

    /// The version of spilled page `number`, from the cache or read back from its frame and
    /// checked against its sum (SP4, SP5).
    func read(_ number: PageNumber, commit: CommitSequence, store: Store, wal: any StoreFile) throws -> PageBuffer? {
        guard let slot = slots[number] else { return nil }
        if let hit = store.cache.get(slot.cacheKey) { return hit }
        let offset = frameOffset(slot.index) + UInt64(WALLayout.frameHeaderSize)
        let bytes = try wal.readExactly(frameSize - WALLayout.frameHeaderSize, at: offset, location: .page(number))
        let page = try bytes.withUnsafeBytes { image -> PageBuffer in
            if let why = Self.damage(of: image, number: number, commit: commit, slot: slot) {
                throw StoreError.corruption(path: store.walPath, location: .page(number), detail: why.text)
            }
            let page = PageBuffer(uninitialized: store.pages)
            page.base.copyMemory(from: image.baseAddress! + PageImage.headerSize, byteCount: store.pageSize)
            return page
        }
        store.cache.put(slot.cacheKey, page)
        return page
    }

    /// Fills in every spilled frame's image CRC and chains the frames from `previousCRC` (the CRC
    /// of the last committed frame), checking each against its sum first (SP5); returns the frame
    /// records for the WAL index and the last CRC. Reads the region back in batches, so its memory
    /// is one batch, not the region.
    func chain(
        from previousCRC: UInt32, commit: CommitSequence, wal: any StoreFile, walPath: String
    ) throws -> (frames: [WALFrameRecord], crc: UInt32) {
        var crc = previousCRC
        var frames: [WALFrameRecord] = []
        frames.reserveCapacity(order.count)
        let batch = max(1, (1 << 21) / frameSize)
        let header = WALLayout.frameHeaderSize
        var first = 0
        while first < order.count {
            let count = min(batch, order.count - first)
            let offset = frameOffset(first)
            var bytes = try wal.readExactly(count * frameSize, at: offset, location: .offset(offset))
            try bytes.withUnsafeMutableBytes { raw in
                for i in 0..<count {
                    let number = order[first + i]
                    let frame = UnsafeMutableRawBufferPointer(rebasing: raw[(i * frameSize)..<((i + 1) * frameSize)])
                    let image = UnsafeRawBufferPointer(rebasing: frame[header...])
                    if let why = Self.damage(of: image, number: number, commit: commit, slot: slots[number]!) {
                        throw StoreError.corruption(path: walPath, location: .page(number), detail: why.text)
                    }
                    let imageCRC = Checksum.crc32(
                        UnsafeRawBufferPointer(rebasing: image[PageImage.headerSize...]),
                        seed: Checksum.crc32(UnsafeRawBufferPointer(rebasing: image[0..<20])))
                    frame.storeBytes(of: imageCRC.littleEndian, toByteOffset: header + 20, as: UInt32.self)
                    var c = Checksum.crc32(UnsafeRawBufferPointer(rebasing: frame[0..<24]), seed: crc)
                    c = Checksum.crc32(UnsafeRawBufferPointer(rebasing: frame[header...]), seed: c)
                    frame.storeBytes(of: c.littleEndian, toByteOffset: 24, as: UInt32.self)
                    crc = c
                    frames.append(
                        WALFrameRecord(
                            kind: .page, page: number, payloadOffset: frameOffset(first + i) + UInt64(header),
                            payloadLength: UInt32(frameSize - header), imageCRC: imageCRC, frameIndex: first + i))
                }
            }
            try wal.write(bytes, at: offset)
            first += count
        }
        return (frames, crc)
    }
}

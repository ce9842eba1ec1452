// The frames a large write transaction has already written to the WAL before its commit record
// (a spill, as SQLite's pager spills a cache full of dirty pages): the transaction keeps at most
// `WriteTransaction.dirtyPageLimit` changed pages in memory, so a transaction of a million inserts
// needs the cache budget plus one batch, not a copy of every page it changed.
//
// Spilled frames are ordinary page frames of the commit to come (kind 1, its commit sequence, this
// generation's salt), always raw images, so every one has the same size and a page spilled again
// overwrites its frame in place: the spill region holds one frame per page, however often the
// transaction changes it. The commit chains them (their CRCs), appends the rest of its frames and
// the commit record; until then nothing refers to them.
//
// Invariants:
//  SP1. Spilled frames lie at or after the store's WAL end, in the region [start, end) that no
//       committed frame uses; they enter the WAL index only with the commit record that closes
//       them, so no reader, checkpoint or recovery ever uses one before that.
//  SP2. Until the commit chains them, every spilled frame carries a chain CRC of zero, which never
//       continues the chain: the scan stops at the first one (FORMAT.md, recovery), so a crash
//       during or after a spill, or a rollback, leaves a torn tail that recovery ignores and the
//       next commit overwrites.
//  SP3. One frame per page: frame i lies at start + i · frameSize and holds page `order[i]`; a page
//       spilled again overwrites its own frame (raw images all have one size).
//  SP4. A spilled page's latest version is its frame; the transaction reads it back from there,
//       through the shared cache under a private key (commit ≥ 2^63, one per slot, never reused
//       by another transaction) that no snapshot ever asks for, so readers never see it and a
//       rolled-back version is never mistaken for a commit's. A re-spill replaces the cached
//       version under the same key.

/// The spill region of one write transaction.
struct SpillLog {
    struct Slot {
        /// The frame's index in the region (SP3).
        var index: Int
        /// Where the spilled version is cached (SP4).
        var cacheKey: PageCache.Key
        /// The spilled image's own CRC (its header field), for the WAL index at commit.
        var imageCRC: UInt32
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
    /// spilled before overwrite their frames in place (SP3), the others are appended in batches.
    /// On a failed write the caller abandons the transaction: an overwritten frame may be torn,
    /// and `slots` may name frames that were never written.
    mutating func spill(
        _ pages: [(PageNumber, PageBuffer)], commit: CommitSequence, salt: UInt32, wal: any StoreFile,
        cache: PageCache, nextCacheKey: () -> UInt64
    ) throws {
        // New frames go out in batches of about 1 MiB, so the spill's own buffer stays small.
        let batchFrames = max(1, (1 << 20) / frameSize)
        var appended: [UInt8] = []
        appended.reserveCapacity(min(pages.count, batchFrames) * frameSize)
        var batch: [PageNumber] = []
        var frame: [UInt8] = []
        frame.reserveCapacity(frameSize)
        for (number, page) in pages {
            // One private key per slot: a page spilled again replaces its cached version, so the
            // cache never holds dead versions of the transaction's pages (SP4).
            let key = slots[number]?.cacheKey ?? PageCache.Key(page: number.rawValue, commit: nextCacheKey())
            if let old = slots[number] {
                frame.removeAll(keepingCapacity: true)
                let imageCRC = Self.appendUnchainedFrame(
                    page: page, number: number, commit: commit, salt: salt, to: &frame)
                try wal.write(frame, at: frameOffset(old.index))
                slots[number] = Slot(index: old.index, cacheKey: key, imageCRC: imageCRC)
            } else {
                let imageCRC = Self.appendUnchainedFrame(
                    page: page, number: number, commit: commit, salt: salt, to: &appended)
                slots[number] = Slot(index: order.count + batch.count, cacheKey: key, imageCRC: imageCRC)
                batch.append(number)
                if batch.count == batchFrames { try flush() }
            }
            cache.put(key, page)
        }
        try flush()

        /// Writes the batch and only then counts its frames in `order` (SP3).
        func flush() throws {
            guard !batch.isEmpty else { return }
            try wal.write(appended, at: frameOffset(order.count))
            order.append(contentsOf: batch)
            appended.removeAll(keepingCapacity: true)
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// Appends a page frame whose chain CRC is zero (SP2): its header and the raw image of `page`
    /// (PageImage layout, codec raw). Returns the image's CRC.
    private static func appendUnchainedFrame(
        page: PageBuffer, number: PageNumber, commit: CommitSequence, salt: UInt32, to out: inout [UInt8]
    ) -> UInt32 {
        var w = ByteWriter(capacity: WALLayout.frameHeaderSize + PageImage.headerSize)
        w.u8(WALLayout.FrameKind.page.rawValue); w.u8(0); w.u16(0)
        w.u32(number.rawValue)
        w.u64(commit.rawValue)
        w.u32(UInt32(PageImage.headerSize + page.count))
        w.u32(salt)
        w.u32(0)  // the chain CRC, written by `chain` (SP2)
        w.u32(0)
        // The image header (PageImage): type, codec raw, page, commit, length, CRC.
        w.u8(page.base.load(as: UInt8.self)); w.u8(PageCodecID.raw.rawValue); w.u16(0)
        w.u32(number.rawValue)
        w.u64(commit.rawValue)
        w.u32(UInt32(page.count))
        let imageCRC = Checksum.crc32(page.bytes, seed: Checksum.crc32(w.bytes[WALLayout.frameHeaderSize...]))
        w.u32(imageCRC)
        out.append(contentsOf: w.bytes)
        out.append(contentsOf: page.bytes)
        return imageCRC
    }

    /// The version of spilled page `number`, from the cache or read back from its frame and
    /// checked like any page read (SP4).
    func read(_ number: PageNumber, commit: CommitSequence, store: Store, wal: any StoreFile) throws -> PageBuffer? {
        guard let slot = slots[number] else { return nil }
        if let hit = store.cache.get(slot.cacheKey) { return hit }
        let offset = frameOffset(slot.index) + UInt64(WALLayout.frameHeaderSize)
        let bytes = try wal.readExactly(frameSize - WALLayout.frameHeaderSize, at: offset, location: .page(number))
        let decoded = bytes.withUnsafeBytes {
            PageImage.decode(
                $0, expected: number, expectedCommit: commit, pageSize: store.pageSize, pool: store.decompressors)
        }
        switch decoded {
        case .success(let page):
            store.cache.put(slot.cacheKey, page)
            return page
        case .failure(let why):
            throw StoreError.corruption(path: store.walPath, location: .page(number), detail: why.text)
        }
    }

    /// Chains every spilled frame from `previousCRC` (the CRC of the last committed frame) and
    /// writes the CRCs in place; returns the frame records for the WAL index and the last CRC.
    /// Reads the region back in batches, so its memory is one batch, not the region.
    func chain(from previousCRC: UInt32, wal: any StoreFile) throws -> (frames: [WALFrameRecord], crc: UInt32) {
        var crc = previousCRC
        var frames: [WALFrameRecord] = []
        frames.reserveCapacity(order.count)
        let batch = max(1, (1 << 21) / frameSize)
        var first = 0
        while first < order.count {
            let count = min(batch, order.count - first)
            let offset = frameOffset(first)
            var bytes = try wal.readExactly(count * frameSize, at: offset, location: .offset(offset))
            bytes.withUnsafeMutableBytes { raw in
                for i in 0..<count {
                    let frame = UnsafeMutableRawBufferPointer(rebasing: raw[(i * frameSize)..<((i + 1) * frameSize)])
                    var c = Checksum.crc32(UnsafeRawBufferPointer(rebasing: frame[0..<24]), seed: crc)
                    c = Checksum.crc32(UnsafeRawBufferPointer(rebasing: frame[WALLayout.frameHeaderSize...]), seed: c)
                    frame.storeBytes(of: c.littleEndian, toByteOffset: 24, as: UInt32.self)
                    crc = c
                }
            }
            try wal.write(bytes, at: offset)
            for i in 0..<count {
                let number = order[first + i]
                frames.append(
                    WALFrameRecord(
                        kind: .page, page: number,
                        payloadOffset: frameOffset(first + i) + UInt64(WALLayout.frameHeaderSize),
                        payloadLength: UInt32(frameSize - WALLayout.frameHeaderSize),
                        imageCRC: slots[number]!.imageCRC, frameIndex: first + i))
            }
            first += count
        }
        return (frames, crc)
    }
}

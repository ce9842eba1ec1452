// Pass 3: the WAL (WALLayout W1–W3) through WALScan, the same reader recovery uses. The commits
// recovery applies (WALRecoveryPlan, the rule `Store.open` follows too) form the logical view.
// What the scan could not read is classified:
//  - a torn tail — frames after the last complete commit that reach no commit record — is what a
//    crash mid-commit leaves: a note, recovery drops it and loses nothing that was committed;
//  - bytes without this generation's salt right after the last complete commit are what a reused
//    log file holds (an automatic checkpoint keeps the file's length), and so is garbage there:
//    nothing is reported unless a commit record of this generation follows them;
//  - damage that hides a commit record — a bad frame followed by (or being) a commit record — is
//    a problem: a commit that was durably written is lost to recovery.

struct WALCheck: VerificationPass {
    let name = "WAL"

    func run(_ context: VerificationContext) throws {
        guard let header = context.header, let wal = context.wal else { return }
        let scan = try WALScan.scan(wal, pageSize: Int(header.pageSize))
        var summary = WALSummary(bytes: scan.fileSize, generation: scan.header?.generation)
        defer { context.updateSummary { $0.wal = summary } }
        if let why = scan.headerProblem {
            let lost =
                scan.fileSize > UInt64(WALLayout.headerSize)
                ? "; the \(scan.fileSize - UInt64(WALLayout.headerSize)) bytes of frames after it cannot be read" : ""
            context.problem(VerificationLocation(area: .wal, offset: 0), "WAL header is damaged: \(why)\(lost)")
            return
        }
        guard let walHeader = scan.header else { return }  // an empty WAL: recovery writes a header
        if walHeader.generation > header.checkpointSequence {
            context.problem(
                VerificationLocation(area: .wal, offset: 0),
                "WAL generation \(walHeader.generation) is newer than the page file's checkpoint "
                    + "\(header.checkpointSequence)"
            )
        }
        summary.commits = scan.commits.count
        summary.frames = scan.commits.reduce(0) { $0 + $1.frames.count + 1 }
        summary.tailFrames = scan.tailFrames
        summary.tailBytes = scan.tailBytes
        if scan.stopReason != nil {
            try classifyTail(context, scan: scan, walHeader: walHeader, wal: wal, framesBefore: summary.frames)
        }
        // The logical view: the commits recovery applies (WALRecoveryPlan).
        let plan = WALRecoveryPlan(scan: scan, after: header.commitSequence, pageCount: header.pageCount)
        var pageCount = header.pageCount
        for c in plan.commits {
            for f in c.frames where f.page == .none || f.page.rawValue >= max(c.pageCount, pageCount) {
                context.problem(
                    VerificationLocation(area: .page, page: f.page, walFrame: f.frameIndex),
                    "commit \(c.commit) writes page \(f.page), "
                        + "outside the store's pages 1..<\(max(c.pageCount, pageCount))"
                )
            }
            pageCount = max(pageCount, c.pageCount)
            context.walIndex.add(commit: c.commit, frames: c.frames, pageCount: c.pageCount)
            context.lastCommit = c.commit
            summary.commitsToApply += 1
        }
        switch plan.stop {
        case nil:
            break
        case .gap(let expected, let c):
            context.problem(
                VerificationLocation(area: .wal, walFrame: c.frames.first?.frameIndex),
                "WAL commit \(c.commit) follows commit \(expected.rawValue - 1) of the page file: "
                    + "commits are missing, recovery ignores this one and those after it"
            )
        case .growth(let before, let c):
            context.problem(
                VerificationLocation(area: .wal, walFrame: c.frames.last.map { $0.frameIndex + 1 }),
                "commit \(c.commit) records a page count of \(c.pageCount) after \(before) pages, "
                    + "more than its \(c.frames.count) frames can add: recovery ignores this one and those after it"
            )
        case .shrink(let before, let c):
            context.problem(
                VerificationLocation(area: .wal, walFrame: c.frames.last.map { $0.frameIndex + 1 }),
                "commit \(c.commit) records a page count of \(c.pageCount), below the \(before) before it: "
                    + "recovery ignores this one and those after it")
        }
        // Every page needs an image (more than 24 bytes) or a 4-byte free-list entry somewhere in
        // the two files: a larger count is a lie, and checking it page by page would never end.
        let describable = (context.fileSize + scan.fileSize) / 4 + 3
        if UInt64(pageCount) > describable {
            context.problem(
                VerificationLocation(area: .wal),
                "the WAL's page count \(pageCount) is more than the files can describe; "
                    + "checking pages 1..<\(describable) only"
            )
            pageCount = UInt32(describable)
        }
        context.pageCount = pageCount
        context.updateSummary { s in
            s.lastCommit = context.lastCommit.rawValue
            s.pageCount = pageCount
        }
        try checkImages(context, scan: scan, wal: wal)
    }

    /// Decodes every committed page image in the log; records the logical ones (V2).
    private func checkImages(_ context: VerificationContext, scan: WALScanResult, wal: any StoreFile) throws {
        let total = scan.commits.reduce(0) { $0 + $1.frames.count }
        var done = 0
        for c in scan.commits {
            for f in c.frames where f.kind == .page {
                done += 1
                if done % 256 == 0 { context.progress(name, done, total) }
                let result = try context.readImage(
                    from: wal, sourceSize: scan.fileSize, offset: f.payloadOffset,
                    length: f.payloadLength, page: f.page, commit: c.commit, referenceCRC: f.imageCRC)
                let isLogical =
                    context.walIndex.lookup(f.page, atOrBefore: context.lastCommit).map {
                        $0.commit == c.commit && !$0.isTombstone && $0.offset == f.payloadOffset
                    } ?? false
                if case .failure(let why) = result {
                    context.problem(
                        VerificationLocation(
                            area: .page, page: f.page, walFrame: f.frameIndex,
                            offset: f.payloadOffset - UInt64(WALLayout.frameHeaderSize)),
                        "WAL image of commit \(c.commit): \(why)")
                }
                if isLogical { context.recordLogical(f.page.rawValue, result) }
            }
        }
    }

    /// Decides whether what the scan stopped at is a torn tail (note) or hides a commit (problem).
    private func classifyTail(
        _ context: VerificationContext, scan: WALScanResult, walHeader: WALLayout.Header,
        wal: any StoreFile, framesBefore: Int
    ) throws {
        let size = scan.fileSize
        let maxPayload = UInt32(PageImage.maxImageSize(pageSize: context.pageSize))
        var offset = scan.validEnd
        var index = framesBefore
        var stopFrame: (index: Int, offset: UInt64)?
        var commitFollows = false
        var staleGeneration = false
        // Walk frame headers from the end of the valid prefix. The first frame that does not fit
        // (the one the scan stopped at) is skipped by its length when that length is plausible;
        // every other frame must carry this log's salt, a known kind and a fitting length.
        while offset + UInt64(WALLayout.frameHeaderSize) <= size {
            let fh = try wal.readExactly(
                WALLayout.frameHeaderSize, at: offset, location: .walFrame(index: index, offset: offset))
            let (kind, page, length, salt) = fh.withUnsafeBytes { raw -> (UInt8, UInt32, UInt32, UInt32) in
                let r = ByteReader(raw); return (r.u8(0), r.u32(4), r.u32(16), r.u32(20))
            }
            let fits: Bool
            switch WALLayout.FrameKind(rawValue: kind) {
            case .page?: fits = length > UInt32(PageImage.headerSize) && length <= maxPayload
            case .tombstone?: fits = length == 0
            case .commit?: fits = length == UInt32(WALLayout.commitPayloadSize)
            case nil: fits = false
            }
            let inFile = UInt64(length) <= size - offset - UInt64(WALLayout.frameHeaderSize)
            let strict = fits && inFile && salt == walHeader.salt
            let isScanStop = index - framesBefore == scan.tailFrames
            if isScanStop {
                stopFrame = (index, offset)
                // Bytes of an earlier generation: an automatic checkpoint keeps the log file's
                // length, so old frames remain past the new log's end, not aligned with the new
                // frames. Only a commit record of this generation further on (searched for
                // below) means lost commits.
                if salt != walHeader.salt { staleGeneration = true; break }
                if (kind == WALLayout.FrameKind.commit.rawValue
                    || (length == UInt32(WALLayout.commitPayloadSize) && page == 0)) && inFile
                {
                    // The damaged frame is itself a whole commit record. One cut short by the end
                    // of the file is the torn record of a commit that never completed: a tail.
                    commitFollows = true
                    break
                }
                let plausible =
                    (length == 0 || length == UInt32(WALLayout.commitPayloadSize)
                        || (length > UInt32(PageImage.headerSize) && length <= maxPayload)) && inFile
                guard plausible else {
                    commitFollows = try commitRecordPattern(
                        in: wal, from: offset + UInt64(WALLayout.frameHeaderSize),
                        size: size, salt: walHeader.salt)
                    break
                }
            } else if !strict {
                break
            } else if kind == WALLayout.FrameKind.commit.rawValue, stopFrame != nil {
                commitFollows = true
                break
            }
            offset += UInt64(WALLayout.frameHeaderSize) + UInt64(length)
            index += 1
        }
        if !commitFollows, let stop = stopFrame {
            // The skip by a damaged length may have landed anywhere: look for a commit record.
            commitFollows = try commitRecordPattern(
                in: wal, from: stop.offset + UInt64(WALLayout.frameHeaderSize),
                size: size, salt: walHeader.salt)
        }
        // Old frames right after the last complete commit, with none of this generation before
        // them: the expected leftovers of a reused log, not a torn commit.
        if staleGeneration && !commitFollows && scan.tailFrames == 0 { return }
        let reason = scan.stopReason ?? "unreadable frames"
        if commitFollows, let stop = stopFrame {
            context.problem(
                VerificationLocation(area: .wal, walFrame: stop.index, offset: stop.offset),
                "WAL frame \(stop.index) is damaged (\(reason)) but a commit record follows it: "
                    + "recovery would drop every commit from this frame on"
            )
        } else {
            context.report(
                .note, VerificationLocation(area: .wal, walFrame: framesBefore, offset: scan.validEnd),
                "WAL tail of \(scan.tailBytes) bytes (\(scan.tailFrames) intact frames) "
                    + "after the last complete commit belongs to no commit (\(reason)); recovery ignores it"
            )
        }
    }

    /// Whether a commit-record frame header of this log (kind 3, page 0, length 16, salt) starts
    /// anywhere in [from, size). Reads in bounded windows.
    private func commitRecordPattern(in wal: any StoreFile, from: UInt64, size: UInt64, salt: UInt32) throws -> Bool {
        let window = 1 << 16
        let frame = WALLayout.frameHeaderSize
        var start = from
        while start + UInt64(frame) <= size {
            let count = Int(min(UInt64(window + frame), size - start))
            let bytes = try wal.readExactly(count, at: start, location: .offset(start))
            let found = bytes.withUnsafeBytes { raw -> Bool in
                let r = ByteReader(raw)
                var i = 0
                while i + frame <= count {
                    if r.u8(i) == WALLayout.FrameKind.commit.rawValue, r.u32(i + 4) == 0,
                        r.u32(i + 16) == UInt32(WALLayout.commitPayloadSize), r.u32(i + 20) == salt
                    {
                        return true
                    }
                    i += 1
                }
                return false
            }
            if found { return true }
            start += UInt64(window)
        }
        return false
    }
}

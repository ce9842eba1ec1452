// Reads a WAL from its header to the end of its valid prefix (W2). Used by recovery at open and by
// the verifier. Reads frame headers one at a time and payloads no longer than one page image, so a
// hostile length never makes it allocate more than that.

/// One frame of a committed transaction, as found in the WAL.
struct WALFrameRecord: Equatable, Sendable {
    var kind: WALLayout.FrameKind
    var page: PageNumber
    /// Offset of the payload (the page image) in the WAL file.
    var payloadOffset: UInt64
    var payloadLength: UInt32
    /// The page image's own CRC (a copy of its header field), or 0 for a tombstone.
    var imageCRC: UInt32
    var frameIndex: Int
}

/// A complete commit found in the WAL.
struct WALCommitRecord: Equatable, Sendable {
    var commit: CommitSequence
    var frames: [WALFrameRecord]
    var pageCount: UInt32
    /// Offset just past the commit record frame.
    var endOffset: UInt64
    /// The chained CRC of the commit record frame.
    var endCRC: UInt32
}

/// What a scan found.
struct WALScanResult: Sendable {
    var header: WALLayout.Header?
    /// Why the header was rejected, when it was (a missing or empty WAL is not a problem).
    var headerProblem: String?
    var commits: [WALCommitRecord] = []
    /// Offset just past the last valid commit (the header's end when there is none).
    var validEnd: UInt64
    var validEndCRC: UInt32
    /// Frames after the last valid commit, and why the scan stopped there.
    var tailFrames = 0
    var tailBytes: UInt64 = 0
    var stopReason: String?
    var fileSize: UInt64
}

enum WALScan {
    static func scan(_ wal: any StoreFile, pageSize: Int) throws -> WALScanResult {
        let size = try wal.size()
        var result = WALScanResult(validEnd: 0, validEndCRC: 0, fileSize: size)
        guard size > 0 else { return result }
        guard size >= UInt64(WALLayout.headerSize) else {
            result.headerProblem = "WAL of \(size) bytes is shorter than its header"
            return result
        }
        let headerBytes = try wal.readExactly(WALLayout.headerSize, at: 0, location: .offset(0))
        let header: WALLayout.Header
        switch WALLayout.Header.decode(headerBytes) {
        case .failure(let why): result.headerProblem = why.text; return result
        case .success(let h): header = h
        }
        guard Int(header.pageSize) == pageSize else {
            result.headerProblem = "WAL page size \(header.pageSize) differs from the store's \(pageSize)"
            return result
        }
        result.header = header
        try scanFrames(
            wal, header: header, pageSize: pageSize, from: UInt64(WALLayout.headerSize), crc: header.chainSeed,
            expected: nil, end: size, into: &result)
        return result
    }

    /// Scans the frames of the generation `header` from `start` (a commit boundary whose chained
    /// CRC is `startCRC`) up to `end` (treated as the end of the file), as a process that indexed
    /// the log up to `start` catches up with commits another process appended. `next` is the
    /// commit expected first.
    static func scanTail(
        _ wal: any StoreFile, header: WALLayout.Header, pageSize: Int, from start: UInt64, crc startCRC: UInt32,
        next: CommitSequence, end: UInt64
    ) throws -> WALScanResult {
        let size = min(end, try wal.size())
        var result = WALScanResult(header: header, validEnd: start, validEndCRC: startCRC, fileSize: size)
        guard start <= size else { return result }
        try scanFrames(
            wal, header: header, pageSize: pageSize, from: start, crc: startCRC, expected: next, end: size,
            into: &result)
        return result
    }

    private static func scanFrames(
        _ wal: any StoreFile, header: WALLayout.Header, pageSize: Int, from start: UInt64, crc startCRC: UInt32,
        expected first: CommitSequence?, end size: UInt64, into result: inout WALScanResult
    ) throws {
        var offset = start
        var crc = startCRC
        result.validEnd = offset
        result.validEndCRC = crc
        var pending: [WALFrameRecord] = []
        var expected: CommitSequence? = first
        var frameIndex = 0
        let maxPayload = PageImage.maxImageSize(pageSize: pageSize)

        func stop(_ reason: String) {
            result.stopReason = reason
            result.tailFrames = pending.count
            result.tailBytes = size - result.validEnd
        }

        while true {
            if offset == size { if !pending.isEmpty { stop("log ends inside a commit") }; break }
            guard offset + UInt64(WALLayout.frameHeaderSize) <= size else {
                stop("truncated frame header at offset \(offset)"); break
            }
            let fh = try wal.readExactly(
                WALLayout.frameHeaderSize, at: offset, location: .walFrame(index: frameIndex, offset: offset))
            let (kindByte, page, commit, length, salt, storedCRC) = fh.withUnsafeBytes {
                raw -> (UInt8, UInt32, UInt64, UInt32, UInt32, UInt32) in
                let r = ByteReader(raw)
                return (r.u8(0), r.u32(4), r.u64(8), r.u32(16), r.u32(20), r.u32(24))
            }
            guard salt == header.salt else {
                stop("frame \(frameIndex) at offset \(offset) belongs to another log generation"); break
            }
            guard let kind = WALLayout.FrameKind(rawValue: kindByte) else {
                stop("frame \(frameIndex) at offset \(offset) has unknown kind \(kindByte)"); break
            }
            let lengthOK: Bool
            switch kind {
            case .page: lengthOK = length > UInt32(PageImage.headerSize) && Int(length) <= maxPayload
            case .tombstone: lengthOK = length == 0
            case .commit: lengthOK = length == UInt32(WALLayout.commitPayloadSize)
            }
            guard lengthOK else { stop("frame \(frameIndex) at offset \(offset) has payload length \(length)"); break }
            let payloadOffset = offset + UInt64(WALLayout.frameHeaderSize)
            guard payloadOffset + UInt64(length) <= size else {
                stop("frame \(frameIndex) at offset \(offset) is cut short"); break
            }
            let payload =
                length > 0
                ? try wal.readExactly(
                    Int(length), at: payloadOffset, location: .walFrame(index: frameIndex, offset: offset)) : []
            var computed = Checksum.crc32(fh[0..<24], seed: crc)
            computed = Checksum.crc32(payload, seed: computed)
            guard computed == storedCRC else {
                stop("frame \(frameIndex) at offset \(offset) fails its checksum"); break
            }
            let seq = CommitSequence(commit)
            // A sequence past the limit (FileHeader FH3) is no commit of ours: `seq.next` must not wrap.
            guard seq <= CommitSequence.limit else {
                stop("frame \(frameIndex) carries commit \(seq), past the limit \(CommitSequence.limit)"); break
            }
            if let e = expected, seq != e { stop("frame \(frameIndex) carries commit \(seq), expected \(e)"); break }
            expected = seq
            var imageCRC: UInt32 = 0
            if kind == .page {
                let h = payload.withUnsafeBytes { PageImage.header(of: $0) }
                guard h.page.rawValue == page, h.commit == seq else {
                    stop(
                        "frame \(frameIndex) holds an image of page \(h.page) commit \(h.commit), "
                            + "not page \(page) commit \(seq)"
                    ); break
                }
                imageCRC = h.crc
            }
            crc = computed
            offset = payloadOffset + UInt64(length)
            if kind == .commit {
                let (count, pageCount) = payload.withUnsafeBytes { raw -> (UInt32, UInt32) in
                    let r = ByteReader(raw); return (r.u32(0), r.u32(4))
                }
                guard Int(count) == pending.count else {
                    stop("commit record of commit \(seq) counts \(count) frames, found \(pending.count)"); break
                }
                if let bad = pending.first(where: { $0.page == .none || $0.page.rawValue >= pageCount }) {
                    stop("frame \(bad.frameIndex) of commit \(seq) names page \(bad.page), outside 1..<\(pageCount)");
                    break
                }
                result.commits.append(
                    WALCommitRecord(
                        commit: seq, frames: pending, pageCount: pageCount,
                        endOffset: offset, endCRC: crc))
                pending = []
                expected = seq.next
                result.validEnd = offset
                result.validEndCRC = crc
            } else {
                pending.append(
                    WALFrameRecord(
                        kind: kind, page: PageNumber(page), payloadOffset: payloadOffset,
                        payloadLength: length, imageCRC: imageCRC, frameIndex: frameIndex))
            }
            frameIndex += 1
        }
    }
}

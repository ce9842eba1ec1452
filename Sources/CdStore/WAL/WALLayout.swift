// The write-ahead log `NAME-wal`: a header, then frames appended by commits. A commit writes one
// frame per changed page (its page image), one tombstone frame per page it freed, then a commit
// record frame. Frames are chained: each CRC is seeded with the previous frame's CRC (the header's
// for the first), so a stale frame from an earlier, longer log can never continue a newer one
// (SQLite's cumulative checksum, with CRC-32).
//
// WAL header (32 bytes):
//   OFFSET SIZE DESCRIPTION
//        0    8 magic "CdWAL\0\0\0"
//        8    4 format version (FileHeader.formatVersion)
//       12    4 logical page size (must equal the page file's)
//       16    8 generation: the page file's checkpoint sequence when this log was started
//       24    4 salt: random, new for every generation
//       28    4 CRC-32 of bytes 0..<28 (seeds the first frame's chain)
//
// Frame header (32 bytes) followed by the payload:
//        0    1 kind: 1 page image, 2 tombstone (page freed, no payload), 3 commit record
//        1    3 reserved, zero
//        4    4 page number (0 for a commit record)
//        8    8 commit sequence
//       16    4 payload length
//       20    4 salt (a copy of the header's)
//       24    4 chained CRC-32: seeded with the previous CRC, over bytes 0..<24 and the payload
//       28    4 reserved, zero
//
// Commit record payload (16 bytes): frame count u32 (page and tombstone frames of this commit),
// page count u32 (logical pages after the commit), 8 reserved bytes.
//
// Invariants:
//  W1. Within one generation frames only ever append; the frames of commit c all carry c, and
//      commits follow each other without gaps (c, c+1, …).
//  W2. A commit is durable and visible to recovery iff its commit record and every frame before
//      it, back to the header, are valid. Anything after the last valid commit record is a torn
//      tail: ignored by recovery, reported as a note by the verifier.
//  W3. A page frame's payload is a page image (PageImage) whose header names the same page and
//      commit as the frame.

enum WALLayout {
    static let magic: [UInt8] = Array("CdWAL\0\0\0".utf8)
    static let headerSize = 32
    static let frameHeaderSize = 32
    static let commitPayloadSize = 16

    /// Frame kinds. Persisted: frozen.
    enum FrameKind: UInt8 {
        case page = 1
        case tombstone = 2
        case commit = 3
    }

    struct Header: Equatable {
        var pageSize: UInt32
        var generation: UInt64
        var salt: UInt32

        func encoded() -> [UInt8] {
            var w = ByteWriter(capacity: WALLayout.headerSize)
            w.raw(WALLayout.magic)
            w.u32(FileHeader.formatVersion)
            w.u32(pageSize)
            w.u64(generation)
            w.u32(salt)
            w.u32(Checksum.crc32(w.bytes))
            return w.bytes
        }

        /// The CRC that seeds the first frame's chain.
        var chainSeed: UInt32 { Checksum.crc32(Array(encoded()[0..<28])) }

        static func decode(_ bytes: [UInt8]) -> Result<Header, DamageReport> {
            guard bytes.count >= headerSize else { return .failure("WAL header is truncated (\(bytes.count) bytes)") }
            guard Array(bytes[0..<8]) == magic else { return .failure("WAL header has a bad magic") }
            return bytes.withUnsafeBytes { raw in
                let r = ByteReader(raw)
                guard Checksum.crc32(bytes[0..<28]) == r.u32(28) else {
                    return .failure("WAL header checksum mismatch")
                }
                guard r.u32(8) == FileHeader.formatVersion else {
                    return .failure("WAL format version \(r.u32(8)) is not \(FileHeader.formatVersion)")
                }
                return .success(Header(pageSize: r.u32(12), generation: r.u64(16), salt: r.u32(24)))
            }
        }
    }

    /// Appends one frame to `out`, chaining from `previousCRC`; returns the frame's CRC.
    static func appendFrame(
        kind: FrameKind, page: PageNumber, commit: CommitSequence, salt: UInt32,
        payload: [UInt8], previousCRC: UInt32, to out: inout [UInt8]
    ) -> UInt32 {
        var w = ByteWriter(capacity: frameHeaderSize)
        w.u8(kind.rawValue); w.u8(0); w.u16(0)
        w.u32(page.rawValue)
        w.u64(commit.rawValue)
        w.u32(UInt32(payload.count))
        w.u32(salt)
        var crc = Checksum.crc32(w.bytes, seed: previousCRC)
        crc = Checksum.crc32(payload, seed: crc)
        w.u32(crc)
        w.u32(0)
        out.append(contentsOf: w.bytes)
        out.append(contentsOf: payload)
        return crc
    }

    /// `appendFrame` of the payload `head` followed by `body`, where `bodyCRC` is the CRC-32
    /// (from 0) of `body`, which the caller computed already: the chain reads only `head` and
    /// combines it (`Checksum.combine`), and `body` is copied once, straight into `out`.
    static func appendFrame(
        kind: FrameKind, page: PageNumber, commit: CommitSequence, salt: UInt32,
        head: [UInt8], body: UnsafeRawBufferPointer, bodyCRC: UInt32, previousCRC: UInt32, to out: inout [UInt8]
    ) -> UInt32 {
        var w = ByteWriter(capacity: frameHeaderSize)
        w.u8(kind.rawValue); w.u8(0); w.u16(0)
        w.u32(page.rawValue)
        w.u64(commit.rawValue)
        w.u32(UInt32(head.count + body.count))
        w.u32(salt)
        var crc = Checksum.crc32(w.bytes, seed: previousCRC)
        crc = Checksum.combine(Checksum.crc32(head, seed: crc), bodyCRC, secondLength: body.count)
        w.u32(crc)
        w.u32(0)
        out.append(contentsOf: w.bytes)
        out.append(contentsOf: head)
        out.append(contentsOf: body)
        return crc
    }

    static func commitPayload(frameCount: UInt32, pageCount: UInt32) -> [UInt8] {
        var w = ByteWriter(capacity: commitPayloadSize)
        w.u32(frameCount); w.u32(pageCount); w.u64(0)
        return w.bytes
    }
}

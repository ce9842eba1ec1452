// The page file's header (superblock). Two copies live at offsets 0 and 4096; each checkpoint
// writes the copy it did not write last time, so a torn header write always leaves the other
// copy intact (bbolt/LMDB meta pages, with bbolt's checksum). Open picks the valid copy with the
// higher checkpoint sequence.
//
// Layout of one copy (little-endian):
//   OFFSET SIZE DESCRIPTION
//        0    8 magic "CdStore\0"
//        8    4 format version (FileHeader.formatVersion)
//       12    4 logical page size in bytes (4096…65536, a power of two)
//       16    8 checkpoint sequence: 1 for the first header, +1 per checkpoint
//       24    8 commit sequence: the last commit whose pages the page file holds
//       32    4 page count: logical pages 0..<count are covered by the page map
//       36    4 map chunk count
//       40    8 directory offset (0 when there are no map chunks)
//       48    4 directory length in bytes
//       52    4 directory CRC-32
//       56    8 data end: the first byte after the last used extent
//       64    4 entries per map chunk
//       68   56 reserved, zero
//      124    4 CRC-32 of bytes 0..<124
//
// Invariants:
//  FH1. A copy is valid iff its magic, CRC and version are right; a valid copy's fields are then
//       checked against the file before use (directory inside the file, page size in range).
//  FH2. The data area starts at `dataStart` (8192); nothing but the two copies lives before it.
//  FH3. The checkpoint sequence is in 1...CommitSequence.limit and the commit sequence at most the
//       limit, so that the `+ 1` of the next checkpoint or commit never wraps. A copy outside them
//       is damaged (no store reaches 2^62 checkpoints or commits).
//  FH4. A copy whose commit sequence is 0 describes a store created but never formatted: no pages,
//       no map chunks. With pages it is damaged: formatting it would overwrite a store.

/// One copy of the page file's header.
struct FileHeader: Equatable, Sendable {
    static let magic: [UInt8] = Array("CdStore\0".utf8)
    /// The format version this build writes and reads. History: 1 — first format (2026-11).
    static let formatVersion: UInt32 = 1
    static let size = 128
    static let slotOffsets: [UInt64] = [0, 4096]
    static let dataStart: UInt64 = 8192
    static let minPageSize = 4096
    static let maxPageSize = 65536

    var pageSize: UInt32
    var checkpointSequence: UInt64
    var commitSequence: CommitSequence
    var pageCount: UInt32
    var chunkCount: UInt32
    var directoryOffset: UInt64
    var directoryLength: UInt32
    var directoryCRC: UInt32
    var dataEnd: UInt64
    var entriesPerChunk: UInt32

    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: Self.size)
        w.raw(Self.magic)
        w.u32(Self.formatVersion)
        w.u32(pageSize)
        w.u64(checkpointSequence)
        w.u64(commitSequence.rawValue)
        w.u32(pageCount)
        w.u32(chunkCount)
        w.u64(directoryOffset)
        w.u32(directoryLength)
        w.u32(directoryCRC)
        w.u64(dataEnd)
        w.u32(entriesPerChunk)
        w.pad(to: 124)
        w.u32(Checksum.crc32(w.bytes))
        return w.bytes
    }

    /// Why a header copy was rejected.
    enum Rejection: Error, Equatable {
        case badMagic
        case badChecksum
        case unsupportedVersion(UInt32)
        case badField(String)

        /// The reason in words.
        var text: String {
            switch self {
            case .badMagic: return "bad magic"
            case .badChecksum: return "checksum mismatch"
            case .unsupportedVersion(let v): return "format version \(v), expected \(FileHeader.formatVersion)"
            case .badField(let field): return "invalid \(field)"
            }
        }
    }

    /// Decodes one copy (FH1). The bytes must be at least `size` long.
    static func decode(_ bytes: [UInt8]) -> Result<FileHeader, Rejection> {
        guard bytes.count >= size else { return .failure(.badMagic) }
        guard Array(bytes[0..<8]) == magic else { return .failure(.badMagic) }
        return bytes.withUnsafeBytes { raw -> Result<FileHeader, Rejection> in
            let r = ByteReader(raw)
            guard Checksum.crc32(UnsafeRawBufferPointer(rebasing: raw[0..<124])) == r.u32(124) else {
                return .failure(.badChecksum)
            }
            let version = r.u32(8)
            guard version == formatVersion else { return .failure(.unsupportedVersion(version)) }
            let h = FileHeader(
                pageSize: r.u32(12), checkpointSequence: r.u64(16),
                commitSequence: CommitSequence(r.u64(24)), pageCount: r.u32(32),
                chunkCount: r.u32(36), directoryOffset: r.u64(40),
                directoryLength: r.u32(48), directoryCRC: r.u32(52),
                dataEnd: r.u64(56), entriesPerChunk: r.u32(64))
            guard FileHeader.isValidPageSize(Int(h.pageSize)) else {
                return .failure(.badField("page size \(h.pageSize)"))
            }
            guard h.entriesPerChunk > 0, h.entriesPerChunk <= 65536 else {
                return .failure(.badField("entries per chunk \(h.entriesPerChunk)"))
            }
            let neededChunks = (UInt64(h.pageCount) + UInt64(h.entriesPerChunk) - 1) / UInt64(h.entriesPerChunk)
            guard UInt64(h.chunkCount) == neededChunks else {
                return .failure(.badField("chunk count \(h.chunkCount) for \(h.pageCount) pages"))
            }
            guard h.dataEnd >= dataStart else { return .failure(.badField("data end \(h.dataEnd)")) }
            guard h.checkpointSequence >= 1, h.checkpointSequence <= CommitSequence.limit.rawValue else {
                return .failure(.badField("checkpoint sequence \(h.checkpointSequence)"))
            }
            guard h.commitSequence <= CommitSequence.limit else {
                return .failure(.badField("commit sequence \(h.commitSequence)"))
            }
            guard h.commitSequence != CommitSequence(0) || (h.pageCount == 0 && h.chunkCount == 0) else {
                return .failure(.badField("commit sequence 0 with \(h.pageCount) pages"))
            }
            return .success(h)
        }
    }

    static func isValidPageSize(_ size: Int) -> Bool {
        size >= minPageSize && size <= maxPageSize && size & (size - 1) == 0
    }
}

// The page map on disk: where each logical page's current image lives in the page file.
// The map is cut into chunks of `entriesPerChunk` entries; a checkpoint rewrites only the chunks
// it changed (copy-on-write, to free space) and then the small directory of chunk locations, so
// its cost grows with the pages it copies, not with the store.
//
// Map entry (24 bytes):
//   OFFSET SIZE DESCRIPTION
//        0    8 file offset of the page image (0: the page has no image — free or never written)
//        8    4 image length in bytes, header included
//       12    4 the image's CRC-32 (a copy of its header field: catches stale and misdirected writes)
//       16    8 commit sequence that wrote the image
//
// Map chunk (16-byte header + entries):
//        0    4 magic "CdMC"
//        4    4 chunk index
//        8    4 entry count E (entriesPerChunk; fewer in the last chunk)
//       12    4 CRC-32 of bytes 0..<12 followed by the entries
//       16 24·E entries for pages chunkIndex·entriesPerChunk ..< +E
//
// Directory (8-byte header + 16 bytes per chunk), located by the file header:
//        0    4 magic "CdMD"
//        4    4 chunk count C
//        8 16·C per chunk: offset u64, length u32, CRC-32 u32 of the chunk's bytes
//
// Extents are allocated in units of `PageMapLayout.granule` bytes: an image of length L occupies
// [offset, offset + roundUp(L, granule)).

/// Where a page image lives in the page file.
struct MapEntry: Equatable, Sendable {
    var offset: UInt64
    var length: UInt32
    var crc: UInt32
    var commit: CommitSequence

    static let absent = MapEntry(offset: 0, length: 0, crc: 0, commit: CommitSequence(0))
    var isPresent: Bool { offset != 0 }
}

/// Where a map chunk lives.
struct ChunkLocation: Equatable, Sendable {
    var offset: UInt64
    var length: UInt32
    var crc: UInt32
}

enum PageMapLayout {
    static let entrySize = 24
    static let chunkHeaderSize = 16
    static let directoryHeaderSize = 8
    static let directoryEntrySize = 16
    static let granule: UInt64 = 64
    static let chunkMagic: [UInt8] = Array("CdMC".utf8)
    static let directoryMagic: [UInt8] = Array("CdMD".utf8)
    /// Entries per chunk chosen at creation: 1024 (a 24 KiB chunk).
    static let defaultEntriesPerChunk: UInt32 = 1024

    static func roundUp(_ length: UInt64) -> UInt64 { (length + granule - 1) / granule * granule }

    static func encodeChunk(index: UInt32, entries: ArraySlice<MapEntry>) -> [UInt8] {
        var w = ByteWriter(capacity: chunkHeaderSize + entries.count * entrySize)
        w.raw(chunkMagic)
        w.u32(index)
        w.u32(UInt32(entries.count))
        w.u32(0)
        for e in entries {
            w.u64(e.offset); w.u32(e.length); w.u32(e.crc); w.u64(e.commit.rawValue)
        }
        var crc = Checksum.crc32(w.bytes[0..<12])
        crc = Checksum.crc32(w.bytes[16...], seed: crc)
        w.bytes.storeU32(crc, at: 12)
        return w.bytes
    }

    /// Decodes a chunk, checking magic, index, count and CRC.
    static func decodeChunk(_ bytes: [UInt8], index: UInt32, expectedCount: Int) -> Result<[MapEntry], DamageReport> {
        guard bytes.count == chunkHeaderSize + expectedCount * entrySize else {
            return .failure(
                "chunk \(index) is \(bytes.count) bytes, expected \(chunkHeaderSize + expectedCount * entrySize)")
        }
        return bytes.withUnsafeBytes { raw in
            let r = ByteReader(raw)
            guard Array(bytes[0..<4]) == chunkMagic else { return .failure("chunk \(index) has a bad magic") }
            var crc = Checksum.crc32(bytes[0..<12])
            crc = Checksum.crc32(bytes[16...], seed: crc)
            guard crc == r.u32(12) else { return .failure("chunk \(index) checksum mismatch") }
            guard r.u32(4) == index else { return .failure("chunk \(index) holds index \(r.u32(4))") }
            guard Int(r.u32(8)) == expectedCount else {
                return .failure("chunk \(index) holds \(r.u32(8)) entries, expected \(expectedCount)")
            }
            var entries: [MapEntry] = []
            entries.reserveCapacity(expectedCount)
            for i in 0..<expectedCount {
                let at = chunkHeaderSize + i * entrySize
                entries.append(
                    MapEntry(
                        offset: r.u64(at), length: r.u32(at + 8), crc: r.u32(at + 12),
                        commit: CommitSequence(r.u64(at + 16))))
            }
            return .success(entries)
        }
    }

    static func encodeDirectory(_ chunks: [ChunkLocation]) -> [UInt8] {
        var w = ByteWriter(capacity: directoryHeaderSize + chunks.count * directoryEntrySize)
        w.raw(directoryMagic)
        w.u32(UInt32(chunks.count))
        for c in chunks { w.u64(c.offset); w.u32(c.length); w.u32(c.crc) }
        return w.bytes
    }

    static func decodeDirectory(_ bytes: [UInt8], chunkCount: Int) -> Result<[ChunkLocation], DamageReport> {
        guard bytes.count == directoryHeaderSize + chunkCount * directoryEntrySize else {
            return .failure(
                "directory is \(bytes.count) bytes, expected \(directoryHeaderSize + chunkCount * directoryEntrySize)")
        }
        return bytes.withUnsafeBytes { raw in
            let r = ByteReader(raw)
            guard Array(bytes[0..<4]) == directoryMagic else { return .failure("directory has a bad magic") }
            guard Int(r.u32(4)) == chunkCount else {
                return .failure("directory lists \(r.u32(4)) chunks, header says \(chunkCount)")
            }
            return .success(
                (0..<chunkCount).map { i in
                    let at = directoryHeaderSize + i * directoryEntrySize
                    return ChunkLocation(offset: r.u64(at), length: r.u32(at + 8), crc: r.u32(at + 12))
                })
        }
    }
}

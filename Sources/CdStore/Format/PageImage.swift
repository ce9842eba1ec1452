// A page image: one logical page as stored, in the WAL and in the page file alike. A checkpoint
// copies compressed images byte for byte; raw images of compressible pages (what small commits
// write to the WAL, WriteTransaction R5) it compresses on the way.
//
// Layout (little-endian):
//   OFFSET SIZE DESCRIPTION
//        0    1 page type (PageType raw value; a copy of byte 0 of the logical page)
//        1    1 codec: 0 raw, 1 raw deflate (zlib)
//        2    2 reserved, zero
//        4    4 page number
//        8    8 commit sequence that wrote this image
//       16    4 stored length N (bytes after this header)
//       20    4 CRC-32 of bytes 0..<20 followed by the N stored bytes
//       24    N stored bytes: the page itself (codec 0, N = page size) or its deflate stream
//
// Invariants:
//  PI1. 0 < N ≤ page size; a raw image has N = page size exactly.
//  PI2. The stored bytes decode to exactly one page whose byte 0 equals the header's type (Z1).
//  PI3. The page number and commit in the header are the ones the reference (map entry or WAL
//       frame) expects: a misdirected or stale write is caught even though its CRC is good.

/// Encodes and decodes page images.
enum PageImage {
    static let headerSize = 24

    /// The largest image for a page size: header plus a raw page.
    static func maxImageSize(pageSize: Int) -> Int { headerSize + pageSize }

    /// Builds the image of one page: compressed by `compressor` when that pays (Z2), raw when it
    /// does not or when `compressor` is nil.
    static func encode(
        page: PageBuffer, number: PageNumber, commit: CommitSequence,
        compressor: PageCompressor?
    ) -> [UInt8] {
        let (codec, stored) = compressor?.compress(page.bytes) ?? (.raw, ArraySlice(page.bytes))
        var image = header(
            type: page.base.load(as: UInt8.self), codec: codec, number: number, commit: commit,
            storedCount: stored.count, storedCRC: Checksum.crc32(stored))
        image.reserveCapacity(headerSize + stored.count)
        image.append(contentsOf: stored)
        return image
    }

    /// The `headerSize` bytes that precede `storedCount` stored bytes whose CRC-32 (from 0) is
    /// `storedCRC`: the image CRC is combined from it (`Checksum.combine`), so a caller that
    /// needs the stored bytes' CRC anyway (a WAL frame's chain) reads them once.
    static func header(
        type: UInt8, codec: PageCodecID, number: PageNumber, commit: CommitSequence, storedCount: Int,
        storedCRC: UInt32
    ) -> [UInt8] {
        var w = ByteWriter(capacity: headerSize)
        w.u8(type)
        w.u8(codec.rawValue)
        w.u16(0)
        w.u32(number.rawValue)
        w.u64(commit.rawValue)
        w.u32(UInt32(storedCount))
        w.u32(Checksum.combine(Checksum.crc32(w.bytes), storedCRC, secondLength: storedCount))
        return w.bytes
    }

    /// The fixed fields of an image header.
    struct Header: Equatable {
        var type: UInt8
        var codec: UInt8
        var page: PageNumber
        var commit: CommitSequence
        var storedLength: Int
        var crc: UInt32
    }

    /// Parses the header of `image` (which must hold at least `headerSize` bytes).
    static func header(of image: UnsafeRawBufferPointer) -> Header {
        let r = ByteReader(image)
        return Header(
            type: r.u8(0), codec: r.u8(1), page: PageNumber(r.u32(4)),
            commit: CommitSequence(r.u64(8)), storedLength: Int(r.u32(16)), crc: r.u32(20))
    }

    /// Checks an image completely and decodes it into a fresh page buffer, or returns why it is
    /// damaged (PI1–PI3). `expected` is the page number the caller followed a reference to. The
    /// page borrows a block of `pages` (a store's pool, PageBuffer PB3) when given, else owns its
    /// bytes.
    static func decode(
        _ image: UnsafeRawBufferPointer, expected: PageNumber, expectedCommit: CommitSequence?,
        pageSize: Int, pool: PageDecompressorPool, pages: PageBufferPool?
    ) -> Result<PageBuffer, DamageReport> {
        guard image.count >= headerSize else {
            return .failure("image of \(image.count) bytes is shorter than its header")
        }
        let h = header(of: image)
        guard h.storedLength > 0, h.storedLength <= pageSize, headerSize + h.storedLength <= image.count else {
            return .failure("stored length \(h.storedLength) is out of range")
        }
        let stored = UnsafeRawBufferPointer(rebasing: image[headerSize..<(headerSize + h.storedLength)])
        let crc = Checksum.crc32(stored, seed: Checksum.crc32(UnsafeRawBufferPointer(rebasing: image[0..<20])))
        guard crc == h.crc else { return .failure("checksum mismatch (stored \(hex(h.crc)), computed \(hex(crc)))") }
        guard h.page == expected else { return .failure("image holds page \(h.page), expected page \(expected)") }
        if let expectedCommit, h.commit != expectedCommit {
            return .failure("image was written by commit \(h.commit), expected commit \(expectedCommit)")
        }
        // Every byte is written below (the raw copy, or an inflate that must produce exactly one
        // page, Z1) before the page is returned; on failure it is discarded. No zero fill first.
        let page: PageBuffer
        if let pages {
            precondition(
                pages.blockSize == pageSize, "pages of \(pageSize) bytes decoded into \(pages.blockSize)-byte blocks")
            page = PageBuffer(uninitialized: pages)
        } else {
            page = PageBuffer(uninitialized: pageSize)
        }
        switch PageCodecID(rawValue: h.codec) {
        case .raw:
            guard h.storedLength == pageSize else {
                return .failure("raw image of \(h.storedLength) bytes is not one page")
            }
            page.base.copyMemory(from: stored.baseAddress!, byteCount: pageSize)
        case .deflate:
            if let problem = pool.decompress(stored, into: page.mutableBytes) { return .failure(DamageReport(problem)) }
        case nil:
            return .failure("unknown codec \(h.codec)")
        }
        guard page.base.load(as: UInt8.self) == h.type else {
            return .failure("page type byte \(page.base.load(as: UInt8.self)) differs from the header's \(h.type)")
        }
        return .success(page)
    }
}

func hex(_ v: UInt32) -> String {
    let s = String(v, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 8 - s.count)) + s
}

/// Why stored bytes were rejected, in words for a `StoreError.corruption` detail.
struct DamageReport: Error, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
    let text: String
    init(_ text: String) { self.text = text }
    init(stringLiteral value: String) { text = value }
    init(stringInterpolation: DefaultStringInterpolation) { text = String(stringInterpolation: stringInterpolation) }
    var description: String { text }
}

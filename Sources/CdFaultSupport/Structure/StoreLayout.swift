// Where every structure of a store lies: a lenient parse of a page file and its WAL that follows
// the format's own references — the valid header copies, the active copy's directory, its map
// chunks, the page images they locate, the WAL's frames — and decodes each image (with the
// engine's decompressor) to its logical page. It never trusts a length it has not checked
// against the bytes: what it cannot follow it leaves out, so it reads damaged stores too (the
// fixture checks parse mutated files).
//
// The layout is what `StoreMutation` edits through and reseals: field sites (`StoreFieldSite`)
// name places in it, and the checksums that cover a place are found from it.

import CdStore

/// A page image the layout found.
struct LayoutImage: Sendable {
    enum Place: Equatable {
        /// In the page file at `offset`, `length` bytes, located by the map entry at `entry`.
        case pageFile(entry: Int, offset: Int, length: Int)
        /// The payload of WAL frame `frame`.
        case wal(frame: Int)
    }
    var place: Place
    var page: UInt32
    var codec: UInt8
    /// The logical page, when the image decodes.
    var decoded: [UInt8]?
}

/// A WAL frame the layout found.
struct LayoutFrame: Sendable {
    var offset: Int
    var kind: UInt8
    var payloadLength: Int
    var payloadOffset: Int { offset + 32 }
}

/// A map chunk the layout found, and its directory entry.
struct LayoutChunk: Sendable {
    var offset: Int
    var length: Int
    var directoryEntry: Int
}

/// The located structures of one store.
public struct StoreLayout: Sendable {
    public let files: StoreFuzzInput
    public private(set) var pageSize = 4096
    /// Offsets of the header copies whose magic and CRC are right.
    private(set) var validHeaders: [Int] = []
    /// The valid copy with the highest checkpoint sequence.
    private(set) var activeHeader: Int?
    private(set) var directory: (offset: Int, length: Int)?
    private(set) var chunks: [LayoutChunk] = []
    private(set) var images: [LayoutImage] = []
    private(set) var walHeaderValid = false
    private(set) var frames: [LayoutFrame] = []
    /// The page count of the newest meta page, else the header's.
    private(set) var pageCount: UInt32 = 0
    private var walCommitted = false

    public init(_ files: StoreFuzzInput) {
        self.files = files
        parsePageFile()
        parseWAL()
        decodeImages()
    }

    // MARK: - Parsing

    private mutating func parsePageFile() {
        let pf = files.pageFile
        for slot in [0, 4096] {
            guard slot + 128 <= pf.count, Array(pf[slot..<(slot + 8)]) == Array("CdStore\0".utf8),
                Checksum.crc32(pf[slot..<(slot + 124)]) == UInt32(le(pf, slot + 124, 4)!)
            else { continue }
            validHeaders.append(slot)
            if activeHeader.map({ le(pf, slot + 16, 8)! > le(pf, $0 + 16, 8)! }) ?? true { activeHeader = slot }
        }
        guard let h = activeHeader else { return }
        pageSize = Int(le(pf, h + 12, 4)!)
        pageCount = UInt32(le(pf, h + 32, 4)!)
        let entriesPerChunk = Int(le(pf, h + 64, 4)!)
        let chunkCount = Int(le(pf, h + 36, 4)!)
        let dirOffset = le(pf, h + 40, 8)!, dirLength = le(pf, h + 48, 4)!
        guard dirOffset > 0, dirOffset < UInt64(pf.count), dirLength <= UInt64(pf.count) - dirOffset,
            dirLength == UInt64(8 + 16 * chunkCount)
        else { return }
        let dir = Int(dirOffset)
        guard Array(pf[dir..<(dir + 4)]) == Array("CdMD".utf8) else { return }
        directory = (dir, Int(dirLength))
        for i in 0..<chunkCount {
            let entry = dir + 8 + 16 * i
            let offset = le(pf, entry, 8)!, length = le(pf, entry + 8, 4)!
            guard offset < UInt64(pf.count), length >= 16, length <= UInt64(pf.count) - offset else { continue }
            let chunk = LayoutChunk(offset: Int(offset), length: Int(length), directoryEntry: entry)
            guard Array(pf[chunk.offset..<(chunk.offset + 4)]) == Array("CdMC".utf8) else { continue }
            chunks.append(chunk)
            let count = min(Int(le(pf, chunk.offset + 8, 4)!), (chunk.length - 16) / 24)
            for j in 0..<count {
                let e = chunk.offset + 16 + 24 * j
                let imageOffset = le(pf, e, 8)!, imageLength = le(pf, e + 8, 4)!
                guard imageOffset > 0, imageOffset < UInt64(pf.count), imageLength >= 24,
                    imageLength <= UInt64(pf.count) - imageOffset
                else { continue }
                let at = Int(imageOffset)
                images.append(
                    LayoutImage(
                        place: .pageFile(entry: e, offset: at, length: Int(imageLength)),
                        page: UInt32(truncatingIfNeeded: i &* entriesPerChunk &+ j), codec: pf[at + 1]))
            }
        }
    }

    private mutating func parseWAL() {
        let wal = files.wal
        guard wal.count >= 32, Array(wal[0..<8]) == Array("CdWAL\0\0\0".utf8),
            Checksum.crc32(wal[0..<28]) == UInt32(le(wal, 28, 4)!)
        else { return }
        walHeaderValid = true
        let salt = le(wal, 24, 4)!
        var at = 32
        while at + 32 <= wal.count {
            let kind = wal[at], length = Int(le(wal, at + 16, 4)!)
            guard (1...3).contains(kind), le(wal, at + 20, 4)! == salt, length <= wal.count - at - 32 else { break }
            frames.append(LayoutFrame(offset: at, kind: kind, payloadLength: length))
            if kind == 1, length >= 24 {
                images.append(
                    LayoutImage(
                        place: .wal(frame: frames.count - 1), page: UInt32(le(wal, at + 4, 4)!),
                        codec: wal[at + 32 + 1]))
            }
            if kind == 3, length >= 8 { pageCount = UInt32(le(wal, at + 32 + 4, 4)!); walCommitted = true }
            at += 32 + length
        }
    }

    private mutating func decodeImages() {
        // A hostile header's page size is no size to allocate pages of.
        guard pageSize >= 4096, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else { return }
        let pool = PageDecompressorPool()
        for i in images.indices {
            let (bytes, offset, length) = imageBytes(images[i])
            let stored = Int(le(bytes, offset + 16, 4) ?? 0)
            guard stored > 0, stored <= length - 24 else { continue }
            let streamBytes = Array(bytes[(offset + 24)..<(offset + 24 + stored)])
            var page = [UInt8](repeating: 0, count: pageSize)
            switch images[i].codec {
            case 0 where stored == pageSize: page = streamBytes
            case 1:
                let failure = streamBytes.withUnsafeBytes { s in
                    page.withUnsafeMutableBytes { pool.decompress(s, into: $0) }
                }
                if failure != nil { continue }
            default: continue
            }
            images[i].decoded = page
            if images[i].page == 1, page[0] == 1, case .pageFile = images[i].place, !walCommitted {
                pageCount = UInt32(le(page, 16, 4)!)
            }
        }
    }

    /// The file bytes, offset and length of an image.
    func imageBytes(_ image: LayoutImage) -> (bytes: [UInt8], offset: Int, length: Int) {
        switch image.place {
        case let .pageFile(_, offset, length): return (files.pageFile, offset, length)
        case let .wal(frame): return (files.wal, frames[frame].payloadOffset, frames[frame].payloadLength)
        }
    }
}

/// The little-endian integer of `width` bytes at `offset`, or nil when it does not fit.
func le(_ bytes: [UInt8], _ offset: Int, _ width: Int) -> UInt64? {
    guard offset >= 0, width <= 8, offset <= bytes.count - width else { return nil }
    var v: UInt64 = 0
    for i in 0..<width { v |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
    return v
}

/// Writes the little-endian integer `value` in `width` bytes at `offset`.
func putLE(_ bytes: inout [UInt8], _ offset: Int, _ width: Int, _ value: UInt64) {
    for i in 0..<width { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(i))) }
}

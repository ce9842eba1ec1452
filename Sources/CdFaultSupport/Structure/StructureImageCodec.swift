// Re-encodes a page image around an edited logical page, with the engine's own compressor and
// CRC (FORMAT.md, page images): the type byte follows the page's byte 0 (so a hostile type
// reaches the page logic instead of failing the image check), the codec stays what it was —
// deflate (raw when deflate does not pay, Z2) or raw — and the page number and commit are kept.

import CdStore

enum StructureImageCodec {
    static func reencode(header: [UInt8], page: [UInt8]) -> [UInt8] {
        var codec: UInt8 = 0
        var stored = page
        if header[1] == PageCodecID.deflate.rawValue {
            let compressor = PageCompressor(level: 1, pageSize: page.count)
            let (id, bytes) = page.withUnsafeBytes { compressor.compress($0) }
            codec = id.rawValue
            stored = Array(bytes)
        }
        var image = [page[0], codec] + header[2..<16] + [UInt8](repeating: 0, count: 8)
        putLE(&image, 16, 4, UInt64(stored.count))
        putLE(&image, 20, 4, UInt64(Checksum.crc32(stored, seed: Checksum.crc32(image[0..<20]))))
        return image + stored
    }
}

import Testing
@testable import CdStore
import CdStoreTesting

/// `Checksum.combine` and the single-pass page image CRC it enables give exactly the CRCs a
/// second pass over the bytes would.
@Suite struct ChecksumTests {
    @Test(arguments: [0, 1, 23, 24, 4_096, 8_192])
    func combineEqualsOnePassOverBothParts(splitAt split: Int) {
        var rng = SeededGenerator(seed: UInt64(split) &+ 11)
        let bytes = randomBytes(8_192 + 24, &rng)
        let head = Array(bytes[0..<split]), tail = Array(bytes[split...])
        for seed: UInt32 in [0, 0xDEAD_BEEF] {
            let combined = Checksum.combine(
                Checksum.crc32(head, seed: seed), Checksum.crc32(tail), secondLength: tail.count)
            #expect(combined == Checksum.crc32(bytes, seed: seed), "split \(split), seed \(seed)")
        }
    }

    @Test(arguments: [false, true])
    func imagesAndFramesBuiltFromAStoredCRCMatchAFullPass(compressed: Bool) {
        let page = PageBuffer(zeroed: 8_192)
        var rng = SeededGenerator(seed: 5)
        let content = randomBytes(3_000, &rng)
        page.base.storeBytes(of: PageType.leaf.rawValue, as: UInt8.self)
        for (i, b) in content.enumerated() { page.base.storeBytes(of: b, toByteOffset: 100 + i, as: UInt8.self) }
        let compressor = compressed ? PageCompressor(level: 1, pageSize: 8_192) : nil
        let image = PageImage.encode(
            page: page, number: PageNumber(7), commit: CommitSequence(3), compressor: compressor)
        let head = Array(image[0..<PageImage.headerSize]), stored = Array(image[PageImage.headerSize...])
        #expect(head[1] == (compressed ? PageCodecID.deflate : PageCodecID.raw).rawValue)
        // The image CRC as the format defines it: bytes 0..<20, then the stored bytes.
        let reference = Checksum.crc32(stored, seed: Checksum.crc32(Array(head[0..<20])))
        #expect(image.withUnsafeBytes { PageImage.header(of: $0).crc } == reference)
        var parts: [UInt8] = [], whole: [UInt8] = []
        let a = stored.withUnsafeBytes { body in
            WALLayout.appendFrame(
                kind: .page, page: PageNumber(7), commit: CommitSequence(3), salt: 9, head: head, body: body,
                bodyCRC: Checksum.crc32(stored), previousCRC: 42, to: &parts)
        }
        let b = WALLayout.appendFrame(
            kind: .page, page: PageNumber(7), commit: CommitSequence(3), salt: 9, payload: image,
            previousCRC: 42, to: &whole)
        #expect(a == b && parts == whole)
    }
}

import Testing
@testable import CdStore

/// `SparsePageDeflate` writes deflate streams that zlib and the store's own decompressor
/// (libdeflate) both inflate to exactly the page, for every shape of zero run and literal, and
/// declines pages too dense for it.
@Suite struct SparsePageDeflateTests {
    /// Inflates `stream` with the store's own decompressor; nil when it fails, or when zlib, an
    /// independent inflater, reads it otherwise.
    static func inflate(_ stream: [UInt8], pageSize: Int) -> [UInt8]? {
        let page = PageBuffer(zeroed: pageSize)
        let failure = stream.withUnsafeBytes { PageDecompressorPool().decompress($0, into: page.mutableBytes) }
        guard failure == nil else { return nil }
        let bytes = Array(page.bytes)
        return PageCodecInteropTests.zlibInflate(ArraySlice(stream), pageSize: pageSize) == bytes ? bytes : nil
    }

    /// A page of zeros with `bytes` written at their offsets.
    static func page(_ size: Int, _ bytes: [Int: UInt8]) -> PageBuffer {
        let page = PageBuffer(zeroed: size)
        for (offset, byte) in bytes { page.base.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self) }
        return page
    }

    @Test(arguments: [
        [:],
        [0: 1, 8: 0xFF, 16: 144, 17: 143, 31: 7],
        [0: 9, 2: 9, 5: 9, 9: 9, 14: 9, 273: 9, 533: 9, 534: 9, 8_191: 200],
        [258: 1, 517: 2, 777: 3, 1_038: 4],
    ])
    func streamsInflateToThePage(_ bytes: [Int: UInt8]) throws {
        for size in [4_096, 8_192] {
            let page = Self.page(size, bytes.filter { $0.key < size })
            let stream = try #require(SparsePageDeflate.encode(page.bytes, limit: size / 4))
            #expect(stream.count < 128, "\(stream.count) bytes for \(bytes.count) non-zero bytes")
            #expect(Self.inflate(stream, pageSize: size) == Array(page.bytes))
        }
    }

    @Test func everyByteValueAndRunLengthRoundTrips() throws {
        var rng = SeededGenerator(seed: 21)
        var bytes: [Int: UInt8] = [:]
        var offset = 0
        for value in 1...255 {
            bytes[offset] = UInt8(value)
            offset += 1 + Int(rng.next() % 300)  // zero runs of 0…299 bytes between literals
            if offset >= 65_536 { break }
        }
        let page = Self.page(65_536, bytes)
        let stream = try #require(SparsePageDeflate.encode(page.bytes, limit: 65_536))
        #expect(Self.inflate(stream, pageSize: 65_536) == Array(page.bytes))
    }

    @Test func aDensePageIsDeclined() {
        var rng = SeededGenerator(seed: 4)
        let page = Self.page(
            8_192, Dictionary(uniqueKeysWithValues: (0..<4_000).map { ($0 * 2, UInt8(1 + rng.next() % 255)) }))
        #expect(SparsePageDeflate.encode(page.bytes, limit: 2_048) == nil)
    }
}

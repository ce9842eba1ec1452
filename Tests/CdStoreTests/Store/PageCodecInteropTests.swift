// Page images are raw DEFLATE streams (RFC 1951) that any zlib reads: the engine writes them with
// libdeflate, and zlib (an independent implementation) must inflate every one to the same page.
// The other way round, streams that zlib wrote (every store made before the switch to libdeflate,
// and the golden fixtures under Fixtures/stores) must decode through the engine's decompressor.
// Damaged streams give a reason, never more or less than one page (Z1 of PageCodec.swift).

import CZlib
import CdStoreTesting
import Foundation
import Testing
@testable import CdStore

@Suite struct PageCodecInteropTests {
    /// Pages shaped like the engine's leaves: short binary keys between words of text, with a
    /// zero-filled tail; `fill` sets how much of the page holds records.
    static func page(size: Int, seed: UInt64, fill: Double) -> [UInt8] {
        let words = ["lisbon", "porto", "sales", "engineer", "notes", "budget", "review", "delta", "quarter"]
        var rng = SplitMix64(seed: seed)
        var bytes: [UInt8] = []
        let used = Int(Double(size) * fill)
        while bytes.count < used {
            bytes.append(contentsOf: withUnsafeBytes(of: rng.next().bigEndian) { Array($0) })
            bytes.append(contentsOf: Array(words[Int(rng.next() % UInt64(words.count))].utf8))
            bytes.append(0x20)
        }
        bytes = Array(bytes.prefix(used))
        bytes += [UInt8](repeating: 0, count: size - bytes.count)
        bytes[0] = 2
        return bytes
    }

    /// Inflates a raw DEFLATE stream with zlib into a buffer one byte larger than a page, so a
    /// stream that made too much would show it.
    static func zlibInflate(_ stored: ArraySlice<UInt8>, pageSize: Int) -> [UInt8]? {
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: pageSize + 1)
        var input = Array(stored)
        let (status, produced): (Int32, Int) = input.withUnsafeMutableBytes { i in
            out.withUnsafeMutableBytes { o in
                stream.next_in = i.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_in = uInt(i.count)
                stream.next_out = o.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(o.count)
                let s = inflate(&stream, Z_FINISH)
                return (s, o.count - Int(stream.avail_out))
            }
        }
        guard status == Z_STREAM_END, stream.avail_in == 0 else { return nil }
        return Array(out.prefix(produced))
    }

    /// Deflates `page` with zlib's own raw-deflate stream at `level`.
    static func zlibDeflate(_ page: [UInt8], level: Int32) -> [UInt8] {
        var stream = z_stream()
        let ok = deflateInit2_(
            &stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        precondition(ok == Z_OK)
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(page.count))) + 16)
        var input = page
        let produced: Int = input.withUnsafeMutableBytes { i in
            out.withUnsafeMutableBytes { o in
                stream.next_in = i.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_in = uInt(i.count)
                stream.next_out = o.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(o.count)
                precondition(deflate(&stream, Z_FINISH) == Z_STREAM_END)
                return o.count - Int(stream.avail_out)
            }
        }
        return Array(out.prefix(produced))
    }

    static func decode(_ stored: [UInt8], pageSize: Int) -> Result<[UInt8], DamageReport> {
        let page = PageBuffer(zeroed: pageSize)
        let problem = stored.withUnsafeBytes { PageDecompressorPool().decompress($0, into: page.mutableBytes) }
        if let problem { return .failure(DamageReport(problem)) }
        return .success(Array(page.bytes))
    }

    static let shapes: [(level: Int, pageSize: Int)] = [(1, 4096), (1, 8192), (6, 8192), (9, 16384), (1, 65536)]

    @Test("zlib inflates every page the engine compresses, to the same bytes", arguments: shapes)
    func zlibReadsEnginePages(level: Int, pageSize: Int) throws {
        let compressor = PageCompressor(level: level, pageSize: pageSize)
        var compressed = 0
        for seed in UInt64(1)...40 {
            let page = Self.page(size: pageSize, seed: seed, fill: Double(seed % 10 + 1) / 10)
            let (codec, stored) = page.withUnsafeBytes { compressor.compress($0) }
            guard codec == .deflate else { continue }
            compressed += 1
            #expect(stored.count < pageSize)
            #expect(Self.zlibInflate(stored, pageSize: pageSize) == page, "seed \(seed)")
            #expect(try Self.decode(Array(stored), pageSize: pageSize).get() == page, "seed \(seed)")
        }
        #expect(compressed == 40, "every test page compresses")
    }

    @Test("streams zlib deflated decode to the same page", arguments: [Int32(1), 6, 9])
    func engineReadsZlibPages(level: Int32) throws {
        for seed in UInt64(1)...20 {
            let page = Self.page(size: 8192, seed: seed, fill: 0.9)
            #expect(try Self.decode(Self.zlibDeflate(page, level: level), pageSize: 8192).get() == page)
        }
    }

    @Test("an incompressible page is stored raw (Z2)")
    func incompressiblePageStaysRaw() {
        var rng = SplitMix64(seed: 99)
        let page = (0..<8192).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let (codec, stored) = page.withUnsafeBytes { PageCompressor(level: 1, pageSize: 8192).compress($0) }
        #expect(codec == .raw)
        #expect(Array(stored) == page)
    }

    @Test("level 0 stores every page raw")
    func levelZeroIsRaw() {
        let page = Self.page(size: 8192, seed: 3, fill: 0.5)
        let (codec, stored) = page.withUnsafeBytes { PageCompressor(level: 0, pageSize: 8192).compress($0) }
        #expect(codec == .raw)
        #expect(Array(stored) == page)
    }

    @Test("damaged streams are refused with a reason, never more or less than one page (Z1)")
    func damagedStreams() {
        let page = Self.page(size: 8192, seed: 5, fill: 0.9)
        let good = Self.zlibDeflate(page, level: 1)
        func problem(_ stored: [UInt8], pageSize: Int = 8192) -> String? {
            if case .failure(let report) = Self.decode(stored, pageSize: pageSize) { return report.text }
            return nil
        }
        #expect(problem(good) == nil)
        #expect(problem(Array(good.prefix(good.count / 2)))?.contains("truncated") == true)
        #expect(problem(Array(good.prefix(good.count - 1))) != nil)
        #expect(problem(good + [0xAB, 0xCD])?.contains("stray bytes") == true)
        #expect(problem(good, pageSize: 4096)?.contains("more than one page") == true)
        #expect(problem(Self.zlibDeflate(Array(page.prefix(4096)), level: 1))?.contains("not one page") == true)
        #expect(problem([0xFF, 0xFF, 0xFF, 0xFF]) != nil)
        #expect(problem([]) != nil)
    }

    /// Opens the checkpointed store at `path` read-only and inflates every deflated image of its
    /// page file with zlib: each must give exactly one page, whose type byte is the image's, and a
    /// branch or leaf must come out in its compact form (Z3). Returns how many it inflated.
    static func zlibInflatedImages(path: String) throws -> Int {
        var options = StoreOptions()
        options.readOnly = true
        let store = try Store.open(path: path, options: options)
        defer { try? store.close() }
        let pageSize = store.pageSize
        var inflated = 0
        for (n, entry) in store.map.enumerated() where entry.isPresent {
            let image = try store.file.readExactly(
                Int(entry.length), at: entry.offset, location: .page(PageNumber(UInt32(n))))
            let header = image.withUnsafeBytes { PageImage.header(of: $0) }
            guard header.codec == PageCodecID.deflate.rawValue else { continue }
            let stored = image[PageImage.headerSize..<(PageImage.headerSize + header.storedLength)]
            let page = try #require(zlibInflate(stored, pageSize: pageSize), "page \(n)")
            #expect(page.count == pageSize && page[0] == header.type, "page \(n)")
            if page[0] == PageType.leaf.rawValue || page[0] == PageType.branch.rawValue {
                var packed = [UInt8](repeating: 0, count: pageSize)
                let ok = page.withUnsafeBytes { p in
                    packed.withUnsafeMutableBytes { BTreeCompactForm.write(p, into: $0) }
                }
                #expect(ok && packed == page, "page \(n) is not in its compact form")
            }
            inflated += 1
        }
        return inflated
    }

    @Test("zlib inflates the B+tree pages of the compressor to their compact form (Z3)", arguments: shapes)
    func zlibReadsCompactTreePages(level: Int, pageSize: Int) throws {
        let (tree, sink) = try BTreeCompactFormTests.churnedTree(pageSize: pageSize)
        let compressor = PageCompressor(level: level, pageSize: pageSize)
        var smaller = 0
        var pages = 0
        for (number, type) in BTreeChecker.check(tree, in: sink).pages where type == .leaf || type == .branch {
            let page = try sink.page(number)
            let packed = try #require(BTreeCompactFormTests.compact(page))
            let (codec, stored) = compressor.compress(page.bytes)
            guard codec == .deflate else { continue }
            pages += 1
            #expect(Self.zlibInflate(stored, pageSize: pageSize) == Array(packed.bytes), "page \(number)")
            // One encoder (zlib) for both, so only the form differs.
            let level = Int32(min(level, 9))
            if Self.zlibDeflate(Array(packed.bytes), level: level).count
                < Self.zlibDeflate(Array(page.bytes), level: level).count
            {
                smaller += 1
            }
        }
        #expect(pages > 0)
        #expect(smaller * 10 >= pages * 9, "the compact form deflates smaller on \(smaller) of \(pages) pages")
    }
}

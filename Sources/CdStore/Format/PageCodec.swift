import CDeflate

// Raw DEFLATE (RFC 1951) compression of page images, through libdeflate's whole-buffer calls. The
// streams are the ones zlib reads and writes with window bits −15: stores written with zlib open
// unchanged, and zlib inflates every image written here (a test checks both ways). On 8 KiB pages
// of this engine's records, libdeflate level 1 deflates in ~28 µs against zlib level 1's ~64 µs
// (ratio 3.18 against 3.08) and inflates in ~8 µs against zlib's ~20 µs.
//
// One `PageCompressor` belongs to the writer; decompressors are pooled for concurrent readers.
//
// Invariants:
//  Z1. Decompression writes into a buffer of exactly one page and never allocates more: a stream
//      that would produce more, or less, than one page is corruption, and so are bytes after the
//      stream's final block.
//  Z2. Compression output is used only when it is smaller than the raw page (`stored raw` otherwise).
//  Z3. A branch or leaf page is deflated here in its compact form (BTreeCompactForm, FZ3): the stream
//      inflates to a page with the same cells in the same slot order, not necessarily to the
//      same bytes. Every other page, and a raw image, keeps its bytes.

/// Codec id stored in each page image header. Persisted: frozen.
package enum PageCodecID: UInt8 {
    case raw = 0
    case deflate = 1
}

/// Compresses pages into raw DEFLATE streams. Not thread-safe: one per writer.
package final class PageCompressor {
    private let compressor: OpaquePointer?
    private var output: [UInt8]
    /// One page: the compact form of the page being compressed (Z3).
    private let compact: UnsafeMutableRawBufferPointer
    let level: Int32

    /// A compressor at `level`, clamped to 0...9 (0 stores raw pages, 1 is fastest, 9 smallest).
    package init(level: Int, pageSize: Int) {
        self.level = Int32(max(0, min(9, level)))
        compact = .allocate(byteCount: self.level == 0 ? 0 : pageSize, alignment: 16)
        if self.level == 0 {
            compressor = nil
            output = []
        } else {
            guard let c = libdeflate_alloc_compressor(self.level) else {
                fatalError("libdeflate could not allocate a compressor: out of memory")
            }
            compressor = c
            output = [UInt8](repeating: 0, count: libdeflate_deflate_compress_bound(c, pageSize) + 16)
        }
    }

    deinit {
        if let compressor { libdeflate_free_compressor(compressor) }
        compact.deallocate()
    }

    /// Returns the codec used and the stored bytes for one page (Z2).
    package func compress(_ page: UnsafeRawBufferPointer) -> (PageCodecID, ArraySlice<UInt8>) {
        guard let compressor, var base = page.baseAddress else { return (.raw, ArraySlice(page)) }
        // Z3: a B+tree page's cells packed in key order, its gap zeroed, deflate much better.
        if page.count == compact.count, BTreeCompactForm.write(page, into: compact) {
            base = UnsafeRawPointer(compact.baseAddress!)
        }
        // Only output shorter than the page is worth keeping (Z2): a smaller buffer lets
        // libdeflate give up early, returning 0, on an incompressible page.
        let limit = min(output.count, page.count - 1)
        let produced = output.withUnsafeMutableBytes { out in
            libdeflate_deflate_compress(compressor, base, page.count, out.baseAddress!, limit)
        }
        if produced == 0 || produced >= page.count { return (.raw, ArraySlice(page)) }
        return (.deflate, output[0..<produced])
    }
}

/// A pool of decompressors shared by all readers of a store.
package final class PageDecompressorPool: @unchecked Sendable {
    private let lock = Lock()
    private var free: [OpaquePointer] = []

    package init() {}

    deinit { for d in free { libdeflate_free_decompressor(d) } }

    private func take() -> OpaquePointer {
        if let d = lock.withLock({ free.popLast() }) { return d }
        guard let d = libdeflate_alloc_decompressor() else {
            fatalError("libdeflate could not allocate a decompressor: out of memory")
        }
        return d
    }

    private func give(_ d: OpaquePointer) {
        let kept = lock.withLock { () -> Bool in
            guard free.count < 16 else { return false }
            free.append(d)
            return true
        }
        if !kept { libdeflate_free_decompressor(d) }
    }

    /// Inflates `stored` into `page`, which is exactly one page long (Z1). Returns an error text
    /// when the stream is damaged or does not produce exactly one page.
    package func decompress(_ stored: UnsafeRawBufferPointer, into page: UnsafeMutableRawBufferPointer) -> String? {
        guard let input = stored.baseAddress, !stored.isEmpty else { return "compressed stream is truncated" }
        let d = take()
        defer { give(d) }
        var consumed = 0
        var produced = 0
        let result = libdeflate_deflate_decompress_ex(
            d, input, stored.count, page.baseAddress!, page.count, &consumed, &produced)
        switch result {
        case LIBDEFLATE_SUCCESS:
            if produced != page.count { return "decompressed to \(produced) bytes, not one page of \(page.count)" }
            if consumed != stored.count { return "\(stored.count - consumed) stray bytes after the compressed stream" }
            return nil
        case LIBDEFLATE_INSUFFICIENT_SPACE:
            return "decompresses to more than one page"
        case LIBDEFLATE_SHORT_OUTPUT:
            return "compressed stream is truncated"
        default:
            // libdeflate reads past the end of a cut stream as zero bits, so a truncated stream
            // usually shows as bad data rather than short output.
            return "compressed stream is damaged or truncated (libdeflate result \(result.rawValue))"
        }
    }
}

import CZlib

// zlib raw-deflate compression of page images. One `PageCompressor` belongs to the writer (a
// reused deflate stream: on 4 KiB pages, `compress2()` per call runs at about half the speed of
// a stream kept and reset with `deflateReset`, 30 against 56–69 MB/s at level 1); inflate streams
// are pooled for concurrent readers.
//
// Invariants:
//  Z1. Decompression writes into a buffer of exactly one page and never allocates more: a stream
//      that would produce more, or less, than one page is corruption.
//  Z2. Compression output is used only when it is smaller than the raw page (`stored raw` otherwise).

/// Codec id stored in each page image header. Persisted: frozen.
package enum PageCodecID: UInt8 {
    case raw = 0
    case deflate = 1
}

/// Compresses pages with a reused raw-deflate stream. Not thread-safe: one per writer.
package final class PageCompressor {
    private var stream = z_stream()
    private var output: [UInt8]
    let level: Int32

    package init(level: Int, pageSize: Int) {
        self.level = Int32(max(0, min(9, level)))
        // raw deflate (negative window bits), memLevel 8, default strategy.
        let status = deflateInit2_(
            &stream, self.level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY,
            ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "deflateInit2 failed: \(status)")
        output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(pageSize))) + 16)
    }

    deinit { deflateEnd(&stream) }

    /// Returns the codec used and the stored bytes for one page (Z2).
    package func compress(_ page: UnsafeRawBufferPointer) -> (PageCodecID, ArraySlice<UInt8>) {
        if level == 0 { return (.raw, ArraySlice(page)) }
        deflateReset(&stream)
        let produced: Int = output.withUnsafeMutableBytes { out -> Int in
            stream.next_in = UnsafeMutablePointer(mutating: page.baseAddress!.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(page.count)
            stream.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(out.count)
            let status = deflate(&stream, Z_FINISH)
            guard status == Z_STREAM_END else { return Int.max }
            return out.count - Int(stream.avail_out)
        }
        if produced >= page.count { return (.raw, ArraySlice(page)) }
        return (.deflate, output[0..<produced])
    }
}

/// A pool of inflate streams shared by all readers of a store.
package final class PageDecompressorPool: @unchecked Sendable {
    private let lock = Lock()
    private var free: [UnsafeMutablePointer<z_stream>] = []

    package init() {}

    deinit {
        for s in free {
            inflateEnd(s)
            s.deallocate()
        }
    }

    private func take() -> UnsafeMutablePointer<z_stream> {
        if let s = lock.withLock({ free.popLast() }) { return s }
        let s = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        s.initialize(to: z_stream())
        let status = inflateInit2_(s, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "inflateInit2 failed: \(status)")
        return s
    }

    private func give(_ s: UnsafeMutablePointer<z_stream>) {
        lock.withLock {
            if free.count < 16 { free.append(s); return }; inflateEnd(s); s.deallocate()
        }
    }

    /// Inflates `stored` into `page`, which is exactly one page long (Z1). Returns an error text
    /// when the stream is damaged or does not produce exactly one page.
    package func decompress(_ stored: UnsafeRawBufferPointer, into page: UnsafeMutableRawBufferPointer) -> String? {
        let s = take()
        defer { give(s) }
        inflateReset(s)
        s.pointee.next_in = UnsafeMutablePointer(mutating: stored.baseAddress?.assumingMemoryBound(to: Bytef.self))
        s.pointee.avail_in = uInt(stored.count)
        s.pointee.next_out = page.baseAddress!.assumingMemoryBound(to: Bytef.self)
        s.pointee.avail_out = uInt(page.count)
        let status = inflate(s, Z_FINISH)
        let produced = page.count - Int(s.pointee.avail_out)
        if status == Z_STREAM_END {
            if produced != page.count { return "decompressed to \(produced) bytes, not one page of \(page.count)" }
            if s.pointee.avail_in != 0 { return "\(s.pointee.avail_in) stray bytes after the compressed stream" }
            return nil
        }
        if status == Z_BUF_ERROR || status == Z_OK {
            return produced == page.count ? "decompresses to more than one page" : "compressed stream is truncated"
        }
        return "zlib inflate failed with status \(status)"
    }
}

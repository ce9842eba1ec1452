// A raw-deflate (RFC 1951) encoder for pages that are mostly zeros: the meta page (32 bytes of
// counters) and nearly empty tree pages, which small commits log (WriteTransaction R5). It writes
// one block with the fixed Huffman codes (RFC 1951 §3.2.6): each run of zeros becomes a literal
// zero followed by back-references at distance 1, every other byte a literal. That is one pass
// over the page with no hashing, a fraction of a general deflate's cost, and its output is a
// plain deflate stream that any inflater reads (codec 1 of the page image format).
//
// Bit order (RFC 1951 §3.1.1): header fields and extra bits are packed least significant bit
// first; Huffman codes most significant bit first, so they are reversed before packing.

/// Encodes a mostly-zero page as raw deflate with fixed Huffman codes.
enum SparsePageDeflate {
    /// Length code bases 257…285 and their extra bits (RFC 1951 §3.2.5).
    private static let lengthBases: [Int] = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227,
        258,
    ]
    private static let lengthExtraBits: [Int] = [
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
    ]
    /// The shortest zero run sent as back-references (a literal zero, then at least a match of 3).
    private static let minimumRun = 4

    /// The deflate stream of `page`, or nil when it would exceed `limit` bytes (the page is not
    /// sparse enough for this to pay; the caller stores it otherwise).
    static func encode(_ page: UnsafeRawBufferPointer, limit: Int) -> [UInt8]? {
        var out = BitWriter(capacity: min(limit, page.count) + 8)
        out.put(1, bits: 1)  // BFINAL
        out.put(1, bits: 2)  // BTYPE 01: fixed Huffman codes
        var i = 0
        while i < page.count {
            if out.byteCount > limit { return nil }
            let byte = page[i]
            guard byte == 0 else {
                putSymbol(Int(byte), &out)
                i += 1
                continue
            }
            let run = zeroRun(page, from: i)
            if run < minimumRun {
                for _ in 0..<run { putSymbol(0, &out) }
            } else {
                putSymbol(0, &out)  // the byte every match copies
                var left = run - 1
                while left >= 3 {
                    let length = min(left, 258)
                    putLength(length, &out)
                    out.put(0, bits: 5)  // distance code 0: distance 1, no extra bits
                    left -= length
                }
                for _ in 0..<left { putSymbol(0, &out) }
            }
            i += run
        }
        putSymbol(256, &out)  // end of block
        let bytes = out.finish()
        return bytes.count <= limit ? bytes : nil
    }

    /// The length of the run of zero bytes at `start` (which holds a zero), read a word at a time.
    private static func zeroRun(_ page: UnsafeRawBufferPointer, from start: Int) -> Int {
        var end = start + 1
        while end + 8 <= page.count && page.loadUnaligned(fromByteOffset: end, as: UInt64.self) == 0 { end += 8 }
        while end < page.count && page[end] == 0 { end += 1 }
        return end - start
    }

    /// The fixed Huffman code of each literal/length symbol 0…287, bit-reversed for packing, and
    /// its length in bits.
    private static let codes: [(code: UInt64, bits: Int)] = (0..<288).map { symbol in
        let (code, bits): (Int, Int)
        switch symbol {
        case 0...143: (code, bits) = (0x30 + symbol, 8)
        case 144...255: (code, bits) = (0x190 + symbol - 144, 9)
        case 256...279: (code, bits) = (symbol - 256, 7)
        default: (code, bits) = (0xC0 + symbol - 280, 8)
        }
        var reversed = 0
        for bit in 0..<bits where code & (1 << bit) != 0 { reversed |= 1 << (bits - 1 - bit) }
        return (UInt64(reversed), bits)
    }

    /// Packs literal/length symbol `symbol` with its fixed Huffman code.
    @inline(__always)
    private static func putSymbol(_ symbol: Int, _ out: inout BitWriter) {
        let (code, bits) = codes[symbol]
        out.put(code, bits: bits)
    }

    /// Packs match length `length` (3…258): its length symbol, then its extra bits.
    private static func putLength(_ length: Int, _ out: inout BitWriter) {
        var index = lengthBases.count - 1
        while lengthBases[index] > length { index -= 1 }
        putSymbol(257 + index, &out)
        if lengthExtraBits[index] > 0 { out.put(UInt64(length - lengthBases[index]), bits: lengthExtraBits[index]) }
    }
}

/// Packs bit fields least significant bit first into bytes.
private struct BitWriter {
    private var bytes: [UInt8] = []
    private var accumulator: UInt64 = 0
    private var pending = 0

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    /// Bytes written so far (whole bytes only).
    var byteCount: Int { bytes.count }

    /// Packs the low `bits` bits of `value`, least significant first.
    mutating func put(_ value: UInt64, bits: Int) {
        accumulator |= value << UInt64(pending)
        pending += bits
        while pending >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: accumulator))
            accumulator >>= 8
            pending -= 8
        }
    }

    /// The bytes, the last one padded with zero bits.
    mutating func finish() -> [UInt8] {
        if pending > 0 { bytes.append(UInt8(truncatingIfNeeded: accumulator)) }
        accumulator = 0
        pending = 0
        return bytes
    }
}

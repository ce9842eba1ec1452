import CDeflate

/// CRC-32 (ISO-HDLC, the zlib/gzip polynomial, computed by libdeflate) over stored bytes. Every header, page image, map
/// chunk and WAL frame carries one; see docs/FORMAT.md.
package enum Checksum {
    /// The CRC-32 of `bytes`, continuing from `seed` (0 to start).
    static func crc32(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return seed }
        // libdeflate's CRC-32 is zlib's function (same polynomial, same seeding), folded with
        // carry-less multiplication where the CPU has it.
        return libdeflate_crc32(seed, base, bytes.count)
    }

    /// The CRC-32 of A followed by B, from A's CRC (`first`, or the seed the run continues
    /// from), B's own CRC started from 0 (`second`) and B's length: a CRC already computed over B
    /// is reused for a longer run that ends in B, in O(log n) steps instead of a pass over B.
    /// (zlib's `crc32_combine`: `first` times x^(8·length) modulo the polynomial, plus `second`.)
    package static func combine(_ first: UInt32, _ second: UInt32, secondLength: Int) -> UInt32 {
        multiplyModP(xToThe2ToThe(secondLength, 3), first) ^ second
    }

    /// The CRC-32 polynomial, bit-reflected.
    private static let polynomial: UInt32 = 0xEDB8_8320

    /// a·b modulo the polynomial, in the CRC's reflected bit order (`a` is not 0).
    private static func multiplyModP(_ a: UInt32, _ b: UInt32) -> UInt32 {
        var m: UInt32 = 1 << 31, product: UInt32 = 0, b = b
        while true {
            if a & m != 0 {
                product ^= b
                if a & (m &- 1) == 0 { break }
            }
            m >>= 1
            b = b & 1 != 0 ? (b >> 1) ^ polynomial : b >> 1
        }
        return product
    }

    /// x^(2^k) modulo the polynomial, for k = 0…31.
    private static let powersOfX: [UInt32] = {
        var p: UInt32 = 1 << 30  // x^1
        var table: [UInt32] = []
        for _ in 0..<32 {
            table.append(p)
            p = multiplyModP(p, p)
        }
        return table
    }()

    /// x^(n·2^k) modulo the polynomial.
    private static func xToThe2ToThe(_ n: Int, _ k: Int) -> UInt32 {
        var p: UInt32 = 1 << 31  // x^0
        var n = n, k = k
        while n != 0 {
            if n & 1 != 0 { p = multiplyModP(powersOfX[k & 31], p) }
            n >>= 1
            k += 1
        }
        return p
    }

    package static func crc32(_ bytes: [UInt8], seed: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { crc32($0, seed: seed) }
    }

    package static func crc32(_ bytes: ArraySlice<UInt8>, seed: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { crc32($0, seed: seed) }
    }
}

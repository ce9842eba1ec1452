import CZlib

/// CRC-32 (ISO-HDLC, the zlib/gzip polynomial) over stored bytes. Every header, page image, map
/// chunk and WAL frame carries one; see docs/FORMAT.md.
package enum Checksum {
    /// The CRC-32 of `bytes`, continuing from `seed` (0 to start).
    static func crc32(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return seed }
        var crc = UInt(seed)
        var offset = 0
        // zlib takes a uInt length: feed in chunks well below 4 GiB.
        while offset < bytes.count {
            let n = min(bytes.count - offset, 1 << 30)
            crc = CZlib.crc32(crc, base.advanced(by: offset).assumingMemoryBound(to: Bytef.self), uInt(n))
            offset += n
        }
        return UInt32(truncatingIfNeeded: crc)
    }

    /// The CRC-32 of A followed by B, from A's CRC (`first`, or the seed the run continues
    /// from), B's own CRC started from 0 (`second`) and B's length: a CRC already computed over B
    /// is reused for a longer run that ends in B, in O(log n) steps instead of a pass over B.
    package static func combine(_ first: UInt32, _ second: UInt32, secondLength: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: CZlib.crc32_combine(uLong(first), uLong(second), .init(secondLength)))
    }

    package static func crc32(_ bytes: [UInt8], seed: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { crc32($0, seed: seed) }
    }

    package static func crc32(_ bytes: ArraySlice<UInt8>, seed: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { crc32($0, seed: seed) }
    }
}

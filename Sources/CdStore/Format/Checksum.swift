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

    package static func crc32(_ bytes: [UInt8], seed: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { crc32($0, seed: seed) }
    }

    package static func crc32(_ bytes: ArraySlice<UInt8>, seed: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { crc32($0, seed: seed) }
    }
}

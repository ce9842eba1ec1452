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

    package static func crc32(_ bytes: [UInt8], seed: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { crc32($0, seed: seed) }
    }

    package static func crc32(_ bytes: ArraySlice<UInt8>, seed: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { crc32($0, seed: seed) }
    }
}

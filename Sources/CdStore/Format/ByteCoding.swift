// Little-endian, field-by-field encoding (STYLE §4): no struct is ever reinterpreted as file bytes.

/// Appends little-endian fields to a growing byte array.
struct ByteWriter {
    var bytes: [UInt8]

    init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16(_ v: UInt16) { for i in 0..<2 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt16(i)))) } }
    mutating func u32(_ v: UInt32) { for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) } }
    mutating func u64(_ v: UInt64) { for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) } }
    mutating func raw(_ v: some Sequence<UInt8>) { bytes.append(contentsOf: v) }
    mutating func zeros(_ n: Int) { bytes.append(contentsOf: repeatElement(0, count: n)) }
    /// Pads with zeros up to `length` bytes in all.
    mutating func pad(to length: Int) { if bytes.count < length { zeros(length - bytes.count) } }
}

/// Reads little-endian fields at absolute offsets of a buffer. Callers check bounds first
/// (`count`), so hostile lengths never read outside the buffer.
struct ByteReader {
    let buffer: UnsafeRawBufferPointer
    var count: Int { buffer.count }

    init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }

    func u8(_ at: Int) -> UInt8 { buffer[at] }
    func u16(_ at: Int) -> UInt16 { UInt16(buffer[at]) | UInt16(buffer[at + 1]) << 8 }
    func u32(_ at: Int) -> UInt32 {
        var v: UInt32 = 0
        for i in 0..<4 { v |= UInt32(buffer[at + i]) << (8 * UInt32(i)) }
        return v
    }
    func u64(_ at: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(buffer[at + i]) << (8 * UInt64(i)) }
        return v
    }
}

extension Array where Element == UInt8 {
    /// Overwrites a little-endian UInt32 at `offset`.
    mutating func storeU32(_ v: UInt32, at offset: Int) {
        for i in 0..<4 { self[offset + i] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(i))) }
    }
}

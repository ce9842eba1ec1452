// Byte helpers of the record layer: LEB128 varints, zig-zag integers, fixed-width fields, and a
// bounds-checked reader that turns every overrun into a thrown error (records come from disk).
//
// Keys are big-endian (so byte order is numeric order); values are little-endian (STYLE §4).

/// Appending encoders for record and key bytes.
extension Array where Element == UInt8 {
    /// Unsigned LEB128: 7 bits per byte, low group first, high bit set on all but the last.
    @inline(__always)
    mutating func appendVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        append(UInt8(v))
    }

    /// A signed integer as a zig-zag varint (small magnitudes take few bytes).
    @inline(__always)
    mutating func appendZigZag(_ value: Int64) {
        appendVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    @inline(__always)
    mutating func appendU64LE(_ value: UInt64) {
        for i in 0..<8 { append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }

    @inline(__always)
    mutating func appendU64BE(_ value: UInt64) {
        for i in (0..<8).reversed() { append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }

    @inline(__always)
    mutating func appendU32BE(_ value: UInt32) {
        for i in (0..<4).reversed() { append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(i)))) }
    }

    /// A length-prefixed byte string (varint length, then the bytes).
    mutating func appendLengthPrefixed(_ bytes: some Collection<UInt8>) {
        appendVarint(UInt64(bytes.count))
        append(contentsOf: bytes)
    }
}

/// Reads big-endian u64 from `bytes[offset..<offset+8]` (the caller checked the length).
@inline(__always)
func readU64BE(_ bytes: [UInt8], at offset: Int) -> UInt64 {
    var v: UInt64 = 0
    for i in 0..<8 { v = (v << 8) | UInt64(bytes[offset + i]) }
    return v
}

/// Reads big-endian u32 from `bytes[offset..<offset+4]` (the caller checked the length).
@inline(__always)
func readU32BE(_ bytes: [UInt8], at offset: Int) -> UInt32 {
    var v: UInt32 = 0
    for i in 0..<4 { v = (v << 8) | UInt32(bytes[offset + i]) }
    return v
}

/// Why bytes could not be decoded; the caller adds the location.
struct RecordDecodingError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// A cursor over stored bytes. Every read checks the remaining length first.
struct RecordReader {
    let bytes: [UInt8]
    var offset: Int

    init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var isAtEnd: Bool { offset >= bytes.count }

    @inline(__always)
    mutating func u8() throws -> UInt8 {
        guard offset < bytes.count else { throw RecordDecodingError("truncated at byte \(offset)") }
        defer { offset += 1 }
        return bytes[offset]
    }

    @inline(__always)
    mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try u8()
            if shift == 63 && b > 1 { throw RecordDecodingError("varint overflows 64 bits at byte \(offset - 1)") }
            result |= UInt64(b & 0x7F) << shift
            if b & 0x80 == 0 { return result }
            shift += 7
        }
    }

    mutating func zigZag() throws -> Int64 {
        let v = try varint()
        return Int64(bitPattern: (v >> 1) ^ (0 &- (v & 1)))
    }

    mutating func u64LE() throws -> UInt64 {
        guard bytes.count - offset >= 8 else { throw RecordDecodingError("truncated u64 at byte \(offset)") }
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
        offset += 8
        return v
    }

    mutating func slice(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, bytes.count - offset >= count else {
            throw RecordDecodingError("field of \(count) bytes overruns the value at byte \(offset)")
        }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    mutating func lengthPrefixed() throws -> ArraySlice<UInt8> {
        let n = try varint()
        guard n <= UInt64(bytes.count) else { throw RecordDecodingError("length \(n) overruns the value at byte \(offset)") }
        return try slice(Int(n))
    }
}

// Byte helpers of the record layer: LEB128 varints, zig-zag integers, fixed-width fields, and a
// bounds-checked reader that turns every overrun into a thrown error (records come from disk).
//
// Fixed-width fields use the package's byte-coding helpers (`appendLE`/`appendBE`,
// `readLE`/`readBE` in CdStore's ByteCoding.swift): keys are big-endian, so that byte order is
// numeric order; values are little-endian, like every file structure of the engine.

import CdStore

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

    /// A length-prefixed byte string (varint length, then the bytes).
    mutating func appendLengthPrefixed(_ bytes: some Collection<UInt8>) {
        appendVarint(UInt64(bytes.count))
        append(contentsOf: bytes)
    }
}

/// Why bytes could not be decoded; the caller adds the location.
struct RecordDecodingError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// A cursor over stored bytes. Every read checks the remaining length first.
struct RecordReader: RecordByteReading {
    let bytes: [UInt8]
    var offset: Int

    init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func u64LE() throws -> UInt64 {
        guard bytes.count - offset >= 8 else { throw RecordDecodingError("truncated u64 at byte \(offset)") }
        defer { offset += 8 }
        return bytes.readLE(UInt64.self, at: offset)
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
        guard n <= UInt64(bytes.count) else {
            throw RecordDecodingError("length \(n) overruns the value at byte \(offset)")
        }
        return try slice(Int(n))
    }
}

/// `RecordReader` over bytes borrowed in place (`withUnsafeBufferPointer`), for the per-record
/// paths of a scan: making a `RecordReader` copies its array reference, which costs a retain and a
/// release per record. Same checks, same errors.
struct BorrowedRecordReader: RecordByteReading {
    let bytes: UnsafeBufferPointer<UInt8>
    var offset: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>, offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    /// Steps over `count` bytes; returns their range.
    @discardableResult
    mutating func skip(_ count: Int) throws -> Range<Int> {
        guard count >= 0, bytes.count - offset >= count else {
            throw RecordDecodingError("field of \(count) bytes overruns the value at byte \(offset)")
        }
        defer { offset += count }
        return offset..<(offset + count)
    }

    /// A length-prefixed byte string's range.
    mutating func lengthPrefixed() throws -> Range<Int> {
        let n = try varint()
        guard n <= UInt64(bytes.count) else {
            throw RecordDecodingError("length \(n) overruns the value at byte \(offset)")
        }
        return try skip(Int(n))
    }
}

/// What `RecordReader` and `BorrowedRecordReader` share: bounds-checked bytes and a position.
/// The varint and zig-zag decoders are written once, here, for both.
protocol RecordByteReading {
    associatedtype Bytes: RandomAccessCollection<UInt8> where Bytes.Index == Int
    var bytes: Bytes { get }
    var offset: Int { get set }
}

extension RecordByteReading {
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
}

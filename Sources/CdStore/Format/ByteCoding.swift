// The package's one vocabulary for integers in bytes: every module encodes and decodes fixed-width
// fields through these helpers, field by field with the byte order explicit, and never
// reinterprets a struct's memory as file bytes (a struct's layout and padding are the compiler's
// choice, and a hostile file must not be able to reach memory through them).
//
//   helper                                  byte order      used for
//   --------------------------------------  --------------  ------------------------------------
//   [UInt8].appendLE(v) / readLE(T, at:)    little-endian   every file structure, record values
//   [UInt8].appendBE(v) / readBE(T, at:)    big-endian      index and record keys: byte order is
//                                                           numeric order, so B+tree key
//                                                           comparison sorts them right
//   ByteWriter (u8, u16, u32, u64, …)       little-endian   building a whole structure
//   ByteReader (u8(at), u16(at), …)         little-endian   reading one at absolute offsets
//   [UInt8].storeU32(v, at:)                little-endian   patching a field after the fact
//
// Variable-length integers (LEB128, zig-zag) belong to the record format and live with it
// (CdObjects' RecordBytes.swift), built on these.

extension Array where Element == UInt8 {
    /// Appends `value` little-endian, low byte first.
    @inlinable @inline(__always)
    package mutating func appendLE<T: FixedWidthInteger>(_ value: T) {
        for i in 0..<MemoryLayout<T>.size { append(UInt8(truncatingIfNeeded: value >> (8 * i))) }
    }

    /// Appends `value` big-endian, high byte first (keys: byte order is numeric order).
    @inlinable @inline(__always)
    package mutating func appendBE<T: FixedWidthInteger>(_ value: T) {
        for i in (0..<MemoryLayout<T>.size).reversed() { append(UInt8(truncatingIfNeeded: value >> (8 * i))) }
    }

    /// Overwrites a little-endian UInt32 at `offset`.
    package mutating func storeU32(_ v: UInt32, at offset: Int) {
        for i in 0..<4 { self[offset + i] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(i))) }
    }
}

extension RandomAccessCollection where Element == UInt8, Index == Int {
    /// The little-endian `T` at `offset` (the caller checked that its bytes are there).
    @inlinable @inline(__always)
    package func readLE<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        var v: T = 0
        for i in 0..<MemoryLayout<T>.size { v |= T(truncatingIfNeeded: self[offset + i]) << (8 * i) }
        return v
    }

    /// The big-endian `T` at `offset` (the caller checked that its bytes are there).
    @inlinable @inline(__always)
    package func readBE<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        var v: T = 0
        for i in 0..<MemoryLayout<T>.size { v = (v << 8) | T(truncatingIfNeeded: self[offset + i]) }
        return v
    }
}

/// Appends little-endian fields to a growing byte array.
package struct ByteWriter {
    package var bytes: [UInt8]

    package init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    package mutating func u8(_ v: UInt8) { bytes.append(v) }
    package mutating func u16(_ v: UInt16) { bytes.appendLE(v) }
    package mutating func u32(_ v: UInt32) { bytes.appendLE(v) }
    package mutating func u64(_ v: UInt64) { bytes.appendLE(v) }
    package mutating func raw(_ v: some Sequence<UInt8>) { bytes.append(contentsOf: v) }
    package mutating func zeros(_ n: Int) { bytes.append(contentsOf: repeatElement(0, count: n)) }
    /// Pads with zeros up to `length` bytes in all.
    package mutating func pad(to length: Int) { if bytes.count < length { zeros(length - bytes.count) } }
}

/// Reads little-endian fields at absolute offsets of a buffer. Callers check bounds first
/// (`count`), so hostile lengths never read outside the buffer.
package struct ByteReader {
    package let buffer: UnsafeRawBufferPointer
    package var count: Int { buffer.count }

    package init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }

    // One unaligned load each (bounds-checked in debug builds, as `buffer[at]` is), where a loop
    // over the bytes cost ~16 ns per page-map entry at open.
    package func u8(_ at: Int) -> UInt8 { buffer[at] }
    @inline(__always)
    package func u16(_ at: Int) -> UInt16 {
        UInt16(littleEndian: buffer.loadUnaligned(fromByteOffset: at, as: UInt16.self))
    }
    @inline(__always)
    package func u32(_ at: Int) -> UInt32 {
        UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }
    @inline(__always)
    package func u64(_ at: Int) -> UInt64 {
        UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: at, as: UInt64.self))
    }
}

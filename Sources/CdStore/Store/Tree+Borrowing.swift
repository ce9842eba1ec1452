// Lending reads of a named tree: a scan and a point lookup that pass the entries' bytes to a
// closure instead of copying them into arrays (lifetime rules BL1–BL3 in BTree+Borrowing.swift).

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Tree {
    /// Visits the entries with `lower ≤ key < upper` (either bound may be nil) in order until
    /// `body` returns false, lending each key and value. The buffers are valid only during that
    /// call of `body` (BL1): copy what must outlive it.
    ///
    /// ```swift
    /// var bytes = 0
    /// try tree.scanBorrowing { key, value in bytes += value.count; return true }
    /// ```
    public func scanBorrowing(
        from lower: [UInt8]? = nil, upTo upper: [UInt8]? = nil,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        let c = cursor()
        var more = try lower.map { try c.seek(atLeast: $0) } ?? c.first()
        guard let upper else {
            while more {
                guard try c.withEntry(body) else { return }
                more = try c.next()
            }
            return
        }
        try upper.withUnsafeBytes { upper in
            while more {
                let goOn = try c.withEntry { key, value -> Bool in
                    guard Self.precedes(key, upper) else { return false }
                    return try body(key, value)
                }
                guard goOn else { return }
                more = try c.next()
            }
        }
    }

    /// Lends the value stored under `key` to `body` (nil when there is none); valid only during
    /// the call (BL1).
    ///
    /// ```swift
    /// let size = try tree.withValue(forKey: key) { $0?.count ?? 0 }
    /// ```
    public func withValue<R>(forKey key: [UInt8], _ body: (UnsafeRawBufferPointer?) throws -> R) throws -> R {
        try key.withUnsafeBytes { try btree.withValue(forKey: $0, in: transaction, body) }
    }

    /// Lends the value stored under the 8-byte big-endian key `key` (a record-tree key) to `body`,
    /// without making an array for the key; valid only during the call (BL1).
    ///
    /// ```swift
    /// let exists = try records.withValue(forBigEndianKey: UInt64(pk)) { $0 != nil }
    /// ```
    public func withValue<R>(forBigEndianKey key: UInt64, _ body: (UnsafeRawBufferPointer?) throws -> R) throws -> R {
        try withUnsafeBytes(of: key.bigEndian) { try btree.withValue(forKey: $0, in: transaction, body) }
    }

    /// A cursor for lending point lookups in key order (`BTreeCursor.withValue(forKey:_:)`):
    /// `withValue(forBigEndianKey:)` through it reuses the path of the previous lookup. Valid
    /// while the tree does not change.
    ///
    /// ```swift
    /// let lookup = records.lookupCursor()
    /// for pk in sortedKeys { try Tree.withValue(forBigEndianKey: UInt64(pk), using: lookup) { … } }
    /// ```
    public func lookupCursor() -> BTreeCursor { cursor() }

    /// Lends the value under the 8-byte big-endian key `key` to `body` through `cursor` (see
    /// `lookupCursor()`); valid only during the call (BL1).
    ///
    /// ```swift
    /// let size = try Tree.withValue(forBigEndianKey: 42, using: lookup) { $0?.count ?? 0 }
    /// ```
    public static func withValue<R>(
        forBigEndianKey key: UInt64, using cursor: BTreeCursor, _ body: (UnsafeRawBufferPointer?) throws -> R
    ) throws -> R {
        try withUnsafeBytes(of: key.bigEndian) { try cursor.withValue(forKey: $0, body) }
    }

    /// Whether `a` sorts before `b` in bytewise order (a proper prefix first).
    static func precedes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        let common = min(a.count, b.count)
        if common > 0 {
            let c = memcmp(a.baseAddress!, b.baseAddress!, common)
            if c != 0 { return c < 0 }
        }
        return a.count < b.count
    }
}

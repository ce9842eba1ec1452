// A decompressed logical page in memory.
//
// Invariants:
//  PB1. `count` is the store's page size and never changes.
//  PB2. A buffer handed to readers (from the page cache or a snapshot) is never written again;
//       a writer that changes a page works on its own copy (see `PageSink.writablePage`).
//  PB3. A buffer made from a store's `PageBufferPool` borrows its bytes from the pool and gives
//       them back when it is freed, on whatever thread that happens (PageBufferPool BP2); every
//       page a store makes is one (decoded, copied for a writer, or new). A buffer made without
//       a pool owns its bytes and frees them itself.

/// One logical page's bytes, valid while this object lives: its own, or borrowed from its
/// store's page pool and given back when it is freed (PB3).
public final class PageBuffer: @unchecked Sendable {
    /// The page size in bytes (PB1).
    public let count: Int
    /// The first byte. Valid for `count` bytes while this object lives.
    public let base: UnsafeMutableRawPointer
    /// The pool the bytes are borrowed from, or nil when this buffer owns them (PB3).
    private let pool: PageBufferPool?

    /// A zero-filled page of `count` bytes.
    public init(zeroed count: Int) {
        self.count = count
        self.base = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
        self.pool = nil
        base.initializeMemory(as: UInt8.self, repeating: 0, count: count)
    }

    /// A page whose bytes are not initialized: only for a caller that writes all `count` bytes
    /// before anyone reads one (page decoding, which discards the buffer when it cannot).
    init(uninitialized count: Int) {
        self.count = count
        self.base = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
        self.pool = nil
    }

    /// A page of one of `pool`'s blocks (PB3), its bytes not initialized: only for a caller that
    /// writes all of them before anyone reads one.
    package init(uninitialized pool: PageBufferPool) {
        self.count = pool.blockSize
        self.base = pool.take()
        self.pool = pool
    }

    /// A zero-filled page of one of `pool`'s blocks (PB3).
    package convenience init(zeroed pool: PageBufferPool) {
        self.init(uninitialized: pool)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: count)
    }

    /// A copy of `other` in one of `pool`'s blocks (PB3); `other` is a page of the pool's size.
    package convenience init(copying other: PageBuffer, into pool: PageBufferPool) {
        precondition(
            other.count == pool.blockSize, "a \(other.count)-byte page copied into \(pool.blockSize)-byte blocks")
        self.init(uninitialized: pool)
        base.copyMemory(from: other.base, byteCount: count)
    }

    /// A copy of `other`.
    public init(copying other: PageBuffer) {
        self.count = other.count
        self.base = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
        self.pool = nil
        base.copyMemory(from: other.base, byteCount: count)
    }

    deinit {
        if let pool { pool.give(base) } else { base.deallocate() }
    }

    /// The bytes, read-only.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }
    /// The bytes, writable. Only the owner of a writable page may use this (PB2).
    public var mutableBytes: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(start: base, count: count) }

    /// The page type byte (byte 0), or nil when it is not a known type.
    public var pageType: PageType? { PageType(rawValue: base.load(as: UInt8.self)) }
}

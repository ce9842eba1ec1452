// A decompressed logical page in memory.
//
// Invariants:
//  PB1. `count` is the store's page size and never changes.
//  PB2. A buffer handed to readers (from the page cache or a snapshot) is never written again;
//       a writer that changes a page works on its own copy (see `PageSink.writablePage`).

/// One logical page's bytes, owned by this object and freed with it.
public final class PageBuffer: @unchecked Sendable {
    /// The page size in bytes (PB1).
    public let count: Int
    /// The first byte. Valid for `count` bytes while this object lives.
    public let base: UnsafeMutableRawPointer

    /// A zero-filled page of `count` bytes.
    public init(zeroed count: Int) {
        self.count = count
        self.base = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: count)
    }

    /// A page whose bytes are not initialized: only for a caller that writes all `count` bytes
    /// before anyone reads one (page decoding, which discards the buffer when it cannot).
    init(uninitialized count: Int) {
        self.count = count
        self.base = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
    }

    /// A copy of `other`.
    public init(copying other: PageBuffer) {
        self.count = other.count
        self.base = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
        base.copyMemory(from: other.base, byteCount: count)
    }

    deinit { base.deallocate() }

    /// The bytes, read-only.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }
    /// The bytes, writable. Only the owner of a writable page may use this (PB2).
    public var mutableBytes: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(start: base, count: count) }

    /// The page type byte (byte 0), or nil when it is not a known type.
    public var pageType: PageType? { PageType(rawValue: base.load(as: UInt8.self)) }
}

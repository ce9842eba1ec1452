// The memory of a store's pages: one pool of page-sized blocks, shared by every thread of the
// store, that every `PageBuffer` the store makes borrows its bytes from and gives them back to.
//
// Why: a read on several threads (Tree+Parallel.swift) inflates pages on helper threads, and the
// page cache frees an evicted page on whichever thread evicts it. With each page taken from and
// given back to the C allocator, glibc serves a helper's page from that thread's own arena and
// frees an evicted page into the arena that made it, where only its own thread reuses the hole:
// every arena grows to its own high-water mark of pages, and the process held up to 55 MiB past
// the cache budget (docs/BENCHMARKS.md, "Peak memory with one and two read threads"). Here a page
// given back on any thread is the next page taken on any thread, so the store holds its pages
// once, whichever threads read them.
//
// Invariants:
//  BP1. Every block is `blockSize` bytes (the store's page size, PB1), aligned to 16 bytes.
//  BP2. A block is in exactly one place: lent to one `PageBuffer`, or idle in `idle`. A buffer
//       gives its block back when it is freed, on whatever thread that happens; nothing else
//       gives a block back, and a block is lent again only after it was given back.
//  BP3. The pool keeps a given-back block idle only while `lent + idle` stays within `limit`
//       (the page cache's capacity plus `headroom(capacity:)`, the pages readers hold beside the
//       cache); past it the block goes back to the C allocator. Idle blocks therefore never take
//       the pages the pool holds past the cache budget plus that headroom: what exceeds it is
//       lent, held by a cache entry, a reader or a writer's dirty page.
//  BP4. `take` lends the most recently given-back block before allocating (LIFO: the block most
//       likely still in a CPU cache); it allocates only when no block is idle.
//  BP5. `lock` guards `idle` and the counters, and is never held while a block's bytes are read
//       or written, nor while a block is allocated or freed. It is the innermost lock: a page freed
//       by an eviction gives its block back under the page cache's lock, and `lock` takes none.

/// Page-sized blocks shared by the threads of one store (BP1–BP5). Thread-safe.
///
/// ```swift
/// let pool = PageBufferPool(blockSize: 8192, limit: 1024)
/// let page = PageBuffer(uninitialized: pool)  // lends a block
/// // … when `page` is freed, on any thread, its block is idle in `pool` for the next page.
/// ```
package final class PageBufferPool: @unchecked Sendable {
    /// The bytes of every block (BP1).
    package let blockSize: Int
    /// The most blocks lent and idle together while a given-back block is kept (BP3).
    package let limit: Int

    private struct State {
        var idle: [UnsafeMutableRawPointer] = []
        var lent = 0
        var allocated = 0
        var reused = 0
        var released = 0
    }

    private let lock = Lock()
    private var state = State()

    /// A pool of `blockSize`-byte blocks that keeps idle blocks while at most `limit` are lent and
    /// idle together (BP3).
    package init(blockSize: Int, limit: Int) {
        precondition(blockSize > 0, "a page block has at least one byte")
        self.blockSize = blockSize
        self.limit = max(1, limit)
    }

    /// The pool of a store whose page cache holds `cacheCapacity` pages: it keeps idle blocks up
    /// to the cache's pages plus `headroom(capacity:)`.
    package convenience init(pageSize: Int, cacheCapacity: Int) {
        self.init(blockSize: pageSize, limit: cacheCapacity + Self.headroom(capacity: cacheCapacity))
    }

    /// The pages reads hold beside the cache's own: a cursor's path on each read thread, pages a
    /// reader still holds after the cache evicted them. One sixteenth of the cache, at least 64
    /// pages (4 MiB of a 64 MiB cache of 8 KiB pages). A writer's dirty pages (up to its spill
    /// budget) are lent beyond it, and those given back past the limit are freed (BP3).
    package static func headroom(capacity: Int) -> Int { max(64, capacity / 16) }

    deinit {
        // BP2: every buffer holds the pool, so none is lent now.
        for block in state.idle { block.deallocate() }
    }

    /// Lends a block: an idle one when there is one (BP4), else a new one. Its bytes are whatever
    /// the last page left in them.
    package func take() -> UnsafeMutableRawPointer {
        let reused: UnsafeMutableRawPointer? = lock.withLock {
            state.lent += 1
            guard let block = state.idle.popLast() else {
                state.allocated += 1
                return nil
            }
            state.reused += 1
            return block
        }
        // BP5: a new block is allocated outside the lock.
        return reused ?? UnsafeMutableRawPointer.allocate(byteCount: blockSize, alignment: 16)
    }

    /// Takes back a block `take` lent (BP2): keeps it idle within the limit, else frees it (BP3).
    package func give(_ block: UnsafeMutableRawPointer) {
        let kept = lock.withLock { () -> Bool in
            precondition(state.lent > 0, "a page block was given back to a pool that lent none (BP2)")
            state.lent -= 1
            guard state.lent + state.idle.count < limit else {
                state.released += 1
                return false
            }
            state.idle.append(block)
            return true
        }
        if !kept { block.deallocate() }
    }

    /// What the pool did so far, for tests and `Store.statistics`.
    package struct Statistics: Equatable, Sendable {
        /// Blocks lent now.
        package var lent: Int
        /// Blocks idle now, ready to lend.
        package var idle: Int
        /// Blocks allocated from the C allocator in all.
        package var allocated: Int
        /// Lends served by an idle block in all.
        package var reused: Int
        /// Given-back blocks freed to the C allocator because the pool was at its limit (BP3).
        package var released: Int
    }

    package var statistics: Statistics {
        lock.withLock {
            Statistics(
                lent: state.lent, idle: state.idle.count, allocated: state.allocated, reused: state.reused,
                released: state.released)
        }
    }
}

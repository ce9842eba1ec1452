import Dispatch
import Foundation
import Synchronization
import Testing
@testable import CdStore

/// The page pool of a store (PageBufferPool BP1–BP5): a given-back block is lent again, idle blocks
/// stay within the limit, blocks pass between threads intact, and a read on several threads takes
/// its pages from the pool instead of the C allocator.
@Suite struct PageBufferPoolTests {
    @Test func givenBackBlockIsLentAgainBeforeANewOne() {
        let pool = PageBufferPool(blockSize: 4096, limit: 16)
        let first = pool.take()
        let second = pool.take()
        pool.give(first)
        #expect(pool.take() == first, "the block given back is the next one lent (BP4)")
        pool.give(second)
        pool.give(first)
        #expect(pool.take() == first, "the most recently given back comes first (BP4)")
        #expect(pool.take() == second)
        #expect(pool.statistics == .init(lent: 2, idle: 0, allocated: 2, reused: 3, released: 0))
        pool.give(first)
        pool.give(second)
        #expect(pool.statistics == .init(lent: 0, idle: 2, allocated: 2, reused: 3, released: 0))
    }

    @Test func idleBlocksNeverTakeThePoolPastItsLimit() {
        let pool = PageBufferPool(blockSize: 4096, limit: 8)
        let blocks = (0..<20).map { _ in pool.take() }
        #expect(pool.statistics.allocated == 20, "lending is not bounded: a reader may hold more than the limit")
        for (i, block) in blocks.enumerated() {
            pool.give(block)
            let s = pool.statistics
            #expect(s.idle <= max(0, 8 - s.lent), "after \(i + 1) given back: \(s) (BP3)")
        }
        #expect(pool.statistics == .init(lent: 0, idle: 8, allocated: 20, reused: 0, released: 12))
        let again = (0..<10).map { _ in pool.take() }
        #expect(pool.statistics.reused == 8, "the 8 idle blocks are lent before 2 new ones")
        #expect(pool.statistics.allocated == 22)
        for block in again { pool.give(block) }
    }

    @Test func storePoolLimitIsTheCacheAndItsHeadroom() {
        let small = PageBufferPool(pageSize: 4096, cacheCapacity: 32)
        #expect(small.blockSize == 4096)
        #expect(small.limit == 32 + 64, "at least 64 pages of headroom")
        let large = PageBufferPool(pageSize: 8192, cacheCapacity: 8192)
        #expect(large.limit == 8192 + 512, "a sixteenth of the cache")
    }

    @Test func pageBufferGivesItsBlockBackWhenFreed() {
        let pool = PageBufferPool(blockSize: 512, limit: 4)
        var page: PageBuffer? = PageBuffer(zeroed: pool)
        #expect(page?.count == 512)
        #expect(page.map { $0.bytes.allSatisfy { $0 == 0 } } == true)
        let block = page!.base
        page!.mutableBytes[0] = 7
        #expect(pool.statistics.lent == 1)
        page = nil
        #expect(pool.statistics == .init(lent: 0, idle: 1, allocated: 1, reused: 0, released: 0))
        let zeroed = PageBuffer(zeroed: pool)
        #expect(zeroed.base == block, "the freed page's block is reused")
        #expect(zeroed.bytes.allSatisfy { $0 == 0 }, "a zeroed page is zero whatever the block held")
        let source = PageBuffer(zeroed: 512)
        source.mutableBytes[100] = 42
        let copy = PageBuffer(copying: source, into: pool)
        #expect(copy.bytes.elementsEqual(source.bytes))
        #expect(pool.statistics.lent == 2)
    }

    /// Pages made on one thread and freed on another go back to the one pool, and the next pages
    /// made on a third thread are those very blocks: no thread keeps a block to itself.
    @Test func blocksFreedOnAnotherThreadAreLentOnAThird() {
        let pool = PageBufferPool(blockSize: 4096, limit: 1000)
        let handed = LockedState<[StampedPage]>([])
        onNewThread {
            handed.withLock { pages in
                for i in 0..<100 { pages.append(StampedPage(pool: pool, stamp: UInt64(i) &* 0x9E37_79B9_7F4A_7C15)) }
            }
        }
        let blocks = Set(handed.withLock { $0.map { UInt(bitPattern: $0.page.base) } })
        #expect(blocks.count == 100)
        let damaged = Atomic<Int>(0)
        onNewThread {
            let pages = handed.withLock { pages in
                defer { pages = [] }
                return pages
            }
            for page in pages where !page.isIntact { damaged.add(1, ordering: .relaxed) }
        }
        #expect(damaged.load(ordering: .relaxed) == 0)
        #expect(pool.statistics == .init(lent: 0, idle: 100, allocated: 100, reused: 0, released: 0))
        let again = (0..<100).map { _ in PageBuffer(uninitialized: pool) }
        #expect(Set(again.map { UInt(bitPattern: $0.base) }) == blocks, "the same blocks, lent on this thread")
        #expect(pool.statistics == .init(lent: 100, idle: 0, allocated: 100, reused: 100, released: 0))
    }

    /// Threads make pages, trade them through a shared mailbox and free the ones they received:
    /// each page keeps its bytes until freed (no block is lent twice at once, BP2), every block
    /// comes back, and the pool allocates no more blocks than were ever lent at once (BP4).
    @Test(arguments: testSeeds([5, 6]))
    func pagesTradedBetweenThreadsStayIntactAndComeBack(seed: UInt64) {
        let pool = PageBufferPool(blockSize: 1024, limit: 10_000)
        let mailbox = LockedState<[StampedPage]>([])
        let live = Atomic<Int>(0)
        let peak = Atomic<Int>(0)
        let damaged = Atomic<Int>(0)
        let threads = 4
        let rounds = 2000
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var rng = SeededGenerator(seed: seed &+ UInt64(thread))
            for round in 0..<rounds {
                // Counted before the pool lends, so `peak` is at least the pool's peak of lent blocks.
                let now = live.add(1, ordering: .relaxed).newValue
                peak.max(now, ordering: .relaxed)
                let stamp = UInt64(thread) << 32 | UInt64(round)
                mailbox.withLock { $0.append(StampedPage(pool: pool, stamp: stamp)) }
                var received: [StampedPage] = mailbox.withLock { box in
                    let take = Int.random(in: 0...min(3, box.count), using: &rng)
                    defer { box.removeLast(take) }
                    return Array(box.suffix(take))
                }
                for page in received where !page.isIntact { damaged.add(1, ordering: .relaxed) }
                let count = received.count
                received.removeAll()  // frees them: uncounted only after the pool has them back
                live.subtract(count, ordering: .relaxed)
            }
        }
        var left = mailbox.withLock { box in
            defer { box = [] }
            return box
        }
        for page in left where !page.isIntact { damaged.add(1, ordering: .relaxed) }
        left.removeAll()
        let s = pool.statistics
        #expect(damaged.load(ordering: .relaxed) == 0, "seed \(seed): a page changed while another owned its block")
        #expect(s.lent == 0, "seed \(seed): every block came back (\(s))")
        #expect(s.released == 0)
        #expect(s.idle == s.allocated)
        #expect(s.allocated + s.reused == threads * rounds)
        #expect(
            s.allocated <= peak.load(ordering: .relaxed),
            "seed \(seed): \(s.allocated) blocks allocated for at most \(peak.load(ordering: .relaxed)) pages alive")
    }

    /// A scan on two threads of a tree ten times the cache: the pages it inflates reuse blocks the
    /// cache gave back, on whichever thread evicted them, and none goes back to the C allocator.
    @Test func readOnTwoThreadsReusesTheCachesBlocks() throws {
        let store = try TreeParallelReadTests.store()
        defer { try? store.close() }
        _ = try TreeParallelReadTests.fill(store, count: 3000, seed: 9)
        try store.checkpoint()
        let before = store.pages.statistics
        let missesBefore = store.statistics.cacheMisses
        for _ in 0..<3 {
            let split = try store.read { tx in
                try TreeParallelReadTests.piecewise(#require(try tx.tree("t")), threads: 2)
            }
            #expect(split != nil, "3000 entries on 4 KiB pages were read in pieces")
        }
        let after = store.pages.statistics
        let misses = store.statistics.cacheMisses - missesBefore
        let limit = store.pages.limit
        #expect(misses > 4 * limit, "the scans inflate many more pages than the pool holds (\(misses) misses)")
        #expect(after.released == before.released, "no page went back to the C allocator during the reads")
        #expect(after.allocated - before.allocated <= limit)
        #expect(after.reused - before.reused >= misses - limit, "\(after) after \(misses) misses from \(before)")
        #expect(after.lent + after.idle <= limit, "BP3: \(after)")
    }

    /// Runs `body` on a thread of its own and waits until it has ended (its locals freed).
    private func onNewThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.start()
        #expect(done.wait(timeout: .now() + 60) == .success, "the helper thread did not finish")
    }
}

/// A page filled with one 8-byte stamp, to tell whether anything else wrote into its block.
struct StampedPage: Sendable {
    let page: PageBuffer
    let stamp: UInt64

    init(pool: PageBufferPool, stamp: UInt64) {
        page = PageBuffer(uninitialized: pool)
        self.stamp = stamp
        page.base.initializeMemory(as: UInt64.self, repeating: stamp, count: page.count / 8)
    }

    var isIntact: Bool {
        UnsafeRawBufferPointer(start: page.base, count: page.count).withMemoryRebound(to: UInt64.self) {
            $0.allSatisfy { $0 == stamp }
        }
    }
}

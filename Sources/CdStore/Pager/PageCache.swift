// A bounded cache of decompressed pages shared by every transaction of a store.
//
// Invariants:
//  PC1. Entries are keyed by (page, commit that wrote the version). A version never changes, so an
//       entry is never stale: snapshots at different commits share what they can and nothing needs
//       invalidating when a commit or checkpoint happens.
//  PC2. At most `capacity` pages are held: `capacity` = budget / page size (at least 16). Eviction
//       is CLOCK (second chance): a hit sets the slot's reference bit, the hand clears bits until it
//       finds a slot without one.
//  PC3. Cached buffers are immutable (PB2); writers copy before changing.
//  PC4. A version is dropped before its turn only when a newer version of its page replaces it
//       and nothing can read it from here (WriteTransaction R7): a commit files its page in the
//       superseded version's slot instead of evicting another page, and gives the old buffer's
//       block back to the pool, where the next writer's copy takes it.

/// The shared page cache of one store. Thread-safe.
final class PageCache: @unchecked Sendable {
    struct Key: Hashable {
        var page: UInt32
        var commit: UInt64

        /// One hasher round for both fields (equality still compares both): every page lookup
        /// hashes a key, and the synthesized two-field hash showed in read profiles.
        func hash(into hasher: inout Hasher) {
            hasher.combine(commit &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(page))
        }
    }

    private struct Slot {
        var key: Key
        var buffer: PageBuffer
        var referenced: Bool
    }

    /// Everything the lock guards, in one struct: each call makes one dynamically checked access
    /// to `state` and works on the struct inside it, instead of one check per field access
    /// (the runtime's exclusivity checks were ~17% of a cached page read under callgrind).
    private struct State {
        var slots: [Slot] = []
        var index: [Key: Int] = [:]
        var hand = 0
        /// Slots emptied by `remove`, filled first.
        var empty: [Int] = []
        var hits = 0
        var misses = 0

        mutating func get(_ key: Key) -> PageBuffer? {
            if let i = index[key] {
                slots[i].referenced = true
                hits += 1
                return slots[i].buffer
            }
            misses += 1
            return nil
        }

        mutating func put(_ key: Key, _ buffer: PageBuffer, capacity: Int) {
            if let i = index[key] { slots[i].buffer = buffer; slots[i].referenced = true; return }
            if let i = empty.popLast() {
                slots[i] = Slot(key: key, buffer: buffer, referenced: false)
                index[key] = i
                return
            }
            if slots.count < capacity {
                index[key] = slots.count
                slots.append(Slot(key: key, buffer: buffer, referenced: false))
                return
            }
            while slots[hand].referenced {  // PC2
                slots[hand].referenced = false
                hand = (hand + 1) % slots.count
            }
            index[slots[hand].key] = nil
            slots[hand] = Slot(key: key, buffer: buffer, referenced: false)
            index[key] = hand
            hand = (hand + 1) % slots.count
        }

        /// Files `buffer` under `key` in the slot of `old` when that is cached (PC4), else as `put`.
        mutating func put(_ key: Key, _ buffer: PageBuffer, replacing old: Key?, capacity: Int) {
            if let old, index[key] == nil, let i = index.removeValue(forKey: old) {
                slots[i] = Slot(key: key, buffer: buffer, referenced: false)
                index[key] = i
                return
            }
            put(key, buffer, capacity: capacity)
        }

        /// Empties the slot of `key`, if cached; the next put fills it before evicting anything.
        mutating func remove(_ key: Key) {
            guard let i = index.removeValue(forKey: key) else { return }
            slots[i].key = Key(page: 0, commit: UInt64.max)
            slots[i].buffer = PageCache.emptyBuffer
            slots[i].referenced = false
            empty.append(i)
        }

        mutating func rename(_ old: Key, to new: Key) {
            guard let i = index[old], index[new] == nil else { return }
            index[old] = nil
            slots[i].key = new
            index[new] = i
        }
    }

    /// What an emptied slot holds until it is reused.
    private static let emptyBuffer = PageBuffer(zeroed: 0)

    private let lock = Lock()
    private var state = State()
    let capacity: Int

    init(budgetBytes: Int, pageSize: Int) {
        capacity = max(16, budgetBytes / max(pageSize, 1))
        state.index.reserveCapacity(min(capacity, 1 << 16))
    }

    func get(_ key: Key) -> PageBuffer? {
        lock.withLock { state.get(key) }
    }

    func put(_ key: Key, _ buffer: PageBuffer) {
        lock.withLock { state.put(key, buffer, capacity: capacity) }
    }

    /// Files a commit's pages under (page, `commit`), each in the slot of the version at the same
    /// position of `superseding` when that is cached (PC4; an empty list supersedes nothing): one
    /// lock for the commit, and no eviction for a page that replaces its own earlier version.
    func putCommitted(_ pages: [(PageNumber, PageBuffer)], commit: UInt64, superseding: [Key?]) {
        precondition(superseding.isEmpty || superseding.count == pages.count, "one superseded version per page")
        lock.withLock {
            for (i, (number, buffer)) in pages.enumerated() {
                state.put(
                    Key(page: number.rawValue, commit: commit), buffer,
                    replacing: superseding.isEmpty ? nil : superseding[i], capacity: capacity)
            }
        }
    }

    /// Whether the version `key` names is cached, for tests.
    func contains(_ key: Key) -> Bool { lock.withLock { state.index[key] != nil } }

    /// Drops the entry under `key`, if cached: a write transaction's private version it has
    /// changed again (SpillLog SP4).
    func remove(_ key: Key) {
        lock.withLock { state.remove(key) }
    }

    /// Files the entry under `old` (if it is still cached) under `new` instead: a write
    /// transaction's spilled page becomes the committed version without a second copy.
    func rename(_ old: Key, to new: Key) {
        lock.withLock { state.rename(old, to: new) }
    }

    var count: Int { lock.withLock { state.slots.count - state.empty.count } }
    var statistics: (hits: Int, misses: Int, pages: Int) {
        lock.withLock { (state.hits, state.misses, state.slots.count - state.empty.count) }
    }
}

// The pages of one read transaction's snapshot, for the helper threads of a parallel read
// (Tree+Parallel.swift). A `ReadTransaction` is confined to one thread (it caches tree handles);
// its helpers read through this instead: a value that holds nothing but the store and the commit,
// so any number of threads may read through it at once.
//
// Why concurrent reads through it are safe, part by part (each kept where named):
//  - `Store.loadPage` takes `fileLock` shared around the lookup and the `pread`, and `stateLock`
//    for the WAL index lookup: a checkpoint publishes its map and free space, and resets the WAL,
//    only under `fileLock` exclusively (Store P2, P3).
//  - the page cache is one lock around its table (PageCache PC1–PC3); its buffers are immutable
//    (PB2), reference counted, so an eviction never frees a page a thread still reads;
//  - inflating takes a decompressor from the pool (one per thread at a time, PageCodec Z1) into a
//    buffer of its own;
//  - every `StoreFile` reads at absolute offsets (`pread`, or the in-memory volume's lock).
//
// Invariants:
//  SN1. A `SnapshotPages` is made only from a registered `ReadTransaction`, and used only while
//       the call that made it runs: that call returns after every helper is done, and the
//       transaction's owner cannot end it meanwhile (it is that call's caller). So the snapshot
//       stays registered, and no checkpoint copies past it or frees a page it reads (Store P2).
//  SN2. It never writes: readers get shared, read-only buffers (PB2). A write transaction's
//       dirty pages are private to its thread, so a write transaction is never read this way.

/// Read access to one registered snapshot from any thread (SN1, SN2).
final class SnapshotPages: PageSource, Sendable {
    let store: Store
    let snapshot: CommitSequence

    /// The pages `transaction` sees; nil for a write transaction (SN2) or a finished one.
    init?(_ transaction: Transaction) {
        guard let read = transaction as? ReadTransaction, !read.finished else { return nil }
        store = read.store
        snapshot = read.snapshot
    }

    var pageSize: Int { store.pageSize }

    func page(_ number: PageNumber) throws -> PageBuffer {
        try store.loadPage(number, snapshot: snapshot)
    }
}

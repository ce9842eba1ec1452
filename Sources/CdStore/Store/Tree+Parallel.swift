// Reads of one tree on several threads: a scan split into runs of subtrees (BTree+Subtrees.swift),
// and point lookups of a long key list split into chunks. Each piece runs on a helper thread with
// a cursor of its own over the transaction's snapshot (SnapshotPages), and the pieces' values come
// back in key order with the error or stop a one-thread read would have given
// (ParallelPieces PP1–PP4).
//
// Invariants:
//  TP1. Only a read transaction is read in pieces (SnapshotPages SN2), and only when the store
//       allows more than one read thread (`StoreOptions.readThreads`); otherwise these return nil
//       and the caller reads on its own thread exactly as before.
//  TP2. A small read stays on the calling thread: a tree of fewer than `minimumLeaves` leaves
//       (SU3), a key list shorter than two threads' `minimumKeysPerThread`.
//  TP3. Damage met while splitting (a branch page that does not read) returns nil, so the
//       one-thread read meets it where it always did and throws what it always threw.
//  TP4. A piece visits the entries of its subtrees in key order, as a whole-tree cursor does
//       (SU1), and checks its cancellation before each entry.

import Synchronization

/// How reads are split (TP2).
package enum ParallelReadPolicy {
    /// Pieces per thread: pieces are taken from a shared counter, so a thread whose pieces hit
    /// the cache takes more of them.
    package static let piecesPerThread = 4
    /// A scan of fewer leaves stays on one thread (a leaf inflates in ~8 µs; waking helper
    /// threads costs tens of µs).
    package static let minimumLeaves = 32
    /// Each thread of a keyed read gets at least this many keys.
    package static let minimumKeysPerThread = 256
    /// The most threads one read uses, whatever the options say.
    package static let maximumThreads = 64
}

/// One piece of a scan on its thread: the entries of a run of subtrees (TP4). Made and used on
/// that thread only.
package struct TreeScanPiece {
    let cursor: BTreeCursor
    let run: SubtreeRun
    let cancellation: ParallelPieces.Cancellation

    /// Visits the piece's entries in key order, lending each key and value to `body` (valid only
    /// during the call, BL1), until `body` returns false. Returns true when every entry was
    /// visited, false when `body` stopped or the piece was cancelled (PP1).
    package func forEach(
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws -> Bool {
        var more = try cursor.first(under: run.start)
        while more {
            if let end = run.end, !cursor.isBefore(end) { return true }
            if cancellation.isCancelled { return false }
            guard try cursor.withEntry(body) else { return false }
            more = try cursor.next()
        }
        return true
    }
}

/// One chunk of a keyed read on its thread: positions `keys` of the caller's key list, looked up
/// through a cursor of its own. Made and used on that thread only.
package struct TreeLookupPiece {
    /// The positions of the caller's key list this piece reads, in order.
    package let keys: Range<Int>
    let cursor: BTreeCursor
    let cancellation: ParallelPieces.Cancellation

    /// True once an earlier piece stopped or threw: end early, the outcome is dropped (PP1).
    package var isCancelled: Bool { cancellation.isCancelled }

    /// Lends the value under the 8-byte big-endian key `key` to `body` (nil when there is none),
    /// reusing the path of the previous lookup; valid only during the call (BL1).
    package func withValue<R>(
        forBigEndianKey key: UInt64, _ body: (UnsafeRawBufferPointer?) throws -> R
    ) throws -> R {
        try withUnsafeBytes(of: key.bigEndian) { try cursor.withValue(forKey: $0, body) }
    }
}

extension Tree {
    /// Scans the whole tree in pieces on up to `threads` threads (TP1–TP4): `body` runs once per
    /// piece, on some thread, and the pieces' values come back in key order. Nil when the scan
    /// should run on the calling thread instead (TP1–TP3).
    ///
    /// ```swift
    /// let counts = try tree.scanInPieces(threads: 4) { piece in
    ///     var n = 0
    ///     let done = try piece.forEach { _, _ in n += 1; return true }
    ///     return .init(n, stopped: !done)
    /// }
    /// ```
    package func scanInPieces<Value: Sendable>(
        threads: Int, _ body: @Sendable (TreeScanPiece) throws -> ParallelPieces.Outcome<Value>
    ) throws -> [Value]? {
        let threads = min(threads, ParallelReadPolicy.maximumThreads)
        guard threads > 1, let pages = SnapshotPages(transaction) else { return nil }  // TP1
        let split: [SubtreeRun]?
        do {
            split = try btree.subtreeRuns(
                wanted: threads * ParallelReadPolicy.piecesPerThread,
                minimumLeaves: ParallelReadPolicy.minimumLeaves, in: pages)
        } catch {
            return nil  // TP3
        }
        guard let runs = split else { return nil }  // TP2
        pages.store.parallelReads.wrappingAdd(1, ordering: .relaxed)
        let btree = self.btree
        return try ParallelPieces.run(count: runs.count, threads: threads) { index, cancellation in
            try body(TreeScanPiece(cursor: btree.cursor(in: pages), run: runs[index], cancellation: cancellation))
        }
    }

    /// Point lookups of `keyCount` keys in chunks of consecutive positions on up to `threads`
    /// threads: `body` runs once per chunk and reads its keys through the piece; the chunks'
    /// values come back in position order. Nil when the list is too short to split (TP1, TP2).
    ///
    /// ```swift
    /// let found = try records.lookUpInPieces(keyCount: keys.count, threads: 4) { piece in
    ///     var n = 0
    ///     for i in piece.keys { n += try piece.withValue(forBigEndianKey: keys[i]) { $0 == nil ? 0 : 1 } }
    ///     return .init(n, stopped: false)
    /// }
    /// ```
    package func lookUpInPieces<Value: Sendable>(
        keyCount: Int, threads: Int, _ body: @Sendable (TreeLookupPiece) throws -> ParallelPieces.Outcome<Value>
    ) throws -> [Value]? {
        let threads = min(
            threads, keyCount / ParallelReadPolicy.minimumKeysPerThread, ParallelReadPolicy.maximumThreads)
        guard threads > 1, let pages = SnapshotPages(transaction) else { return nil }  // TP1, TP2
        let pieces = threads * ParallelReadPolicy.piecesPerThread
        pages.store.parallelReads.wrappingAdd(1, ordering: .relaxed)
        let btree = self.btree
        return try ParallelPieces.run(count: pieces, threads: threads) { index, cancellation in
            let keys = (index * keyCount / pieces)..<((index + 1) * keyCount / pieces)
            return try body(TreeLookupPiece(keys: keys, cursor: btree.cursor(in: pages), cancellation: cancellation))
        }
    }
}

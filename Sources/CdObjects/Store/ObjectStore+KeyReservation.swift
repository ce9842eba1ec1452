// Primary keys are reserved in the store, in blocks, under the engine's writer lock, so that two
// processes (or two stores on one file) never hand out the same key: each block is a commit that
// raises the root's stored next key (`cd.meta` `next.ROOT`) past it, and a process hands out
// keys from its own blocks only.
//
// A reservation's commit is written but not waited for: it needs no fsync of its own, because a
// commit that uses one of its keys comes after it in the WAL and its fsync covers the
// reservation too. A reservation lost in a crash lost no stored object.
//
// Invariants:
//  KR1. Every key `newObjectIDs` hands out lies in a block [next, end) of this store whose end a
//       commit stored as the root's next key: another store reserving after it starts at or past
//       `end` (it reads the stored next key under the writer lock), and one before it ended at or
//       before `next`.
//  KR2. A block reserved inside this store's open streaming writer (`ObjectStoreWriter`, on the
//       thread that holds it) counts only once that writer commits; its rollback drops the block.

import CdStore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A root's block of reserved keys (KR1).
struct KeyBlock: Sendable, Equatable {
    var next: Int64
    var end: Int64
    /// Reserved in the open streaming writer's transaction (KR2).
    var pendingInWriter: Bool
}

/// The streaming writer this store has open, and the thread that holds it (KR2).
struct HeldWriter: @unchecked Sendable {
    let thread: pthread_t
    let tx: WriteTransaction
}

extension ObjectStore {
    /// The fewest keys one reservation takes.
    static let keyBlockSize: Int64 = 1024

    /// Reserves at least `count` keys of `root` in the store and returns the block (KR1).
    /// A block that ends where the stored next key is (nobody reserved after it) is extended, so
    /// that its remaining keys are not skipped: keys stay dense while one store hands them out.
    func reserveKeys(root: String, count: Int, extending current: KeyBlock?) throws -> KeyBlock {
        let size = max(Int64(count), Self.keyBlockSize)
        func first(_ start: Int64) -> Int64 {
            guard let current, current.end == start, !current.pendingInWriter else { return start }
            return current.next
        }
        if let held = heldWriterOnThisThread() {
            let stored = StoredObjects(tx: held.tx, layout: layout)
            let start = try stored.storedNextKey(root: root)
            let end = try Self.blockEnd(start: start, size: size, count: count, root: root)
            try Self.storeNextKey(end, root: root, in: stored)
            return KeyBlock(next: start, end: end, pendingInWriter: true)
        }
        let tx = try engine.beginWrite()
        do {
            let stored = StoredObjects(tx: tx, layout: layout)
            let start = try stored.storedNextKey(root: root)
            let end = try Self.blockEnd(start: start, size: size, count: count, root: root)
            try Self.storeNextKey(end, root: root, in: stored)
            let snapshot = tx.snapshot
            let commit = try tx.commitWithoutWaiting()
            noteReservation(root: root, end: end, snapshot: snapshot, commit: commit)
            return KeyBlock(next: first(start), end: end, pendingInWriter: false)
        } catch {
            tx.abort()
            throw error
        }
    }

    private static func blockEnd(start: Int64, size: Int64, count: Int, root: String) throws -> Int64 {
        // The stored next key may be anything up to Int64.max: the key space can run out.
        if start <= Int64.max - size { return start + size }
        if start <= Int64.max - Int64(count) { return Int64.max }
        throw CdError.validation(
            ValidationFailure(
                entity: root, key: "primaryKey", message: "no \(count) primary keys are left in hierarchy \(root)"))
    }

    private static func storeNextKey(_ next: Int64, root: String, in stored: StoredObjects) throws {
        var bytes: [UInt8] = []
        bytes.appendLE(UInt64(bitPattern: next))
        try stored.writableTree(StoreLayout.metaTree).put(StoreLayout.nextKeyKey(root: root), bytes)
    }
}

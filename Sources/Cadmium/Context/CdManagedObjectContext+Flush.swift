// Flushing a transaction's changes into the store before its commit, so that a transaction that
// creates a million objects does not hold a million objects, their values and one change set of
// them all in memory at once.
//
// When a transaction context holds more than `CdContainer.flushThreshold` inserted and changed objects and
// the body creates another, it hands them to the store as one batch of an `ObjectStoreWriter`
// (CdObjects): the store's one write transaction, opened at the first flush and held until the
// commit. The flushed objects become clean and the context lets them go; those the body still
// holds stay usable (reading one loads it through the writer; changing one makes it pending
// again). The commit writes the rest as the last batch and commits the writer once; a body that
// throws or cancels its commit rolls every batch back. The transaction stays atomic: nothing of
// it is visible to readers or other transactions before its commit.
//
// Invariants:
//  BW4. A context holds a writer from its first flush until its commit, a failed flush or the end
//       of its body (`dropWriter`), and only on its body's thread; `ThreadState.holdsStoreWriter`
//       is set exactly while the thread's context holds one. A writer holds the engine's writer
//       gate, so every other commit waits for it. Such a thread never waits for another commit:
//       a context on it does not flush while another holds the writer (nested transactions keep
//       their changes in memory), and a commit started on it by anything but the holder (a
//       nested transaction, a batch operation) fails with a `CdError.store` that says why
//       (`CdContainer.save`) instead of waiting for itself. A body that blocks on another thread's
//       commit while it holds the writer deadlocks, as it would holding any lock that commit
//       needs: such a body must commit (`Cd.commit()`) first.
//  BW5. Flushed objects leave `insertedObjects`, `changedObjects` and `retained`; `released`
//       holds them weakly so that an object the body still holds stays the one object of its ID
//       (MC1). Pending deletions (`deleted`) are not flushed: they wait for the commit, whose
//       last batch runs their delete rules over everything flushed.
//  BW6. A flush or a commit of flushed batches that fails rolls back every batch, drops the
//       writer and keeps the error; the transaction is lost, and its commit (a retried
//       `Cd.commit()`, the implicit one) throws that error: the store is left as it was, never
//       given only the changes made after the flushes.
//  BW7. While a context holds a writer, its reads (faults, fetches, counts) go through the
//       writer's snapshot, which sees every batch, with the pending changes as overlay; they
//       never see another transaction's uncommitted work, since there is none meanwhile (BW4).
//  BW8. The commit's notification (`AppliedChanges`, merged into the main context and sent to
//       `Cd.commits`) reports every object of every batch, as one commit would (BW3).

import CdObjects
import CdStore

extension CdManagedObjectContext {
    /// More pending inserted and changed objects than this (`CdContainer.flushThreshold`, by default
    /// this) makes the next create flush them. A few thousand objects keep a batch large enough
    /// that what each flush repeats (objects changed in every batch, such as the owners new
    /// objects link to, are listed and reset again) costs little per object, and the memory of
    /// the pending objects small. Measured on a 1M-object insert: 4,096 peaked at 498 MiB,
    /// 10,000 at 554 MiB, at about the same speed (noisy runs).
    static let defaultFlushThreshold = 4096

    /// Called before an object is created in a transaction: flushes the pending changes when
    /// there are more than `flushThreshold` (keeps BW4–BW6).
    func flushIfNeeded() {
        guard kind == .transaction else { return }
        let threshold = container.flushThreshold.load(ordering: .relaxed)
        let due = lock.withLock { flushFailure == nil && liveInserted + changedObjects.count > threshold }
        guard due else { return }
        flush()
    }

    private func flush() {
        let state = ThreadState.current
        let holds = lock.withLock { writer != nil }
        // Keeps BW4: the writer of an outer transaction on this thread would block ours.
        if !holds && state.holdsStoreWriter { return }
        guard var batch = pendingSlotChanges() else { return }
        batch.deleted = []  // BW5: deletions wait for the commit
        guard !batch.inserted.isEmpty || !batch.updated.isEmpty else { return }
        do {
            let writer: ObjectStoreWriter
            if let open = lock.withLock({ self.writer }) {
                writer = open
            } else {
                writer = try container.beginWriter()
                lock.withLock { self.writer = writer }
                state.holdsStoreWriter = true
            }
            let applied = try writer.apply(slots: batch)
            let direct = batch.updated.map(\.id)
            // Keeps BW5: the flushed objects are clean and held weakly from now on. (Changed
            // objects the context had released already are not in `retained`.)
            var objects = lock.withLock { () -> [CdManagedObject] in
                flushedDirect.formUnion(direct)
                let objects = Array(retained.values) + changedObjects
                insertedObjects = []
                liveInserted = 0
                changedObjects = []
                pendingCache = nil
                retained = [:]
                return objects
            }
            bump()
            // An object that only this list holds goes now, without a weak reference or a reset:
            // nobody can reach it again (a bulk insert's objects, mostly).
            var kept: [(ObjectID, WeakObject)] = []
            while var object = objects.popLast() {
                if isKnownUniquelyReferenced(&object) { continue }
                Self.markSaved(object, applied)
                if let id = object.objectID { kept.append((id, WeakObject(object))) }
            }
            lock.withLock {
                released = released.filter { $0.value.object != nil }
                for (id, weak) in kept { released[id] = weak }
            }
        } catch {
            // Keeps BW6.
            lock.withLock { flushFailure = error }
            dropWriter()
        }
    }

    /// The snapshot of the writer, when this context holds one (BW7); the flush's error when a
    /// flush failed (BW6).
    func flushedSnapshot() throws -> ObjectSnapshot? {
        guard kind == .transaction else { return nil }
        let (open, failure) = lock.withLock { () -> (ObjectStoreWriter?, (any Error)?) in (writer, flushFailure) }
        if let failure { throw failure }
        return try open?.snapshot()
    }

    /// The commit of a context that flushed: the rest as the last batch, then one commit of the
    /// writer through the root (BW8). Throws the error of a failed flush (BW6).
    func commitFlushed() throws -> AppliedChanges {
        let (open, failure, direct) = lock.withLock {
            () -> (ObjectStoreWriter?, (any Error)?, Set<ObjectID>) in (writer, flushFailure, flushedDirect)
        }
        if let failure { throw failure }
        guard let writer = open else { throw CdError.store(.transactionFinished) }
        defer { dropWriter() }
        do {
            if let slots = pendingSlotChanges() {
                return try container.save(writer: writer, direct: direct.union(slots.updated.map(\.id))) {
                    if !slots.isEmpty { try writer.apply(slots: slots) }
                }
            }
            let changes = pendingChanges()
            return try container.save(writer: writer, direct: direct.union(changes.updated.keys)) {
                if !changes.isEmpty { try writer.apply(changes) }
            }
        } catch {
            // Keeps BW6: the flushed batches are rolled back and their objects are clean here, so
            // a later commit of this context would write only what came after them.
            lock.withLock { flushFailure = error }
            throw error
        }
    }

    /// Rolls back and forgets the writer, if any (keeps BW4).
    func dropWriter() {
        let dropped = lock.withLock { () -> ObjectStoreWriter? in
            defer {
                writer = nil
                flushedDirect = []
            }
            return writer
        }
        guard let dropped else { return }
        dropped.rollback()
        ThreadState.current.holdsStoreWriter = false
    }
}

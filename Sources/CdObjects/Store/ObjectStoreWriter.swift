// A streaming write: one engine write transaction that takes any number of change sets, one
// after the other, and commits them as one (or rolls them all back). A bulk load so never holds
// more than one batch of changes in memory; the engine spills its dirty pages to the WAL as the
// transaction grows (WriteTransaction R6), so the whole write runs in bounded memory.
//
// Each batch goes through the phases of `ObjectStore.apply` (ChangeApplier) over the same write
// transaction, so a batch reads what the earlier ones wrote: primary keys taken, unique index
// entries, to-many lists and inverses are checked and kept against the transaction's state.
//
// Invariants:
//  BW1. Between `ObjectStore.beginWriter()` and `commit`/`rollback` the writer holds the engine's
//       one write transaction (and so its writer gate): other writers wait. Nothing it wrote is
//       visible outside it before `commit`; a batch that throws rolls back every batch, so the
//       store is left as it was, and the writer is finished (later calls throw).
//  BW2. Attribute and relationship-count validation sees the final state, as one `apply` of all
//       the batches would: an object that fails it in its batch is written anyway and noted in
//       `suspects`; a later batch that changes it validates it again; `commit` validates every
//       object still noted, as the transaction holds it, and throws what one `apply` would
//       (the one error, or 1560 with all). Uniqueness, primary keys, relationship targets and
//       deny rules are checked per batch: a violation fails the batch (and the writer) at once.
//  BW3. `applied` is what one `apply` of all the batches would report: an object inserted by an
//       earlier batch and changed later stays only in `inserted`; one inserted and then deleted
//       is in neither `inserted` nor `deleted`.
//  BW4. A batch's side writes (`ChangeSet.sideWrites`) are written after its own changes, in the
//       same transaction (SW2 of SideTreeWrites.swift): they commit with every batch or roll back
//       with them, and later batches (and `snapshot()`) read them.
//
// Confinement: one thread at a time (it owns an engine write transaction).

import CdStore

/// A write of many change sets in one engine transaction (BW1–BW3).
///
/// ```swift
/// let writer = try store.beginWriter()
/// for batch in batches { try writer.apply(slots: batch) }
/// let applied = try writer.commit()
/// ```
public final class ObjectStoreWriter {
    /// The store written to.
    public let store: ObjectStore
    private var tx: WriteTransaction?
    /// Objects that failed validation in their last batch (BW2).
    private var suspects: Set<ObjectID> = []
    /// What the batches applied so far (BW3).
    public private(set) var applied = AppliedChanges()
    /// The largest next key each batch stored, per root (OS1 of ObjectStore).
    private var writtenKeys: [String: Int64] = [:]
    /// The snapshot over the write transaction, made again after each batch.
    var cachedSnapshot: ObjectSnapshot?
    /// The commit's persistent history, a part per batch (HS1, HS2), when the store keeps it.
    private var history = HistoryRecorder()
    /// The author and context name the batches gave, the last given winning.
    private var historyAuthor: String?, historyContextName: String?

    init(store: ObjectStore) throws {
        self.store = store
        do { tx = try store.engine.beginWrite() } catch let e as StoreError { throw CdError.store(e) }
        store.noteWriter(tx)
    }

    deinit {
        if let tx {
            tx.abort()
            store.noteWriter(nil)
        }
    }

    /// Whether the writer still holds its transaction (not committed, rolled back or failed).
    public var isOpen: Bool { tx != nil }

    /// Applies one batch into the transaction, with the checks of `ObjectStore.apply` against
    /// everything the earlier batches wrote (validation waits for `commit`, BW2); returns what
    /// the batch applied. On a throw every batch is rolled back and the writer is finished.
    ///
    /// ```swift
    /// try writer.apply(ChangeSet(inserted: [id: ["name": .attribute(.string("R&D"))]]))
    /// ```
    @discardableResult
    public func apply(_ changes: ChangeSet) throws -> AppliedChanges {
        try write(sideWrites: changes.sideWrites) { stored in
            ChangeApplier(layout: store.layout, stored: stored, changes: changes, overlay: false)
        }
    }

    /// Applies one batch in slot form (what the object layer flushes).
    @discardableResult
    package func apply(slots changes: SlotChangeSet) throws -> AppliedChanges {
        try write { stored in ChangeApplier(layout: store.layout, stored: stored, slotChanges: changes) }
    }

    /// A snapshot that reads through the write transaction: the store as the batches so far
    /// left it. Valid until the next batch, `commit` or `rollback`; its `end()` leaves the
    /// transaction open.
    ///
    /// ```swift
    /// let n = try writer.snapshot().count(FetchRequest(entity: "Employee"))
    /// ```
    public func snapshot() throws -> ObjectSnapshot {
        if let cachedSnapshot { return cachedSnapshot }
        let snapshot = ObjectSnapshot(store: store, tx: try open())
        cachedSnapshot = snapshot
        return snapshot
    }

    /// Validates the noted objects (BW2) and writes the commit without waiting for durability;
    /// pass the result to `ObjectStore.finishApply`. On a throw everything is rolled back.
    package func commitWithoutWaiting() throws -> WrittenApply {
        let tx = try open()
        do {
            if !suspects.isEmpty {
                let applier = ChangeApplier(
                    layout: store.layout, stored: StoredObjects(tx: tx, layout: store.layout),
                    slotChanges: SlotChangeSet())
                try ChangeApplier.throwErrors(try applier.validationErrors(ofStored: suspects))
            }
            try history.finish(author: historyAuthor, contextName: historyContextName, tx: tx)  // HS2
            store.ownHistory.record(history.number)  // OH1: before the commit is written
            cachedSnapshot = nil
            self.tx = nil
            let commit = try tx.commitWithoutWaiting()
            store.noteWriter(nil, committed: true)
            // The batches stored `writtenKeys` as the next keys (the last store of each root is
            // its largest), and every stored key of a root is below it (OS1), the batches' too.
            store.noteCommitted(
                nextKeys: writtenKeys, stored: writtenKeys, bounds: writtenKeys, commit: nil, replacing: false)
            let stamp = store.recentChanges.record(applied.updated, applied.deleted)  // RC1
            return WrittenApply(applied: applied, commit: commit, stamp: stamp)
        } catch {
            rollback()
            store.noteWriter(nil)  // KR2: a failed commit keeps none of its reservations
            if let e = error as? StoreError { throw CdError.store(e) }
            throw error
        }
    }

    /// Commits every batch as one commit and waits for durability; returns what they applied
    /// (BW3). Throws the validation failures of the final state (BW2), rolling everything back.
    ///
    /// ```swift
    /// let applied = try writer.commit()
    /// ```
    @discardableResult
    public func commit() throws -> AppliedChanges {
        let written = try commitWithoutWaiting()
        try store.finishApply(written)
        return written.applied
    }

    /// Discards every batch (BW1). Harmless when already finished.
    ///
    /// ```swift
    /// writer.rollback()
    /// ```
    public func rollback() {
        cachedSnapshot = nil
        if let tx {
            tx.abort()
            store.noteWriter(nil)
        }
        tx = nil
    }

    func open() throws -> WriteTransaction {
        guard let tx else { throw CdError.store(.transactionFinished) }
        return tx
    }

    /// Runs one batch's applier in the transaction, then its side writes (keeps BW1–BW4). A load
    /// batch (ObjectStoreWriter+Load.swift, LD1) validates at once instead of deferring (BW2).
    func write(
        loads: Bool = false, sideWrites: [SideTreeWrite] = [], _ make: (StoredObjects) -> ChangeApplier
    ) throws -> AppliedChanges {
        let tx = try open()
        cachedSnapshot = nil
        do {
            let applier = make(StoredObjects(tx: tx, layout: store.layout))
            applier.recentChanges = store.recentChanges
            applier.loads = loads
            applier.deferred = loads ? nil : []
            try applier.prepare()
            try applier.throwIfInvalid()
            let (batch, written) = try applier.write(nextKeys: store.counters())
            if store.historyID == nil, store.engine.isSharedWithProcesses {
                try store.adoptStartedHistory(in: tx)  // HS6: another process may have started it
            }
            if store.historyID != nil {
                try history.add(applier.historyPart(batch), tx: tx)
                historyAuthor = applier.author ?? historyAuthor
                historyContextName = applier.contextName ?? historyContextName
            }
            try SideTreeWrite.apply(sideWrites, in: tx)  // BW4
            for (root, next) in written where next > writtenKeys[root, default: 1] { writtenKeys[root] = next }
            // Keeps BW2: what this batch validated is current; what it found invalid is noted.
            if !suspects.isEmpty {
                suspects.subtract(batch.inserted)
                suspects.subtract(batch.updated)
                suspects.subtract(batch.deleted)
            }
            suspects.formUnion(applier.deferred ?? [])
            merge(batch)
            return batch
        } catch {
            rollback()
            if let e = error as? StoreError { throw CdError.store(e) }
            throw error
        }
    }

    /// Adds a batch's changes to `applied` (keeps BW3).
    private func merge(_ batch: AppliedChanges) {
        if applied.inserted.isEmpty {
            applied.inserted = batch.inserted  // the first batch's set, taken as it is
        } else {
            applied.inserted.formUnion(batch.inserted)
        }
        for id in batch.updated where !applied.inserted.contains(id) { applied.updated.insert(id) }
        for id in batch.deleted {
            applied.updated.remove(id)
            if applied.inserted.remove(id) == nil { applied.deleted.insert(id) }
        }
        applied.goneMeanwhile.formUnion(batch.goneMeanwhile)
    }
}

extension ObjectStore {
    /// Begins a streaming write (`ObjectStoreWriter`): waits while another write runs, then
    /// holds the engine's writer until the writer commits or rolls back (BW1). A bulk load in
    /// batches so runs in bounded memory and commits once.
    ///
    /// ```swift
    /// let writer = try store.beginWriter()
    /// for batch in batches { try writer.apply(batch) }
    /// try writer.commit()
    /// ```
    public func beginWriter() throws -> ObjectStoreWriter { try ObjectStoreWriter(store: self) }
}

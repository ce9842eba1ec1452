// The object store: an entity model bound to an engine store (docs/design/object-store-api.md).
//
// Concurrency: `ObjectStore` is shared by any number of threads. Snapshots are independent engine
// read transactions; `apply` writes in the engine's one write transaction (its writer gate
// serialises the writes) and then waits, without the gate, for the fsync it shares with the
// applies written meanwhile (the engine's group commit). `counterLock` guards `nextKeys`, the
// in-memory next primary key per inheritance root.
//
// Invariants:
//  OS1. Every key handed out by `newObjectIDs` comes from a block this store reserved in the
//       store (`blocks`, KR1 of ObjectStore+KeyReservation.swift): keys are never handed out twice,
//       across reopenings and across processes, and each apply stores max(stored, largest
//       inserted + 1), so a stored next key only rises.
//  OS2. The stored model's version hash equals `model.versionHash` (checked at open), so the
//       layout computed from `model` reads every stored record (EL1).
//  OS3. The stored object format (`cd.meta` key `format`) is the one this build writes (checked
//       at open by `StoreLayout.formatProblem`, the check the verifier reports with).
//  OS4. When the last commit is `knownCommit` (no other process or store committed since this
//       one's last commit), `storedNextKeys[root]` is the root's next key as that commit stored
//       it, and every stored object's key of the root is below `usedKeyBounds[root]` (at open
//       both are the stored next key, OS1; each commit raises them past what it stored and
//       inserted), so an apply needs neither read: an inserted key at or above the used bound is
//       free without a look-up. Otherwise an apply reads both from the store it writes.

import CdStore
import Foundation

/// An object store: entities, records, indexes and relationships on a Cadmium engine store.
///
/// ```swift
/// let store = try ObjectStore.open(path: nil, model: model)          // in memory
/// let ids = try store.newObjectIDs(entity: "Department", count: 1)
/// try store.apply(ChangeSet(inserted: [ids[0]: ["name": .attribute(.string("R&D"))]]))
/// let names = try store.read { try $0.values(of: ids[0]) }
/// ```
public final class ObjectStore: @unchecked Sendable {
    /// The entity model the store was opened with.
    public let model: ObjectModel
    /// The engine store underneath.
    public let engine: Store
    let layout: StoreLayout
    /// Guards `nextKeys`, `storedNextKeys` and `usedKeyBounds` (OS1, OS4).
    private let counterLock = Lock()
    /// Taken by the thread reserving a block of keys (KR1), so that two do not reserve at once.
    private let reservationLock = Lock()
    /// The objects recent commits changed, for the error merge policy (RecentChanges.swift).
    package let recentChanges = RecentChanges()
    /// The reader of an ended snapshot, kept for the next `read` (ObjectStore+SnapshotReuse.swift,
    /// SR1–SR4).
    let parkedReader = LockedState<StoredObjects?>(nil)
    private var nextKeys: [String: Int64]
    /// Each root's block of reserved keys (OS1, KR1).
    private var blocks: [String: KeyBlock] = [:]
    /// The commit after which `storedNextKeys` and `usedKeyBounds` hold (OS4).
    private var knownCommit: CommitSequence?
    /// The streaming writer open on this store (KR2).
    private var heldWriter: HeldWriter?
    /// What the last commit stored as each root's next key (OS4).
    private var storedNextKeys: [String: Int64]
    /// Per root, a bound on the keys of stored objects (OS4).
    private var usedKeyBounds: [String: Int64]
    /// The store's history ID when it keeps persistent history (HS5, HS6 of HistoryLayout.swift);
    /// then every commit records its history (ObjectStore+History.swift).
    package var historyID: UUID? { historyIDState.withLock { $0 } }
    /// Set at open, and once when another process starts the history (ObjectStore+History
    /// `adoptStartedHistory`, HS6).
    let historyIDState: LockedState<UUID?>
    /// The history transactions this store wrote, when a consumer asked (OwnHistoryNumbers OH1).
    package let ownHistory = OwnHistoryNumbers()

    private init(
        model: ObjectModel, engine: Store, layout: StoreLayout, nextKeys: [String: Int64], historyID: UUID?
    ) {
        self.historyIDState = LockedState(historyID)
        self.model = model
        self.engine = engine
        self.layout = layout
        self.nextKeys = nextKeys
        self.storedNextKeys = nextKeys
        self.usedKeyBounds = nextKeys
        self.knownCommit = engine.lastCommit
    }

    /// Opens (creating when missing) the object store at `path`; `nil` is an in-memory store.
    /// A new store records the model; an existing one must have the same stored shape, else
    /// `CdError.incompatibleModel` naming the first difference.
    ///
    /// ```swift
    /// let store = try ObjectStore.open(path: "/tmp/app.cdstore", model: model)
    /// ```
    public static func open(
        path: String?, model: ObjectModel, options: StoreOptions = StoreOptions()
    ) throws -> ObjectStore {
        var options = options
        let enginePath: String
        if let path {
            enginePath = path
        } else {
            options.fileSystem = InMemoryFileSystem()
            enginePath = "/memory.cdstore"
        }
        let engine: Store
        do { engine = try Store.open(path: enginePath, options: options) } catch let e as StoreError {
            throw CdError.store(e)
        }
        do {
            let layout = StoreLayout(model: model)
            let hash = model.versionHash
            let storedMeta = try engine.read { tx -> (hash: String, model: [UInt8]?)? in
                guard let meta = try tx.tree(StoreLayout.metaTree) else { return nil }
                try checkFormat(meta, stored: StoredObjects(tx: tx, layout: layout))
                guard let h = try meta.get(StoreLayout.metaHashKey) else {
                    throw StoredObjects(tx: tx, layout: layout).corruption(meta, "the hash entry is missing")
                }
                return (String(decoding: h, as: UTF8.self), try meta.get(StoreLayout.metaModelKey))
            }
            if let (storedHash, modelJSON) = storedMeta {
                if storedHash != hash {
                    let storedModel = modelJSON.flatMap { try? JSONDecoder().decode(ObjectModel.self, from: Data($0)) }
                    throw CdError.incompatibleModel(
                        storeVersionHash: storedHash, modelVersionHash: hash,
                        difference: storedModel.flatMap { model.firstStoredShapeDifference(from: $0) })
                }
            } else if !engine.isReadOnly {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                let json = try encoder.encode(model)
                try engine.write { tx in
                    let meta = try tx.openOrCreateTree(StoreLayout.metaTree)
                    try meta.put(StoreLayout.metaFormatKey, StoreLayout.formatEntry)
                    try meta.put(StoreLayout.metaModelKey, Array(json))
                    try meta.put(StoreLayout.metaHashKey, Array(hash.utf8))
                }
            }
            let nextKeys = try engine.read { tx in
                let stored = StoredObjects(tx: tx, layout: layout)
                return try Dictionary(
                    uniqueKeysWithValues: layout.roots.map { ($0, try stored.storedNextKey(root: $0)) })
            }
            let historyID = try HistoryRecorder.historyID(of: engine, tracked: options.history == .tracked)
            return ObjectStore(
                model: model, engine: engine, layout: layout, nextKeys: nextKeys, historyID: historyID)
        } catch {
            try? engine.close()
            if let e = error as? StoreError { throw CdError.store(e) }
            throw error
        }
    }

    /// Refuses a store whose `cd.meta` format entry this build does not read (S3): a newer object
    /// layout with `unsupportedObjectFormat`, a missing or damaged entry as corruption.
    private static func checkFormat(_ meta: Tree, stored: StoredObjects) throws {
        guard let problem = StoreLayout.formatProblem(try meta.get(StoreLayout.metaFormatKey)) else { return }
        if case let .newer(version) = problem {
            throw CdError.unsupportedObjectFormat(
                path: stored.tx.store.path, found: version, supported: UInt32(StoreLayout.layoutVersion))
        }
        throw stored.corruption(meta, problem.description)
    }

    /// Checkpoints and closes the engine store.
    public func close() throws {
        returnUnissuedKeys()
        do { try engine.close() } catch let e as StoreError { throw CdError.store(e) }
    }

    /// The keys of each root's block not handed out yet (KR1).
    func unissuedKeys() -> [String: Range<Int64>] {
        counterLock.withLock { blocks.mapValues { $0.next..<max($0.next, $0.end) } }
    }

    /// Gives back, at close, the tail of each block nobody reserved past: the stored next key goes
    /// back to the first key this store did not hand out, so the next session continues there
    /// (KR1 holds: every key handed out lies below it). Best effort: a failure keeps the gap.
    private func returnUnissuedKeys() {
        let tails = counterLock.withLock { blocks.filter { !$0.value.pendingInWriter && $0.value.next < $0.value.end } }
        guard !tails.isEmpty, !engine.isReadOnly else { return }
        try? engine.write { tx in
            let stored = StoredObjects(tx: tx, layout: layout)
            for (root, block) in tails.sorted(by: { $0.key < $1.key }) {
                guard try stored.storedNextKey(root: root) == block.end else { continue }
                var bytes: [UInt8] = []
                bytes.appendLE(UInt64(bitPattern: block.next))
                try stored.writableTree(StoreLayout.metaTree).put(StoreLayout.nextKeyKey(root: root), bytes)
            }
        }
        counterLock.withLock { blocks = [:] }
    }

    /// New permanent IDs for `count` objects of `entity` (a concrete, non-abstract entity).
    /// Thread-safe; never hands out a key twice, even for objects that are never saved (OS1).
    ///
    /// ```swift
    /// let ids = try store.newObjectIDs(entity: "Employee", count: 100)
    /// ```
    public func newObjectIDs(entity: String, count: Int) throws -> [ObjectID] {
        let e = try layout.entity(entity)
        guard !e.isAbstract else {
            throw CdError.validation(
                ValidationFailure(
                    entity: entity, key: "entity", message: "\(entity) is abstract; objects need a concrete entity"))
        }
        precondition(count >= 0, "count must not be negative")
        // No keys: nothing to reserve (a reservation of none would find enough room in no block
        // and loop for ever).
        if count == 0 { return [] }
        while true {
            let first: Int64? = counterLock.withLock {
                guard let block = blocks[e.root], block.end - block.next >= Int64(count) else { return nil }
                blocks[e.root]!.next += Int64(count)
                if block.next + Int64(count) > nextKeys[e.root, default: 1] {
                    nextKeys[e.root] = block.next + Int64(count)
                }
                return block.next
            }
            if let first { return (0..<Int64(count)).map { e.objectID(first + $0) } }
            // KR1: a new block, reserved in the store (without the counter lock: the reservation
            // takes the engine's writer, whose holder may be waiting for this lock).
            // One thread reserves at a time (others then find its block), so keys stay dense; the
            // holder of the streaming writer reserves in it without waiting (KR2).
            let reserve = {
                if self.counterLock.withLock({ (self.blocks[e.root].map { $0.end - $0.next } ?? 0) >= Int64(count) }) {
                    return
                }
                let block: KeyBlock
                let current = self.counterLock.withLock { self.blocks[e.root] }
                do {
                    block = try self.reserveKeys(root: e.root, count: count, extending: current)
                } catch let error as StoreError {
                    throw CdError.store(error)
                }
                self.counterLock.withLock { self.blocks[e.root] = block }
            }
            if heldWriterOnThisThread() != nil { try reserve() } else { try reservationLock.withLock(reserve) }
        }
    }

    /// Applies a change set in one engine write transaction: defaults, validation (1550–1680),
    /// uniqueness (1551), relationship counts (1580/1590), delete rules (cascade, nullify,
    /// deny → 1600 listing the blockers), inverses kept in step. On a throw nothing changed.
    /// Returns once the commit is durable (with `Durability.full`); durable applies running at
    /// the same time share one fsync (group commit).
    ///
    /// ```swift
    /// let applied = try store.apply(ChangeSet(deleted: [department]))
    /// applied.deleted   // the department and, by cascade, its employees
    /// ```
    @discardableResult
    public func apply(_ changes: ChangeSet) throws -> AppliedChanges {
        let written = try applyWithoutWaiting(changes)
        try finishApply(written)
        return written.applied
    }

    /// `apply` of a change set in slot form (`PropertySlots`): what the object layer commits.
    /// Records are staged straight from the slot values, with no name lookups.
    @discardableResult
    package func apply(slots changes: SlotChangeSet) throws -> AppliedChanges {
        let written = try applyWithoutWaiting(slots: changes)
        try finishApply(written)
        return written.applied
    }

    /// The first half of `apply`: validates and writes the commit and frees the engine's writer,
    /// without waiting for durability. The caller must pass the result to `finishApply` before it
    /// treats the commit as done. A layer that orders its commits under a lock of its own takes
    /// that lock around this call only, so that its commits still share fsyncs.
    package func applyWithoutWaiting(_ changes: ChangeSet) throws -> WrittenApply {
        try write(sideWrites: changes.sideWrites) { stored in
            ChangeApplier(layout: layout, stored: stored, changes: changes, overlay: false)
        }
    }

    /// `applyWithoutWaiting` of a change set in slot form.
    package func applyWithoutWaiting(slots changes: SlotChangeSet) throws -> WrittenApply {
        try write { stored in ChangeApplier(layout: layout, stored: stored, slotChanges: changes) }
    }

    /// The second half of `apply`: returns once the written commit is durable and visible to new
    /// snapshots (and runs the engine's automatic checkpoint). Throws `CdError.store` when the
    /// fsync failed; the commit is then lost and the store poisoned.
    package func finishApply(_ written: WrittenApply) throws {
        guard let commit = written.commit else { return }
        do { try engine.finishCommit(commit) } catch let e as StoreError { throw CdError.store(e) }
        if let stamp = written.stamp { recentChanges.markVisible(stamp) }  // keeps RC2
    }

    /// Runs the applier `make` builds in one engine write transaction and writes its commit
    /// without waiting for durability.
    private func write(
        sideWrites: [SideTreeWrite] = [], _ make: (StoredObjects) -> ChangeApplier
    ) throws -> WrittenApply {
        do {
            return try engine.write { tx in
                let stored = StoredObjects(tx: tx, layout: layout)
                let applier = make(stored)
                applier.recentChanges = recentChanges
                // Keeps OS4: what this store knows of `cd.meta`, so the apply does not read it,
                // when nothing else committed since this store's last commit.
                let known = counterLock.withLock { knownCommit == tx.snapshot }
                // HS6: only a commit of another store can have started the history since.
                if !known, historyID == nil { try adoptStartedHistory(in: tx) }
                if known {
                    (applier.storedNextKeys, applier.usedKeyBounds) = counterLock.withLock {
                        (storedNextKeys, usedKeyBounds)
                    }
                }
                applier.unissuedKeys = unissuedKeys()
                try applier.prepare()
                try applier.throwIfInvalid()
                let (applied, written) = try applier.write(nextKeys: counters())
                if historyID != nil { try recordHistory(of: applier, applied, in: tx) }  // HS1, HS2
                try SideTreeWrite.apply(sideWrites, in: tx)  // SW2
                applier.releaseWorkingSet()  // CA8: the commit's page images do not sit beside it
                let commit = try tx.commitWithoutWaiting()
                noteCommitted(
                    nextKeys: written, stored: applier.storedNextKeys, bounds: applier.usedKeyBounds,
                    commit: commit ?? tx.snapshot, replacing: !known)
                // Keeps RC1: recorded while this commit holds the writer.
                let stamp = recentChanges.record(applied.updated, applied.deleted)
                return WrittenApply(applied: applied, commit: commit, stamp: stamp)
            }
        } catch let e as StoreError {
            throw CdError.store(e)
        }
    }

    /// The in-memory next key of every root (OS1), for an applier's write phase.
    func counters() -> [String: Int64] { counterLock.withLock { nextKeys } }

    /// After a commit is written: raises the counters to the next keys it wrote (OS1), and takes
    /// its stored next keys and key bounds, per root, as what the store holds now (keeps OS4).
    /// `replacing`: the apply read what it knows from the store (OS4 did not hold), so that
    /// replaces what this store knew; `commit` is the last commit it knows of now.
    func noteCommitted(
        nextKeys written: [String: Int64], stored: [String: Int64], bounds: [String: Int64],
        commit: CommitSequence?, replacing: Bool
    ) {
        counterLock.withLock {
            for (root, next) in written where next > nextKeys[root, default: 1] { nextKeys[root] = next }
            if replacing {
                storedNextKeys = stored
                // Every stored key is below the stored next key (OS1): a bound for the roots read.
                usedKeyBounds = stored.merging(bounds) { $1 }
            } else {
                storedNextKeys.merge(stored) { $1 }
                usedKeyBounds.merge(bounds) { $1 }
            }
            knownCommit = commit
        }
    }

    /// After a key reservation's commit: the stored next key it wrote (OS4 when it built on the
    /// last commit this store knew).
    func noteReservation(root: String, end: Int64, snapshot: CommitSequence, commit: CommitSequence?) {
        counterLock.withLock {
            if knownCommit == snapshot, let commit {
                storedNextKeys[root] = end
                knownCommit = commit
            } else {
                knownCommit = nil
            }
        }
    }

    // MARK: - The streaming writer (KR2)

    /// The open streaming writer, when the calling thread holds it.
    func heldWriterOnThisThread() -> HeldWriter? {
        counterLock.withLock {
            guard let heldWriter, pthread_equal(heldWriter.thread, pthread_self()) != 0 else { return nil }
            return heldWriter
        }
    }

    /// A streaming writer opened (`tx`) or finished (nil, `committed` telling how). A rollback
    /// drops the blocks reserved inside it (KR2); a commit makes them the store's.
    func noteWriter(_ tx: WriteTransaction?, committed: Bool = false) {
        counterLock.withLock {
            if let tx {
                heldWriter = HeldWriter(thread: pthread_self(), tx: tx)
                return
            }
            heldWriter = nil
            for (root, block) in blocks where block.pendingInWriter {
                if committed { blocks[root]!.pendingInWriter = false } else { blocks[root] = nil }
            }
            knownCommit = nil
        }
    }

    /// A snapshot of the last commit. End it with `end()` (or let it go).
    public func beginRead() throws -> ObjectSnapshot {
        do { return ObjectSnapshot(store: self, tx: try engine.beginRead()) } catch let e as StoreError {
            throw CdError.store(e)
        }
    }

    /// Runs `body` with a snapshot of the last commit and ends it.
    ///
    /// ```swift
    /// let n = try store.read { try $0.count(FetchRequest(entity: "Employee")) }
    /// ```
    public func read<R>(_ body: (ObjectSnapshot) throws -> R) throws -> R {
        // An ended snapshot begun again on the last commit when one is parked (SR1, SR2).
        var snapshot: ObjectSnapshot? = try reusedSnapshot() ?? beginRead()
        defer { park(&snapshot) }
        return try body(snapshot.unsafelyUnwrapped)
    }
}

/// A written, not yet durable apply (`ObjectStore.applyWithoutWaiting`): what it applied and its
/// engine commit (nil when nothing changed).
package struct WrittenApply: Sendable {
    package let applied: AppliedChanges
    package let commit: CommitSequence?
    /// The commit's stamp in `ObjectStore.recentChanges` (RC1), when it recorded one.
    package var stamp: UInt64? = nil
}

// The stack made by `Cd.initWithStore`: the object store, the root save context that owns its
// writer, the main context, and the serial transaction queue.
//
// Merges (keeps ST1, ST2): a commit appends what it applied to `pendingMerges` and wakes the
// main queue only when the list was empty; one main-queue block then merges every commit queued
// so far, in commit order. A burst of commits therefore costs one main-queue wake-up, and the
// committing thread never waits for the main thread: a main-thread fetch reads a fresh
// snapshot, so it sees a commit as soon as `apply` returned, merged or not.
//
// Invariants:
//  ST1. Commits are merged into the main context in the order `apply` made them: `save` appends
//       under `saveLock`, and `drainMerges` takes the whole list at once.
//  ST2. Every queued merge runs: a drain is scheduled whenever the list goes from empty to
//       non-empty, and a drain empties it.
//
// Confinement: immutable after init except `contextCounter` and `pendingMerges` (locked);
// thread-safe.

import Foundation
import CdObjects
import CdStore

final class CdStack: @unchecked Sendable {
    // @unchecked: the lets are set once in init; `contextCounter` and `saveLock` are locks.
    let model: CdModel
    let store: any StoreBackend
    private(set) var root: CdManagedObjectContext!
    private(set) var main: CdManagedObjectContext!
    /// Cadmium's internal serial transaction queue.
    let serialQueue = DispatchQueue(label: "org.cadmium.linux.serialTransactions")
    private let contextCounter = LockedState(0)
    /// Orders commits with their merges into the main context.
    private let saveLock = Lock()
    /// Commits applied and not merged into the main context yet, oldest first (ST1, ST2).
    private let pendingMerges = LockedState<[PendingMerge]>([])

    init(model: CdModel, store: any StoreBackend) {
        self.model = model
        self.store = store
        root = CdManagedObjectContext(kind: .root, stack: self, number: 0)
        main = CdManagedObjectContext(kind: .main, stack: self, number: 0)
    }

    /// A fresh context for one transaction body, a child of the root.
    func newTransactionContext() -> CdManagedObjectContext {
        let number = contextCounter.withLock { value -> Int in
            value += 1; return value
        }
        return CdManagedObjectContext(kind: .transaction, stack: self, number: number)
    }

    /// The root context's save: applies `changes` in one store transaction (durable when this
    /// returns) and queues the merge into the main context, without waiting for it.
    func save(_ changes: ChangeSet) throws -> AppliedChanges {
        try saveLock.withLock {
            let applied = try store.apply(changes)
            enqueueMerge(PendingMerge(direct: Set(changes.updated.keys), applied: applied))
            return applied
        }
    }

    /// `save` of a change set in slot form (`CdManagedObjectContext.pendingSlotChanges`).
    func save(slots changes: SlotChangeSet) throws -> AppliedChanges {
        try saveLock.withLock {
            let applied = try store.apply(slots: changes)
            enqueueMerge(PendingMerge(direct: Set(changes.updated.map(\.id)), applied: applied))
            return applied
        }
    }

    /// Queues one commit's merge; wakes the main queue only if none is pending (keeps ST1, ST2).
    private func enqueueMerge(_ merge: PendingMerge) {
        let wake = pendingMerges.withLock { queue -> Bool in
            queue.append(merge)
            return queue.count == 1
        }
        guard wake else { return }
        DispatchQueue.main.async { self.drainMerges() }
    }

    /// On the main queue: merges every queued commit, oldest first (keeps ST1, ST2).
    func drainMerges() {
        let merges = pendingMerges.withLock { queue -> [PendingMerge] in
            defer { queue = [] }
            return queue
        }
        for merge in merges { main.merge(direct: merge.direct, merge.applied) }
    }
}

/// One commit waiting to be merged into the main context: what the store applied, and which
/// objects the change set updated itself (the others in `applied.updated` changed as a side effect).
struct PendingMerge {
    let direct: Set<ObjectID>
    let applied: AppliedChanges
}

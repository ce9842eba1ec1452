// The stack made by `Cd.initWithStore`: the object store, the root save context that owns its
// writer, the main context, and the serial transaction queue.
//
// Commits (keeps ST3): `save` holds `saveLock` only while the store writes the commit
// (`applyWithoutWaiting`), then waits for durability (`finishApply`) without it, so that
// transactions committing at the same time share one fsync (the engine's group commit). Each
// commit takes a ticket under `saveLock`, so tickets follow commit order; a commit's merge is
// queued only once it is durable, and since the commits of one fsync may finish waiting in any
// order, finished tickets wait in `MergeQueue.finished` until every earlier ticket has finished.
//
// Merges (keeps ST1, ST2): a durable commit's merge joins `MergeQueue.ready` and wakes the main
// queue only when that list was empty; one main-queue block then merges every commit queued so
// far, in commit order. A burst of commits therefore costs one main-queue wake-up, and the
// committing thread never waits for the main thread: a main-thread fetch reads a fresh
// snapshot, so it sees a commit as soon as `save` returned (the store shows a commit to
// snapshots once it is durable), merged or not.
//
// Invariants:
//  ST1. Commits are merged into the main context in the order the store wrote them: tickets are
//       taken under `saveLock` in commit order, merges move to `ready` in ticket order, and
//       `drainMerges` takes the whole list at once.
//  ST2. Every queued merge runs: a drain is scheduled whenever `ready` goes from empty to
//       non-empty, and a drain empties it.
//  ST3. Every ticket finishes exactly once — with its merge when the commit is durable, without
//       one when its write or fsync failed — so no later commit's merge waits forever, and no
//       failed commit is merged.

// Confinement: immutable after init except `contextCounter` and `merges` (locked);
// thread-safe.

import Foundation
import CdObjects
import CdStore
import Synchronization

final class CdStack: @unchecked Sendable {
    // @unchecked: the lets are set once in init; `contextCounter`, `saveLock` and `merges` are locks.
    let model: CdModel
    let store: any StoreBackend
    private(set) var root: CdManagedObjectContext!
    private(set) var main: CdManagedObjectContext!
    /// Cadmium's internal serial transaction queue.
    let serialQueue = DispatchQueue(label: "org.cadmium.linux.serialTransactions")
    private let contextCounter = LockedState(0)
    /// Held while the store writes a commit: orders commits with their tickets (ST1).
    private let saveLock = Lock()
    /// Commits written and not merged into the main context yet (ST1–ST3).
    let merges = LockedState(MergeQueue())
    /// The transaction bodies running now; `Cd.close()` waits for them (RunningTransactions.swift).
    let running = RunningTransactions()
    /// How many pending inserted and changed objects a transaction context holds before it
    /// flushes them (CdManagedObjectContext+Flush.swift); tests lower it.
    let flushThreshold = Atomic<Int>(CdManagedObjectContext.defaultFlushThreshold)
    /// The merge policy of commits whose context sets none (`Cd.mergePolicy`).
    let mergePolicy = LockedState(MergePolicy.mergeByPropertyObjectTrump)
    /// Notices other processes' commits, when the store is shared (RemoteChangeWatcher.swift).
    private let remoteWatcher = LockedState<RemoteChangeWatcher?>(nil)

    init(model: CdModel, store: any StoreBackend) {
        self.model = model
        self.store = store
        root = CdManagedObjectContext(kind: .root, stack: self, number: 0)
        main = CdManagedObjectContext(kind: .main, stack: self, number: 0)
    }

    /// Starts watching for other processes' commits (a store file that other processes may
    /// open), as `Cd.initWithStore` does.
    func watchRemoteChanges(storeURL: URL?) throws {
        let watcher = try RemoteChangeWatcher.start(for: self, storeURL: storeURL)
        remoteWatcher.withLock { $0 = watcher }
    }

    /// Stops watching (before the store closes, RM3 of RemoteChangeWatcher.swift).
    func stopWatchingRemoteChanges() {
        let watcher = remoteWatcher.withLock { w -> RemoteChangeWatcher? in
            defer { w = nil }
            return w
        }
        watcher?.stop()
    }

    /// On the main queue: merges other processes' commits into the main context and announces
    /// them (RM1 of RemoteChangeWatcher.swift): the merge's `Cd.commits` event, then the remote
    /// change's.
    func deliverRemote(_ change: CdRemoteChange, merge: AppliedChanges) {
        if !merge.inserted.isEmpty || !merge.updated.isEmpty || !merge.deleted.isEmpty {
            main.merge(direct: [], merge)
            CommitBroadcast.shared.didMerge(merge)
        }
        RemoteChangeBroadcast.shared.deliver(change)
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
        try save(direct: Set(changes.updated.keys)) { try store.applyWithoutWaiting(changes) }
    }

    /// `save` of a change set in slot form (`CdManagedObjectContext.pendingSlotChanges`).
    func save(slots changes: SlotChangeSet) throws -> AppliedChanges {
        try save(direct: Set(changes.updated.map(\.id))) { try store.applyWithoutWaiting(slots: changes) }
    }

    /// Writes a commit with `write` under `saveLock`, waits for it to be durable without the lock,
    /// and queues its merge in commit order (keeps ST1, ST3). `direct`: the objects the change set
    /// updated itself.
    private func save(
        direct: Set<ObjectID>, write: () throws -> WrittenApply
    ) throws -> AppliedChanges {
        if ThreadState.current.holdsStoreWriter {
            // BW4 (CdManagedObjectContext+Flush.swift): the writer this commit would wait for is
            // held by a transaction on this very thread.
            throw CdError.store(
                .invalidArgument(
                    "a commit was started on a thread whose transaction holds the store's writer (it flushed "
                        + "a bulk of changes and commits at its end), so it would wait for itself; commit the "
                        + "outer transaction first (Cd.commit()) or run this commit outside it"))
        }
        let (written, ticket) = try saveLock.withLock {
            let written = try write()
            return (written, merges.withLock { $0.takeTicket() })
        }
        return try finishDurably(ticket, direct: direct) { written }
    }

    /// Begins the streaming writer of a transaction that flushes (BW4 in
    /// CdManagedObjectContext+Flush.swift), under `saveLock`: every commit written before it has
    /// its ticket, so the writer's ticket, taken before it lets the engine's writer go, follows
    /// them (keeps ST1).
    func beginWriter() throws -> ObjectStoreWriter {
        try saveLock.withLock { try store.beginWriter() }
    }

    /// Commits `writer` after `last` wrote its last batch: takes the ticket while the writer still
    /// holds the engine's writer (so in commit order, ST1), waits for durability and queues the
    /// merge (keeps ST3). On a throw everything the writer held is rolled back.
    func save(writer: ObjectStoreWriter, direct: Set<ObjectID>, last: () throws -> Void) throws -> AppliedChanges {
        do { try last() } catch {
            writer.rollback()
            throw error
        }
        let ticket = merges.withLock { $0.takeTicket() }
        return try finishDurably(ticket, direct: direct) { try writer.commitWithoutWaiting() }
    }

    /// Waits for the commit `write` returns to be durable, then finishes `ticket` with its merge,
    /// or with none when writing or the fsync failed (keeps ST3).
    private func finishDurably(
        _ ticket: UInt64, direct: Set<ObjectID>, _ write: () throws -> WrittenApply
    ) throws -> AppliedChanges {
        let written: WrittenApply
        do {
            written = try write()
            try store.finishApply(written)
        } catch {
            finish(ticket, nil)
            throw error
        }
        finish(ticket, PendingMerge(direct: direct, applied: written.applied))
        return written.applied
    }

    /// Finishes `ticket` (with its merge, or nil for a failed commit); wakes the main queue when
    /// merges became ready and none were waiting (keeps ST2, ST3).
    private func finish(_ ticket: UInt64, _ merge: PendingMerge?) {
        let wake = merges.withLock { $0.finish(ticket, merge) }
        guard wake else { return }
        DispatchQueue.main.async { self.drainMerges() }
    }

    /// On the main queue: merges every queued commit, oldest first (keeps ST1, ST2), and
    /// announces each (`CommitBroadcast`).
    func drainMerges() {
        let ready = merges.withLock { queue -> [PendingMerge] in
            defer { queue.ready = [] }
            return queue.ready
        }
        for merge in ready {
            main.merge(direct: merge.direct, merge.applied)
            CommitBroadcast.shared.didMerge(merge.applied)
        }
    }
}

/// One commit waiting to be merged into the main context: what the store applied, and which
/// objects the change set updated itself (the others in `applied.updated` changed as a side effect).
struct PendingMerge {
    let direct: Set<ObjectID>
    let applied: AppliedChanges
}

/// The commits between their write and their merge: tickets handed out in commit order, commits
/// that finished out of order, and merges ready for the main queue in commit order (ST1–ST3).
struct MergeQueue {
    /// The ticket the next written commit takes.
    private var nextTicket: UInt64 = 0
    /// The oldest ticket not finished yet: every earlier one is in `ready` or merged.
    private var nextToRelease: UInt64 = 0
    /// Finished tickets after `nextToRelease`, with their merge (nil: the commit failed).
    private var finished: [UInt64: PendingMerge?] = [:]
    /// Merges of durable commits, in commit order, waiting for the main queue.
    var ready: [PendingMerge] = []

    /// A ticket for the commit just written (called under `saveLock`, so in commit order).
    mutating func takeTicket() -> UInt64 {
        defer { nextTicket += 1 }
        return nextTicket
    }

    /// Records that `ticket`'s commit finished and moves every merge whose earlier tickets have
    /// all finished to `ready` (keeps ST1, ST3). Returns whether `ready` went from empty to
    /// non-empty, i.e. whether a drain must be scheduled (ST2).
    mutating func finish(_ ticket: UInt64, _ merge: PendingMerge?) -> Bool {
        precondition(ticket >= nextToRelease && finished[ticket] == nil, "ticket \(ticket) finished twice")
        finished[ticket] = .some(merge)
        let wasEmpty = ready.isEmpty
        while let next = finished.removeValue(forKey: nextToRelease) {
            if let next { ready.append(next) }
            nextToRelease += 1
        }
        return wasEmpty && !ready.isEmpty
    }
}

// A container's commits: the root context's save, durability, and the merges into the main
// context, in commit order.
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
//       `drainMerges` takes the whole list at once. A commit another user of the same store made
//       in this process (a SwiftData container on the file, CN5) takes its ticket when it is
//       announced, after it is durable: it is merged after the commits that took theirs before.
//  ST2. Every queued merge runs: a drain is scheduled whenever `ready` goes from empty to
//       non-empty, and a drain empties it.
//  ST3. Every ticket finishes exactly once — with its merge when the commit is durable, without
//       one when its write or fsync failed — so no later commit's merge waits forever, and no
//       failed commit is merged.

import Foundation
import CdObjects
import CdStore

extension CdContainer {
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
    /// or with none when writing or the fsync failed (keeps ST3), and tells the store's other
    /// users in this process (CN5).
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
        lease?.announce(written.applied)
        return written.applied
    }

    /// A durable commit another user of the store made in this process (CN5): merged like one of
    /// this container's, after the commits queued before it (ST1).
    func queueOtherUsersCommit(_ applied: AppliedChanges) {
        let ticket = merges.withLock { $0.takeTicket() }
        finish(ticket, PendingMerge(direct: [], applied: applied))
    }

    /// Finishes `ticket` (with its merge, or nil for a failed commit); wakes the main queue when
    /// merges became ready and none were waiting (keeps ST2, ST3).
    private func finish(_ ticket: UInt64, _ merge: PendingMerge?) {
        let wake = merges.withLock { $0.finish(ticket, merge) }
        guard wake else { return }
        DispatchQueue.main.async { self.drainMerges() }
    }

    /// On the main queue: merges every queued commit, oldest first (keeps ST1, ST2), and
    /// announces each (`CommitBroadcast`), with this container current (CN3) so that the handlers
    /// and delegates called from here reach it.
    func drainMerges() {
        let ready = merges.withLock { queue -> [PendingMerge] in
            defer { queue.ready = [] }
            return queue.ready
        }
        guard !ready.isEmpty else { return }
        Cd.withContainer(self) {
            for merge in ready {
                main.merge(direct: merge.direct, merge.applied)
                announceMerged(merge.applied)
            }
        }
    }

    /// On the main queue: merges other processes' commits into the main context and announces
    /// them (RM1 of RemoteChangeWatcher.swift): the merge's `Cd.commits` event, then the remote
    /// change's.
    func deliverRemote(_ change: CdRemoteChange, merge: AppliedChanges) {
        Cd.withContainer(self) {
            if !merge.inserted.isEmpty || !merge.updated.isEmpty || !merge.deleted.isEmpty {
                main.merge(direct: [], merge)
                announceMerged(merge)
            }
            remoteChangeBroadcast.deliver(change)
            if Cd.isDefault(self) { Cd.defaultContainerRemoteChanges.yield(change) }
            NotificationCenter.default.post(name: .cdStoreRemoteChange, object: self, userInfo: change.userInfo)
        }
    }

    /// After a merge: the commit to this container's subscribers, to the `Cd.commits` subscribers
    /// when this is the default container (CN4), and to the notification center.
    private func announceMerged(_ applied: AppliedChanges) {
        let commit = commitBroadcast.didMerge(applied)
        if Cd.isDefault(self) { Cd.defaultContainerCommits.yield(commit) }
        NotificationCenter.default.post(name: .cdDidMergeCommit, object: self, userInfo: commit.userInfo)
    }
}

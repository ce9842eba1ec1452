// The local side of one pull: a streaming writer (`ObjectStoreWriter`) that takes the pull's
// pages as batches and commits them, with the new cursor and clock, as one local commit (PG2 of
// SyncEngine+Pull.swift). It lives on the pull's own thread (StoreThread.swift, PG7).

import CdObjects
import Foundation

/// One pull's writer and what it gathers across pages.
final class PullSession: @unchecked Sendable {
    // @unchecked: every method runs on the pull's StoreThread, one at a time (ST1, PG7); the
    // engine never calls it from anywhere else.
    private let writer: ObjectStoreWriter
    private let applier: PullApplier
    private let path: SyncCommitPath
    private var clock: HybridClock
    /// The objects the pages updated themselves, for the context merge of the commit.
    private var direct: Set<ObjectID> = []
    /// Local transactions wait to be pushed (PA1): read in the writer, so no commit can follow.
    let pushFirst: Bool

    /// Begins the writer (waiting while another write runs) and reads the replica's state in it.
    init(applier: PullApplier, path: SyncCommitPath) throws {
        self.applier = applier
        self.path = path
        do {
            writer = try path.begin()
        } catch {
            throw CdSyncError.store(error, "beginning the pull's local write")
        }
        do {
            let snapshot = try writer.snapshot()
            let state = try ReplicaState(snapshot)
            clock = state.clock
            pushFirst = try applier.hasPendingLocalTransactions(snapshot, state: state)
        } catch {
            writer.rollback()
            throw CdSyncError.store(error, "reading the replica's state for a pull")
        }
    }

    /// Applies one page of `pass` as one batch of the writer (PG4). On a throw the writer has
    /// rolled back everything (BW1).
    func apply(_ page: [PulledObject], _ pass: PullPass) throws {
        do {
            let snapshot = try writer.snapshot()
            let changes: ChangeSet
            switch pass {
            case .attributes: changes = try applier.attributes(of: page, snapshot: snapshot, clock: &clock)
            case .references: changes = try applier.references(of: page, snapshot: snapshot, clock: &clock)
            case .everything: preconditionFailure("the engine pulls in two passes (PG4), never .everything")
            }
            guard !changes.isEmpty else { return }
            direct.formUnion(changes.updated.keys)
            try writer.apply(changes)
        } catch {
            writer.rollback()
            throw CdSyncError.store(error, "applying a page of pulled changes")
        }
    }

    /// Writes the cursor, the clock and the schema record (VR1) in the last batch and commits
    /// every page as one local commit (PG2); returns what the commit changed.
    func commit(_ cursor: PullCursor, record: Set<String>) throws -> AppliedChanges {
        var last = ChangeSet()
        last.author = PushCollector.author
        last.sideWrites = [ReplicaState.write(cursor), ReplicaState.write(clock), ReplicaState.write(record: record)]
        do {
            try writer.apply(last)
            return try path.commit(writer, direct)
        } catch {
            writer.rollback()
            throw CdSyncError.store(error, "committing pulled changes")
        }
    }

    /// Discards every page (PG5). Harmless after a failed batch or commit.
    func rollback() { writer.rollback() }
}

// One pull, in pages: the server's changes after the replica's cursor are read a page at a time
// from one server snapshot and applied a page at a time to one local write, which commits once,
// with the new cursor, when the last page is in (docs/SYNC.md, Pull).
//
// Why the pages are not committed one by one: the server keeps each object's current state, not
// the edits that led to it, and an object carries the change number of its last change only. An
// object that transaction T changed and a later T' changed again is read with T' — so a local
// commit of the pages up to T would show T's other objects without T's change to this one: half
// of T. Whatever the page boundaries, only the state of a whole snapshot is a state some replica
// could have pushed to, so that is what a local commit holds.
//
// Invariants:
//  PG1. A pull reads one server snapshot: every page comes from the REPEATABLE READ transaction
//       `beginPull` opened (SP1), in keyset order (SP2), so the pages together are exactly the
//       objects changed after the cursor up to the snapshot's change number, each once: a whole
//       number of pushes (SS4).
//  PG2. Every page is applied to one local write (`ObjectStoreWriter`, BW1), and its last batch
//       writes the new cursor and the clock: the pull becomes visible in one local commit
//       together with its cursor, or not at all. No replica shows part of a pull, so none shows
//       part of a remote transaction, a transaction larger than a page included.
//  PG3. Memory: one page of server rows (`SyncEngineOptions.pullPageSize` objects with their
//       properties) and its change set are held at a time; the local write spills its dirty
//       pages to the WAL (WriteTransaction R6). What grows with the backlog is the set of
//       changed object IDs the commit reports (AppliedChanges, and the IDs a context merge
//       needs), not their values.
//  PG4. Two passes over the snapshot: the attribute pass creates every live object the replica
//       lacks, writes attributes and applies deletes; the reference pass then sets
//       relationships. A reference to an object of a later page so resolves; PA3 drops only
//       references to objects the snapshot does not hold live.
//  PG5. A pull that fails between pages (the server away, a connection cut, a deadline, the
//       replica killed) leaves the local store as it was: the write rolls back (or dies with the
//       process, and recovery ignores an uncommitted transaction), the cursor is unchanged, and
//       the next pull reads again from it. Nothing is applied twice: the server's record of how
//       far the replica pulled moves only in the snapshot's own transaction (SP3), before the
//       local commit, and a pull read again writes only what differs (PA2).
//  PG6. The pull holds the store's writer from its PA1 check to its commit: no local commit
//       lands in between (they wait, at most the pull's duration: pages × serverTimeout).
//  PG7. The local write lives on the pull's own thread (StoreThread.swift) from its beginning to
//       its commit or rollback: the store reserves keys inside a writer only on the thread that
//       holds it (KR2).
//  PG8. Every page, like every exchange, ends within `options.serverTimeout` (SE5).

import CdObjects
import Foundation

extension SyncEngine {
    /// One pull; false when it did not apply: local transactions were pending (push first, PA1)
    /// and `force` is off, or the server's record of our pushes differs (reconciled instead).
    func pullOnce(force: Bool) async throws -> Bool {
        let replica = try await identity()
        let (cursor, pushed, recorded) = try await read { snapshot in
            let state = try ReplicaState(snapshot)
            return (state.cursor, state.pushed, state.schemaRecord)
        }
        // VR2, VR3: the entities this schema knows more of than the last pull did.
        let catchUp = cursor == nil ? [] : schema.grown(since: recorded)
        let server = try await connection()
        let scope = self.scope
        let start: PullStart
        do {
            start = try await deadline(server, "starting a pull") {
                try await server.beginPull(scope, replica: replica, after: cursor, catchUp: catchUp)
            }
        } catch {
            throw ServerConnection.wrap(error, "pulling from \(scope)", address)
        }
        // A server whose record of our pushes differs (restored from a backup, or another copy
        // of this store pushed): reconcile, then push again before pulling (SE2, SE3).
        if start.position != pushed {
            await abandon(server)
            try await reconcile(local: pushed, server: start.position)
            return false
        }
        let thread = StoreThread(name: "cadmium.sync.pull")
        defer { thread.finish() }
        let applier = PullApplier(store: store, schema: schema)
        let path = commitPath
        let session: PullSession
        do { session = try await thread.run { try PullSession(applier: applier, path: path) } } catch {
            await abandon(server)
            throw error
        }
        do {
            if session.pushFirst && !force {  // PA1
                try await thread.run { session.rollback() }
                await abandon(server)
                return false
            }
            let limit = max(1, options.pullPageSize)
            var pages = 0
            for pass in [PullPass.attributes, .references] {  // PG4
                var key = start.firstKey
                while true {
                    let after = key
                    let page = try await deadline(server, "pulling a page") {
                        try await server.pullPage(scope, start, pass, after: after, limit: limit)
                    }
                    try await thread.run { try session.apply(page, pass) }
                    pages += 1
                    try await options.afterPulledPage?(pages)
                    guard page.count == limit, let last = page.last else { break }
                    key = PageKey(sequence: last.sequence, gid: last.gid)
                }
            }
            try await deadline(server, "finishing a pull") {
                try await server.finishPull(scope, replica: replica, start)
            }
            let cursor = PullCursor(sequence: start.sequence, epoch: start.epoch)
            let record = schema.record
            let applied = try await thread.run { try session.commit(cursor, record: record) }  // PG2, VR1
            lastPull = Date()
            let objects = applied.inserted.count + applied.updated.count + applied.deleted.count
            events.yield(.pulled(objects: objects, cursor: start.sequence))
            return true
        } catch {
            try? await thread.run { session.rollback() }  // PG5
            await abandon(server)
            if let e = error as? CdSyncError { throw e }
            throw ServerConnection.wrap(error, "pulling from \(scope)", address)
        }
    }

    /// Ends an unfinished pull's server transaction (SP3); a connection that cannot is dropped.
    private func abandon(_ server: ServerConnection) async {
        guard self.server === server, !server.isClosed else { return }
        do { try await deadline(server, "abandoning a pull") { try await server.abandonPull() } } catch {
            self.server = nil
            server.closeNow()
        }
    }
}

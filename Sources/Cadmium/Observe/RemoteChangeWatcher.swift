// How a process learns that another process committed to its store, and what it does then.
//
// Noticing: the process's polling thread (RemoteChangePoller.swift) reads the store's shared
// stamp every `intervalSeconds` (10 ms):
// two atomic loads of the shared file's sequence and durable words, which every commit,
// checkpoint and durable mark of any process changes. Nothing else runs while the stamp stands
// still, so an idle store costs 100 wake-ups a second of a few microseconds each. When it moved,
// the watcher catches the engine up (it indexes the WAL commits the others appended, which the
// next snapshot would have done anyway) and asks whether a commit of another process became
// visible (Store+ForeignCommits NC1, NC2). Latency: a commit of another process is announced at
// most the interval plus the catch-up and the merge after it is durable (a few milliseconds more).
// Polling shared memory was chosen over inotify on the WAL: it is one load, it sees durability
// (which a write to the WAL does not say), it is portable, and it cannot miss an event.
//
// Delivering: with persistent history, the watcher reads the transactions after the last token it
// read and keeps those this process did not write (OwnHistoryNumbers OH1); their objects are
// merged into the main context as one commit. Without history it cannot tell which objects
// changed: every object the main context holds is refreshed (and those gone are deleted). Then,
// on the main queue and in this order: the merge (with the `Cd.commits` event and
// `cdDidMergeCommit` notification every merge has), the `Cd.remoteChanges` event and the
// `cdStoreRemoteChange` notification.
//
// Invariants:
//  RM1. An event is delivered for every poll that found a newer visible foreign commit, in
//       increasing `storeCommit` order, each after the main context merged what it announces.
//  RM2. Own transactions are never merged twice: a transaction is merged as remote only when its
//       number is not recorded as this store's (OH1), and `lastToken` only grows. A poll that
//       finds no newer foreign commit moves `lastToken` to the newest transaction it read before
//       asking (all of them are this process's, or were announced) and drops their record, so the
//       record stays as small as the commits between two polls (OH2).
//  RM3. The watcher stops (`stop`) before its store closes; a poll already running finishes
//       first, no poll runs after it, and no block it queued touches a container that is gone
//       (they hold the container).
//  RM4. Polling begins on the main queue's first turn after the open, not in the open: what a
//       poll finds reaches the app only through the main queue (RM1), and the stamp and the
//       newest foreign commit are read in the open, so a commit made in between is found by the
//       first poll. The open of a shared store thus starts no thread (RemoteChangePoller RP1).
//
// Confinement: `poll` runs on the polling thread with `pollLock` held, which `stop` takes too;
// the deliveries run on the main queue.

import Foundation
import CdObjects
import CdStore

/// Polls one container's store for other processes' commits and delivers them (RM1–RM3).
final class RemoteChangeWatcher: @unchecked Sendable {
    // @unchecked: the mutable state is touched with `pollLock` held only.
    /// How often the shared stamp is read, in seconds.
    static let intervalSeconds = 0.010

    private weak var container: CdContainer?
    private let store: any StoreBackend
    private let storeURL: URL
    private let pollLock = NSLock()
    private var stopped = false
    private var lastStamp: (sequence: UInt64, durable: UInt64)?
    private var reported: UInt64
    private var lastToken: CdHistoryToken?
    /// This watcher's record of the store's own history transactions (set in init; OH1, OH2):
    /// every container on the store has its own (CN5 of CdContainer.swift).
    private var ownRecord: OwnHistoryNumbers.Consumer?

    /// A watcher for `container`, when its store is shared with other processes; nil otherwise.
    static func start(for container: CdContainer, storeURL: URL?) throws -> RemoteChangeWatcher? {
        guard let storeURL, container.store.sharedStamp != nil else { return nil }
        return try RemoteChangeWatcher(container: container, storeURL: storeURL)
    }

    private init(container: CdContainer, storeURL: URL) throws {
        self.container = container
        store = container.store
        self.storeURL = storeURL
        // What is visible now is this process's starting point, not news.
        reported = try store.newestForeignCommit()
        // Registered whether or not the store keeps history now: a SwiftData container joining
        // the store in this process may start it (OO4), and this process's transactions from then
        // on must be known as its own.
        let record = store.ownHistory.start()
        ownRecord = record
        do {
            if store.isHistoryTracked { lastToken = try store.lastHistoryToken() }
        } catch {
            store.ownHistory.stop(record)
            throw error
        }
        lastStamp = store.sharedStamp
        // Polling starts from the main queue (RM4): every poll's finding is delivered there, so
        // nothing is lost before it runs, and the open itself makes no thread.
        DispatchQueue.main.async { [weak self] in self?.startPolling() }
    }

    /// Joins the polling thread's rounds, unless stopped meanwhile (RM3, RM4).
    private func startPolling() {
        pollLock.withLock {
            if !stopped { RemoteChangePoller.shared.add(self) }
        }
    }

    /// This watcher's own transactions up to `last` (OH2 of OwnHistoryNumbers.swift).
    private func takeOwn(through last: UInt64) -> Set<UInt64> {
        guard let ownRecord else { return [] }
        return store.ownHistory.take(through: last, for: ownRecord)
    }

    /// Stops polling and waits for a poll in progress (RM3).
    func stop() {
        // Stopped first, then out of the rounds: a `startPolling` that runs after this cannot add
        // the watcher back, and one that ran before is undone by the removal.
        pollLock.withLock { stopped = true }
        RemoteChangePoller.shared.remove(self)
        if let ownRecord { store.ownHistory.stop(ownRecord) }
    }

    /// One poll, unless stopped (RM3; the polling thread calls it every interval).
    func tick() {
        pollLock.withLock {
            if !stopped { poll() }
        }
    }

    /// One look at the shared stamp; on news, one delivery (RM1).
    private func poll() {
        guard let stamp = store.sharedStamp else { return }
        if let lastStamp, lastStamp == stamp { return }
        lastStamp = stamp
        // Read before the foreign commit is asked for: when none became visible meanwhile, every
        // transaction up to `newest` is this process's own (RM2), and the record of them goes.
        let newest = store.isHistoryTracked ? try? store.lastHistoryToken() : nil
        guard let container, let foreign = try? store.newestForeignCommit() else { return }
        guard foreign > reported else {
            if let newest, lastToken.map({ newest > $0 }) ?? true {
                lastToken = newest
                _ = takeOwn(through: newest.number)
            }
            return
        }
        reported = foreign
        let (transactions, merge) = changes(container)
        let change = CdRemoteChange(
            storeURL: storeURL, historyToken: lastToken, storeCommit: foreign, transactions: transactions)
        DispatchQueue.main.async { container.deliverRemote(change, merge: merge) }
    }

    /// The other processes' transactions since the last token and what the main context merges
    /// (keeps RM2); without history (or with the history after the token deleted), a refresh of
    /// every object the main context holds.
    private func changes(_ container: CdContainer) -> ([CdHistoryTransaction], AppliedChanges) {
        if store.isHistoryTracked, let all = try? store.history(after: lastToken, author: nil, entity: nil) {
            guard let newest = all.last?.token else { return ([], AppliedChanges()) }
            lastToken = newest
            let own = takeOwn(through: newest.number)
            let theirs = all.filter { !own.contains($0.token.number) }
            var merge = AppliedChanges()
            for change in theirs.flatMap(\.changes) {
                switch change.kind {
                case .insert: merge.inserted.insert(change.objectID)
                case .update: merge.updated.insert(change.objectID)
                case .delete: merge.deleted.insert(change.objectID)
                }
            }
            merge.updated.subtract(merge.deleted)
            merge.inserted.subtract(merge.deleted)
            return (theirs, merge)
        }
        if store.isHistoryTracked {
            lastToken = (try? store.lastHistoryToken()) ?? lastToken
            _ = takeOwn(through: lastToken?.number ?? 0)
        }
        return ([], refreshAll(container))
    }

    /// Every object the main context holds, as updated, or deleted when the store no longer has it.
    private func refreshAll(_ container: CdContainer) -> AppliedChanges {
        var merge = AppliedChanges()
        let held = container.main.registeredObjectIDs()
        guard !held.isEmpty, let snapshot = try? store.beginSnapshot() else { return merge }
        defer { snapshot.end() }
        for id in held {
            if (try? snapshot.exists(id)) == false { merge.deleted.insert(id) } else { merge.updated.insert(id) }
        }
        return merge
    }
}

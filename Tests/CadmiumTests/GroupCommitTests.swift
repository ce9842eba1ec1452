// Group commit through the Cd API (CdContainer ST1–ST3): durable transactions from many threads
// share fsyncs, every one lands, a main-thread fetch after `transactAndWait` sees its commit, the
// main context merges the commits in the order the store wrote them even when their durability
// waits finish in another order, update handlers see each object's events in order, and a
// failed fsync reaches the caller with nothing merged for it.

import Foundation
import Testing
import CdObjects
import CdStore
import CdStoreTesting
@testable import Cadmium

/// An object store whose durability waits finish out of commit order: a commit with an even
/// sequence number sleeps before it waits, so the next commits of its fsync finish first.
/// Records what each commit applied, in the order the store wrote them.
private final class ShufflingStore: StoreBackend, @unchecked Sendable {
    // @unchecked: `inner` is thread-safe and `written` is a lock.
    let inner: ObjectStore
    let written = LockedBox<[AppliedChanges]>([])

    init(_ inner: ObjectStore) { self.inner = inner }

    var model: ObjectModel { inner.model }
    func newObjectIDs(entity: String, count: Int) throws -> [ObjectID] {
        try inner.newObjectIDs(entity: entity, count: count)
    }
    func apply(_ changes: ChangeSet) throws -> AppliedChanges { try inner.apply(changes) }
    func apply(slots changes: SlotChangeSet) throws -> AppliedChanges { try inner.apply(slots: changes) }
    func applyWithoutWaiting(_ changes: ChangeSet) throws -> WrittenApply {
        record(try inner.applyWithoutWaiting(changes))
    }
    func applyWithoutWaiting(slots changes: SlotChangeSet) throws -> WrittenApply {
        record(try inner.applyWithoutWaiting(slots: changes))
    }
    func finishApply(_ written: WrittenApply) throws {
        if let commit = written.commit, commit.rawValue % 2 == 0 { usleep(2_000) }
        try inner.finishApply(written)
    }
    func beginSnapshot() throws -> any SnapshotBackend { try inner.beginSnapshot() }
    func beginWriter() throws -> ObjectStoreWriter { try inner.beginWriter() }
    func history(after token: CdHistoryToken?, author: String?, entity: String?) throws -> [CdHistoryTransaction] {
        try inner.history(after: token, author: author, entity: entity)
    }
    func deleteHistory(before token: CdHistoryToken) throws { try inner.deleteHistory(before: token) }
    var recentChanges: RecentChanges { inner.recentChanges }
    var isHistoryTracked: Bool { inner.isHistoryTracked }
    func lastHistoryToken() throws -> CdHistoryToken? { try inner.lastHistoryToken() }
    var ownHistory: OwnHistoryNumbers { inner.ownHistory }
    var sharedStamp: (sequence: UInt64, durable: UInt64)? { inner.sharedStamp }
    func newestForeignCommit() throws -> UInt64 { try inner.newestForeignCommit() }

    /// Called under the container's save lock, so `written` is in commit order.
    private func record(_ written: WrittenApply) -> WrittenApply {
        self.written.update { $0.append(written.applied) }
        return written
    }
}

/// Records every merge of the main context, in order.
private final class MergeRecorder: MainMergeObserver, @unchecked Sendable {
    // @unchecked: `merged` is a lock.
    let merged = LockedBox<[AppliedChanges]>([])
    func mainContextDidMerge(_ applied: AppliedChanges) { merged.update { $0.append(applied) } }
}

/// Runs `body(w)` for w in 0..<count, each on a thread of its own, and resumes when all are done
/// without blocking the main queue (so writers may hop onto it).
private func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    let group = DispatchGroup()
    for w in 0..<count {
        group.enter()
        Thread {
            body(w)
            group.leave()
        }.start()
    }
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async {
            group.wait()
            done.resume()
        }
    }
}

/// A fresh directory for a store file.
private func temporaryStoreURL() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cd-group-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent("items.cdstore")
}

extension CadmiumSuites {
    @Suite struct GroupCommit {
        /// Durable transactions from many threads: every one lands and is visible to a main-thread
        /// fetch when `transactAndWait` returns; the merges follow commit order although the
        /// durability waits finish out of order; each object's update handler sees its updates,
        /// then its delete.
        @MainActor @Test func concurrentDurableTransactionsLandAndMergeInCommitOrder() async throws {
            let url = try temporaryStoreURL()
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let model = try CdModel(classes: [TestItem.self])
            let store = ShufflingStore(try ObjectStore.open(path: url.path, model: model.objectModel))
            let container = CdContainer(model: model, store: store)
            Cd.reset()
            Cd.globals.withLock { $0.container = container }
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            defer {
                Cd.globals.withLock { $0.container = nil }
                try? store.inner.close()
            }
            let recorder = MergeRecorder()
            container.main.observeMerges(recorder)
            let writers = 8, updates = 6
            try background {
                try Cd.transactAndWait {
                    for w in 0..<writers {
                        let item = try Cd.create(TestItem.self)
                        item.id = Int64(w)
                        item.name = "\(w)-0"
                    }
                }
            }
            let items = try Cd.objects(TestItem.self).fetch().sorted { $0.id < $1.id }
            try #require(items.count == writers)
            let events = LockedBox<[Int: [CdManagedObjectUpdateEvent]]>([:])
            for (w, item) in items.enumerated() {
                item.updateHandler = { event in events.update { $0[w, default: []].append(event) } }
            }
            let failures = LockedBox<[String]>([])
            await onThreads(writers) { w in
                do {
                    for k in 1...updates {
                        try Cd.transactAndWait(serial: false) {
                            let item = try Cd.objects(TestItem.self).filter("id == %@", Int64(w)).fetchOne()
                            item?.name = "\(w)-\(k)"
                        }
                        // The commit is durable and visible: a main-thread fetch sees it now.
                        let seen = DispatchQueue.main.sync {
                            (try? Cd.objects(TestItem.self).filter("id == %@", Int64(w)).fetchOne())?.name
                        }
                        if seen != "\(w)-\(k)" { failures.update { $0.append("writer \(w) saw \(seen ?? "nil")") } }
                    }
                    try Cd.transactAndWait(serial: false) {
                        try Cd.objects(TestItem.self).filter("id == %@", Int64(w)).delete()
                    }
                } catch {
                    failures.update { $0.append("writer \(w): \(error)") }
                }
            }
            #expect(failures.get() == [])
            let commits = 1 + writers * (updates + 1)
            #expect(store.written.get().count == commits)
            #expect(await waitUntil { recorder.merged.get().count == commits })
            #expect(recorder.merged.get() == store.written.get(), "merges in the order the store wrote the commits")
            #expect(await waitUntil { events.get().values.map(\.count).reduce(0, +) == writers * (updates + 1) })
            for w in 0..<writers {
                #expect(events.get()[w] == Array(repeating: .updated, count: updates) + [.deleted], "object \(w)")
            }
            #expect(try Cd.objects(TestItem.self).count() == 0)
            withExtendedLifetime(items) {}
        }

        /// A failed fsync fails every transaction waiting for it, each caller gets the error, and
        /// nothing is merged into the main context for them.
        @MainActor @Test func aFailedSyncReachesEveryCallerAndIsNotMerged() async throws {
            let files = FaultInjectingFileSystem(logsOperations: false)
            var options = StoreOptions()
            options.fileSystem = files
            let model = try CdModel(classes: [TestItem.self])
            try Cd.initWithStore(model: model, storeURL: URL(fileURLWithPath: "/fault.cdstore"), options: options)
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            defer { Cd.reset() }
            try background { try Cd.transactAndWait { try Cd.create(TestItem.self).name = "seed" } }
            #expect(try Cd.objects(TestItem.self).count() == 1)
            let container = try #require(Cd.container)
            // Let the seed's merge run before recording.
            #expect(await waitUntil { container.merges.withLock { $0.ready.isEmpty } })
            let recorder = MergeRecorder()
            container.main.observeMerges(recorder)
            files.plan = .failEvery(.sync)
            let writers = 4
            let outcomes = LockedBox<[Int: String]>([:])
            await onThreads(writers) { w in
                do {
                    try Cd.transactAndWait(serial: false) { try Cd.create(TestItem.self).name = "lost \(w)" }
                    outcomes.update { $0[w] = "committed" }
                } catch let error as CdError {
                    outcomes.update { $0[w] = "CdError \(error)" }
                } catch {
                    outcomes.update { $0[w] = "\(error)" }
                }
            }
            let results = outcomes.get()
            #expect(results.count == writers)
            for (w, outcome) in results {
                #expect(outcome.hasPrefix("CdError"), "writer \(w): \(outcome)")
            }
            // A merge would be queued before the callers return; give the main queue a turn.
            try await Task.sleep(nanoseconds: 50_000_000)
            #expect(recorder.merged.get() == [], "a failed commit was merged")
            #expect(container.merges.withLock { $0.ready.isEmpty })
        }

        /// The reorder buffer: tickets finishing out of order release their merges in ticket
        /// order, failed ones release none, and a drain is asked for only when the ready list
        /// becomes non-empty.
        @Test func mergeQueueReleasesInTicketOrder() {
            func merge(_ key: Int64) -> PendingMerge {
                var applied = AppliedChanges()
                applied.inserted = [ObjectID(entity: "TestItem", primaryKey: key)]
                return PendingMerge(direct: [], applied: applied)
            }
            var queue = MergeQueue()
            let tickets = (0..<4).map { _ in queue.takeTicket() }
            #expect(tickets == [0, 1, 2, 3])
            let wakes = [queue.finish(2, merge(2)), queue.finish(1, nil)]
            #expect(wakes == [false, false], "ticket 0 is still waiting")
            #expect(queue.ready.isEmpty)
            let wakeAtZero = queue.finish(0, merge(0))
            #expect(wakeAtZero, "0, 1 (failed) and 2 are released: wake the main queue")
            #expect(queue.ready.map(\.applied) == [merge(0).applied, merge(2).applied])
            let wakeAtThree = queue.finish(3, merge(3))
            #expect(!wakeAtThree, "a drain is already scheduled")
            #expect(queue.ready.map(\.applied) == [0, 2, 3].map { merge($0).applied })
        }
    }
}

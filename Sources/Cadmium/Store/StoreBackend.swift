// The part of the object store (`docs/design/object-store-api.md`) that the context layer uses,
// as two protocols, which `ObjectStore` and `ObjectSnapshot` adopt below. The seam keeps the
// context layer's needs in one place (and lets a test substitute a store).
//
// Confinement: a `StoreBackend` is thread-safe (any number of snapshots on any threads, the
// write halves of applies serialised, their durability waits concurrent); a `SnapshotBackend`
// is used by one thread at a time.

import CdObjects
import CdStore

/// The object store as the context layer uses it. Thread-safe.
protocol StoreBackend: AnyObject, Sendable {
    var model: ObjectModel { get }
    func newObjectIDs(entity: String, count: Int) throws -> [ObjectID]
    func apply(_ changes: ChangeSet) throws -> AppliedChanges
    /// `apply` of a change set in slot form (`PropertySlots` of each entity).
    func apply(slots changes: SlotChangeSet) throws -> AppliedChanges
    /// The first half of `apply`: writes the commit, frees the writer, does not wait for
    /// durability. Pass the result to `finishApply` before treating the commit as done.
    func applyWithoutWaiting(_ changes: ChangeSet) throws -> WrittenApply
    /// `applyWithoutWaiting` of a change set in slot form.
    func applyWithoutWaiting(slots changes: SlotChangeSet) throws -> WrittenApply
    /// The second half of `apply`: returns once the written commit is durable and visible to new
    /// snapshots; throws when its fsync failed.
    func finishApply(_ written: WrittenApply) throws
    func beginSnapshot() throws -> any SnapshotBackend
    /// Begins a streaming write (`ObjectStoreWriter`): holds the store's writer until it commits
    /// or rolls back.
    func beginWriter() throws -> ObjectStoreWriter
    /// The store's log of recent commits (the error merge policy's check, RC1–RC3).
    var recentChanges: RecentChanges { get }
    /// The persistent history after `token` (`ObjectStore.history(after:author:entity:)`).
    func history(after token: CdHistoryToken?, author: String?, entity: String?) throws -> [CdHistoryTransaction]
    /// Deletes the persistent history before `token` (`ObjectStore.deleteHistory(before:)`).
    func deleteHistory(before token: CdHistoryToken) throws
    /// Whether the store records persistent history.
    var isHistoryTracked: Bool { get }
    /// The token of the newest recorded transaction (`ObjectStore.lastHistoryToken()`).
    func lastHistoryToken() throws -> CdHistoryToken?
    /// The history transactions this store wrote (OwnHistoryNumbers OH1).
    var ownHistory: OwnHistoryNumbers { get }
    /// A value every other process's commit changes; nil when no other process can open the
    /// store (Store+ForeignCommits).
    var sharedStamp: (sequence: UInt64, durable: UInt64)? { get }
    /// Catches up with the other processes; the newest commit of another one that new snapshots
    /// show (Store+ForeignCommits NC1, NC2).
    func newestForeignCommit() throws -> UInt64
}

/// A read snapshot of the last commit. One thread at a time.
protocol SnapshotBackend: AnyObject {
    /// The commit this snapshot sees, as a number that grows with every commit.
    var commitNumber: UInt64 { get }
    func values(of id: ObjectID) throws -> [String: PropertyValue]?
    func exists(_ id: ObjectID) throws -> Bool
    func related(_ id: ObjectID, _ relationship: String) throws -> [ObjectID]
    func fetchIDs(_ request: FetchRequest, pending: ChangeSet?) throws -> [ObjectID]
    func fetchObjects(
        _ request: FetchRequest, pending: ChangeSet?
    ) throws -> [(id: ObjectID, values: [String: PropertyValue]?)]
    /// `fetchObjects` with each match's stored values by slot (`PropertySlots`), every stored
    /// value of the record (`propertiesToFetch` ignored).
    func fetchSlotObjects(
        _ request: FetchRequest, pending: ChangeSet?
    ) throws -> [(id: ObjectID, values: [PropertyValue?]?)]
    func fetchRows(_ request: FetchRequest, pending: ChangeSet?) throws -> [[String: PropertyValue]]
    func count(_ request: FetchRequest, pending: ChangeSet?) throws -> Int
    func end()
}

// MARK: - The object store

extension ObjectStore: StoreBackend {
    func beginSnapshot() throws -> any SnapshotBackend { try beginRead() }
    var sharedStamp: (sequence: UInt64, durable: UInt64)? { engine.sharedStamp }
    func newestForeignCommit() throws -> UInt64 {
        do { return try engine.newestForeignCommit().rawValue } catch let e as StoreError { throw CdError.store(e) }
    }
}

extension ObjectSnapshot: SnapshotBackend {
    var commitNumber: UInt64 { commit.rawValue }
}

// A context: the objects of one place (the main thread, or one transaction) and, for a
// transaction, its uncommitted changes. Three kinds (docs/CADMIUM-API.md §4):
//
//   root         owns the store's writer: `save` hands a change set to `ObjectStore.apply` and
//                schedules the merge into the main context. Holds no objects.
//   main         read-only, bound to the main thread. Objects are registered weakly; a fetch
//                reads a fresh snapshot and refreshes the objects it returns, so it sees every
//                commit at once; `merge` (on the main queue after each commit) refaults changed
//                objects and sends update events.
//   snapshot     `Cd.read`: read-only, every load and fetch from one pinned snapshot.
//   transaction  a fresh one per transaction body, a child of the root. Keeps its objects and
//                changes in memory; fetches pass its pending change set to the store so they see
//                its own changes; `commit` sends one change set through the root.
//   editing      `CdEditingContext`: long-lived and editable on the main actor. Holds its changes
//                until `save` (as a transaction commits them, any number of times) or `rollback`;
//                fetches see them; never flushes. Objects are registered weakly, and pending ones
//                are held by the change lists (MC5); after each commit's main merge it refaults
//                the objects the commit changed, keeping its own edits (MC6).
//
// Invariants:
//   MC1. An object appears at most once per context: `registry[id]` is the only object of `id`.
//   MC2. The inserted objects (`insertedObjects` less those deleted since), `deleted` and the
//        changed slots of the objects in `changedObjects` are exactly the uncommitted changes;
//        `pendingChanges()` turns them into one `ChangeSet` and `didCommit` clears them.
//        A to-many whose inverse is a to-one travels as its members' to-one values
//        (`CdModel.changeSetValues`).
//   MC3. `generation` grows with every change, so a change set built at one generation is
//        current exactly while the generation has not moved.
//   MC4. A snapshot context (`Cd.read`) keeps at most about twice the objects that somebody else
//        holds, and at least `sweepFloor`: when `retained` reaches `sweepAt`, the objects only
//        `retained` holds are dropped. Its objects are read-only and every read comes from the
//        one pinned snapshot, so a dropped object fetched again has the same values, and its
//        identity could only be compared through a reference somebody holds, which keeps it
//        (MC1). A loop of fetches in one `Cd.read` thus runs in memory for its live results,
//        not for everything it ever fetched.
//
//   MC5. An editing context holds every object with uncommitted changes strongly: inserted and
//        changed ones in `insertedObjects` / `changedObjects`, deleted ones in `heldDeleted`; its
//        clean objects only weakly (`registry`), as the main context does.
//   MC6. In the main queue's merge of each commit (`mainContextDidMerge`), an editing context's
//        objects that the commit changed are refaulted: their next read gives the stored values,
//        with their uncommitted changes (changed slots, changed to-many lists) kept on top; the
//        clean ones the commit deleted are marked deleted.
//
// Confinement: a main or editing context is used on the main thread, a transaction context on
// the thread running its body. `lock` guards the registry and change lists so that a misuse that the
// handler lets through cannot corrupt memory; `generation` is atomic, so a property write
// (the hot path) touches the context's lock only for an object's first change.

import Foundation
import CdObjects
import CdStore
import Synchronization

/// A context of objects: the main context (main thread, read-only), a transaction's context, or
/// an editing context's (``CdEditingContext/context``). A transaction's is reached through
/// ``Cd/transactionContext()``; most code never needs it.
public final class CdManagedObjectContext: @unchecked Sendable, CustomStringConvertible {
    enum Kind { case root, main, transaction, snapshot, editing }

    let kind: Kind
    let container: CdContainer
    /// A number for messages ("transaction context #12").
    let number: Int

    let lock = Lock()
    /// Main, root and editing contexts: objects held weakly (MC1).
    var registry: [ObjectID: WeakObject] = [:]
    /// Transaction and snapshot contexts: objects held until the body ends (MC1), except those
    /// a flush made clean (`released`); a snapshot context drops the ones nobody else holds (MC4).
    var retained: [ObjectID: CdManagedObject] = [:]
    /// Snapshot context: the size of `retained` at which the next sweep runs (MC4).
    private var sweepAt = CdManagedObjectContext.sweepFloor
    /// The fewest objects a snapshot context keeps without sweeping (MC4).
    static let sweepFloor = 4096
    /// Transaction context: objects a flush wrote and made clean, held weakly (MC1, BW5 in
    /// CdManagedObjectContext+Flush.swift).
    var released: [ObjectID: WeakObject] = [:]
    /// Transaction context: the store writer holding the flushed changes (BW4), if any.
    var writer: ObjectStoreWriter?
    /// Transaction context: why a flush failed; the commit throws it (BW6).
    var flushFailure: (any Error)?
    /// Transaction context: the objects flushed batches updated themselves.
    var flushedDirect: Set<ObjectID> = []
    /// Objects inserted in this context, in order (those deleted since are skipped, MC2).
    var insertedObjects: [CdManagedObject] = []
    /// Inserted objects not deleted since.
    var liveInserted = 0
    var deleted: Set<ObjectID> = []
    /// Editing context: the objects deleted since the last save, held until then (MC5).
    var heldDeleted: [CdManagedObject] = []
    /// Objects with changed slots, each listed once (`State.listed`, MC2).
    var changedObjects: [CdManagedObject] = []
    /// `pendingChanges()` as last built, with the generation it was built at (fetches in a
    /// transaction ask for it each time, so a loop of fetches does not rebuild it).
    var pendingCache: (ChangeSet, generation: Int)?
    /// Counts changes (MC3).
    private let generation = Atomic<Int>(0)
    /// Main context: objects with an update handler.
    private var watched: [ObjectID: WeakObject] = [:]
    /// Main context: values of prefetched objects, for when the object is next needed (the
    /// main context holds its objects weakly, so a prefetched target nobody holds is gone by
    /// then). Used once; cleared at every merge.
    private var prefetchedRows: [ObjectID: [String: PropertyValue]] = [:]
    /// Main context: fetched results controllers, told after each merge.
    private var mergeObservers: [WeakMergeObserver] = []

    /// The pinned snapshot of a `.snapshot` context.
    let pinned: (any SnapshotBackend)?
    /// This context's merge policy, if set (`mergePolicy`).
    private var ownMergePolicy: MergePolicy?
    /// `transactionAuthor` and `name`, guarded by `lock`.
    private var ownAuthor: String?, ownName: String?

    /// Who makes this transaction's changes, recorded with its commit in the store's persistent
    /// history (Core Data's `NSManagedObjectContext.transactionAuthor`); nil by default.
    ///
    /// ```swift
    /// try Cd.transactAndWait {
    ///     try Cd.transactionContext().transactionAuthor = "importer"
    ///     let ann = try Cd.create(Employee.self)
    /// }
    /// ```
    public var transactionAuthor: String? {
        get { lock.withLock { ownAuthor } }
        set { lock.withLock { ownAuthor = newValue } }
    }

    /// A name of this context, recorded with its commits in the persistent history
    /// (`CdHistoryTransaction.contextName`); nil by default.
    ///
    /// ```swift
    /// try Cd.transactionContext().name = "sync"
    /// ```
    public var name: String? {
        get { lock.withLock { ownName } }
        set { lock.withLock { ownName = newValue } }
    }

    /// How this context's commit resolves attributes that another transaction changed after this
    /// one read them (Core Data's `NSManagedObjectContext.mergePolicy`); nil, the default, uses
    /// the store's, ``Cd/mergePolicy``. Links of to-many relationships never conflict: they merge
    /// link by link.
    ///
    /// ```swift
    /// try Cd.transactAndWait {
    ///     try Cd.transactionContext().mergePolicy = .error   // fail with 133020 on a conflict
    ///     account.balance += 10
    /// }
    /// ```
    public var mergePolicy: MergePolicy? {
        get { lock.withLock { ownMergePolicy } }
        set { lock.withLock { ownMergePolicy = newValue } }
    }

    /// The policy a commit of this context uses.
    var effectiveMergePolicy: MergePolicy { mergePolicy ?? container.mergePolicy.withLock { $0 } }

    /// Transaction context: the store's `RecentChanges.visible` when it began (RC2); its
    /// commit's conflicts under the error merge policy are counted from here (CA7).
    private let createdStamp: UInt64

    /// Where the commit's conflicts under the error merge policy count from (CA7): a
    /// transaction's start. An editing context has none: it lives across many commits, reads
    /// each object at its own time and refreshes it at every merge, so one stamp would make a
    /// commit that changed an object before this context read it a conflict. Its conflicts are
    /// found by value (CA5) and by deletion (CA6).
    var startStamp: UInt64? { kind == .editing ? nil : createdStamp }

    init(kind: Kind, container: CdContainer, number: Int, snapshot: (any SnapshotBackend)? = nil) {
        self.pinned = snapshot
        self.kind = kind
        self.container = container
        self.number = number
        self.createdStamp = container.store.recentChanges.visible
    }

    /// "the main context", "transaction context #12", …, for messages.
    public var description: String {
        switch kind {
        case .root: return "the root save context"
        case .main: return "the main context"
        case .transaction: return "transaction context #\(number)"
        case .snapshot: return "a read snapshot context (Cd.read)"
        case .editing: return "editing context #\(number)"
        }
    }

    /// Whether the context has uncommitted changes.
    public var hasChanges: Bool {
        let listed = lock.withLock { () -> [CdManagedObject]? in
            if liveInserted > 0 || !deleted.isEmpty || writer != nil { return nil }
            return changedObjects
        }
        guard let listed else { return true }
        return listed.contains { $0.withState { $0.hasChangedValues } }
    }

    /// The registered object of `id` (the lock is held).
    @inline(__always)
    private func lookupLocked(_ id: ObjectID) -> CdManagedObject? {
        if kind == .transaction || kind == .snapshot {
            if let object = retained[id] { return object }
            return released.isEmpty ? nil : released[id]?.object
        }
        return registry[id]?.object
    }

    /// Notes a change (keeps MC3).
    @inline(__always)
    func bump() { generation.add(1, ordering: .relaxed) }

    // MARK: - Objects

    /// The object of `id` in this context: the registered one, or a new fault.
    func object(for id: ObjectID) -> CdManagedObject? {
        if let object = lock.withLock({ lookupLocked(id) }) { return object }
        return newObject(for: id)
    }

    /// A new fault of `id`, registered, for an `id` that had no object a moment ago (another
    /// thread's misuse may have registered one since: that one is returned, MC1).
    private func newObject(for id: ObjectID) -> CdManagedObject {
        // Made outside the lock: the object's lock is never taken under the context's (OL1).
        let object = container.model.newInstance(for: id)
        // Only the main context keeps prefetched rows (`keepPrefetched`).
        let row = kind == .main ? lock.withLock { prefetchedRows.removeValue(forKey: id) } : nil
        object.withState { state in
            state.context = self
            state.objectID = id
            if let row {
                state.values = row
                state.loaded = true
            }
        }
        var dropped: [CdManagedObject] = []
        let registered = lock.withLock { () -> CdManagedObject in
            // Another call may have registered one meanwhile (a misuse across threads): MC1.
            if let known = lookupLocked(id) { return known }
            registerLocked(object, id)
            if kind == .snapshot && retained.count >= sweepAt { dropped = sweepUnheldLocked() }
            return object
        }
        // The dropped objects are released here, outside the lock: a subclass's deinit may read.
        dropped.removeAll()
        return registered
    }

    /// The IDs of the objects registered now (and still alive).
    func registeredObjectIDs() -> [ObjectID] {
        lock.withLock { registry.compactMap { $0.value.object == nil ? nil : $0.key } }
    }

    /// The registered object of `id`, if any.
    func registered(_ id: ObjectID) -> CdManagedObject? {
        lock.withLock { lookupLocked(id) }
    }

    private func registerLocked(_ object: CdManagedObject, _ id: ObjectID) {
        if kind == .transaction || kind == .snapshot {
            retained[id] = object
        } else {
            registry[id] = WeakObject(object)
        }
    }

    /// Snapshot context: takes out the objects that only `retained` holds, and sets the next
    /// sweep at twice what is left (keeps MC4). Amortized O(1) per registered object. Returns
    /// them, for the caller to release once the lock is free.
    private func sweepUnheldLocked() -> [CdManagedObject] {
        var unheld: [ObjectID] = []
        var index = retained.startIndex
        while index != retained.endIndex {
            if isKnownUniquelyReferenced(&retained.values[index]) { unheld.append(retained.keys[index]) }
            index = retained.index(after: index)
        }
        let dropped = unheld.compactMap { retained.removeValue(forKey: $0) }
        sweepAt = max(Self.sweepFloor, retained.count * 2)
        return dropped
    }

    /// How many objects the context holds (transaction and snapshot contexts), for tests of MC4.
    var retainedCount: Int { lock.withLock { retained.count } }

    /// Adds a new object (from create or insert) as inserted in this context.
    func insertNew(_ object: CdManagedObject, id: ObjectID) {
        object.withState { state in
            state.context = self
            state.objectID = id
            state.isInserted = true
            state.loaded = true
        }
        lock.withLock {
            registerLocked(object, id)
            insertedObjects.append(object)
            liveInserted += 1
        }
        bump()
    }

    /// `count` new objects of `T` (of `entity`), with their defaults and new permanent IDs,
    /// inserted in this context.
    func createNew<T: CdManagedObject>(_ type: T.Type, entity: String, count: Int) throws -> [T] {
        let ids = try container.store.newObjectIDs(entity: entity, count: count)
        return ids.map { id in
            let object = T()
            object.prepareNew(entity: entity, in: container.model)
            insertNew(object, id: id)
            return object
        }
    }

    /// Inserts a transient object (no context) as a new object of this context, with a new
    /// permanent ID: its attribute values are carried over, its relationships start empty.
    func insertTransient(_ object: CdManagedObject) throws {
        let entity = object.withState { $0.entityName }
        let id = try container.store.newObjectIDs(entity: entity, count: 1)[0]
        let model = container.model.objectModel
        object.withState { state in
            var values = Cd.defaultValues(of: entity, in: model)
            for (key, value) in state.values { if case .attribute = value { values[key] = value } }
            state.values = values
            state.transientRelated = [:]
            state.changedKeys = []
        }
        insertNew(object, id: id)
    }

    /// Marks `object` deleted. An object inserted in this context never reaches the store, so
    /// its delete rules run here: cascade deletes its targets, deny throws 1600, nullify and no
    /// action remove it from the inverse side of its targets.
    /// A deny rule that refuses the delete throws before anything is marked, so a refused delete
    /// leaves every object as it was (an editing context goes on after it).
    func markDeleted(_ object: CdManagedObject) throws {
        var visited: Set<ObjectIdentifier> = []
        try checkDenyRules(object, &visited)
        markDeletedChecked(object)
    }

    /// Throws the error of the first deny rule that the delete of `object` (an object inserted in
    /// this context, and the inserted objects its cascades reach) would break. A stored object's
    /// rules run in the store at the commit.
    private func checkDenyRules(_ object: CdManagedObject, _ visited: inout Set<ObjectIdentifier>) throws {
        guard visited.insert(ObjectIdentifier(object)).inserted else { return }
        guard let id = object.objectID, !object.isDeleted, object.withState({ $0.isInserted }) else { return }
        try forEachLink(of: object, id) { relationship, targets in
            switch relationship.deleteRule {
            case .deny:
                if let error = relationship.validateDelete(
                    relatedCount: targets.count, entityName: id.entity, objectID: "\(id)")
                {
                    throw error
                }
            case .cascade:
                for target in targets { if let t = self.object(for: target) { try checkDenyRules(t, &visited) } }
            case .nullify, .noAction:
                break
            }
        }
    }

    /// Calls `body` with each stored relationship of `object` (whose ID is `id`) that has
    /// targets, and those targets.
    private func forEachLink(
        of object: CdManagedObject, _ id: ObjectID, _ body: (RelationshipDescription, [ObjectID]) throws -> Void
    ) rethrows {
        for relationship in container.model.objectModel.allRelationships(of: id.entity) where !relationship.isTransient
        {
            let targets = object.rawTargets(relationship.name)
            if !targets.isEmpty { try body(relationship, targets) }
        }
    }

    /// `markDeleted` once the deny rules passed.
    private func markDeletedChecked(_ object: CdManagedObject) {
        guard let id = object.objectID, !object.isDeleted else { return }
        let wasInserted = object.withState { $0.isInserted }
        if wasInserted {
            forEachLink(of: object, id) { relationship, targets in
                switch relationship.deleteRule {
                case .deny:
                    break  // checked over the whole cascade first (checkDenyRules)
                case .cascade:
                    object.withState { $0.isDeleted = true }
                    for target in targets { if let t = self.object(for: target) { markDeletedChecked(t) } }
                case .nullify, .noAction:
                    guard let inverse = relationship.inverse,
                        let back = container.model.relationship(inverse, of: relationship.destination)
                    else { return }
                    for target in targets {
                        self.object(for: target)?.rawRemoveTarget(
                            id, inverse, toMany: back.isToMany, ordered: back.isOrdered)
                    }
                }
            }
        }
        object.withState { $0.isDeleted = true }
        lock.withLock {
            if wasInserted { liveInserted -= 1 } else { deleted.insert(id) }
            if kind == .editing { heldDeleted.append(object) }  // MC5
        }
        bump()
    }

    /// Records that `object` changed a slot; `first`: its first change, so it joins the list of
    /// changed objects (keeps MC2, MC3).
    @inline(__always)
    func noteChanged(_ object: CdManagedObject, first: Bool) {
        if first { lock.withLock { changedObjects.append(object) } }
        bump()
    }

    // MARK: - Loading

    /// A snapshot to read from: the pinned one, or a fresh one (the caller ends it).
    /// A transaction context that flushed reads through its writer (BW7).
    func readSnapshot() throws -> (any SnapshotBackend, ended: Bool) {
        if let pinned { return (pinned, false) }
        if let flushed = try flushedSnapshot() { return (flushed, false) }
        return (try container.store.beginSnapshot(), true)
    }

    func loadValues(_ id: ObjectID) throws -> [String: PropertyValue]? {
        if let pinned { return try pinned.values(of: id) }
        if let flushed = try flushedSnapshot() { return try flushed.values(of: id) }
        let snapshot = try container.store.beginSnapshot()
        defer { snapshot.end() }
        return try snapshot.values(of: id)
    }

    func loadRelated(_ id: ObjectID, _ key: String) throws -> [ObjectID] {
        if let pinned { return try pinned.related(id, key) }
        if let flushed = try flushedSnapshot() { return try flushed.related(id, key) }
        let snapshot = try container.store.beginSnapshot()
        defer { snapshot.end() }
        return try snapshot.related(id, key)
    }

    /// The objects of `ids`, with values from `snapshot`. Objects with changes in this context
    /// keep them; the main context refreshes the others, so a main-thread fetch sees the last
    /// commit even before the merge.
    ///
    /// - Parameters:
    ///   - keys: `onlyProperties` of an object query: only these values are kept, the objects
    ///     stay faults for the others.
    ///   - batchSize: above 0, the objects to refresh are left as faults in batches of this
    ///     size; reading one loads its batch from one snapshot (`FaultBatch`).
    ///   - values: the objects' values as the query read them (`fetchObjects`), so that they are
    ///     not read from the snapshot a second time.
    ///   - slotValues: the same in slot form (`fetchSlotObjects`), taken as the objects' buffers.
    func materialize(
        _ ids: [ObjectID], from snapshot: any SnapshotBackend, keys: Set<String>? = nil,
        batchSize: Int = 0, values preloaded: [[String: PropertyValue]?]? = nil,
        slotValues: [[PropertyValue?]?]? = nil
    ) throws -> [CdManagedObject] {
        var faults: [CdManagedObject] = []
        // `preloaded[i]`, when given, is what `snapshot.values(of: ids[i])` would answer. A
        // `slotValues` buffer that does not fit its object's slots is read again by name.
        func values(_ index: Int, _ id: ObjectID) throws -> [String: PropertyValue]? {
            if let preloaded { return preloaded[index] }
            return try snapshot.values(of: id)
        }
        let objects = try ids.enumerated().map { index, id -> CdManagedObject in
            let known = registered(id)
            let object = known ?? newObject(for: id)
            if known == nil || kind == .main || kind == .editing || !object.withState({ $0.loaded }) {
                if batchSize > 0 {
                    object.refresh(with: nil)
                    if !object.withState({ $0.loaded || $0.isInserted || !$0.changedKeys.isEmpty }) {
                        faults.append(object)
                    }
                } else if let keys {
                    object.refreshPartially(with: try values(index, id), keys: keys)
                } else if let slotValues, object.refresh(withSlots: slotValues[index]) {
                    // Refreshed from the buffer as it is.
                } else {
                    object.refresh(with: try values(index, id))
                }
            }
            return object
        }
        if batchSize > 0 {
            for start in stride(from: 0, to: faults.count, by: batchSize) {
                let members = Array(faults[start..<min(start + batchSize, faults.count)])
                let batch = FaultBatch(context: self, objects: members, keys: keys)
                for member in members { member.withState { $0.batch = batch } }
            }
        }
        return objects
    }

    // MARK: - Changes

    /// The changes a fetch in this context overlays on the store: a transaction's or an editing
    /// context's uncommitted changes (`pendingChanges()`), or nil when it has none to overlay — no object inserted,
    /// deleted or changed since its last commit or flush (MC2), so `pendingChanges()` would be
    /// empty, which the store reads as nil. Checked under the lock without building the change
    /// set: a transaction's first fetch (the usual "fetch, then change" body) builds nothing.
    func overlayChanges() -> ChangeSet? {
        guard kind == .transaction || kind == .editing else { return nil }
        let untouched = lock.withLock { insertedObjects.isEmpty && deleted.isEmpty && changedObjects.isEmpty }
        return untouched ? nil : pendingChanges()
    }

    /// The context's uncommitted changes as one change set (keeps MC2).
    func pendingChanges() -> ChangeSet {
        let start = generation.load(ordering: .relaxed)
        let (cached, insertedList, deletedIDs, changedList) = lock.withLock {
            (pendingCache, insertedObjects, deleted, changedObjects)
        }
        if let cached, cached.generation == start { return cached.0 }
        var changes = ChangeSet()
        changes.deleted = deletedIDs
        changes.inserted.reserveCapacity(insertedList.count)
        let model = container.model
        for object in insertedList {
            let entry = object.withState {
                state -> (ObjectID, [PropertyValue?], ObjectSlots?, [String: PropertyValue])? in
                guard state.isInserted, !state.isDeleted, let id = state.objectID else { return nil }
                return (id, state.buffer, state.slots, state.extra)
            }
            guard let (id, buffer, slots, extra) = entry else { continue }
            changes.inserted[id] =
                slots.map { model.changeSetValues(buffer, slots: $0) }
                ?? model.changeSetValues(extra, of: id.entity)
        }
        for object in changedList {
            let entry = object.withState {
                state -> (ObjectID, [String: PropertyValue], [String: ToManyDelta], [String: CdValue]?)? in
                guard !state.isInserted, !state.isDeleted, let id = state.objectID, state.hasChangedValues
                else { return nil }
                var values =
                    state.slots.map { model.changeSetValues(state.buffer, slots: $0, only: state.changed) }
                    ?? [:]
                for key in state.changedExtra { values[key] = state.extra[key] }
                // To-many changes travel as deltas (MO4), not as the lists.
                var deltas: [String: ToManyDelta] = [:]
                if let slots = state.slots {
                    for (slot, delta) in state.listChanges where !delta.isEmpty {  // carried only (MO4)
                        let name = slots.name(of: slot)
                        values[name] = nil
                        deltas[name] = delta
                    }
                }
                var read: [String: CdValue]?
                if let slots = state.slots, let buffer = state.readValues {
                    var byName: [String: CdValue] = [:]
                    for slot in state.changed.slots where slot < buffer.count {
                        if case let .attribute(v)? = buffer[slot] { byName[slots.name(of: slot)] = v }
                    }
                    read = byName
                }
                return (id, values, deltas, read)
            }
            guard let (id, values, deltas, read) = entry, !deletedIDs.contains(id) else { continue }
            let carried = model.changeSetValues(values, of: id.entity)
            if !carried.isEmpty { changes.updated[id] = carried }
            if !deltas.isEmpty { changes.toManyDeltas[id] = deltas }
            if let read, !read.isEmpty { changes.read[id] = read }
        }
        changes.mergePolicy = effectiveMergePolicy
        changes.startStamp = startStamp
        (changes.author, changes.contextName) = lock.withLock { (ownAuthor, ownName) }
        lock.withLock { if generation.load(ordering: .relaxed) == start { pendingCache = (changes, start) } }
        return changes
    }

    /// The context's uncommitted changes in slot form (keeps MC2), or nil when an object's
    /// entity has no slots in the model (then `pendingChanges()` carries it by name). An
    /// inserted object's buffer travels as it is (shared, not copied) when every slot is carried.
    func pendingSlotChanges() -> SlotChangeSet? {
        let (insertedList, deletedIDs, changedList) = lock.withLock { (insertedObjects, deleted, changedObjects) }
        var changes = SlotChangeSet()
        changes.deleted = deletedIDs
        changes.inserted.reserveCapacity(insertedList.count)
        for object in insertedList {
            let entry = object.withState { state -> SlotChangeSet.Entry?? in
                guard state.isInserted, !state.isDeleted, let id = state.objectID else { return .some(nil) }
                guard let slots = state.slots else { return nil }
                if slots.carriesAll { return SlotChangeSet.Entry(id: id, values: state.buffer) }
                var values = state.buffer
                for slot in values.indices where !slots.carried[slot] { values[slot] = nil }
                return SlotChangeSet.Entry(id: id, values: values)
            }
            guard let entry else { return nil }
            if let entry { changes.inserted.append(entry) }
        }
        for object in changedList {
            let entry = object.withState { state -> SlotChangeSet.Entry?? in
                guard !state.isInserted, !state.isDeleted, let id = state.objectID, !state.changed.isEmpty,
                    !deletedIDs.contains(id)
                else { return .some(nil) }
                guard let slots = state.slots else { return nil }
                var values = [PropertyValue?](repeating: nil, count: slots.count)
                var any = false
                let kinds = slots.properties.kinds
                for slot in state.changed.slots where slot < values.count && slots.carried[slot] {
                    // A to-many travels as the links added and removed (MO4), never as the list.
                    if slot < kinds.count, kinds[slot] == .toMany { continue }
                    values[slot] = state.buffer[slot]
                    any = any || values[slot] != nil
                }
                var deltas: [Int: ToManyDelta] = [:]
                for (slot, delta) in state.listChanges where !delta.isEmpty { deltas[slot] = delta }  // MO4
                guard any || !deltas.isEmpty else { return .some(nil) }
                return SlotChangeSet.Entry(id: id, values: values, deltas: deltas, read: state.readValues)
            }
            guard let entry else { return nil }
            if let entry { changes.updated.append(entry) }
        }
        changes.mergePolicy = effectiveMergePolicy
        changes.startStamp = startStamp
        (changes.author, changes.contextName) = lock.withLock { (ownAuthor, ownName) }
        return changes
    }

    /// Commits the context's changes through the root (durable when this returns) and clears
    /// them; nothing happens when there are none.
    func commit() throws {
        if kind == .transaction, lock.withLock({ writer != nil || flushFailure != nil }) {
            return didCommit(try commitFlushed())
        }
        let applied: AppliedChanges
        // Nothing to write (an editing context may still list objects inserted and deleted
        // again since its last save): the lists are cleared all the same.
        if let slots = pendingSlotChanges() {
            guard !slots.isEmpty else { return didCommit(AppliedChanges()) }
            applied = try container.save(slots: slots)
        } else {
            let changes = pendingChanges()
            guard !changes.isEmpty else { return didCommit(AppliedChanges()) }
            applied = try container.save(changes)
        }
        didCommit(applied)
    }

    /// What the lists of uncommitted changes held: inserted, changed and (editing) deleted objects.
    typealias PendingLists = (inserted: [CdManagedObject], changed: [CdManagedObject], deleted: [CdManagedObject])

    /// Empties the lists of uncommitted changes (the lock is held) and hands back what they held,
    /// for the caller to use or release after the lock (OL1).
    func takePendingListsLocked() -> PendingLists {
        defer {
            insertedObjects = []
            liveInserted = 0
            deleted = []
            changedObjects = []
            heldDeleted = []
            pendingCache = nil
        }
        return (insertedObjects, changedObjects, heldDeleted)
    }

    /// After a successful commit: the changes are the store's now (keeps MC2).
    func didCommit(_ applied: AppliedChanges) {
        // The lists are taken out under the lock and released after it: in an editing context
        // they may hold the last reference to an object, whose deinit must not run under the
        // lock (OL1).
        let (objects, taken) = lock.withLock { () -> ([CdManagedObject], PendingLists) in
            let taken = takePendingListsLocked()
            guard kind == .editing else {
                return (retained.values.map { $0 } + released.values.compactMap(\.object), taken)
            }
            // An editing context lives on: the deleted objects it held go (MC5), and their
            // registry entries with them, below.
            return (registry.values.compactMap(\.object) + taken.deleted, taken)
        }
        bump()
        for object in objects { Self.markSaved(object, applied) }
        if kind == .editing {
            let gone = taken.deleted.compactMap(\.objectID) + applied.deleted + applied.goneMeanwhile
            if !gone.isEmpty { lock.withLock { for id in gone { registry[id] = nil } } }
        }
        withExtendedLifetime(taken) {}
    }

    /// An object's state after a commit or flush that wrote `applied`: no changes; deleted when
    /// the store deleted it; relationships reloaded when next read where the store changed it.
    static func markSaved(_ object: CdManagedObject, _ applied: AppliedChanges) {
        object.withState { state in
            state.isInserted = false
            state.changed.removeAll()
            state.changedExtra = []
            state.listed = false
            state.deferredListEdits = []
            state.listChanges = [:]
            state.readValues = nil
            if let id = state.objectID {
                // Deleted by this commit, or by another one before it (CA6: its changes dropped).
                if applied.deleted.contains(id) || applied.goneMeanwhile.contains(id) { state.isDeleted = true }
                // The store may have changed inverses: reload relationships when next read.
                if applied.updated.contains(id) || applied.inserted.contains(id) {
                    if let slots = state.slots {
                        let kinds = slots.properties.kinds
                        for slot in state.buffer.indices where slot >= kinds.count || kinds[slot] != .attribute {
                            state.buffer[slot] = nil
                        }
                    }
                    state.extra = state.extra.filter { if case .attribute = $0.value { true } else { false } }
                    state.loaded = false
                    state.partial.removeAll()
                    state.batch = nil
                }
            }
        }
    }

    /// Drops the uncommitted changes (a transaction body that threw or cancelled its commit).
    func discardChanges() {
        let dropped = lock.withLock { () -> ([ObjectID: CdManagedObject], [CdManagedObject], [CdManagedObject]) in
            defer {
                insertedObjects = []
                liveInserted = 0
                deleted = []
                changedObjects = []
                pendingCache = nil
                retained = [:]
                registry = [:]
                released = [:]
                flushFailure = nil
            }
            return (retained, insertedObjects, changedObjects)
        }
        dropWriter()
        bump()
        // Released here, outside the lock: freeing many objects takes a while.
        withExtendedLifetime(dropped) {}
    }

    // MARK: - Main context: merge and update handlers

    func watch(_ object: CdManagedObject) {
        guard let id = object.objectID else { return }
        lock.withLock { watched[id] = WeakObject(object) }
    }

    /// Runs on the main queue after a commit: refaults the main context's changed objects and
    /// calls update handlers (refreshed, then updated, then deleted).
    /// `direct`: the objects the change set updated itself (they get `.updated`, the others of
    /// `applied.updated` get `.refreshed`).
    func merge(direct: Set<ObjectID>, _ applied: AppliedChanges) {
        precondition(kind == .main)
        let state = ThreadState.current
        state.insideMainMerge = true
        // Nothing to refault or notify when no object is registered (a main thread that only
        // observes commits): the common case of a stream of commits costs no look-ups here.
        let (anyRegistered, anyWatched) = lock.withLock { (!registry.isEmpty, !watched.isEmpty) }
        if anyRegistered {
            // A deleted object keeps its last values, so a `.deleted` handler or a fetched
            // results controller's delete can still tell which object it was.
            for id in applied.deleted { registered(id)?.withState { $0.isDeleted = true } }
            for id in applied.updated where !applied.deleted.contains(id) { registered(id)?.refresh(with: nil) }
        }
        if anyWatched {
            let handlers = lock.withLock { watched.compactMapValues { $0.object } }
            func send(_ ids: some Sequence<ObjectID>, _ event: CdManagedObjectUpdateEvent) {
                for id in ids.sorted() {
                    handlers[id]?.sendUpdateEvent(event)
                }
            }
            send(applied.updated.subtracting(direct), .refreshed)
            send(applied.updated.intersection(direct), .updated)
            send(applied.deleted, .deleted)
        }
        lock.withLock {
            if !prefetchedRows.isEmpty { prefetchedRows = [:] }
            for id in applied.deleted { watched[id] = nil }
            if !registry.isEmpty { registry = registry.filter { $0.value.object != nil } }
        }
        state.insideMainMerge = false
        // After the merge proper, so controllers see refaulted objects and their delegates are
        // held to the main context's read-only rule (J1).
        let observers = lock.withLock { () -> [any MainMergeObserver] in
            mergeObservers = mergeObservers.filter { $0.observer != nil }
            return mergeObservers.compactMap(\.observer)
        }
        for observer in observers { observer.mainContextDidMerge(applied) }
    }

    /// Main context: keeps the values of prefetched `objects` until the next merge.
    func keepPrefetched(_ objects: [CdManagedObject]) {
        guard kind == .main else { return }
        let rows = objects.compactMap { object in
            object.withState { state in state.loaded ? state.objectID.map { ($0, state.values) } : nil }
        }
        lock.withLock { for (id, values) in rows { prefetchedRows[id] = values } }
    }

    /// Main context: tells `observer` (held weakly) after each merge.
    func observeMerges(_ observer: any MainMergeObserver) {
        lock.withLock {
            mergeObservers = mergeObservers.filter { $0.observer != nil && $0.observer !== observer }
            mergeObservers.append(WeakMergeObserver(observer: observer))
        }
    }

    /// Sends `.refreshed` to `object`'s handler (on the main queue, after the current work).
    func sendRefreshed(_ object: CdManagedObject) {
        guard kind == .main, object.hasUpdateHandlers else { return }
        let box = Unchecked(object)
        DispatchQueue.main.async { box.value.sendUpdateEvent(.refreshed) }
    }
}

/// A weak reference to a merge observer.
struct WeakMergeObserver {
    weak var observer: (any MainMergeObserver)?
}

/// A weak reference to an object, for the main context's registry.
struct WeakObject {
    weak var object: CdManagedObject?
    init(_ object: CdManagedObject) { self.object = object }
}

// Applying a change set: the working set of objects it touches, and inverse maintenance.
//
// Phases (ObjectStore.apply runs all four in one engine write transaction; a query with a
// `pending` overlay runs 1–3 over a read transaction and reads the working set instead):
//   1. stage      the change set is taken in slot form (ChangeApplier+Staging); inserted objects
//                 get defaults + given attributes; updated objects are loaded and get their new
//                 attributes.
//   2. relate     given relationship values are set, inverses kept in step (ChangeApplier+Relationships).
//   3. delete     delete rules: cascade, nullify, deny (collected), no action (ChangeApplier+Delete);
//                 on the write path each deleted object's record leaves its tree here (D3).
//   4. validate and write (ChangeApplier+Write): attribute and count validation, uniqueness,
//                 record, index and relationship tree updates, next keys.
//
// Invariants:
//  CA1. `records[id]` is the current state of every object loaded or changed; `originals[id]` the
//       stored state it was loaded with (nil for a new object). Index maintenance diffs the two.
//       A deleted object leaves both once its delete rules have run (D1, D2 of
//       ChangeApplier+Delete); what is written for it comes from `deletedEntries`.
//  CA2. `lists[key]` is the current list of every to-many relationship read or changed, and
//       `listOriginals[key]` the stored one; the write phase writes the difference. An
//       unordered list of a stored object that was only added to or removed from, never read,
//       is kept as `listDeltas[key]` instead (no entry in `lists`): the members added and
//       removed, written as single tree entries. Reading it (`list`) applies the delta to the
//       stored list and moves it to `lists`.
//  CA3. Setting one side of a relationship with an inverse updates the other side in the same
//       step, so after phase 2 both sides agree for every object in the working set.
//  CA4. Deleted objects are never in `records`' live view once phase 3 starts: `record(_:)`
//       answers nil for them. Before it (phases 1–2) an object the change set deletes is still
//       there as a relationship target, so a relationship set to it in the same change set
//       (a new object linked to an owner that is then deleted) is kept in step on its side, and
//       its delete rules reach that object (cascade, nullify, deny) as Core Data's would.
//  CA5. An updated object's attribute whose stored value differs from the value the transaction
//       read (`StagedObject.read`) and from the value it sets is a conflict; the change set's
//       `MergePolicy` decides which value is written, or (`.error`) the apply fails with 133020
//       listing every conflict before anything is written.
//  CA6. An object another transaction deleted after this one read it (not in the store, its key
//       below the stored next key): the delete wins. Changes to it are dropped, and links to it
//       are not made (as the delete's nullify would have removed them); under `.error` each is a
//       conflict. An object whose key was never made is an error naming the change that named it.
//  CA7. Under `.error`, an object the change set updates (attributes, to-ones or links) that a
//       commit after the transaction's start (`startStamp`) changed is a conflict too
//       (RecentChanges.swift), listed with the attributes whose values differ, if any.
//  CA8. Once phase 4 and the history have been written, nothing reads the working set again:
//       `releaseWorkingSet()` drops it (records, originals, lists, staged objects) before the
//       engine commit, so a commit of 100,000 changed objects does not hold their records beside
//       its page images. Only the next-key counters (`storedNextKeys`, `usedKeyBounds`) stay.
//
// Confinement: one applier per apply or query, used by one thread.

import CdStore

/// One to-many relationship of one object.
struct RelationshipKey: Hashable {
    let object: ObjectID
    let relationship: String
}

final class ChangeApplier {
    /// Where the changes came from: a public change set (by name) or the object layer's slots.
    enum Source {
        case named(ChangeSet)
        case slots(SlotChangeSet)
    }

    let layout: StoreLayout
    let stored: StoredObjects
    let source: Source
    /// The public change set a query overlay was made from (queries read its inserted IDs);
    /// empty for a slot change set, which only `ObjectStore.apply(slots:)` applies.
    let changes: ChangeSet
    /// The changes in slot form, from phase 1 on (SC1–SC3).
    var staged = StagedChanges()
    /// True for a query overlay: no validation, deny does not fail, nothing is written.
    let overlay: Bool

    var records: [ObjectID: Record] = [:]
    var originals: [ObjectID: Record?] = [:]
    var lists: [RelationshipKey: [ObjectID]] = [:]
    var listOriginals: [RelationshipKey: [ObjectID]] = [:]
    /// Edits of unordered lists not read (CA2).
    var listDeltas: [RelationshipKey: ListDelta] = [:]
    /// Objects changed besides inserts (given updates, inverse and nullify changes).
    var updated: Set<ObjectID> = []
    /// Objects deleted (given and cascaded) that existed.
    var deleted: Set<ObjectID> = []
    /// The index entries and tombstones of deleted stored objects, whose records are dropped (D2).
    var deletedEntries = DeletedObjectEntries()
    /// Objects named for deletion or reached by cascade (CA4), whether or not they existed.
    var deleting: Set<ObjectID>
    /// Whether phase 3 has started: from then on `record(_:)` hides deleted objects (CA4).
    var deletesStarted = false
    /// Deny rules that found related objects: (object, relationship, blockers).
    var denials: [(ObjectID, RelationshipDescription, [ObjectID])] = []
    /// Conflicts found under the error merge policy (CA5, CA6); phase 2 ends by throwing them.
    var conflicts: [MergeConflict] = []
    /// Updated objects that another transaction deleted after this one read them (CA6).
    var dropped: Set<ObjectID> = []
    /// The store's log of recent commits, for the error policy's check (CA7); nil for an overlay.
    var recentChanges: RecentChanges?
    /// A streaming writer's batch (`ObjectStoreWriter`): objects that fail attribute or count
    /// validation are collected here and written anyway, to be validated again at the writer's
    /// commit; nil for `apply`, which reports them.
    var deferred: Set<ObjectID>?
    /// A load batch (ObjectStoreWriter+Load.swift): to-ones stored as given, inverses left to
    /// the caller (LD1).
    var loads = false
    /// Next keys stored, per root: before this change set, and after phase 4 what it stores.
    /// Seeded by `ObjectStore` from what it knows (read from `cd.meta` otherwise).
    var storedNextKeys: [String: Int64] = [:]
    /// Per root, a key below which every stored object's key lies (`ObjectStore` OS4): an inserted
    /// key at or above it needs no look-up to be known free. Seeded by `ObjectStore`; a root
    /// missing here falls back to its stored next key (OS1). Phase 4 raises it past the inserts.
    var usedKeyBounds: [String: Int64] = [:]
    /// Per root, the keys of this store's reserved block not handed out yet (KR1): below the
    /// stored next key, yet never given to any object.
    var unissuedKeys: [String: Range<Int64>] = [:]

    init(layout: StoreLayout, stored: StoredObjects, changes: ChangeSet, overlay: Bool) {
        self.layout = layout
        self.stored = stored
        self.source = .named(changes)
        self.changes = changes
        self.overlay = overlay
        self.deleting = changes.deleted
    }

    /// An applier of a slot change set (the object layer's commits); never an overlay.
    init(layout: StoreLayout, stored: StoredObjects, slotChanges: SlotChangeSet) {
        self.layout = layout
        self.stored = stored
        self.source = .slots(slotChanges)
        self.changes = ChangeSet()
        self.overlay = false
        self.deleting = slotChanges.deleted
    }

    // MARK: - Running

    /// The objects the change set names for deletion.
    var deletedGiven: Set<ObjectID> {
        switch source {
        case let .named(changes): return changes.deleted
        case let .slots(changes): return changes.deleted
        }
    }

    /// Phases 1–3.
    func prepare() throws {
        staged = try stageChanges()
        try stage()
        if loads { try relateLoaded() } else { try relate() }
        if !conflicts.isEmpty { throw CdError.mergeConflict(conflicts.sorted { $0.objectID < $1.objectID }) }
        try applyDeletes()
        #if DEBUG
        checkInvariants()
        #endif
    }

    #if DEBUG
    /// Debug-only check of CA3 over the loaded part of the working set: a to-one and the inverse
    /// to-many (or to-one) it points at agree, in both directions.
    func checkInvariants() {
        for (id, rec) in records where !isDeleting(id) {
            for (i, r) in rec.entity.toOnes.enumerated() {
                guard let t = rec.toOne[i], !isDeleting(t),
                    let inverse = rec.entity.inverses[r.name]
                else { continue }
                if inverse.isToMany, let l = lists[RelationshipKey(object: t, relationship: inverse.name)] {
                    precondition(l.contains(id), "CA3: \(id).\(r.name) = \(t) but \(t).\(inverse.name) lacks \(id)")
                } else if !inverse.isToMany, let other = records[t], let slot = other.entity.toOneSlots[inverse.name] {
                    precondition(
                        other.toOne[slot] == id,
                        "CA3: \(id).\(r.name) = \(t) but "
                            + "\(t).\(inverse.name) = \(String(describing: other.toOne[slot]))"
                    )
                }
            }
        }
        for (key, list) in lists where !isDeleting(key.object) {
            guard let entity = entityLayout(of: key.object),
                let inverse = entity.inverses[key.relationship]
            else { continue }
            for m in list where !isDeleting(m) {
                if !inverse.isToMany, let rec = records[m], let slot = rec.entity.toOneSlots[inverse.name] {
                    precondition(
                        rec.toOne[slot] == key.object,
                        "CA3: \(key.object).\(key.relationship) holds \(m) but "
                            + "\(m).\(inverse.name) = \(String(describing: rec.toOne[slot]))"
                    )
                } else if inverse.isToMany, let l = lists[RelationshipKey(object: m, relationship: inverse.name)] {
                    precondition(
                        l.contains(key.object),
                        "CA3: \(key.object).\(key.relationship) holds \(m) but \(m).\(inverse.name) lacks it")
                }
            }
        }
    }
    #endif

    // MARK: - Phase 1

    private func stage() throws {
        if mergePolicy == .error, !overlay {
            // CA7: deleting an object another commit changed since the start is a conflict.
            for id in deletedGiven.sorted() where !staged.isInserted(id) && changedSinceStart(id) {
                conflicts.append(MergeConflict(objectID: id, properties: []))
            }
        }
        for object in staged.inserted where !isDeleting(object.id) {
            let entity = object.entity, id = object.id
            guard !entity.isAbstract else {
                throw CdError.validation(
                    ValidationFailure(
                        entity: entity.name, objectID: id.description, key: "entity",
                        message: "cannot insert an object of abstract entity \(entity.name)"))
            }
            guard id.primaryKey > 0 else {
                throw CdError.validation(
                    ValidationFailure(
                        entity: entity.name, objectID: id.description, key: "primaryKey",
                        message: "primary keys start at 1"))
            }
            if !overlay, id.primaryKey < (try usedKeyBound(entity.root)), try storedKeyTaken(id, entity) {
                throw CdError.validation(
                    ValidationFailure(
                        entity: entity.name, objectID: id.description, key: "primaryKey",
                        message: "an object with primary key \(id.primaryKey) already exists"))
            }
        }
        for object in staged.updated where !isDeleting(object.id) && !staged.isInserted(object.id) {
            let id = object.id, entity = object.entity
            guard var record = try record(id) else {
                guard try deletedMeanwhile(id, entity) else {
                    throw missingObject(id, entity: entity.name, key: "self")
                }
                // Keeps CA6: another transaction's delete wins over these changes.
                dropped.insert(id)
                if mergePolicy == .error {
                    conflicts.append(MergeConflict(objectID: id, properties: [], deleted: true))
                }
                continue
            }
            let given = min(entity.attributes.count, object.values.count)
            // CA5: the attributes that another transaction changed after this one read them.
            var storeChanged: [Int] = []
            // Under the default policy a conflict changes nothing, so nothing is compared.
            if let read = object.read, !overlay, mergePolicy != .mergeByPropertyObjectTrump {
                for slot in 0..<min(entity.attributes.count, read.count) {
                    guard case let .attribute(was)? = read[slot], record.values[slot] != was else { continue }
                    if slot < given, case let .attribute(v)? = object.values[slot], v == record.values[slot] {
                        continue
                    }
                    storeChanged.append(slot)
                }
            }
            var skipped = Set<Int>()
            if mergePolicy == .error, storeChanged.isEmpty, changedSinceStart(id) {
                conflicts.append(MergeConflict(objectID: id, properties: []))  // keeps CA7
            }
            if !storeChanged.isEmpty {
                switch mergePolicy {
                case .mergeByPropertyObjectTrump:
                    break
                case .mergeByPropertyStoreTrump:
                    skipped = Set(storeChanged)
                case .rollback:
                    skipped = Set(0..<given)
                case .overwrite:
                    // The object as the transaction holds it: what it read, with its changes.
                    for slot in storeChanged where slot >= given || object.values[slot] == nil {
                        if case let .attribute(was)? = object.read?[slot] { record.values[slot] = was }
                    }
                case .error:
                    conflicts.append(
                        MergeConflict(
                            objectID: id,
                            properties: storeChanged.map { slot in
                                var committing: CdValue?
                                if slot < given, case let .attribute(v)? = object.values[slot] { committing = v }
                                var was = CdValue.null
                                if case let .attribute(v)? = object.read?[slot] { was = v }
                                return MergeConflict.Property(
                                    key: entity.attributes[slot].name, read: was, stored: record.values[slot],
                                    committing: committing)
                            }))
                }
            }
            var changed = !storeChanged.isEmpty && mergePolicy == .overwrite
            for slot in 0..<given where !skipped.contains(slot) {
                guard case let .attribute(v)? = object.values[slot] else { continue }
                if record.values[slot] != v { record.values[slot] = v; changed = true }
            }
            if changed { records[id] = record; updated.insert(id) }
        }
    }

    /// Whether `id`, which the store does not hold, was there once: its key lies below the
    /// root's stored next key (OS1), so a commit made it and another deleted it (CA6). A key at
    /// or above it was never made: referring to it is an error of the caller's.
    func deletedMeanwhile(_ id: ObjectID, _ entity: EntityLayout) throws -> Bool {
        guard !staged.isInserted(id), id.primaryKey > 0 else { return false }
        if unissuedKeys[entity.root]?.contains(id.primaryKey) == true { return false }
        return id.primaryKey < (try nextKey(entity.root))
    }

    /// Whether a commit after this change set's transaction started changed `id` (CA7).
    func changedSinceStart(_ id: ObjectID) -> Bool {
        guard let recentChanges, let start = startStamp else { return false }
        return recentChanges.changedSince(id, start: start)
    }

    /// The `RecentChanges` stamp the transaction started at, if it noted one.
    var startStamp: UInt64? {
        switch source {
        case let .named(changes): return changes.startStamp
        case let .slots(changes): return changes.startStamp
        }
    }

    /// The merge policy of the change set.
    var mergePolicy: MergePolicy {
        switch source {
        case let .named(changes): return changes.mergePolicy
        case let .slots(changes): return changes.mergePolicy
        }
    }

    /// Every stored key of `root` is below this (OS4 of ObjectStore, else OS1).
    private func usedKeyBound(_ root: String) throws -> Int64 {
        if let n = usedKeyBounds[root] { return n }
        return try nextKey(root)
    }

    func nextKey(_ root: String) throws -> Int64 {
        if let n = storedNextKeys[root] { return n }
        let n = try stored.storedNextKey(root: root)
        storedNextKeys[root] = n
        return n
    }

    /// Whether the record tree holds any object (of any entity of the hierarchy) at the key.
    private func storedKeyTaken(_ id: ObjectID, _ entity: EntityLayout) throws -> Bool {
        guard let t = try stored.tree(entity.recordTree) else { return false }
        return try t.get(RecordCodec.key(id.primaryKey)) != nil
    }

    /// Unknown property names and values of the wrong kind (attribute vs relationship) → 1550.
    func checkProperties(_ values: [String: PropertyValue], of entity: EntityLayout, id: ObjectID) throws {
        for (key, value) in values {
            if !entity.transients.isEmpty && entity.transients.contains(key) { continue }
            let ok: Bool
            switch value {
            case .attribute: ok = entity.attributeSlots[key] != nil
            case .toOne: ok = entity.toOneSlots[key] != nil
            case .toMany: ok = entity.relationships[key]?.isToMany == true
            }
            guard ok else {
                let what =
                    entity.attributeSlots[key] != nil
                    ? "an attribute"
                    : entity.relationships[key].map { $0.isToMany ? "a to-many relationship" : "a to-one relationship" }
                        ?? "not a property"
                throw CdError.validation(
                    ValidationFailure(
                        entity: entity.name, objectID: id.description, key: key,
                        message: "\(key) is \(what) of \(entity.name), not a value for \(value)"))
            }
        }
    }

    /// Drops the working set once it has been written (keeps CA8); the applier answers nothing
    /// about objects afterwards.
    func releaseWorkingSet() {
        records = [:]
        originals = [:]
        lists = [:]
        listOriginals = [:]
        listDeltas = [:]
        staged = StagedChanges()
        updated = []
        deleted = []
        deletedEntries = DeletedObjectEntries()
        deleting = []
        denials = []
        dropped = []
    }

    // MARK: - Working set access

    /// The current state of `id` (CA1, CA4): working set, else a staged insert, else the store.
    func record(_ id: ObjectID) throws -> Record? {
        if deletesStarted, isDeleting(id) { return nil }  // keeps CA4
        if let r = records[id] { return r }
        if let i = staged.insertedIndex(id) {
            let r = Self.staged(staged.inserted[i], toOnes: staged.toOnesRelated[i])
            records[id] = r
            originals[id] = .some(nil)
            return r
        }
        guard originals[id] == nil, let r = try stored.record(id) else { return nil }
        records[id] = r
        originals[id] = r
        return r
    }

    /// A new object's record: defaults, then the given attribute values and the first `toOnes`
    /// given to-one targets (those phase 2 has set, SC3).
    static func staged(_ object: StagedObject, toOnes: Int) -> Record {
        let entity = object.entity
        var r = Record(defaultsOf: entity)
        let values = object.values
        for slot in 0..<min(entity.attributes.count, values.count) {
            if case let .attribute(v)? = values[slot] { r.values[slot] = v }
        }
        for position in 0..<min(toOnes, entity.toOnes.count) {
            if case let .toOne(target)? = object.toOne(position) { r.toOne[position] = target }
        }
        return r
    }

    /// The current list of a to-many relationship (CA2).
    func list(_ id: ObjectID, _ r: RelationshipDescription, _ entity: EntityLayout) throws -> [ObjectID] {
        let key = RelationshipKey(object: id, relationship: r.name)
        if let l = lists[key] { return l }
        let original = staged.isInserted(id) ? [] : try stored.related(id, r, treeName: entity.toManyTrees[r.name]!)
        var l = original
        if let delta = listDeltas.removeValue(forKey: key) {
            // Keeps CA2: the edits made before the list was read apply to the stored list.
            for m in delta.removed { ToManyList.remove(m, from: &l, ordered: false) }
            for m in delta.added { ToManyList.insert(m, into: &l, ordered: false) }
        }
        lists[key] = l
        listOriginals[key] = original
        return l
    }

    /// Adds `member` to a to-many list in place, once (CA2): an unordered list stays sorted by
    /// primary key (members share one inheritance root, so keys are unique), an ordered one gets
    /// it at the end. In place, so a bulk insert that links many objects to one owner costs a
    /// binary search per link, not a copy and sort of the owner's whole list.
    func insertIntoList(_ id: ObjectID, _ r: RelationshipDescription, _ entity: EntityLayout, _ member: ObjectID) throws
    {
        let key = RelationshipKey(object: id, relationship: r.name)
        if lists[key] == nil, deltaApplies(id, r) {
            listDeltas[key, default: ListDelta()].add(member)
            markUpdated(id)
            return
        }
        if lists[key] == nil { _ = try list(id, r, entity) }
        let inserted = ToManyList.insert(member, into: &lists[key, default: []], ordered: r.isOrdered)
        if inserted { markUpdated(id) }
    }

    /// Removes `member` from a to-many list in place, if it is there.
    func removeFromList(_ id: ObjectID, _ r: RelationshipDescription, _ entity: EntityLayout, _ member: ObjectID) throws
    {
        let key = RelationshipKey(object: id, relationship: r.name)
        if lists[key] == nil, deltaApplies(id, r) {
            // The member is there: its to-one (the inverse) pointed at `id` (CA3).
            listDeltas[key, default: ListDelta()].remove(member)
            markUpdated(id)
            return
        }
        if lists[key] == nil { _ = try list(id, r, entity) }
        let removed = ToManyList.remove(member, from: &lists[key, default: []], ordered: r.isOrdered)
        if removed { markUpdated(id) }
    }

    /// Whether an edit of `id.r` may wait as a delta (CA2): an unordered list of a stored object,
    /// on the write path (an overlay reads its lists anyway).
    private func deltaApplies(_ id: ObjectID, _ r: RelationshipDescription) -> Bool {
        !overlay && !r.isOrdered && !staged.isInserted(id)
    }

    func setList(_ id: ObjectID, _ r: RelationshipDescription, _ l: [ObjectID]) {
        lists[RelationshipKey(object: id, relationship: r.name)] = l
        markUpdated(id)
    }

    /// Whether `id` is being deleted (CA4); free when nothing is.
    @inline(__always) func isDeleting(_ id: ObjectID) -> Bool {
        !deleting.isEmpty && deleting.contains(id)
    }

    /// The layout of the entity of `id`: an array read by its interned name (OI1), no hash.
    @inline(__always) func entityLayout(of id: ObjectID) -> EntityLayout? { layout.entity(of: id) }

    /// The layout of the entity of `id`, or a 1550 error naming the unknown entity.
    func entityLayoutOrThrow(of id: ObjectID) throws -> EntityLayout { try layout.entityOrThrow(of: id) }

    func markUpdated(_ id: ObjectID) {
        if !staged.isInserted(id) { updated.insert(id) }
    }

    func missingObject(_ id: ObjectID, entity: String, key: String) -> CdError {
        .validation(
            ValidationFailure(
                entity: entity, objectID: id.description, key: key,
                message: "object \(id) does not exist"))
    }
}

// Applying a change set: the working set of objects it touches, and inverse maintenance.
//
// Phases (ObjectStore.apply runs all four in one engine write transaction; a query with a
// `pending` overlay runs 1–3 over a read transaction and reads the working set instead):
//   1. stage      inserted objects get defaults + given attributes; updated objects are loaded
//                 and get their new attributes.
//   2. relate     given relationship values are set, inverses kept in step (setters below).
//   3. delete     delete rules: cascade, nullify, deny (collected), no action (ChangeApplier+Delete).
//   4. validate and write (ChangeApplier+Write): attribute and count validation, uniqueness,
//                 record, index and relationship tree updates, next keys.
//
// Invariants:
//  A1. `records[id]` is the current state of every object loaded or changed; `originals[id]` the
//      stored state it was loaded with (nil for a new object). Index maintenance diffs the two.
//  A2. `lists[key]` is the current list of every to-many relationship read or changed, and
//      `listOriginals[key]` the stored one; the write phase writes the difference.
//  A3. Setting one side of a relationship with an inverse updates the other side in the same
//      step, so after phase 2 both sides agree for every object in the working set.
//  A4. Deleted objects are never in `records`' live view: `record(_:)` answers nil for them.
//
// Confinement: one applier per apply or query, used by one thread.

import CdStore

/// One to-many relationship of one object.
struct RelationshipKey: Hashable {
    let object: ObjectID
    let relationship: String
}

final class ChangeApplier {
    let layout: StoreLayout
    let stored: StoredObjects
    let changes: ChangeSet
    /// True for a query overlay: no validation, deny does not fail, nothing is written.
    let overlay: Bool

    var records: [ObjectID: Record] = [:]
    var originals: [ObjectID: Record?] = [:]
    var lists: [RelationshipKey: [ObjectID]] = [:]
    var listOriginals: [RelationshipKey: [ObjectID]] = [:]
    /// Objects changed besides inserts (given updates, inverse and nullify changes).
    var updated: Set<ObjectID> = []
    /// Objects deleted (given and cascaded) that existed.
    var deleted: Set<ObjectID> = []
    /// Objects named for deletion or reached by cascade (A4), whether or not they existed.
    var deleting: Set<ObjectID>
    /// Deny rules that found related objects: (object, relationship, blockers).
    var denials: [(ObjectID, RelationshipDescription, [ObjectID])] = []
    /// Next keys stored before this change set, per root (inserted keys below them are checked).
    var storedNextKeys: [String: Int64] = [:]

    init(layout: StoreLayout, stored: StoredObjects, changes: ChangeSet, overlay: Bool) {
        self.layout = layout
        self.stored = stored
        self.changes = changes
        self.overlay = overlay
        self.deleting = changes.deleted
    }

    // MARK: - Running

    /// Phases 1–3.
    func prepare() throws {
        try stage()
        try relate()
        try applyDeletes()
    }

    // MARK: - Phase 1

    private func stage() throws {
        for (id, values) in changes.inserted where !deleting.contains(id) {
            let entity = try layout.entity(id.entity)
            guard !entity.isAbstract else {
                throw CdError.validation(ValidationFailure(entity: entity.name, objectID: id.description, key: "entity",
                                                           message: "cannot insert an object of abstract entity \(entity.name)"))
            }
            guard id.primaryKey > 0 else {
                throw CdError.validation(ValidationFailure(entity: entity.name, objectID: id.description, key: "primaryKey",
                                                           message: "primary keys start at 1"))
            }
            try checkProperties(values, of: entity, id: id)
            if !overlay, id.primaryKey < (try nextKey(entity.root)), try storedKeyTaken(id, entity) {
                throw CdError.validation(ValidationFailure(entity: entity.name, objectID: id.description, key: "primaryKey",
                                                           message: "an object with primary key \(id.primaryKey) already exists"))
            }
        }
        for (id, values) in changes.updated where !deleting.contains(id) && changes.inserted[id] == nil {
            let entity = try layout.entity(id.entity)
            try checkProperties(values, of: entity, id: id)
            guard var record = try record(id) else { throw missingObject(id, entity: entity.name, key: "self") }
            var changed = false
            for (key, value) in values {
                guard let slot = entity.attributeSlots[key], case let .attribute(v) = value else { continue }
                if record.values[slot] != v { record.values[slot] = v; changed = true }
            }
            if changed { records[id] = record; updated.insert(id) }
        }
    }

    private func nextKey(_ root: String) throws -> Int64 {
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
    private func checkProperties(_ values: [String: PropertyValue], of entity: EntityLayout, id: ObjectID) throws {
        for (key, value) in values {
            if entity.transients.contains(key) { continue }
            let ok: Bool
            switch value {
            case .attribute: ok = entity.attributeSlots[key] != nil
            case .toOne: ok = entity.toOneSlots[key] != nil
            case .toMany: ok = entity.relationships[key]?.isToMany == true
            }
            guard ok else {
                let what = entity.attributeSlots[key] != nil ? "an attribute" : entity.relationships[key].map { $0.isToMany ? "a to-many relationship" : "a to-one relationship" } ?? "not a property"
                throw CdError.validation(ValidationFailure(entity: entity.name, objectID: id.description, key: key,
                                                           message: "\(key) is \(what) of \(entity.name), not a value for \(value)"))
            }
        }
    }

    // MARK: - Working set access

    /// The current state of `id` (A1, A4): working set, else a staged insert, else the store.
    func record(_ id: ObjectID) throws -> Record? {
        if deleting.contains(id) { return nil }
        if let r = records[id] { return r }
        if let values = changes.inserted[id] {
            guard let entity = layout.entities[id.entity] else { return nil }
            let r = Self.staged(entity, values)
            records[id] = r
            originals[id] = .some(nil)
            return r
        }
        guard originals[id] == nil, let r = try stored.record(id) else { return nil }
        records[id] = r
        originals[id] = r
        return r
    }

    /// A new object's record: defaults, then the given attribute values.
    static func staged(_ entity: EntityLayout, _ values: [String: PropertyValue]) -> Record {
        var r = Record(defaultsOf: entity)
        for (key, value) in values {
            if let slot = entity.attributeSlots[key], case let .attribute(v) = value { r.values[slot] = v }
        }
        return r
    }

    /// The current list of a to-many relationship (A2).
    func list(_ id: ObjectID, _ r: RelationshipDescription, _ entity: EntityLayout) throws -> [ObjectID] {
        let key = RelationshipKey(object: id, relationship: r.name)
        if let l = lists[key] { return l }
        let l = changes.inserted[id] != nil ? [] : try stored.related(id, r, treeName: entity.toManyTrees[r.name]!)
        lists[key] = l
        listOriginals[key] = l
        return l
    }

    func setList(_ id: ObjectID, _ r: RelationshipDescription, _ l: [ObjectID]) {
        lists[RelationshipKey(object: id, relationship: r.name)] = l
        markUpdated(id)
    }

    func markUpdated(_ id: ObjectID) {
        if changes.inserted[id] == nil { updated.insert(id) }
    }

    func missingObject(_ id: ObjectID, entity: String, key: String) -> CdError {
        .validation(ValidationFailure(entity: entity, objectID: id.description, key: key,
                                      message: "object \(id) does not exist"))
    }

    // MARK: - Phase 2: relationships (A3)

    private func relate() throws {
        // Only objects given a relationship value take part (bulk inserts of plain attributes skip this).
        func relates(_ v: [String: PropertyValue]) -> Bool {
            v.values.contains { if case .attribute = $0 { return false }; return true }
        }
        var work: [(ObjectID, [String: PropertyValue])] = []
        for (id, v) in changes.inserted where relates(v) && !deleting.contains(id) { work.append((id, v)) }
        for (id, v) in changes.updated where relates(v) && !deleting.contains(id) && changes.inserted[id] == nil { work.append((id, v)) }
        work.sort { $0.0 < $1.0 }
        for (id, values) in work {
            let entity = try layout.entity(id.entity)
            for key in values.keys.sorted() {
                guard let r = entity.relationships[key] else { continue }
                switch values[key]! {
                case let .toOne(target): try setToOne(id, r, entity, target)
                case let .toMany(targets): try setToMany(id, r, entity, targets)
                case .attribute: break
                }
            }
        }
    }

    /// Checks that `target` exists and may be the destination of `r`.
    private func checkTarget(_ target: ObjectID, _ r: RelationshipDescription, source: ObjectID, _ entity: EntityLayout) throws {
        guard layout.isKind(target.entity, of: r.destination) else {
            throw CdError.validation(ValidationFailure(entity: entity.name, objectID: source.description, key: r.name,
                                                       message: "\(target) is not a \(r.destination)"))
        }
        guard try record(target) != nil else { throw missingObject(target, entity: entity.name, key: r.name) }
    }

    func setToOne(_ id: ObjectID, _ r: RelationshipDescription, _ entity: EntityLayout, _ target: ObjectID?) throws {
        guard var rec = try record(id) else { throw missingObject(id, entity: entity.name, key: r.name) }
        if let target { try checkTarget(target, r, source: id, entity) }
        let slot = entity.toOneSlots[r.name]!
        let old = rec.toOne[slot]
        guard old != target else { return }
        rec.toOne[slot] = target
        records[id] = rec
        markUpdated(id)
        guard let inverse = layout.model.inverse(of: r.name, in: entity.name) else { return }
        if let old { try unlink(old, inverse, from: id) }
        if let target { try link(target, inverse, to: id, forward: r) }
    }

    func setToMany(_ id: ObjectID, _ r: RelationshipDescription, _ entity: EntityLayout, _ targets: [ObjectID]) throws {
        guard try record(id) != nil else { throw missingObject(id, entity: entity.name, key: r.name) }
        var seen = Set<ObjectID>()
        var new: [ObjectID] = []
        for t in targets where seen.insert(t).inserted {
            try checkTarget(t, r, source: id, entity)
            new.append(t)
        }
        if !r.isOrdered { new.sort { $0.primaryKey < $1.primaryKey } }
        let old = try list(id, r, entity)
        guard old != new else { return }
        let oldSet = Set(old)
        setList(id, r, new)
        guard let inverse = layout.model.inverse(of: r.name, in: entity.name) else { return }
        for o in old where !seen.contains(o) { try unlink(o, inverse, from: id) }
        for n in new where !oldSet.contains(n) { try link(n, inverse, to: id, forward: r) }
    }

    /// Makes `source` appear in `object.inverse`. A to-one inverse that pointed elsewhere is moved:
    /// the previous owner loses `object` from its side of `forward`.
    func link(_ object: ObjectID, _ inverse: RelationshipDescription, to source: ObjectID, forward: RelationshipDescription) throws {
        guard var rec = try record(object) else { return }
        let entity = rec.entity
        if inverse.isToMany {
            var l = try list(object, inverse, entity)
            guard !l.contains(source) else { return }
            l.append(source)
            if !inverse.isOrdered { l.sort { $0.primaryKey < $1.primaryKey } }
            setList(object, inverse, l)
        } else {
            let slot = entity.toOneSlots[inverse.name]!
            let previous = rec.toOne[slot]
            guard previous != source else { return }
            rec.toOne[slot] = source
            records[object] = rec
            markUpdated(object)
            if let previous { try detach(object, fromOwner: previous, forward) }
        }
    }

    /// Removes `source` from `object.inverse` (sets a to-one inverse to nil when it holds `source`).
    func unlink(_ object: ObjectID, _ inverse: RelationshipDescription, from source: ObjectID) throws {
        guard var rec = try record(object) else { return }
        let entity = rec.entity
        if inverse.isToMany {
            var l = try list(object, inverse, entity)
            guard let i = l.firstIndex(of: source) else { return }
            l.remove(at: i)
            setList(object, inverse, l)
        } else {
            let slot = entity.toOneSlots[inverse.name]!
            guard rec.toOne[slot] == source else { return }
            rec.toOne[slot] = nil
            records[object] = rec
            markUpdated(object)
        }
    }

    /// `owner.forward` no longer holds `object` (it moved to another owner).
    private func detach(_ object: ObjectID, fromOwner owner: ObjectID, _ forward: RelationshipDescription) throws {
        guard var rec = try record(owner) else { return }
        if forward.isToMany {
            var l = try list(owner, forward, rec.entity)
            guard let i = l.firstIndex(of: object) else { return }
            l.remove(at: i)
            setList(owner, forward, l)
        } else if let slot = rec.entity.toOneSlots[forward.name], rec.toOne[slot] == object {
            rec.toOne[slot] = nil
            records[owner] = rec
            markUpdated(owner)
        }
    }
}

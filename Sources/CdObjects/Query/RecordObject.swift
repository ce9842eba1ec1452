// Records as predicate objects: key paths through to-one and to-many relationships are read from
// the store, or from a change set's working set when a query has a `pending` overlay, so the
// same predicate gives the same answer as it would after saving.

import CdStore

/// Reads objects for a query: stored data, overlaid by a pending change set when there is one.
final class ObjectReader {
    let stored: StoredObjects
    let overlay: ChangeApplier?
    /// Objects whose state the overlay changes (inserted, updated, deleted): stored index entries
    /// and records of these are not used for them.
    let touched: Set<ObjectID>

    init(stored: StoredObjects, overlay: ChangeApplier?) {
        self.stored = stored
        self.overlay = overlay
        if let o = overlay {
            touched = Set(o.changes.inserted.keys).union(o.updated).union(o.deleting)
        } else {
            touched = []
        }
    }

    var layout: StoreLayout { stored.layout }

    func record(_ id: ObjectID) throws -> Record? {
        if let overlay { return try overlay.record(id) }
        return try stored.record(id)
    }

    func related(_ id: ObjectID, _ r: RelationshipDescription, _ entity: EntityLayout) throws -> [ObjectID] {
        if let overlay { return try overlay.list(id, r, entity) }
        return try stored.related(id, r, treeName: entity.toManyTrees[r.name]!)
    }

    /// The value at a key path of attributes through to-one relationships (`department.name`);
    /// nil along the way gives `.null`. Throws `unknownKey` for a name the entity lacks.
    func value(of record: Record, path: [String]) throws -> CdValue {
        var current = record
        for (i, key) in path.enumerated() {
            let entity = current.entity
            if i == path.count - 1, let s = entity.attributeSlots[key] { return current.values[s] }
            guard let s = entity.toOneSlots[key] else {
                throw CdPredicateError(
                    .unknownKey,
                    "\(entity.name) has no attribute or to-one relationship '\(key)' "
                        + "(in \(path.joined(separator: ".")))"
                )
            }
            guard let target = current.toOne[s], let next = try self.record(target) else { return .null }
            if i == path.count - 1 { return .integer(target.primaryKey) }
            current = next
        }
        return .null
    }
}

/// One record as a `PredicateEvaluable`.
final class RecordObject: PredicateEvaluable {
    let id: ObjectID
    let record: Record
    let reader: ObjectReader

    init(id: ObjectID, record: Record, reader: ObjectReader) {
        self.id = id
        self.record = record
        self.reader = reader
    }

    var predicateIdentity: AnyHashable { id }

    func predicateValue(forKey key: String) throws -> PredicateValue {
        let entity = record.entity
        if let s = entity.attributeSlots[key] { return .value(record.values[s]) }
        if let s = entity.toOneSlots[key] {
            guard let target = record.toOne[s], let rec = try reader.record(target) else { return .object(nil) }
            return .object(RecordObject(id: target, record: rec, reader: reader))
        }
        if let r = entity.relationships[key], r.isToMany {
            var elements: [PredicateValue] = []
            for t in try reader.related(id, r, entity) {
                if let rec = try reader.record(t) {
                    elements.append(.object(RecordObject(id: t, record: rec, reader: reader)))
                }
            }
            return .collection(elements)
        }
        throw CdPredicateError(.unknownKey, "\(entity.name) has no stored key '\(key)'")
    }
}

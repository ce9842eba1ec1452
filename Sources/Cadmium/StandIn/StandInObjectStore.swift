// An in-memory implementation of the object store contract (docs/design/object-store-api.md),
// used until `ObjectStore` lands on branch `objects`, and by tests that want no engine at all.
// It keeps every object's values, to-many relationships included, in one dictionary; a snapshot
// is a copy of that dictionary (copy-on-write makes it cheap).
//
// It implements what the context layer relies on: defaults, attribute validation, relationship
// counts, delete rules (cascade, nullify, deny), inverse maintenance, pending-change overlays,
// predicates, sorting, paging, dictionary rows with `@sum`/`@count`/`@avg`/`@min`/`@max`
// expressions and grouping. It does not check uniqueness constraints.
//
// Confinement: thread-safe; `lock` guards `records` and `commitNumber`.

import Foundation
import CdObjects

final class StandInObjectStore: StoreBackend, @unchecked Sendable {
    typealias Records = [ObjectID: [String: PropertyValue]]

    let model: ObjectModel
    private let lock = NSLock()
    private var records: Records = [:]
    private var commitNumber: UInt64 = 0
    private var nextKey: [String: Int64] = [:]

    init(model: ObjectModel) { self.model = model }

    func newObjectIDs(entity: String, count: Int) throws -> [ObjectID] {
        lock.withLock {
            let root = model.rootEntity(of: entity)?.name ?? entity
            let first = nextKey[root, default: 1]
            nextKey[root] = first + Int64(count)
            return (0..<Int64(count)).map { ObjectID(entity: entity, primaryKey: first + $0) }
        }
    }

    func apply(_ changes: ChangeSet) throws -> AppliedChanges {
        try lock.withLock {
            var copy = records
            let applied = try StandInObjectStore.apply(changes, to: &copy, model: model, validate: true)
            records = copy
            commitNumber += 1
            return applied
        }
    }

    func beginSnapshot() throws -> any SnapshotBackend {
        lock.withLock { StandInSnapshot(records: records, commitNumber: commitNumber, model: model) }
    }

    // MARK: - Applying a change set

    /// Applies `changes` to `records`; with `validate` false (pending overlays) nothing is
    /// checked and deny rules are ignored.
    static func apply(_ changes: ChangeSet, to records: inout Records, model: ObjectModel,
                      validate: Bool) throws -> AppliedChanges {
        var applied = AppliedChanges()
        var touched = Set<ObjectID>()
        // Two passes: every new record exists before any relationship points at it.
        for id in changes.inserted.keys {
            var record: [String: PropertyValue] = [:]
            for attribute in model.allAttributes(of: id.entity) where !attribute.isTransient {
                record[attribute.name] = .attribute(attribute.defaultValue ?? .null)
            }
            for relationship in model.allRelationships(of: id.entity) where !relationship.isTransient {
                record[relationship.name] = relationship.isToMany ? .toMany([]) : .toOne(nil)
            }
            records[id] = record
            applied.inserted.insert(id)
        }
        for (id, values) in changes.inserted {
            try set(values, of: id, in: &records, model: model, touched: &touched)
        }
        for (id, values) in changes.updated {
            guard records[id] != nil else {
                if validate {
                    throw CdError.validation(ValidationFailure(entity: id.entity, objectID: "\(id)", key: "",
                                                               message: "the object does not exist"))
                }
                continue
            }
            try set(values, of: id, in: &records, model: model, touched: &touched)
            touched.insert(id)
        }
        // Delete rules: cascade recursively, then nullify inverses, deny when targets remain.
        var toDelete = changes.deleted.filter { records[$0] != nil }
        var queue = Array(toDelete)
        while let id = queue.popLast() {
            for relationship in model.allRelationships(of: id.entity) where relationship.deleteRule == .cascade {
                for target in targets(of: id, relationship.name, in: records) where !toDelete.contains(target) {
                    toDelete.insert(target)
                    queue.append(target)
                }
            }
        }
        for id in toDelete {
            for relationship in model.allRelationships(of: id.entity) {
                let remaining = targets(of: id, relationship.name, in: records).filter { !toDelete.contains($0) }
                if validate, relationship.deleteRule == .deny, !remaining.isEmpty,
                   let error = relationship.validateDelete(relatedCount: remaining.count, entityName: id.entity,
                                                           objectID: "\(id)") {
                    throw error
                }
                guard let inverse = relationship.inverse else { continue }
                for target in remaining {
                    removeTarget(id, from: target, inverse, in: &records, model: model)
                    touched.insert(target)
                }
            }
        }
        for id in toDelete { records[id] = nil }
        applied.deleted = toDelete
        applied.updated = touched.subtracting(applied.inserted).subtracting(toDelete)
        if validate {
            for id in applied.inserted.union(applied.updated) { try check(id, records: records, model: model) }
        }
        return applied
    }

    private static func targets(of id: ObjectID, _ relationship: String, in records: Records) -> [ObjectID] {
        switch records[id]?[relationship] {
        case let .toOne(target?)?: return [target]
        case let .toMany(targets)?: return targets
        default: return []
        }
    }

    private static func removeTarget(_ id: ObjectID, from owner: ObjectID, _ relationship: String,
                                     in records: inout Records, model: ObjectModel) {
        switch records[owner]?[relationship] {
        case .toOne(id)?: records[owner]?[relationship] = .toOne(nil)
        case let .toMany(list)?: records[owner]?[relationship] = .toMany(list.filter { $0 != id })
        default: break
        }
    }

    private static func addTarget(_ id: ObjectID, to owner: ObjectID, _ relationship: RelationshipDescription,
                                  in records: inout Records, model: ObjectModel, touched: inout Set<ObjectID>) {
        guard records[owner] != nil else { return }
        if relationship.isToMany {
            let list = targets(of: owner, relationship.name, in: records)
            if !list.contains(id) { records[owner]?[relationship.name] = .toMany(list + [id]) }
        } else {
            // A to-one inverse moves: the previous target loses `owner`.
            if case let .toOne(previous?)? = records[owner]?[relationship.name], previous != id,
               let back = relationship.inverse {
                removeTarget(owner, from: previous, back, in: &records, model: model)
                touched.insert(previous)
            }
            records[owner]?[relationship.name] = .toOne(id)
        }
        touched.insert(owner)
    }

    private static func set(_ values: [String: PropertyValue], of id: ObjectID, in records: inout Records,
                            model: ObjectModel, touched: inout Set<ObjectID>) throws {
        for (key, value) in values {
            guard let relationship = model.relationship(key, of: id.entity) else {
                records[id]?[key] = value
                continue
            }
            let old = Set(targets(of: id, key, in: records))
            let newList: [ObjectID]
            switch value {
            case let .toOne(target): newList = target.map { [$0] } ?? []
            case let .toMany(list): newList = list
            case .attribute: newList = []
            }
            records[id]?[key] = relationship.isToMany ? .toMany(newList) : .toOne(newList.first)
            guard let inverseName = relationship.inverse,
                  let inverse = model.relationship(inverseName, of: relationship.destination) else { continue }
            let new = Set(newList)
            for removed in old.subtracting(new) {
                removeTarget(id, from: removed, inverseName, in: &records, model: model)
                touched.insert(removed)
            }
            for added in new.subtracting(old) {
                if !relationship.isToMany {
                    // `id` leaves its previous to-one target's inverse (done above through `old`).
                }
                addTarget(id, to: added, inverse, in: &records, model: model, touched: &touched)
            }
        }
    }

    private static func check(_ id: ObjectID, records: Records, model: ObjectModel) throws {
        guard let record = records[id] else { return }
        for attribute in model.allAttributes(of: id.entity) where !attribute.isTransient {
            guard case let .attribute(value)? = record[attribute.name] else { continue }
            if let error = attribute.validate(value, entityName: id.entity, objectID: "\(id)") { throw error }
        }
        for relationship in model.allRelationships(of: id.entity) where !relationship.isTransient {
            let count = targets(of: id, relationship.name, in: records).count
            if let error = relationship.validateCount(count, entityName: id.entity, objectID: "\(id)") { throw error }
        }
    }
}

// `Cd.batchInsert`: many new objects from plain values, without making managed objects, in
// commits of `batchSize` (CdFetchRequest+Batch.swift says how batches run and what they check).

import Foundation
import CdObjects

extension Cd {
    /// Inserts one new object of `T`'s entity per element of `rows` (attribute names to values;
    /// a to-one relationship takes the target's `ObjectID` or object), `batchSize` per commit,
    /// without making managed objects; returns how many were inserted. Attributes not given
    /// take the model's default; the store validates every object and keeps inverses in step.
    /// `rows` is read one batch at a time, so a lazy sequence keeps memory to one batch.
    ///
    /// ```swift
    /// try Cd.transactAndWait {
    ///     let n = try Cd.batchInsert(Employee.self, (0..<100_000).lazy.map { i in
    ///         ["name": "employee \(i)", "salary": 1_000 + i]
    ///     })
    /// }
    /// ```
    ///
    /// - Throws: misuse B1 for a class with no entity, B2 on the main thread, B3 outside a
    ///   transaction; `CdError.validation` for a name that is not an attribute or to-one of the
    ///   entity or a value of the wrong kind, and the store's validation errors (the batches
    ///   before the failing one stay committed).
    @discardableResult
    public static func batchInsert<T: CdManagedObject>(
        _ entityType: T.Type, _ rows: some Sequence<[String: Any]>, batchSize: Int = 1_000
    ) throws -> Int {
        let form = "Cd.batchInsert(\(T.self).self, _:)"
        let container = try requireContainer(form)
        guard let entity = container.model.entity(for: entityType) else {
            throw Misuse.report(
                .b1, "\(form): the model has no entity named '\(T.entityName)'. Add the class to CdModel(classes:).")
        }
        _ = try writingTransaction(
            form, onMain: .b2, outside: .b3,
            advice: "Insert in batches inside Cd.transact { } / Cd.transactAndWait { }.")
        let model = container.model.objectModel
        let size = max(1, batchSize)
        var inserted = 0
        var pending: [[String: PropertyValue]] = []
        pending.reserveCapacity(size)
        func flush() throws {
            guard !pending.isEmpty else { return }
            let ids = try container.store.newObjectIDs(entity: entity.name, count: pending.count)
            var changes = ChangeSet()
            for (id, values) in zip(ids, pending) { changes.inserted[id] = values }
            _ = try container.save(changes)
            inserted += pending.count
            pending.removeAll(keepingCapacity: true)
        }
        for row in rows {
            var values: [String: PropertyValue] = [:]
            for (name, given) in row {
                values[name] = try Self.batchValue(given, key: name, entity: entity.name, model)
            }
            pending.append(values)
            if pending.count == size { try flush() }
        }
        try flush()
        return inserted
    }

    /// One value of a batch insert as the store takes it.
    private static func batchValue(
        _ given: Any, key: String, entity: String, _ model: ObjectModel
    ) throws -> PropertyValue {
        if let attribute = model.attribute(key, of: entity) {
            guard case let .constant(value) = try BatchValue(given, key: key, entity: entity) else {
                throw CdError.validation(
                    ValidationFailure(
                        entity: entity, objectID: nil, key: key,
                        message: "batchInsert: '\(key)' takes a value, not an expression"))
            }
            return .attribute(BatchValue.converted(value, to: attribute.type))
        }
        if let relationship = model.relationship(key, of: entity), !relationship.isToMany {
            switch given {
            case let id as ObjectID: return .toOne(id)
            case let object as CdManagedObject:
                if let id = object.objectID { return .toOne(id) }
            case Optional<Any>.none: return .toOne(nil)
            default: break
            }
        }
        throw CdError.validation(
            ValidationFailure(
                entity: entity, objectID: nil, key: key,
                message: "batchInsert: '\(key)' is not an attribute or to-one relationship of \(entity), "
                    + "or \(type(of: given)) is not a value for it (a to-one takes an ObjectID or a saved object)"))
    }
}

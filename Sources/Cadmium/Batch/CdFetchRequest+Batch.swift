// Batch operations: delete, update or insert many objects without making managed objects.
// Unlike Core Data's batch requests they go through the same commit path as a transaction's
// own changes: the store validates every value (types, ranges, required, uniqueness), runs
// delete rules (cascade, nullify, deny) and keeps inverses in step, and each batch's commit is
// merged into the main context and announced (update handlers, fetched results controllers,
// `changes()`, `Cd.commits`, the `cdDidMergeCommit` notification).
//
// How they run. Called inside a transaction body. The request's matches are found as object
// IDs only (a few bytes each; no values, no objects); they are then processed `batchSize` at a
// time: for each batch, one query limited to its IDs reads the values an expression needs and
// drops objects deleted since, and one commit writes it. Memory is therefore one batch of
// values plus the list of IDs, whatever the number of matches. Each batch is its own commit,
// made at once: the batches before a failing one stay committed (the error says how many), and
// the operation is not undone if the transaction body throws later. The store sees only what
// is committed: the enclosing transaction's own uncommitted changes are not seen, and its
// objects keep the values they had (commit them first, or fetch again, when that matters).

import Foundation
import CdObjects

extension CdFetchRequest where T: CdManagedObject {
    /// Deletes every matching object, `batchSize` per commit, without making objects; returns
    /// how many matching objects were deleted (objects deleted by a cascade are not counted).
    /// Delete rules run as for `Cd.delete`: a deny rule throws `CdError` 1600 for its batch.
    ///
    /// ```swift
    /// try Cd.transactAndWait {
    ///     let gone = try Cd.objects(Employee.self).filter("salary < %@", 100).batchDelete()
    /// }
    /// ```
    ///
    /// - Throws: misuse E1 on the main thread, E2 outside a transaction; a predicate that does
    ///   not parse; the store's errors (the batches before the failing one stay committed).
    @discardableResult
    public func batchDelete(batchSize: Int = 1_000) throws -> Int {
        let container = try batchContainer("batchDelete()", onMain: .e1, outside: .e2, what: "Delete")
        let ids = try matchingIDs(container)
        var deleted = 0
        for start in stride(from: 0, to: ids.count, by: Swift.max(1, batchSize)) {
            let batch = Array(ids[start..<Swift.min(start + Swift.max(1, batchSize), ids.count)])
            let live = try existing(batch, container)
            guard !live.isEmpty else { continue }
            let applied = try container.save(ChangeSet(deleted: Set(live)))
            deleted += live.filter { applied.deleted.contains($0) }.count
        }
        return deleted
    }

    /// Sets attributes of every matching object, `batchSize` per commit, without making objects;
    /// returns how many objects were updated. A value is a constant (`0`, `"x"`, `nil` as
    /// `CdValue.null`, any `@Attribute` type, a `CdValue`) or a ``CdExpression`` computed from
    /// the object's own attributes. Numbers are converted to the attribute's type (a double
    /// stored into an integer attribute is rounded to the nearest integer); the store then
    /// validates every value as at any commit.
    ///
    /// ```swift
    /// try Cd.transactAndWait {
    ///     try Cd.objects(Employee.self).filter("name BEGINSWITH 'temp'").batchUpdate(["salary": 0])
    ///     try Cd.objects(Employee.self).batchUpdate(["salary": CdExpression("salary * 1.1")])
    /// }
    /// ```
    ///
    /// - Throws: misuse J1 on the main thread, J3 outside a transaction; `CdError.validation`
    ///   for a name that is not an attribute of the entity or a value of the wrong kind;
    ///   ``CdExpressionError``; the store's errors (the batches before the failing one stay
    ///   committed).
    @discardableResult
    public func batchUpdate(_ values: [String: Any], batchSize: Int = 1_000) throws -> Int {
        let container = try batchContainer("batchUpdate(_:)", onMain: .j1, outside: .j3, what: "Update")
        let model = container.model.objectModel
        let entity = request.entity
        var assignments: [(name: String, type: AttributeType, value: BatchValue)] = []
        for (name, given) in values.sorted(by: { $0.key < $1.key }) {
            guard let attribute = model.attribute(name, of: entity) else {
                throw CdError.validation(
                    ValidationFailure(
                        entity: entity, objectID: nil, key: name,
                        message: "batchUpdate: '\(name)' is not an attribute of \(entity)"))
            }
            let value = try BatchValue(given, key: name, entity: entity)
            if case let .expression(e) = value {
                if let error = e.parseError { throw error }
                for read in e.attributes where model.attribute(read, of: entity) == nil {
                    throw CdExpressionError(
                        format: e.format, message: "'\(read)' is not an attribute of \(entity)", offset: 0)
                }
            }
            assignments.append((name, attribute.type, value))
        }
        guard !assignments.isEmpty else { return 0 }
        let reads = assignments.reduce(into: Set<String>()) { names, a in
            if case let .expression(e) = a.value { names.formUnion(e.attributes) }
        }
        let ids = try matchingIDs(container)
        var updated = 0
        for start in stride(from: 0, to: ids.count, by: Swift.max(1, batchSize)) {
            let batch = Array(ids[start..<Swift.min(start + Swift.max(1, batchSize), ids.count)])
            let rows = try existingRows(batch, reading: reads, container)
            guard !rows.isEmpty else { continue }
            var changes = ChangeSet()
            for (id, row) in rows {
                var set: [String: PropertyValue] = [:]
                for a in assignments {
                    let raw: CdValue
                    switch a.value {
                    case let .constant(v): raw = v
                    case let .expression(e): raw = try e.evaluate(row, object: id)
                    }
                    set[a.name] = .attribute(BatchValue.converted(raw, to: a.type))
                }
                changes.updated[id] = set
            }
            _ = try container.save(changes)
            updated += rows.count
        }
        return updated
    }

    // MARK: - Running

    /// The container, after the checks of a batch operation: inside a transaction, a request that
    /// was built without error (a predicate that failed to parse is thrown, never read as "all").
    private func batchContainer(
        _ call: String, onMain: CdMisuse.Kind, outside: CdMisuse.Kind, what: String
    ) throws -> CdContainer {
        let form = "CdFetchRequest.\(call) on \(request.entity)"
        let container = try Cd.requireContainer(form)
        _ = try Cd.writingTransaction(
            form, onMain: onMain, outside: outside,
            advice: "\(what) in batches inside Cd.transact { } / Cd.transactAndWait { }.")
        if let buildError = shape.buildError { throw buildError }
        return container
    }

    /// The IDs of the committed objects that match (values are not read).
    private func matchingIDs(_ container: CdContainer) throws -> [ObjectID] {
        let snapshot = try container.store.beginSnapshot()
        defer { snapshot.end() }
        return try snapshot.fetchIDs(request, pending: nil)
    }

    /// Those of `ids` that still exist (a cascade or another transaction may have deleted some).
    private func existing(_ ids: [ObjectID], _ container: CdContainer) throws -> [ObjectID] {
        try existingRows(ids, reading: [], container).map(\.id)
    }

    /// Those of `ids` that still exist, with the attributes in `names`.
    private func existingRows(
        _ ids: [ObjectID], reading names: Set<String>, _ container: CdContainer
    ) throws -> [(id: ObjectID, values: [String: PropertyValue])] {
        var byKey = FetchRequest(entity: request.entity)
        byKey.includesSubentities = request.includesSubentities
        byKey.predicate = try CdPredicate(format: "SELF IN %@", ids)
        byKey.propertiesToFetch = names.sorted()
        let snapshot = try container.store.beginSnapshot()
        defer { snapshot.end() }
        if names.isEmpty { return try snapshot.fetchIDs(byKey, pending: nil).map { ($0, [:]) } }
        return try snapshot.fetchObjects(byKey, pending: nil).map { ($0.id, $0.values ?? [:]) }
    }
}

/// One value of a batch update: a constant, or an expression computed per object.
enum BatchValue {
    case constant(CdValue)
    case expression(CdExpression)

    init(_ given: Any, key: String, entity: String) throws {
        switch given {
        case let e as CdExpression: self = .expression(e)
        case let v as CdValue: self = .constant(v)
        case let v as any CdAttributeValue: self = .constant(v.cdValue)
        case Optional<Any>.none: self = .constant(.null)
        default:
            throw CdError.validation(
                ValidationFailure(
                    entity: entity, objectID: nil, key: key,
                    message: "batchUpdate: the value for '\(key)' is a \(type(of: given)), "
                        + "not an attribute value, a CdValue or a CdExpression"))
        }
    }

    /// `value` in the attribute's type where numbers allow it (the store validates the rest).
    static func converted(_ value: CdValue, to type: AttributeType) -> CdValue {
        switch (value, type) {
        case let (.double(d), .integer16), let (.double(d), .integer32), let (.double(d), .integer64):
            let rounded = d.rounded(.toNearestOrAwayFromZero)
            return Int64(exactly: rounded).map { .integer($0) } ?? value
        case let (.integer(i), .double), let (.integer(i), .float): return .double(Double(i))
        case let (.integer(i), .decimal): return .decimal(Decimal(i))
        case let (.double(d), .decimal): return .decimal(Decimal(d))
        default: return value
        }
    }
}

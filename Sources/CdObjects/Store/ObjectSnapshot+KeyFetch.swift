// A fetch whose whole predicate names its objects — `SELF == id` or `SELF IN {ids}`, Core Data's
// `existingObject(with:)` written as a query — answered by reading those records by primary key,
// without validating, planning or compiling the predicate and without a query executor. The
// general path (QueryExecutor on a PRIMARY KEY plan) gives the same answer more slowly; this
// one is what an app's fetch by ID costs on every call.
//
// Invariants:
//  FK1. `keyedSlotObjects(request)` is nil, and the caller runs the general path, unless the
//       request is one whose result the general path fixes by key alone: a predicate that is one
//       direct `SELF == <ObjectID>` or `SELF IN {<ObjectID>…}` comparison (QueryPlanner's
//       `primaryKeys`, string options ignored there as here), no sort keys, an entity the model
//       has, and paging that is not negative (the general path reports those errors itself).
//  FK2. When not nil it equals the general path's `fetchSlotObjects(request)` with no pending
//       changes: the named IDs once each, in primary-key order, only those of the request's
//       entity (and its sub-entities when `includesSubentities`), each only if a record of
//       exactly that entity is stored under its key, then `offset` and `limit` applied; values
//       in slot form (FP1); a damaged record is the same corruption error.
//  FK3. Pending changes are never answered here: an overlay can touch objects the request names
//       without naming them itself (inverse updates, cascades), so the caller overlays them on
//       the general path.
//  FK4. The form by IDs (`keyedSlotObjects(_:entity:includesSubentities:offset:limit:)`) answers
//       exactly what FK2 gives for the request that states those IDs, entity and paging; the form
//       by request only finds the IDs in its predicate and calls it.

import CdStore

extension FetchRequest {
    /// The IDs a request names when its whole predicate is `SELF == id` or `SELF IN {ids}` and
    /// it has no sort keys (FK1); nil otherwise.
    var keyedIDs: [ObjectID]? {
        guard sortDescriptors.isEmpty, case let .comparison(c)? = predicate, c.quantifier == .direct else {
            return nil
        }
        return QueryPlanner.primaryKeys(c)
    }
}

extension ObjectSnapshot {
    /// The slot-form matches of a request that names its objects by ID, read by primary key
    /// (FK2); nil when the request is not one (FK1) or `pending` holds changes (FK3).
    func keyedSlotObjects(
        _ request: FetchRequest, pending: ChangeSet?
    ) throws -> [(id: ObjectID, values: [PropertyValue?]?)]? {
        guard pending?.isEmpty ?? true, let ids = request.keyedIDs else { return nil }
        return try keyedSlotObjects(
            ids, entity: request.entity, includesSubentities: request.includesSubentities, offset: request.offset,
            limit: request.limit)
    }

    /// The slot-form matches of a fetch of `entity` whose predicate is `SELF IN ids` (`SELF == id`
    /// for one), with no sort keys and no pending changes, read by primary key (FK2) without a
    /// request made for it (FK4): what a front end that recognised such a fetch itself reads. Nil
    /// when the general path must answer (an entity the model lacks, negative paging: FK1).
    ///
    /// ```swift
    /// let found = try snapshot.keyedSlotObjects([id], entity: "Employee", includesSubentities: true,
    ///                                          offset: 0, limit: 1)
    /// ```
    package func keyedSlotObjects(
        _ ids: [ObjectID], entity name: String, includesSubentities: Bool, offset: Int, limit: Int?
    ) throws -> [(id: ObjectID, values: [PropertyValue?]?)]? {
        guard offset >= 0, (limit ?? 0) >= 0, let entity = store.layout.entities[name] else { return nil }
        // As QueryPlanner orders a PRIMARY KEY plan: each ID once, by primary key (keeps FK2).
        let ordered: [ObjectID]
        if ids.count == 1 {
            ordered = ids
        } else {
            var unique = Set<ObjectID>()
            ordered = ids.filter { unique.insert($0).inserted }.sorted { $0.primaryKey < $1.primaryKey }
        }
        let end = limit.map { offset + $0 }
        var out: [(id: ObjectID, values: [PropertyValue?]?)] = []
        do {
            for id in ordered {
                if let end, out.count >= end { break }
                let covered =
                    id.entityCode == entity.nameCode || (includesSubentities && entity.kinds.contains(id.entity))
                // `record` answers only a record of exactly `id`'s entity, from its hierarchy's tree.
                guard covered, let record = try stored.record(id) else { continue }
                out.append((id, Self.slotValues(of: record)))
            }
        } catch let e as StoreError {
            throw CdError.store(e)  // as `fetchSlotObjects` reports it
        }
        return offset == 0 ? out : Array(out.dropFirst(offset))
    }
}

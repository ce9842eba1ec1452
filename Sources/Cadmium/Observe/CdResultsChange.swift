// `CdResultsChange`: one step of a query observation (`CdFetchRequest.changes()`): the new
// results and how they differ from the previous ones, by position. The difference is computed
// by object identity (`ResultsDifference`):
//
//   deleted   positions in the previous results of objects no longer in the results
//   inserted  positions in the new results of objects that were not in the previous ones
//   moved     (from, to): objects in both whose place among the objects in both changed — the
//             fewest such moves (`CollectionDifference` of the common objects); shifts caused
//             by other inserts and deletes are not moves
//   updated   positions in the new results of objects in both, not moved, that a commit
//             since the previous results changed

import CdObjects

/// The results of an observed query after a commit, with the difference from the previous
/// results. The first change of an observation has every position in ``inserted``.
///
/// ```swift
/// for try await change in Cd.objects(Employee.self).filter("salary > 100").sorted("name").changes() {
///     table.apply(deleted: change.deleted, inserted: change.inserted, moved: change.moved)
///     table.reload(change.updated)
///     rows = change.results
/// }
/// ```
public struct CdResultsChange<T> {
    /// The results now (main-context objects, in the request's order).
    public let results: [T]
    /// Positions in ``results`` of objects new to the results.
    public let inserted: [Int]
    /// Positions in the previous results of objects that left them.
    public let deleted: [Int]
    /// Positions in ``results`` of objects that stayed in place and were changed by a commit.
    public let updated: [Int]
    /// Objects that stayed but changed places: position in the previous results, then in
    /// ``results``.
    public let moved: [(from: Int, to: Int)]
    /// Whether this is the first change of the observation (the results as they were).
    public let isInitial: Bool

    /// Whether the results differ in membership, order or content from the previous ones.
    public var isEmpty: Bool { inserted.isEmpty && deleted.isEmpty && updated.isEmpty && moved.isEmpty }
}

/// The difference between two lists of distinct object IDs (the header's definitions).
struct ResultsDifference: Equatable {
    var inserted: [Int] = []
    var deleted: [Int] = []
    var updated: [Int] = []
    var moved: [Move] = []

    struct Move: Equatable {
        let from: Int
        let to: Int
    }

    var isEmpty: Bool { inserted.isEmpty && deleted.isEmpty && updated.isEmpty && moved.isEmpty }

    /// From `old` to `new`; `changed`: the objects a commit changed since `old`.
    init(old: [ObjectID], new: [ObjectID], changed: Set<ObjectID>) {
        var oldPlace: [ObjectID: Int] = [:], newPlace: [ObjectID: Int] = [:]
        oldPlace.reserveCapacity(old.count)
        newPlace.reserveCapacity(new.count)
        for (i, id) in old.enumerated() { oldPlace[id] = i }
        for (i, id) in new.enumerated() { newPlace[id] = i }
        deleted = old.indices.filter { newPlace[old[$0]] == nil }
        inserted = new.indices.filter { oldPlace[new[$0]] == nil }
        let commonOld = old.filter { newPlace[$0] != nil }
        let commonNew = new.filter { oldPlace[$0] != nil }
        var movedIDs = Set<ObjectID>()
        if commonOld != commonNew {
            for step in commonNew.difference(from: commonOld) {
                switch step {
                case let .insert(_, id, _), let .remove(_, id, _): movedIDs.insert(id)
                }
            }
        }
        for id in commonNew {
            if movedIDs.contains(id) {
                moved.append(Move(from: oldPlace[id]!, to: newPlace[id]!))
            } else if changed.contains(id) {
                updated.append(newPlace[id]!)
            }
        }
    }
}

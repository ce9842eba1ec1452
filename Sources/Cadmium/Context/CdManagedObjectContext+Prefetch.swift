// `prefetch` (Core Data's relationshipKeyPathsForPrefetching): after a fetch, the targets of the
// named relationships are loaded into the context from the fetch's own snapshot, so the
// results and their related objects are one consistent view of one commit, and walking the
// relationships afterwards reads nothing from the store. A key path (`department.employees`)
// prefetches each step in turn.
//
// Per step: a to-many's target IDs are read from the relationship's tree and kept on the
// source object (as a later read would); a to-one's target is in the source's record. Targets
// then go through `materialize`, which loads their values from the same snapshot. Values the
// context has changed are used as they are (a transaction sees its own changes). A transaction
// or `Cd.read` context keeps its objects; the main context holds objects weakly, so it keeps
// the prefetched values instead, until the next merge, and a target built again from its ID
// before then gets them (as Core Data's row cache does).
//
// Confinement: the context's thread, like `materialize`.

import CdObjects

extension CdManagedObjectContext {
    /// Loads the targets of each relationship key path in `paths`, starting from `objects`.
    func prefetch(_ paths: [String], for objects: [CdManagedObject], from snapshot: any SnapshotBackend) throws {
        let model = container.model.objectModel
        var loaded: [CdManagedObject] = []
        defer { keepPrefetched(loaded) }
        for path in paths {
            var level = objects
            for key in path.split(separator: ".").map(String.init) {
                var next: [ObjectID] = []
                var seen = Set<ObjectID>()
                for object in level {
                    let (id, entity, value, own, partial) = object.withState { state in
                        let slot = state.slot(of: key)
                        let changed = slot.map { state.changed.contains($0) } ?? state.changedExtra.contains(key)
                        return (
                            state.objectID, state.entityName, state.value(key), state.isInserted || changed,
                            slot.map { state.partial.contains($0) } ?? false
                        )
                    }
                    guard let id, let relationship = model.relationship(key, of: entity) else { continue }
                    var targets: [ObjectID] = []
                    switch value {
                    case let .toMany(list)?: targets = list
                    case let .toOne(target)?
                    where own || partial || object.withState({ $0.loaded }):
                        targets = target.map { [$0] } ?? []
                    default:
                        if own { break }
                        if relationship.isToMany {
                            targets = try snapshot.related(id, key)
                            object.withState { state in
                                if state.value(key) == nil { state.setValue(.toMany(targets), key) }
                            }
                        } else if case let .toOne(target)? = try snapshot.values(of: id)?[key] {
                            targets = target.map { [$0] } ?? []
                        }
                    }
                    for target in targets where seen.insert(target).inserted { next.append(target) }
                }
                level = try materialize(next, from: snapshot)
                loaded += level
            }
        }
    }
}

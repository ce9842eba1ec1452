// Phase 3 of apply: deletes and delete rules, as Core Data's propagation does them.
//
//   cascade    the related objects are deleted too (recursively; cycles end because each object
//              is processed once)
//   nullify    each related object drops the deleted one from the inverse relationship
//   deny       the delete fails with 1600 while related objects remain that are not themselves
//              deleted by this change set; every blocker is listed
//   no action  nothing: the related objects keep a reference to the deleted object (dangling,
//              as in Core Data; the verifier reports it)
//
// Invariants:
//  D1. Once its rules have run, a deleted object leaves `records` (CA4 already hides it there):
//      what later phases need of it is its stored state, in `originals` (index keys, history
//      tombstone), so a delete of 100,000 objects does not keep a second table of them.

extension ChangeApplier {
    func applyDeletes() throws {
        deletesStarted = true  // CA4
        var queue = deletedGiven.sorted(by: >)
        var processed = Set<ObjectID>()
        while let id = queue.popLast() {
            guard processed.insert(id).inserted else { continue }
            deleting.remove(id)
            guard let rec = try record(id) else { deleting.insert(id); continue }
            deleting.insert(id)
            if !staged.isInserted(id) { deleted.insert(id) }
            updated.remove(id)
            let entity = rec.entity
            for r in entity.toOnes + entity.toManys {
                let targets: [ObjectID]
                if r.isToMany {
                    targets = try list(id, r, entity)
                } else {
                    targets = rec.toOne[entity.toOneSlots[r.name]!].map { [$0] } ?? []
                }
                guard !targets.isEmpty else { continue }
                switch r.deleteRule {
                case .deny:
                    denials.append((id, r, targets))
                case .cascade:
                    for t in targets.reversed() where !processed.contains(t) {
                        deleting.insert(t)
                        queue.append(t)
                    }
                case .nullify:
                    if let inverse = entity.inverses[r.name] {
                        for t in targets { try unlink(t, inverse, from: id) }
                    }
                case .noAction:
                    break
                }
            }
            // Keeps D1: nothing reads the deleted object's current record again.
            records[id] = nil
        }
        // Cascaded objects may have been marked updated by a nullify before their own delete.
        updated.subtract(deleting)
    }

    /// The 1600 errors of deny rules whose blockers survive this change set.
    func denialErrors() -> [CdError] {
        denials.compactMap { id, r, targets in
            let blockers = targets.filter { !isDeleting($0) }
            guard !blockers.isEmpty else { return nil }
            return .relationshipDeniedDelete(
                ValidationFailure(
                    entity: id.entity, objectID: id.description, key: r.name,
                    message:
                        "delete denied: \(r.name) still holds \(blockers.map(\.description).joined(separator: ", "))"))
        }
    }
}

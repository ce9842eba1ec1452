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
//  D1. Once its rules have run, a deleted object leaves `records` (CA4 already hides it there),
//      so a delete of 100,000 objects does not keep a second table of them.
//  D2. On the write path (not an overlay), a deleted stored object then leaves `originals` too:
//      what phases 4 and the history need of it, its index entries and its tombstone, is noted in
//      `deletedEntries` (DeletedObjectEntries DE1–DE3) first. Nothing reads its stored record
//      again: `record(_:)` answers nil for it (CA4), the write phase removes its record by key
//      and its relationship entries by a scan of its key's range.
//  D3. On the write path, a deleted stored object's record leaves its record tree here, as its
//      rules run, not in phase 4: one not loaded before is read and removed in one descent
//      (`StoredObjects.takeRecord`), so a delete reads each record leaf once, not once for its
//      rules and again for its removal; one loaded before (changed, or reached by a nullify) is
//      removed by key. Nothing is lost if a later step fails: the apply aborts the engine
//      transaction. Without inserts this runs with a quarter of the dirty-page limit, as
//      phase 4 does (U4): the given deletes come in key order, so each record page changes once.
//      An overlay writes nothing and reads the records as before.

import CdStore

extension ChangeApplier {
    func applyDeletes() throws {
        deletesStarted = true  // CA4
        guard !overlay, !deletedGiven.isEmpty, staged.inserted.isEmpty, let tx = stored.tx as? WriteTransaction
        else { return try runDeleteRules() }
        try tx.withSequentialWrites { try runDeleteRules() }  // D3
    }

    private func runDeleteRules() throws {
        var queue = deletedGiven.sorted(by: >)
        var processed = Set<ObjectID>()
        while let id = queue.popLast() {
            guard processed.insert(id).inserted else { continue }
            deleting.remove(id)
            guard let rec = try recordRemovedFromStore(id) else { deleting.insert(id); continue }
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
            // Keeps D2: only its index entries and tombstone stay.
            if !overlay, !staged.isInserted(id), let original = originals[id] ?? nil {
                deletedEntries.note(id, stored: original)
                originals[id] = nil
            }
        }
        // Cascaded objects may have been marked updated by a nullify before their own delete.
        updated.subtract(deleting)
    }

    /// The current record of `id`, which is being deleted; on the write path its stored record
    /// leaves the record tree now (keeps D3).
    private func recordRemovedFromStore(_ id: ObjectID) throws -> Record? {
        guard !overlay, stored.tx is WriteTransaction, !staged.isInserted(id) else { return try record(id) }
        if records[id] == nil, originals[id] == nil {
            guard let r = try stored.takeRecord(id) else { return nil }
            records[id] = r  // CA1, until D1 and D2 drop it below
            originals[id] = r
            return r
        }
        guard let r = try record(id) else { return nil }
        if let original = originals[id] ?? nil {
            try stored.writableTree(original.entity.recordTree).delete(RecordCodec.key(id.primaryKey))
        }
        return r
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

// What an apply records in the persistent history (docs/ARCHITECTURE.md §History): one change
// per object it inserted, updated or deleted, read from the working set after phase 4, so the
// changes the store made itself (inverses kept in step, nullify, cascades) are there as the
// asked-for ones are.
//
//   insert  the attributes and to-ones holding a value, and the to-manys holding members;
//   update  the attributes and to-ones whose value differs from the stored one (CA1), and the
//           to-manys whose list or unread delta changed (CA2); an object whose values all came
//           back to the stored ones is left out;
//   delete  the values of the attributes marked `preservesValueInHistoryOnDeletion` (tombstone).

import CdStore

extension ChangeApplier {
    /// Who made the changes (`ChangeSet.author`), for the history header.
    var author: String? {
        switch source {
        case let .named(changes): return changes.author
        case let .slots(changes): return changes.author
        }
    }

    /// The committing context's name (`ChangeSet.contextName`), for the history header.
    var contextName: String? {
        switch source {
        case let .named(changes): return changes.contextName
        case let .slots(changes): return changes.contextName
        }
    }

    /// The history part of what phase 4 wrote (`applied` is what it returned).
    func historyPart(_ applied: AppliedChanges) -> HistoryPartBuilder {
        var part = HistoryPartBuilder(entityCount: layout.byCode.count)
        let toManys = changedToManys()
        for index in staged.insertedOrder {
            let object = staged.inserted[index]
            let id = object.id, entity = object.entity
            if isDeleting(id) { continue }
            let members = toManys.isEmpty ? [] : toManys[id] ?? []
            if !records.isEmpty, let rec = records[id] {
                let a = entity.attributes.count
                part.appendInsert(entity, id.primaryKey, toManys: members) { s in
                    s < a ? !rec.values[s].isNull : rec.toOne[s - a] != nil
                }
                continue
            }
            let values = object.values, defaults = entity.defaults, a = entity.attributes.count
            part.appendInsert(entity, id.primaryKey, toManys: members) { s in
                if s < a {
                    if s < values.count, case let .attribute(v)? = values[s] { return !v.isNull }
                    return !defaults[s].isNull
                }
                if case let .toOne(target)? = object.toOne(s - a) { return target != nil }
                return false
            }
        }
        for id in applied.updated.sorted() where !deleted.contains(id) {
            guard let entity = entityLayout(of: id) else { continue }
            var slots: [Int] = []
            if let current = records[id], let original = originals[id] ?? nil {
                let a = entity.attributes.count
                for s in 0..<a where current.values[s] != original.values[s] { slots.append(s) }
                for p in 0..<entity.toOnes.count where current.toOne[p] != original.toOne[p] { slots.append(a + p) }
            }
            let members = toManys[id] ?? []
            guard !slots.isEmpty || !members.isEmpty else { continue }
            part.appendUpdate(entity, id.primaryKey, slots: slots, toManys: members)
        }
        for id in applied.deleted.sorted() {
            guard let entity = entityLayout(of: id) else { continue }
            part.appendDelete(entity, id.primaryKey, tombstone: deletedEntries.tombstone(id))  // D2
        }
        return part
    }

    /// The to-manys whose members this apply changed, by object, names sorted (CA2: a read list
    /// that differs from the stored one, or an unread delta that adds or removes a member).
    private func changedToManys() -> [ObjectID: [String]] {
        var result: [ObjectID: [String]] = [:]
        for (key, list) in lists where !isDeleting(key.object) && list != (listOriginals[key] ?? []) {
            result[key.object, default: []].append(key.relationship)
        }
        for (key, delta) in listDeltas where !isDeleting(key.object) && !(delta.added.isEmpty && delta.removed.isEmpty)
        {
            result[key.object, default: []].append(key.relationship)
        }
        for key in result.keys { result[key]!.sort() }
        return result
    }
}

// Phase 2 of apply: given relationship values are set and inverses kept in step (CA3 in
// ChangeApplier.swift). A to-one that moves takes the object out of its previous owner's
// to-many; a one-to-one target that gets a new owner is taken from the old one.

extension ChangeApplier {
    func relate() throws {
        // Only objects given a relationship value take part (bulk inserts of plain attributes
        // skip this). Work items: (inserted index or nil, the object).
        var work: [(Int?, StagedObject)] = []
        for (i, object) in staged.inserted.enumerated() where object.relates && !isDeleting(object.id) {
            work.append((i, object))
        }
        for object in staged.updated
        where object.relates && !isDeleting(object.id) && !staged.isInserted(object.id) && !dropped.contains(object.id)
        {
            work.append((nil, object))
        }
        // In ID order (entity, then key), so that the outcome does not depend on the order the
        // change set lists its objects; a bulk insert comes sorted already.
        func precedes(_ a: (Int?, StagedObject), _ b: (Int?, StagedObject)) -> Bool {
            let x = a.1.id, y = b.1.id
            return x.entity == y.entity ? x.primaryKey < y.primaryKey : x.entity < y.entity
        }
        if zip(work, work.dropFirst()).contains(where: { !precedes($0, $1) }) { work.sort(by: precedes) }
        for (index, object) in work {
            let id = object.id, entity = object.entity
            // In the layout's order (by name), so that the outcome does not depend on hashing.
            for (position, r) in entity.toOnes.enumerated() {
                if case let .toOne(target)? = object.toOne(position) {
                    if let index, records[id] == nil {
                        try setNewToOne(index, position, r, entity, target)
                    } else {
                        try setToOne(id, r, entity, target)
                    }
                }
                if let index { staged.toOnesRelated[index] = position + 1 }
            }
            for (position, r) in entity.toManys.enumerated() {
                if case let .toMany(targets)? = object.toMany(position) { try setToMany(id, r, entity, targets) }
                if let delta = object.deltas[position] { try applyDelta(id, r, entity, delta) }
            }
        }
    }

    /// `setToOne` for inserted object `index` that has no working-set record yet: its stored
    /// state is nothing, so the target is set in its staged values (SC3) and only the inverse
    /// side is kept in step. A bulk insert that links each new object to an owner so keeps no
    /// record per object in memory.
    private func setNewToOne(
        _ index: Int, _ position: Int, _ r: RelationshipDescription, _ entity: EntityLayout, _ target: ObjectID?
    ) throws {
        let id = staged.inserted[index].id
        guard let target else { return }
        // The staged record now has the target (SC3): phase 2 has reached this slot.
        staged.toOnesRelated[index] = position + 1
        guard try liveTarget(target, r, source: id, entity) else {
            // Deleted meanwhile (CA6): the link is not made.
            if var rec = try record(id) {
                rec.toOne[position] = nil
                records[id] = rec
            }
            return
        }
        guard let inverse = entity.inverses[r.name] else { return }
        try link(target, inverse, to: id, forward: r)
    }

    /// Whether `target` may be linked from `source.r`: true when it exists and is a `r.destination`;
    /// false when another transaction deleted it after this one read it (CA6; under the error
    /// policy that is also a conflict). Otherwise an error that names `source` and `r`, the change
    /// that named the target.
    private func liveTarget(
        _ target: ObjectID, _ r: RelationshipDescription, source: ObjectID, _ entity: EntityLayout
    ) throws -> Bool {
        guard layout.isKind(target.entity, of: r.destination) else {
            throw CdError.validation(
                ValidationFailure(
                    entity: entity.name, objectID: source.description, key: r.name,
                    message: "\(target) is not a \(r.destination)"))
        }
        if try record(target) != nil { return true }
        let targetEntity = try entityLayoutOrThrow(of: target)
        guard !isDeleting(target), try deletedMeanwhile(target, targetEntity) else {
            throw CdError.validation(
                ValidationFailure(
                    entity: entity.name, objectID: source.description, key: r.name,
                    message: "links to \(target), which does not exist"))
        }
        if mergePolicy == .error, !overlay, !conflicts.contains(where: { $0.objectID == target }) {
            conflicts.append(MergeConflict(objectID: target, properties: [], deleted: true))
        }
        return false
    }

    func setToOne(_ id: ObjectID, _ r: RelationshipDescription, _ entity: EntityLayout, _ target: ObjectID?) throws {
        guard var rec = try record(id) else { throw missingObject(id, entity: entity.name, key: r.name) }
        var target = target
        if let t = target, !(try liveTarget(t, r, source: id, entity)) { target = nil }
        let slot = entity.toOneSlots[r.name]!
        let old = rec.toOne[slot]
        guard old != target else { return }
        rec.toOne[slot] = target
        records[id] = rec
        markUpdated(id)
        guard let inverse = entity.inverses[r.name] else { return }
        if let old { try unlink(old, inverse, from: id) }
        if let target { try link(target, inverse, to: id, forward: r) }
    }

    func setToMany(_ id: ObjectID, _ r: RelationshipDescription, _ entity: EntityLayout, _ targets: [ObjectID]) throws {
        guard try record(id) != nil else { throw missingObject(id, entity: entity.name, key: r.name) }
        var seen = Set<ObjectID>()
        var new: [ObjectID] = []
        for t in targets where seen.insert(t).inserted {
            if try liveTarget(t, r, source: id, entity) { new.append(t) }
        }
        if !r.isOrdered { new.sort { $0.primaryKey < $1.primaryKey } }
        let old = try list(id, r, entity)
        guard old != new else { return }
        let oldSet = Set(old)
        setList(id, r, new)
        guard let inverse = entity.inverses[r.name] else { return }
        for o in old where !seen.contains(o) { try unlink(o, inverse, from: id) }
        for n in new where !oldSet.contains(n) { try link(n, inverse, to: id, forward: r) }
    }

    /// Applies the links a transaction added to and removed from `id.r` to the list as stored now
    /// (TD1–TD2 in ToManyDelta.swift), keeping inverses in step (CA3). An unordered list of a
    /// stored object stays unread (CA2), so a link costs the same whatever the list's size.
    func applyDelta(_ id: ObjectID, _ r: RelationshipDescription, _ entity: EntityLayout, _ delta: ToManyDelta) throws {
        let inverse = entity.inverses[r.name]
        for member in delta.removed {
            try removeFromList(id, r, entity, member)
            if let inverse { try unlink(member, inverse, from: id) }
        }
        for member in delta.added where try liveTarget(member, r, source: id, entity) {
            try insertIntoList(id, r, entity, member)
            if let inverse { try link(member, inverse, to: id, forward: r) }
        }
        if r.isOrdered, let order = delta.order {
            // TD2: the members the transaction ordered, then those linked meanwhile, in store order.
            let current = try list(id, r, entity)
            let present = Set(current)
            var named = Set<ObjectID>()
            var ordered = order.filter { present.contains($0) && named.insert($0).inserted }
            ordered += current.filter { !named.contains($0) }
            if ordered != current { setList(id, r, ordered) }
        }
    }

    /// Makes `source` appear in `object.inverse`. A to-one inverse that pointed elsewhere is moved:
    /// the previous owner loses `object` from its side of `forward`.
    func link(
        _ object: ObjectID, _ inverse: RelationshipDescription, to source: ObjectID, forward: RelationshipDescription
    ) throws {
        guard var rec = try record(object) else { return }
        let entity = rec.entity
        if inverse.isToMany {
            try insertIntoList(object, inverse, entity, source)
        } else {
            let slot = entity.toOneSlots[inverse.name]!
            let previous = rec.toOne[slot]
            guard previous != source else { return }
            rec.toOne[slot] = source
            records[object] = rec
            markUpdated(object)
            if let previous { try detach(object, fromOwner: previous, forward) }
        }
    }

    /// Removes `source` from `object.inverse` (sets a to-one inverse to nil when it holds `source`).
    func unlink(_ object: ObjectID, _ inverse: RelationshipDescription, from source: ObjectID) throws {
        guard var rec = try record(object) else { return }
        let entity = rec.entity
        if inverse.isToMany {
            try removeFromList(object, inverse, entity, source)
        } else {
            let slot = entity.toOneSlots[inverse.name]!
            guard rec.toOne[slot] == source else { return }
            rec.toOne[slot] = nil
            records[object] = rec
            markUpdated(object)
        }
    }

    /// `owner.forward` no longer holds `object` (it moved to another owner).
    private func detach(_ object: ObjectID, fromOwner owner: ObjectID, _ forward: RelationshipDescription) throws {
        guard var rec = try record(owner) else { return }
        if forward.isToMany {
            try removeFromList(owner, forward, rec.entity, object)
        } else if let slot = rec.entity.toOneSlots[forward.name], rec.toOne[slot] == object {
            rec.toOne[slot] = nil
            records[owner] = rec
            markUpdated(owner)
        }
    }
}

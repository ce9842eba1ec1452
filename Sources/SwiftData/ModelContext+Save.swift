// Saving a context: inserted models whose unique values match a saved model become updates of
// it (SwiftData's upsert), then every pending insert, change and delete goes to the store as one
// `ChangeSet` in one write, and the context takes what the store did (cascaded deletes,
// nullified and inverse-maintained relationships) back into its registered models.
//
// Invariants:
//  SV1. A save is all or nothing: when the store refuses the change set, nothing was written and
//       every change stays pending (the save can be retried after fixing the models).
//  SV2. After a successful save nothing is pending; models the store deleted (cascades included)
//       or found deleted by another context (their changes dropped) are marked deleted and leave
//       the context; models it changed read their values again.
//  SV3. Unique values are matched before the change set is built, against the store and the
//       other inserts of the same save; a constraint with a nil value or a relationship is not
//       matched (the store then enforces it).
//  SV4. A save applies the pending changes in slot form (`pendingSlotChangeSet`), the same changes
//       a fetch overlays by name (`pendingChangeSet`): each value of the one is the value of the
//       same property in the other, at the property's store slot (`ModelEntity.storeSlots`).

internal import CdObjects
import Foundation

extension ModelContext {
    /// Writes every pending change to the store in one write, or throws and writes nothing
    /// (SV1): `modelValidationFailure` naming the object and rule broken.
    public func save() throws {
        if let error = deferredError {
            deferredError = nil
            throw error
        }
        guard hasChanges else { return }
        guard container.configuration.allowsSave else {
            throw SwiftDataError(.saveNotAllowed, "the container's configuration does not allow saving")
        }
        NotificationCenter.default.post(name: ModelContext.willSave, object: nil)
        try matchUniqueValues()
        let changes = try pendingSlotChangeSet()
        let applied: AppliedChanges
        do { applied = try container.store.apply(slots: changes) } catch { throw SwiftDataError.store(error) }
        finishSave(applied)
        let own = container.changeLog.record(updated: applied.updated, deleted: applied.deleted)
        container.lease.announce(applied)  // HY2
        catchUp(own: own)
        container.mainContextMayCatchUp()  // MC5
        NotificationCenter.default.post(name: ModelContext.didSave, object: nil)
    }

    /// The pending changes as the store's change set.
    func pendingChangeSet() throws -> ChangeSet {
        var changes = ChangeSet()
        let gone: (ObjectID) -> Bool = { [deleted] in deleted[$0] != nil }
        for id in insertOrder {
            guard let storage = inserted[id]?.storage else { continue }
            changes.inserted[id] = try storage.storeValues(all: true, isGone: gone)
        }
        for (id, model) in changed where inserted[id] == nil && deleted[id] == nil {
            guard let storage = model.storage else { continue }
            let values = try storage.storeValues(all: false, isGone: gone)
            if !values.isEmpty { changes.updated[id] = values }
            let deltas = try storage.storeDeltas(isGone: gone)
            if !deltas.isEmpty { changes.toManyDeltas[id] = deltas }
        }
        changes.deleted = Set(deleted.keys)
        changes.author = author
        changes.contextName = HistoryProcess.current.contextName  // TX2 of HistoryTransaction.swift
        return changes
    }

    /// The pending changes in the store's slot form, what a save applies: the change set
    /// `pendingChangeSet()` gives, its values by store slot instead of by name (SV4), objects in
    /// identifier order, as the store stages a change set by name.
    func pendingSlotChangeSet() throws -> SlotChangeSet {
        var changes = SlotChangeSet()
        let gone: (ObjectID) -> Bool = { [deleted] in deleted[$0] != nil }
        func slots(_ id: ObjectID) throws -> (map: [Int?], count: Int) {
            // By the interned entity code: no name looked up per object.
            guard let slots = container.entitiesByCode[id.entityCode]?.storeSlots else {
                throw SwiftDataError(.unknownSchema, "\(id.entity) is not in the container's schema")
            }
            return slots
        }
        changes.inserted.reserveCapacity(inserted.count)
        for id in inserted.keys.sorted() {
            guard let storage = inserted[id]?.storage else { continue }
            let (map, count) = try slots(id)
            changes.inserted.append(
                SlotChangeSet.Entry(
                    id: id, values: try storage.storeValues(all: true, isGone: gone, slots: map, count: count)))
        }
        for id in changed.keys.sorted() where inserted[id] == nil && deleted[id] == nil {
            guard let storage = changed[id]?.storage else { continue }
            let (map, count) = try slots(id)
            let values = try storage.storeValues(all: false, isGone: gone, slots: map, count: count)
            let deltas = try storage.storeDeltas(isGone: gone, slots: map)
            guard values.contains(where: { $0 != nil }) || !deltas.isEmpty else { continue }
            changes.updated.append(SlotChangeSet.Entry(id: id, values: values, deltas: deltas))
        }
        changes.deleted = Set(deleted.keys)
        changes.author = author
        changes.contextName = HistoryProcess.current.contextName  // TX2 of HistoryTransaction.swift
        return changes
    }

    /// Turns inserts that collide on a unique constraint into updates (keeps SV3).
    private func matchUniqueValues() throws {
        var claimed: [String: ObjectID] = [:]  // constraint and values → the insert holding them
        for id in insertOrder {
            // An entity of the schema without constraints is passed over without its model.
            if let entity = container.entitiesByCode[id.entityCode], entity.table.uniquenessConstraints.isEmpty {
                continue
            }
            guard let model = inserted[id], let storage = model.storage else { continue }
            let table = try storage.propertyTable()
            guard !table.uniquenessConstraints.isEmpty else { continue }
            let values = try storage.storeValues(all: true, isGone: { _ in false })
            for constraint in table.uniquenessConstraints {
                var key: [CdValue] = []
                for name in constraint {
                    guard case let .attribute(value)? = values[name], !value.isNull else { break }
                    key.append(value)
                }
                guard key.count == constraint.count else { continue }
                let claim = "\(table.entityName)|\(constraint)|\(key)"
                if let holder = claimed[claim], let existing = inserted[holder]?.storage {
                    existing.absorb(storage)  // a second insert of the same values updates the first
                    alias(model, to: existing)
                    dropInsert(id)
                    break
                }
                if let saved = try savedObject(table.entityName, constraint, key), deleted[saved] == nil {
                    upsert(model, onto: saved)
                    break
                }
                claimed[claim] = id
            }
        }
    }

    /// The saved object of `entity` whose `names` hold `values`, if any.
    private func savedObject(_ entity: String, _ names: [String], _ values: [CdValue]) throws -> ObjectID? {
        var request = FetchRequest(entity: entity)
        request.predicate = zip(names, values).map { name, value -> CdPredicate in
            .comparison(PredicateComparison(.key(name), .equal, .constant(value)))
        }.reduce(nil) { (sum: CdPredicate?, next) in sum.map { .and($0, next) } ?? next }
        request.limit = 1
        do { return try container.store.read { try $0.fetchIDs(request) }.first } catch {
            throw SwiftDataError.store(error)
        }
    }

    /// Makes the inserted `model` an update of the saved object `id`.
    private func upsert(_ model: any PersistentModel, onto id: ObjectID) {
        guard let storage = model.storage, let pendingID = storage.objectID else { return }
        dropInsert(pendingID)
        if let registered = registry(id), let existing = registered.storage {
            existing.absorb(storage)
            alias(model, to: existing)
            return
        }
        storage.becomeUpdate(of: id)
        register(model, as: id)
        changed[id] = model
    }

    /// Removes a pending insert that became an update.
    private func dropInsert(_ id: ObjectID) {
        inserted[id] = nil
        insertOrder.removeAll { $0 == id }
        unregister(id)
    }

    /// Points `model` at `storage`, so that it reads and writes the same values as the model it
    /// was merged into.
    private func alias(_ model: any PersistentModel, to storage: any AnyModelStorage) {
        func share<T: PersistentModel>(_ model: T) {
            if let backing = storage as? any BackingData<T> { model.persistentBackingData = backing }
        }
        share(model)
    }

    /// Takes the store's answer back into the registered models (keeps SV2).
    private func finishSave(_ applied: AppliedChanges) {
        for model in inserted.values { model.storage?.didSave() }
        for model in changed.values { model.storage?.didSave() }
        // Deleted by this save, or by another context's before it: the delete won and this
        // context's changes to the model were dropped (CA6), so it is gone here too.
        for id in applied.deleted.union(applied.goneMeanwhile) {
            if let model = registry(id), let storage = model.storage {
                storage.state = .deleted
                storage.didSave()
                storage.detach()
            }
            unregister(id)
        }
        for id in applied.updated { registry(id)?.storage?.refault() }
        inserted = [:]
        insertOrder = []
        changed = [:]
        deleted = [:]
    }
}

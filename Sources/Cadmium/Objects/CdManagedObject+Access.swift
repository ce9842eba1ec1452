// Property access of a managed object: the confinement checks I (reads), J (attribute and to-one
// writes) and K (to-many writes) of `CdMisuse.Kind`, then the value itself, loaded lazily from a
// snapshot of the store when the object is a fault.

import Foundation
import CdObjects

extension CdManagedObject {
    // MARK: - Checks

    /// Check I. Objects with no context pass; so do objects of the root context.
    func checkRead(_ key: String) {
        guard let owner = withState({ $0.context }), owner.kind != .root else { return }
        let current = ThreadState.current.currentContext
        if current === owner { return }
        var what: String { "Reading '\(key)' of \(self), which belongs to \(owner)" }
        if owner.kind == .snapshot {
            Misuse.report(
                current == nil ? .i2 : .i4,
                "\(what), \(ThreadState.situation). Objects read with Cd.read { } "
                    + "are used inside that block only: read the values you need there and return them.")
        } else if owner.kind == .main {
            Misuse.report(
                .i1,
                "\(what), \(ThreadState.situation). Main-context objects are read on the main thread only: "
                    + "inside a transaction use Cd.useInCurrentContext(_:) or Cd.transactWith(_:) to get this object "
                    + "in the transaction's context."
            )
        } else if current == nil {
            Misuse.report(
                .i2,
                "\(what), on a thread that has no context. Read it inside the transaction that owns it, "
                    + "or move it with Cd.useInCurrentContext(_:) inside a transaction, "
                    + "or Cd.onMainWith(_:) for the main thread."
            )
        } else if ThreadState.isMain {
            Misuse.report(
                .i3,
                "\(what), on the main thread. Commit the transaction and use Cd.onMainWith(_:) to get the "
                    + "object in the main context.")
        } else {
            Misuse.report(
                .i4,
                "\(what), inside another transaction (\(current!)). Use Cd.useInCurrentContext(_:) to get "
                    + "this object in the current transaction after its own transaction committed.")
        }
    }

    /// Checks J1, J3, J4 (or K1 for a to-many write); true when the write may go ahead.
    func checkWrite(_ key: String, toMany: Bool) -> Bool {
        guard let owner = withState({ $0.context }) else { return true }  // transient: anywhere
        // Built only on the paths that report: describing the object costs more than the check.
        var what: String { "Writing '\(key)' of \(self), which belongs to \(owner)" }
        let thread = ThreadState.current
        let isMain = thread.isMain
        if isMain && !thread.insideMainMerge {
            Misuse.report(
                toMany ? .k1 : .j1,
                "\(what), on the main thread. The main context is read-only: make changes "
                    + "inside Cd.transact { } (or Cd.transactWith(object) { }) "
                    + "and let the commit update the main context."
            )
            return false
        }
        if owner.kind == .root { return true }
        if owner.kind == .snapshot {
            Misuse.report(
                toMany ? .k1 : .j4,
                "\(what). Objects read with Cd.read { } are read-only: make changes inside "
                    + "Cd.transact { } instead.")
            return false
        }
        let current = thread.currentContext(isMain: isMain)
        if current === owner { return true }
        if current == nil {
            Misuse.report(
                toMany ? .k1 : .j3,
                "\(what), on a thread that has no context. Writes happen inside a "
                    + "transaction: wrap the change in Cd.transact { } and use Cd.useInCurrentContext(_:) there.")
        } else {
            Misuse.report(
                toMany ? .k1 : .j4,
                "\(what), inside another transaction (\(current!)). Get the object in this "
                    + "transaction with Cd.useInCurrentContext(_:) and change that one.")
        }
        return false
    }

    // MARK: - Attributes

    /// The value of attribute `key` (`.null` when unset).
    func readAttribute(_ key: String) -> CdValue {
        checkRead(key)
        loadIfNeeded(key)
        if case let .attribute(value)? = withState({ $0.values[key] }) { return value }
        return .null
    }

    /// Sets attribute `key`, after check J.
    func writeAttribute(_ key: String, _ value: CdValue) {
        guard checkWrite(key, toMany: false) else { return }
        loadIfNeeded()
        withState { state in
            state.values[key] = .attribute(value)
            if state.context != nil { state.changedKeys.insert(key) }
        }
        withState { $0.context }?.noteChanged(self)
    }

    // MARK: - Relationships

    /// The related objects of `key`, in this object's context.
    func readRelationship(_ key: String) -> [CdManagedObject] {
        checkRead(key)
        loadIfNeeded(key)
        let (context, id, value) = withState { ($0.context, $0.objectID, $0.values[key]) }
        guard let context else { return withState { $0.transientRelated[key] ?? [] } }
        let ids: [ObjectID]
        switch value {
        case let .toOne(target)?: ids = target.map { [$0] } ?? []
        case let .toMany(list)?: ids = list
        case .attribute?: ids = []
        case nil:
            // A to-many not read yet: load its targets.
            guard let id, let list = try? context.loadRelated(id, key) else { return [] }
            withState { $0.values[key] = .toMany(list) }
            ids = list
        }
        return ids.compactMap { context.object(for: $0) }
    }

    /// Sets relationship `key`, after check J (to-one) or K (to-many).
    func writeRelationship(_ key: String, _ objects: [CdManagedObject], toMany: Bool) {
        guard checkWrite(key, toMany: toMany) else { return }
        let context = withState { $0.context }
        if toMany, let context {
            // K2: related objects must be in the same context.
            for object in objects where object.managedObjectContext !== context {
                Misuse.report(
                    .k2,
                    "Adding \(object) (context: \(object.managedObjectContext?.description ?? "none")) to '\(key)' of "
                        + "\(self) in \(context). Related objects must belong to the same context: use "
                        + "Cd.useInCurrentContext(_:) (or Cd.insert(_:) for a transient object) first.")
                return
            }
        }
        guard let context else {
            // A transient object keeps its related objects themselves (they may have no IDs);
            // like Cadmium's insert, Cd.insert does not carry them into the transaction.
            withState { $0.transientRelated[key] = objects }
            return
        }
        let ids = objects.compactMap(\.objectID)
        let entity = withState { $0.entityName }
        let model = context.stack.model
        let relationship = model.relationship(key, of: entity)
        let ordered = relationship?.isOrdered ?? false
        let old = rawTargets(key)
        rawSetTargets(key, ids, toMany: toMany, ordered: ordered)
        // Keep inverses in step in memory, as Core Data does, so the change set names both
        // sides consistently and the other side reads right before the commit.
        guard let selfID = objectID, let relationship, let inverseName = relationship.inverse,
            let inverse = model.relationship(inverseName, of: relationship.destination)
        else { return }
        let oldSet = Set(old), newSet = Set(ids)
        for removed in old where !newSet.contains(removed) {
            context.object(for: removed)?.rawRemoveTarget(
                selfID, inverseName, toMany: inverse.isToMany, ordered: inverse.isOrdered)
        }
        for added in ids where !oldSet.contains(added) {
            guard let target = context.object(for: added) else { continue }
            if !inverse.isToMany, let previous = target.rawTargets(inverseName).first, previous != selfID {
                // `target` leaves its previous owner's `key`.
                context.object(for: previous)?.rawRemoveTarget(added, key, toMany: toMany, ordered: ordered)
            }
            target.rawAddTarget(selfID, inverseName, toMany: inverse.isToMany, ordered: inverse.isOrdered)
        }
    }

    // MARK: - Unchecked relationship plumbing (inverse maintenance)

    /// The target IDs of `key`, loading them if needed.
    func rawTargets(_ key: String) -> [ObjectID] {
        loadIfNeeded(key)
        let (context, id, value) = withState { ($0.context, $0.objectID, $0.values[key]) }
        switch value {
        case let .toOne(target)?: return target.map { [$0] } ?? []
        case let .toMany(list)?: return list
        case .attribute?: return []
        case nil:
            guard let context, let id, let list = try? context.loadRelated(id, key) else { return [] }
            withState { $0.values[key] = .toMany(list) }
            return list
        }
    }

    /// Sets the targets of `key`. A to-many list is kept as ToManyList's invariants say: sorted
    /// by primary key unless `ordered`, without repeats, the order the store gives it after the
    /// commit, so that in-place inserts below can binary-search it.
    func rawSetTargets(_ key: String, _ ids: [ObjectID], toMany: Bool, ordered: Bool) {
        var value = PropertyValue.toOne(ids.first)
        if toMany {
            var list: [ObjectID] = []
            list.reserveCapacity(ids.count)
            for id in ids { ToManyList.insert(id, into: &list, ordered: ordered) }
            value = .toMany(list)
        }
        loadIfNeeded()
        withState { state in
            state.values[key] = value
            state.changedKeys.insert(key)
        }
        withState { $0.context }?.noteChanged(self)
    }

    /// Removes `id` from `key` (a to-many list in place; a to-one that holds it is set to nil).
    func rawRemoveTarget(_ id: ObjectID, _ key: String, toMany: Bool, ordered: Bool) {
        guard toMany else {
            if rawTargets(key).contains(id) { rawSetTargets(key, [], toMany: false, ordered: false) }
            return
        }
        editList(key) { ToManyList.remove(id, from: &$0, ordered: ordered) }
    }

    /// Adds `id` to `key` (a to-many list in place, once; a to-one is set to it).
    func rawAddTarget(_ id: ObjectID, _ key: String, toMany: Bool, ordered: Bool) {
        guard toMany else {
            if rawTargets(key) != [id] { rawSetTargets(key, [id], toMany: false, ordered: false) }
            return
        }
        editList(key) { ToManyList.insert(id, into: &$0, ordered: ordered) }
    }

    /// Changes the to-many list of `key` in place (loading it first if needed): the list is
    /// taken out of `values` while `edit` runs so that it is not copied, which would make a
    /// run of links to one owner quadratic. Notes the change when `edit` returns true.
    private func editList(_ key: String, _ edit: (inout [ObjectID]) -> Bool) {
        _ = rawTargets(key)
        loadIfNeeded()
        let changed = withState { state -> Bool in
            var list: [ObjectID] = []
            if case let .toMany(stored)? = state.values.removeValue(forKey: key) { list = stored }
            let changed = edit(&list)
            state.values[key] = .toMany(list)
            if changed { state.changedKeys.insert(key) }
            return changed
        }
        if changed { withState { $0.context }?.noteChanged(self) }
    }

    // MARK: - Loading

    /// Loads attribute and to-one values of a fault from a fresh snapshot of the store (or, for
    /// an object fetched with `batchSize`, its whole batch from one snapshot). Reading `key`
    /// of an object fetched with `onlyProperties` that named it loads nothing.
    func loadIfNeeded(_ key: String? = nil) {
        let (loaded, context, id, partial, batch) = withState {
            ($0.loaded, $0.context, $0.objectID, $0.partialKeys, $0.batch)
        }
        guard !loaded, let context, let id else { return }
        if let key, partial.contains(key) { return }
        if let batch {
            batch.load()
            let done = withState { state in state.loaded || (key.map { state.partialKeys.contains($0) } ?? false) }
            if done { return }
        }
        let values = (try? context.loadValues(id)) ?? nil
        withState { state in
            guard !state.loaded else { return }
            // Keep changes made before the load (a write to a fault) and to-many targets
            // already read or prefetched.
            var merged = values ?? [:]
            for (key, value) in state.values where merged[key] == nil {
                if case .toMany = value { merged[key] = value }
            }
            for key in state.changedKeys { merged[key] = state.values[key] }
            state.values = merged
            state.loaded = true
            state.partialKeys = []
            state.batch = nil
        }
    }

    /// Replaces the values with `values` read from a snapshot (nil: makes the object a fault),
    /// unless the object has changes.
    func refresh(with values: [String: PropertyValue]?) {
        withState { state in
            guard state.changedKeys.isEmpty, !state.isInserted else { return }
            if let values {
                state.values = values; state.loaded = true
            } else {
                state.values = [:]; state.loaded = false
            }
            state.partialKeys = []
            state.batch = nil
        }
    }

    /// Keeps only `keys` of `values` (a fetch with `onlyProperties`): the object stays a fault
    /// for every other key. Objects with changes are left alone.
    func refreshPartially(with values: [String: PropertyValue]?, keys: Set<String>) {
        withState { state in
            guard state.changedKeys.isEmpty, !state.isInserted else { return }
            let kept = (values ?? [:]).filter { keys.contains($0.key) }
            state.values = kept
            state.loaded = false
            state.partialKeys = Set(kept.keys)
            state.batch = nil
        }
    }
}

// Property access of a managed object: the confinement checks I (reads), J (attribute and to-one
// writes) and K (to-many writes) of `CdMisuse.Kind`, then the value itself, loaded lazily from a
// snapshot of the store when the object is a fault.

import Foundation
import CdObjects

extension CdManagedObject {
    // MARK: - Checks

    /// Check I. Objects with no context pass; so do objects of the root context.
    func checkRead(_ key: String) {
        checkRead(owner: withState { $0.context }, key)
    }

    /// Check I for an object whose context is `owner`; `key` is only built for a report.
    @inline(__always)
    func checkRead(owner: CdManagedObjectContext?, _ key: @autoclosure () -> String) {
        guard let owner, owner.kind != .root else { return }
        let state = ThreadState.current
        // The main context of every open container is the main thread's (CN1): its objects are
        // read there whichever container is current.
        if owner.kind == .main, state.context == nil, state.isMain, !owner.container.isClosed { return }
        if owner.kind == .editing {
            if state.isMain, !owner.container.isClosed { return }  // EC2 of CdEditingContext.swift
            if state.isMain {
                Misuse.report(
                    .i5,
                    "Reading '\(key())' of \(self), which belongs to \(owner), whose container was closed. Its "
                        + "objects are not read any more: make a new editing context on the store that is open.")
                return
            }
            Misuse.report(
                .i5,
                "Reading '\(key())' of \(self), which belongs to \(owner), \(ThreadState.situation). "
                    + "An editing context's objects are used on the main actor only: save it and read the "
                    + "object in your transaction with Cd.useInCurrentContext(_:), or read the values on "
                    + "the main actor.")
            return
        }
        let current = state.currentContext
        if current === owner { return }
        reportRead(owner: owner, current: current, key())
    }

    private func reportRead(owner: CdManagedObjectContext, current: CdManagedObjectContext?, _ key: String) {
        var what: String { "Reading '\(key)' of \(self), which belongs to \(owner)" }
        if owner.kind == .snapshot {
            Misuse.report(
                current == nil ? .i2 : .i4,
                "\(what), \(ThreadState.situation). Objects read with Cd.read { } "
                    + "are used inside that block only: read the values you need there and return them.")
        } else if owner.kind == .main, owner.container.isClosed {
            Misuse.report(
                .i1,
                "\(what), whose store Cd.close() closed (or Cd.initWithStore replaced). Its objects are not "
                    + "read any more: fetch the object again from the store that is open now.")
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
        checkWrite(owner: withState { $0.context }, key, toMany: toMany)
    }

    /// Checks J and K for an object whose context is `owner`; `key` is only built for a report.
    func checkWrite(owner: CdManagedObjectContext?, _ key: @autoclosure () -> String, toMany: Bool) -> Bool {
        guard let owner else { return true }  // transient: anywhere
        // Built only on the paths that report: describing the object costs more than the check.
        var what: String { "Writing '\(key())' of \(self), which belongs to \(owner)" }
        let thread = ThreadState.current
        let isMain = thread.isMain
        if owner.kind == .editing {
            if isMain { return true }  // EC2 of CdEditingContext.swift
            Misuse.report(
                toMany ? .k1 : .j5,
                "\(what), \(ThreadState.situation). An editing context's objects are changed on the main actor "
                    + "only: make the change there, or in a transaction (Cd.transact { }) on that "
                    + "transaction's objects.")
            return false
        }
        if isMain && !thread.insideMainMerge {
            Misuse.report(
                toMany ? .k1 : .j1,
                "\(what), on the main thread. The main context is read-only: make changes "
                    + "inside Cd.transact { } (or Cd.transactWith(object) { }) "
                    + "and let the commit update the main context, or edit in a CdEditingContext "
                    + "(Cd.newEditingContext()) on its own objects."
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

    // MARK: - Slots

    /// The name of `slot`, for messages.
    func slotName(_ slot: Int) -> String { withState { $0.slots?.name(of: slot) ?? "#\(slot)" } }

    /// The slot of property `key` (a name the caller got from the model).
    func slot(named key: String) -> Int? { withState { $0.slot(of: key) } }

    // MARK: - Attributes

    /// The value of attribute `key` (`.null` when unset).
    func readAttribute(_ key: String) -> CdValue {
        guard let slot = slot(named: key) else {
            checkRead(key)
            return .null
        }
        return readAttribute(slot)
    }

    /// The value of the attribute in `slot` (`.null` when unset), after check I.
    @usableFromInline
    func readAttribute(_ slot: Int) -> CdValue {
        var (owner, value, ready) = withState { state in
            (state.context, state.buffer[slot], state.loaded || state.partial.contains(slot) || state.context == nil)
        }
        checkRead(owner: owner, slotName(slot))
        if !ready {
            loadIfNeeded(slot)
            value = withState { $0.buffer[slot] }
        }
        if case let .attribute(v)? = value { return v }
        return .null
    }

    /// Sets attribute `key`, after check J.
    func writeAttribute(_ key: String, _ value: CdValue) {
        guard let slot = slot(named: key) else { return }
        writeAttribute(slot, value)
    }

    /// Sets the attribute in `slot`, after check J.
    @usableFromInline
    func writeAttribute(_ slot: Int, _ value: CdValue) {
        let (owner, loaded) = withState { ($0.context, $0.loaded) }
        guard checkWrite(owner: owner, slotName(slot), toMany: false) else { return }
        if !loaded { loadIfNeeded() }
        let first = withState { state in
            // Keeps MO5: what was read, before the first write (shared, copied on this write).
            if state.readValues == nil, !state.isInserted, state.context != nil { state.readValues = state.buffer }
            state.buffer[slot] = .attribute(value)
            return state.noteChanged(slot)
        }
        owner?.noteChanged(self, first: first)
    }

    // MARK: - Relationships

    /// The related objects of `key`, in this object's context.
    func readRelationship(_ key: String) -> [CdManagedObject] {
        guard let slot = slot(named: key) else {
            checkRead(key)
            return withState { $0.transientRelated[key] ?? [] }
        }
        return readRelationship(slot)
    }

    /// The related objects of the relationship in `slot`, in this object's context.
    @usableFromInline
    func readRelationship(_ slot: Int) -> [CdManagedObject] {
        let owner = withState { $0.context }
        checkRead(owner: owner, slotName(slot))
        guard let context = owner else {
            // The name first: `slotName` takes the object's lock, which is not reentrant.
            let name = slotName(slot)
            return withState { $0.transientRelated[name] ?? [] }
        }
        return rawTargets(slot).compactMap { context.object(for: $0) }
    }

    /// Sets relationship `key`, after check J (to-one) or K (to-many).
    func writeRelationship(_ key: String, _ objects: [CdManagedObject], toMany: Bool) {
        guard let slot = slot(named: key) else { return }
        writeRelationship(slot, objects, toMany: toMany)
    }

    /// Sets the relationship in `slot`, after check J (to-one) or K (to-many).
    @usableFromInline
    func writeRelationship(_ slot: Int, _ objects: [CdManagedObject], toMany: Bool) {
        let (context, entity, table) = withState { ($0.context, $0.entityName, $0.slots) }
        guard checkWrite(owner: context, slotName(slot), toMany: toMany) else { return }
        let key = table.map { $0.name(of: slot) } ?? slotName(slot)
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
        // Resolved once per entity (OSL2); by name for an object without slots.
        let model = context.container.model
        let relationship = table.map { $0.relationships[slot] } ?? model.relationship(key, of: entity)
        let ordered = relationship?.isOrdered ?? false
        let old = rawTargets(slot)
        rawSetTargets(slot, ids, toMany: toMany, ordered: ordered)
        if toMany {
            var seen = Set<ObjectID>()
            let new = ids.filter { seen.insert($0).inserted }
            recordListChange(slot) { $0.record(from: old, to: new, ordered: ordered) }
        }
        // Keep inverses in step in memory, as Core Data does, so the change set names both
        // sides consistently and the other side reads right before the commit.
        guard let selfID = objectID, let relationship, let inverseName = relationship.inverse,
            let inverse = table.map({ $0.inverses[slot] })
                ?? model.relationship(inverseName, of: relationship.destination)
        else { return }
        if old.isEmpty && ids.count == 1 {
            // The common case (setting a to-one that was nil): no sets to build.
            linkInverse(ids[0], selfID, key, inverseName, inverse, toMany: toMany, ordered: ordered, context)
            return
        }
        let oldSet = Set(old), newSet = Set(ids)
        for removed in old where !newSet.contains(removed) {
            context.object(for: removed)?.rawRemoveTarget(
                selfID, inverseName, toMany: inverse.isToMany, ordered: inverse.isOrdered)
        }
        for added in ids where !oldSet.contains(added) {
            linkInverse(added, selfID, key, inverseName, inverse, toMany: toMany, ordered: ordered, context)
        }
    }

    /// Adds `selfID` to `added`'s inverse `inverseName`; a to-one inverse first leaves its
    /// previous owner's `key`.
    private func linkInverse(
        _ added: ObjectID, _ selfID: ObjectID, _ key: String, _ inverseName: String,
        _ inverse: RelationshipDescription, toMany: Bool, ordered: Bool, _ context: CdManagedObjectContext
    ) {
        guard let target = context.object(for: added), let inverseSlot = target.slot(named: inverseName) else {
            return
        }
        if !inverse.isToMany, let previous = target.rawTargets(inverseSlot).first, previous != selfID {
            // `target` leaves its previous owner's `key`.
            context.object(for: previous)?.rawRemoveTarget(added, key, toMany: toMany, ordered: ordered)
        }
        target.rawAddTarget(selfID, slot: inverseSlot, toMany: inverse.isToMany, ordered: inverse.isOrdered)
    }

    // MARK: - Unchecked relationship plumbing (inverse maintenance)

    /// The target IDs of `key`, loading them if needed.
    func rawTargets(_ key: String) -> [ObjectID] {
        guard let slot = slot(named: key) else { return [] }
        return rawTargets(slot)
    }

    /// The target IDs of the relationship in `slot`, loading them if needed.
    func rawTargets(_ slot: Int) -> [ObjectID] {
        loadIfNeeded(slot)
        let (context, id, value) = withState { ($0.context, $0.objectID, $0.buffer[slot]) }
        switch value {
        case let .toOne(target)?: return target.map { [$0] } ?? []
        case let .toMany(list)?: return list
        case .attribute?: return []
        case nil:
            guard let context, let id, let loaded = try? context.loadRelated(id, slotName(slot)) else { return [] }
            return withState { state in
                // Keeps MO3: the edits made before the list was read apply to it now, in order.
                var list = loaded
                for edit in state.deferredListEdits where edit.slot == slot { edit.apply(to: &list) }
                state.deferredListEdits.removeAll { $0.slot == slot }
                state.buffer[slot] = .toMany(list)
                return list
            }
        }
    }

    /// Sets the targets of `key` (see the slot form).
    func rawSetTargets(_ key: String, _ ids: [ObjectID], toMany: Bool, ordered: Bool) {
        guard let slot = slot(named: key) else { return }
        rawSetTargets(slot, ids, toMany: toMany, ordered: ordered)
    }

    /// Sets the targets of the relationship in `slot`. A to-many list is kept as ToManyList's
    /// invariants say: sorted by primary key unless `ordered`, without repeats, the order the
    /// store gives it after the commit, so that in-place inserts below can binary-search it.
    func rawSetTargets(_ slot: Int, _ ids: [ObjectID], toMany: Bool, ordered: Bool) {
        var value = PropertyValue.toOne(ids.first)
        if toMany {
            var list: [ObjectID] = []
            list.reserveCapacity(ids.count)
            for id in ids { ToManyList.insert(id, into: &list, ordered: ordered) }
            value = .toMany(list)
        }
        loadIfNeeded()
        let (context, first) = withState { state in
            state.buffer[slot] = value
            return (state.context, state.noteChanged(slot))
        }
        context?.noteChanged(self, first: first)
    }

    /// Removes `id` from `key` (a to-many list in place; a to-one that holds it is set to nil).
    func rawRemoveTarget(_ id: ObjectID, _ key: String, toMany: Bool, ordered: Bool) {
        guard let slot = slot(named: key) else { return }
        guard toMany else {
            if rawTargets(slot).contains(id) { rawSetTargets(slot, [], toMany: false, ordered: false) }
            return
        }
        recordListChange(slot) { $0.remove(id) }
        if deferListEdit(DeferredListEdit(slot: slot, member: id, adds: false, ordered: ordered)) { return }
        editList(slot) { ToManyList.remove(id, from: &$0, ordered: ordered) }
    }

    /// Adds `id` to `key` (a to-many list in place, once; a to-one is set to it).
    func rawAddTarget(_ id: ObjectID, _ key: String, toMany: Bool, ordered: Bool) {
        guard let slot = slot(named: key) else { return }
        rawAddTarget(id, slot: slot, toMany: toMany, ordered: ordered)
    }

    /// `rawAddTarget` of the relationship in `slot`.
    func rawAddTarget(_ id: ObjectID, slot: Int, toMany: Bool, ordered: Bool) {
        guard toMany else {
            if rawTargets(slot) != [id] { rawSetTargets(slot, [id], toMany: false, ordered: false) }
            return
        }
        recordListChange(slot) { $0.add(id) }
        if deferListEdit(DeferredListEdit(slot: slot, member: id, adds: true, ordered: ordered)) { return }
        editList(slot) { ToManyList.insert(id, into: &$0, ordered: ordered) }
    }

    /// Notes a link change of the to-many in `slot` of a stored object in a context (keeps MO4).
    /// A to-many no change set carries (its members' to-ones are the links) records nothing.
    private func recordListChange(_ slot: Int, _ change: (inout ToManyDelta) -> Void) {
        withState { state in
            guard state.context != nil, !state.isInserted, state.objectID != nil,
                let slots = state.slots, slot < slots.count, slots.carried[slot]
            else { return }
            change(&state.listChanges[slot, default: ToManyDelta()])
        }
    }

    /// Keeps an inverse edit of a to-many that was not read yet, instead of reading the whole
    /// list from the store for it (the commit carries the edit as a delta, MO4, or not at all when
    /// the members' to-one values say it): a transaction that links one new object to an owner
    /// of thousands then costs no read of the owner's list. Up to `DeferredListEdit.limit` edits
    /// wait; past that the list is read and edited in place. True when the edit was kept (keeps MO3).
    private func deferListEdit(_ edit: DeferredListEdit) -> Bool {
        let (deferred, context, first) = withState { state -> (Bool, CdManagedObjectContext?, Bool) in
            guard state.context != nil, state.objectID != nil, state.slots != nil,
                edit.slot < state.buffer.count, state.buffer[edit.slot] == nil,
                state.deferredListEdits.count < DeferredListEdit.limit
            else { return (false, nil, false) }
            state.deferredListEdits.append(edit)
            return (true, state.context, state.noteChanged(edit.slot))
        }
        if deferred { context?.noteChanged(self, first: first) }
        return deferred
    }

    /// Changes the to-many list in `slot` in place (loading it first if needed): the list is
    /// taken out of the buffer while `edit` runs so that it is not copied, which would make a
    /// run of links to one owner quadratic. Notes the change when `edit` returns true.
    private func editList(_ slot: Int, _ edit: (inout [ObjectID]) -> Bool) {
        _ = rawTargets(slot)
        loadIfNeeded()
        let (context, changed, first) = withState { state -> (CdManagedObjectContext?, Bool, Bool) in
            var list: [ObjectID] = []
            if case let .toMany(stored)? = state.buffer[slot] { list = stored }
            state.buffer[slot] = nil
            let changed = edit(&list)
            state.buffer[slot] = .toMany(list)
            return (state.context, changed, changed ? state.noteChanged(slot) : false)
        }
        if changed { context?.noteChanged(self, first: first) }
    }

    // MARK: - Loading

    /// Loads attribute and to-one values of a fault from a fresh snapshot of the store (or, for
    /// an object fetched with `batchSize`, its whole batch from one snapshot). Reading `slot`
    /// of an object fetched with `onlyProperties` that named it loads nothing.
    func loadIfNeeded(_ slot: Int? = nil) {
        let (loaded, context, id, partial, batch) = withState { state in
            (
                state.loaded, state.context, state.objectID,
                slot.map { state.partial.contains($0) } ?? false, state.batch
            )
        }
        guard !loaded, let context, let id else { return }
        if partial { return }
        if let batch {
            batch.load()
            let done = withState { state in state.loaded || (slot.map { state.partial.contains($0) } ?? false) }
            if done { return }
        }
        let values = (try? context.loadValues(id)) ?? nil
        withState { state in
            guard !state.loaded else { return }
            // Keep changes made before the load (a write to a fault) and to-many targets
            // already read or prefetched.
            let kept = state.buffer
            let keptExtra = state.extra
            state.values = values ?? [:]
            for (slot, value) in kept.enumerated() {
                guard let value else { continue }
                if state.changed.contains(slot) {
                    state.buffer[slot] = value
                } else if case .toMany = value, state.buffer[slot] == nil {
                    state.buffer[slot] = value
                }
            }
            for key in state.changedExtra { state.extra[key] = keptExtra[key] }
            state.loaded = true
            state.partial.removeAll()
            state.batch = nil
        }
    }

    /// Replaces the values with `values` read from a snapshot (nil: makes the object a fault),
    /// unless the object has changes.
    func refresh(with values: [String: PropertyValue]?) {
        withState { state in
            guard !state.hasChangedValues, !state.isInserted else { return }
            if let values {
                state.values = values; state.loaded = true
            } else {
                state.values = [:]; state.loaded = false
            }
            state.partial.removeAll()
            state.batch = nil
        }
    }

    /// Keeps only `keys` of `values` (a fetch with `onlyProperties`): the object stays a fault
    /// for every other key. Objects with changes are left alone.
    func refreshPartially(with values: [String: PropertyValue]?, keys: Set<String>) {
        withState { state in
            guard !state.hasChangedValues, !state.isInserted else { return }
            let kept = (values ?? [:]).filter { keys.contains($0.key) }
            state.values = kept
            state.loaded = false
            state.partialKeys = Set(kept.keys)
            state.batch = nil
        }
    }
}

extension CdManagedObject.State {
    /// Notes that `slot` changed (if the object has a context); true when this is the object's
    /// first change the context must list (keeps MO2).
    @inline(__always)
    mutating func noteChanged(_ slot: Int) -> Bool {
        guard context != nil else { return false }
        changed.insert(slot)
        guard !listed, !isInserted else { return false }
        listed = true
        return true
    }
}

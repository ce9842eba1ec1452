// What only an editing context does (`CdEditingContext` is its public face): take in the main
// merge of every commit while keeping its own edits (MC6), and roll its changes back. Saving is
// the transaction's `commit()`; MC5 (what it holds strongly) is kept where objects are inserted,
// changed, deleted and saved, in CdManagedObjectContext.swift.
//
// Confinement: the main queue, as the editing context's objects (checks I5, J5).

import Foundation
import CdObjects

extension CdManagedObjectContext: MainMergeObserver {
    /// Editing context, after the main context merged a commit: refaults the objects the commit
    /// changed, keeping their uncommitted changes on top, and marks deleted the objects it
    /// deleted, dropping their uncommitted changes: the delete wins, as it would at the save
    /// (CA6). A save resolves what both changed under the merge policy (MC6).
    func mainContextDidMerge(_ applied: AppliedChanges) {
        guard kind == .editing else { return }
        let anyRegistered = lock.withLock { !registry.isEmpty }
        guard anyRegistered else { return }
        var gone: [CdManagedObject] = []
        for id in applied.deleted {
            guard let object = registered(id) else { continue }
            object.withState { state in
                guard !state.isInserted else { return }
                state.clearChanges()
                state.isDeleted = true
            }
            gone.append(object)
        }
        for id in applied.updated where !applied.deleted.contains(id) { registered(id)?.refaultKeepingChanges() }
        let dropped = lock.withLock { () -> [CdManagedObject] in
            if !gone.isEmpty {
                let goneIDs = Set(gone.map(ObjectIdentifier.init))
                changedObjects.removeAll { goneIDs.contains(ObjectIdentifier($0)) }
                heldDeleted.removeAll { goneIDs.contains(ObjectIdentifier($0)) }
            }
            for id in applied.deleted {
                deleted.remove(id)
                registry[id] = nil
            }
            if !gone.isEmpty { pendingCache = nil }
            let dead = registry.filter { $0.value.object == nil }
            for id in dead.keys { registry[id] = nil }
            return gone
        }
        if !dropped.isEmpty { bump() }
        withExtendedLifetime(dropped) {}  // released after the lock (OL1)
    }

    /// Editing context: `object` reads the store's values when next used; with `keepingChanges`
    /// its uncommitted changes stay on top of them (Core Data's `refresh(_:mergeChanges: true)`),
    /// without, they are dropped, a deletion included (`mergeChanges: false`); edits they made
    /// to other objects (the inverse side of a relationship) stay. An object inserted since the
    /// last save is left as it is, and so is an object of another context.
    func refresh(_ object: CdManagedObject, keepingChanges: Bool) {
        precondition(kind == .editing)
        guard object.managedObjectContext === self, !object.withState({ $0.isInserted }) else { return }
        if keepingChanges { return object.refaultKeepingChanges() }
        guard let id = object.objectID else { return }
        lock.withLock {
            changedObjects.removeAll { $0 === object }
            deleted.remove(id)
            heldDeleted.removeAll { $0 === object }
            pendingCache = nil
        }
        bump()
        object.withState { state in
            state.clearChanges()
            state.isDeleted = false
        }
        object.refresh(with: nil)
    }

    /// Editing context: drops every uncommitted change (Core Data's `rollback()`). Inserted
    /// objects leave the context as transient objects that keep their attribute values; changed
    /// and deleted objects, and any object an inverse edit touched, become faults that read the
    /// store's values when next used.
    func rollback() {
        precondition(kind == .editing)
        let (taken, live) = lock.withLock { (takePendingListsLocked(), registry.values.compactMap(\.object)) }
        let (inserted, changed, removed) = (taken.inserted, taken.changed, taken.deleted)
        bump()
        // Only the objects deleted here come back; an object another commit deleted stays deleted.
        let deletedHere = Set(removed.map(ObjectIdentifier.init))
        var detached: [ObjectID] = []
        for object in inserted {
            object.withState { state in
                guard state.isInserted, let id = state.objectID else { return }
                detached.append(id)
                state.context = nil
                state.objectID = nil
                state.isInserted = false
                state.isDeleted = false
                state.clearChanges()
                state.transientRelated = [:]
                // Its links named objects of this context: a transient object has none.
                if let slots = state.slots {
                    let defaults = slots.newValues, kinds = slots.properties.kinds
                    for slot in state.buffer.indices where slot >= kinds.count || kinds[slot] != .attribute {
                        state.buffer[slot] = slot < defaults.count ? defaults[slot] : nil
                    }
                }
            }
        }
        for object in changed + removed + live {
            let touched = object.withState { state -> Bool in
                guard !state.isInserted, state.objectID != nil else { return false }
                let undeleted = deletedHere.contains(ObjectIdentifier(object))
                let touched =
                    state.hasChangedValues || undeleted || !state.deferredListEdits.isEmpty
                    || !state.listChanges.isEmpty
                if touched { state.clearChanges() }
                if undeleted { state.isDeleted = false }
                return touched
            }
            if touched { object.refresh(with: nil) }
        }
        if !detached.isEmpty { lock.withLock { for id in detached { registry[id] = nil } } }
    }
}

extension CdManagedObject {
    /// Makes the object read the store's values when next used, keeping its uncommitted changes
    /// (the changed slots, and the to-many lists it changed) on top of them: the load keeps a
    /// changed slot (`loadIfNeeded`). An inserted object, whose values are all its own, is left
    /// as it is.
    func refaultKeepingChanges() {
        withState { state in
            guard !state.isInserted else { return }
            for slot in state.buffer.indices where !state.changed.contains(slot) { state.buffer[slot] = nil }
            state.extra = state.extra.filter { state.changedExtra.contains($0.key) }
            state.loaded = false
            state.partial.removeAll()
            state.batch = nil
        }
    }
}

extension CdManagedObject.State {
    /// Forgets the changes made since the last commit (keeps MO2–MO5 for a clean object).
    mutating func clearChanges() {
        changed.removeAll()
        changedExtra = []
        listed = false
        deferredListEdits = []
        listChanges = [:]
        readValues = nil
    }
}

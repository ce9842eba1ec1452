// After each merge into the main context: apply the commit incrementally
// (`CdFetchedResultsController+Incremental.swift`) or, where that cannot decide, re-run the
// fetch and diff the new sections against the old ones by object identity (the main context
// has one object per ID, MC1, and the old results keep theirs alive); then call the delegate
// and `onChange` (keeps RC3). Both ways report the same kinds of change:
//
//   section delete   a name in the old sections and not in the new (old index)
//   section insert   a name in the new sections and not in the old (new index)
//   delete           an object in the old results only (old index path)
//   insert           an object in the new results only (new index path)
//   move             an object in both whose section name changed, or whose place among the
//                    objects in both changed (the fewest moves: `CollectionDifference` of the
//                    common objects in old and new order)
//   update           an object in both, not moved, that the commit changed
//
// Shifts caused by other inserts and deletes are not moves, as in Core Data (a table view
// applies them itself). A refetch that fails (the store failed underneath) leaves the results
// as they were; the next merge or `performFetch` tries again. A controller of a container that
// `Cd.close()` or another `Cd.initWithStore` ended stays as it was.

import Foundation
import CdObjects

extension CdFetchedResultsController: MainMergeObserver {
    func mainContextDidMerge(_ applied: AppliedChanges) {
        // A merge of a container that was closed or replaced since is not read from the open one
        // (whose objects belong to another main context): the controller stays as it was.
        guard results != nil, let observedContext, !observedContext.container.isClosed else { return }
        let container = observedContext.container  // CN2: the controller's own, not the default
        // A commit that touches none of the entities the results depend on cannot change them.
        if !needsRefetch, let readSet, !readSet.isAffected(by: applied) { return }
        let clock = ContinuousClock()
        let start = clock.now
        // `apply` installs the new results and returns the changes; nil: nothing changed.
        let apply: (() -> CdFetchedResultsChanges<T>)?
        let incremental: Bool
        if let plan, !needsRefetch, plan.canApply(applied) {
            incremental = true
            do {
                apply = try incrementalChanges(applied, plan: plan, container: container)
            } catch {
                // The results are as they were; the next merge refetches (keeps RC1 then).
                needsRefetch = true
                return
            }
        } else {
            incremental = false
            guard let oldSections = sections, let objects = try? fetchRequest.fetch() else { return }
            let state = built(objects)
            let changes = Self.diff(old: oldSections, new: Self.sections(of: state), updated: applied.updated)
            guard !changes.sections.isEmpty || !changes.objects.isEmpty else {
                install(state)
                lastUpdate = (clock.now - start, incremental)
                return
            }
            apply = { [self] in
                install(state)
                return changes
            }
        }
        guard let apply else {
            lastUpdate = (clock.now - start, incremental)
            return
        }
        let prepared = clock.now - start
        let delegate = self.delegate
        delegate?.controllerWillChangeContent(self)
        let installing = clock.now
        let changes = apply()
        lastUpdate = (prepared + (clock.now - installing), incremental)
        if let delegate {
            for change in changes.sections {
                delegate.controller(self, didChangeSection: change.name, atSectionIndex: change.index, for: change.type)
            }
            for change in changes.objects {
                delegate.controller(
                    self, didChange: change.object, at: change.indexPath, for: change.type,
                    newIndexPath: change.newIndexPath)
            }
            delegate.controllerDidChangeContent(self)
        }
        onChange?(changes)
    }

    /// The changes from `old` to `new`; `updated` are the objects the commit changed.
    static func diff(
        old: [CdFetchedResultsSection<T>], new: [CdFetchedResultsSection<T>],
        updated: Set<ObjectID>
    ) -> CdFetchedResultsChanges<T> {
        typealias Place = (object: T, path: CdIndexPath, section: String)
        func places(_ sections: [CdFetchedResultsSection<T>]) -> [Place] {
            sections.enumerated().flatMap { s, section in
                section.objects.enumerated().map { row, object in
                    (object, CdIndexPath(row: row, section: s), section.name)
                }
            }
        }
        let before = places(old), after = places(new)
        let oldPlace = Dictionary(
            before.map { (ObjectIdentifier($0.object), $0) }, uniquingKeysWith: { first, _ in first })
        let newPlace = Dictionary(
            after.map { (ObjectIdentifier($0.object), $0) }, uniquingKeysWith: { first, _ in first })

        var sectionChanges: [CdFetchedResultsSectionChange] = []
        let oldNames = Set(old.map(\.name)), newNames = Set(new.map(\.name))
        for (i, section) in old.enumerated() where !newNames.contains(section.name) {
            sectionChanges.append(CdFetchedResultsSectionChange(name: section.name, index: i, type: .delete))
        }
        for (i, section) in new.enumerated() where !oldNames.contains(section.name) {
            sectionChanges.append(CdFetchedResultsSectionChange(name: section.name, index: i, type: .insert))
        }

        var changes: [CdFetchedResultsObjectChange<T>] = []
        for place in before where newPlace[ObjectIdentifier(place.object)] == nil {
            changes.append(
                CdFetchedResultsObjectChange(
                    object: place.object, type: .delete, indexPath: place.path, newIndexPath: nil))
        }
        for place in after where oldPlace[ObjectIdentifier(place.object)] == nil {
            changes.append(
                CdFetchedResultsObjectChange(
                    object: place.object, type: .insert, indexPath: nil, newIndexPath: place.path))
        }
        let commonBefore = before.map { ObjectIdentifier($0.object) }.filter { newPlace[$0] != nil }
        let commonAfter = after.map { ObjectIdentifier($0.object) }.filter { oldPlace[$0] != nil }
        var moved = Set<ObjectIdentifier>()
        for change in commonAfter.difference(from: commonBefore) {
            switch change {
            case let .insert(_, id, _), let .remove(_, id, _): moved.insert(id)
            }
        }
        for id in commonAfter where oldPlace[id]!.section != newPlace[id]!.section { moved.insert(id) }
        for id in commonAfter {
            let from = oldPlace[id]!, to = newPlace[id]!
            if moved.contains(id) {
                changes.append(
                    CdFetchedResultsObjectChange(
                        object: to.object, type: .move, indexPath: from.path, newIndexPath: to.path))
            }
        }
        for id in commonAfter where !moved.contains(id) {
            let from = oldPlace[id]!, to = newPlace[id]!
            if let objectID = to.object.objectID, updated.contains(objectID) {
                changes.append(
                    CdFetchedResultsObjectChange(
                        object: to.object, type: .update, indexPath: from.path, newIndexPath: to.path))
            }
        }
        return CdFetchedResultsChanges(sections: sectionChanges, objects: changes)
    }
}

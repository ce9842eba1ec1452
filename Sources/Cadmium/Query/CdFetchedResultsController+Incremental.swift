// The incremental update of a fetched results controller after a merge, without a refetch:
//
//   1. The commit's objects of the request's entities are the candidates: deleted ones leave;
//      inserted and updated ones are tested against the predicate by one store query limited
//      to them (`predicate AND SELF IN candidates`, the primary-key access path), which also
//      reads their new values.
//   2. A result whose sort key and section are unchanged stays in place (an `.update` when the
//      commit changed it); any other leaves its old place, and each match takes its place by
//      the sort (`SortedResults`, a binary search), its section by the section key path.
//   3. Index paths come from positions and the section sizes, before the commit for deletes
//      and after it for inserts; a result that left and came back is a `.move` when its
//      section or its rank among the untouched results changed, or when it is not on the
//      longest run of such results that kept their relative order (the fewest moves), else an
//      `.update`.
//
// The cost is that of the commit's objects — a query on their keys, a binary search and a
// shift inside one chunk each, plus one pass over the chunk and section sizes per lookup — not
// that of the results. The controller refetches instead (and diffs, `+Diff.swift`) when it
// cannot decide from the changed objects alone:
//   - the request has a limit or an offset (a change can pull in a result from outside the page);
//   - a sort key or the section key path is not a path of to-one relationships ending in an
//     attribute, or the predicate uses what the read set cannot follow (SUBQUERY, variables);
//   - the predicate, a sort key or the section key path crosses a relationship, and the commit
//     touched an entity on the other side (a renamed department can move every employee);
//   - the previous incremental update failed (a store read failed).

import Foundation
import CdObjects

/// A result of a controller: the object with the sort key and section it was placed by. Not
/// generic, so that the sorted storage's code is specialised for it inside this module (generic
/// code over an app's class would run unspecialised, several times slower per comparison).
struct ResultEntry {
    let object: CdManagedObject
    let id: ObjectID
    /// The sort key values, or the fetch position when the controller only refetches.
    let key: [CdValue]
    let section: String
}

/// A section's name and size.
struct SectionCount: Equatable {
    let name: String
    var count: Int

    /// The index path of the result at `position` among `sections`.
    static func indexPath(of position: Int, in sections: [SectionCount]) -> CdIndexPath? {
        var start = 0
        for (index, section) in sections.enumerated() {
            if position < start + section.count { return CdIndexPath(row: position - start, section: index) }
            start += section.count
        }
        return nil
    }
}

/// What a controller needs to apply merges without a refetch (see the header).
struct IncrementalPlan {
    let request: FetchRequest
    let readSet: QueryReadSet
    /// Each sort key as a path of to-one relationships ending in an attribute.
    let sortPaths: [[String]]

    /// Nil when the request can only be refetched.
    init?(request: FetchRequest, sectionNameKeyPath: String?, model: ObjectModel) {
        guard request.limit == nil, request.offset == 0 else { return nil }
        func attributePath(_ keyPath: String) -> [String]? {
            let keys = keyPath.split(separator: ".").map(String.init)
            var entity = request.entity
            for key in keys.dropLast() {
                guard let relationship = model.relationship(key, of: entity), !relationship.isToMany else { return nil }
                entity = relationship.destination
            }
            guard let last = keys.last, model.attribute(last, of: entity) != nil else { return nil }
            return keys
        }
        var paths: [[String]] = []
        for descriptor in request.sortDescriptors {
            guard let path = attributePath(descriptor.key) else { return nil }
            paths.append(path)
        }
        if let sectionNameKeyPath, attributePath(sectionNameKeyPath) == nil { return nil }
        let readSet = QueryReadSet(
            request, extraKeyPaths: sectionNameKeyPath.map { [$0] } ?? [], model: model)
        guard readSet.entities != nil else { return nil }
        self.request = request
        self.readSet = readSet
        sortPaths = paths
    }

    /// Whether `applied` can be applied from its own objects (see the header).
    func canApply(_ applied: AppliedChanges) -> Bool {
        guard readSet.crossesRelationships else { return true }
        let related = readSet.relatedEntities ?? []
        for set in [applied.inserted, applied.updated, applied.deleted] {
            if set.contains(where: { related.contains($0.entity) }) { return false }
        }
        return true
    }
}

extension CdFetchedResultsController {
    /// The strict order of the results: the sort keys, then the primary key (the store's order).
    func order() -> (ResultEntry, ResultEntry) -> Bool {
        let descriptors = plan.map { _ in fetchRequest.request.sortDescriptors } ?? []
        let options = descriptors.map { $0.caseInsensitive ? CdValueComparisonOptions.caseInsensitive : [] }
        let ascending = descriptors.map(\.ascending)
        let byPosition = plan == nil
        return { a, b in
            if byPosition { return CdValue.compare(a.key[0], b.key[0]) == .orderedAscending }
            for i in 0..<ascending.count {
                let r = CdValue.compare(a.key[i], b.key[i], options: options[i])
                if r != .orderedSame { return ascending[i] ? r == .orderedAscending : r == .orderedDescending }
            }
            return a.id.primaryKey < b.id.primaryKey
        }
    }

    /// The entry of `object` (its sort key read from the object, its section name).
    func entry(_ object: T, position: Int) -> ResultEntry {
        let key: [CdValue]
        if let plan {
            key = plan.sortPaths.map { path in
                var current: CdManagedObject? = object
                for step in path.dropLast() { current = current?.readRelationship(step).first }
                return current?.readAttribute(path[path.count - 1]) ?? .null
            }
        } else {
            key = [.integer(Int64(position))]
        }
        let section = sectionNameKeyPath.map { sectionName(of: object, $0) } ?? ""
        return ResultEntry(object: object, id: object.objectID!, key: key, section: section)
    }

    /// Makes `objects` (a fetch's results, in order) the controller's results (keeps RC1, OB7).
    func replaceResults(with objects: [T]) {
        install(built(objects))
    }

    /// The controller's state for `objects` (a fetch's results, in order).
    func built(_ objects: [T]) -> (results: SortedResults<ResultEntry>, counts: [SectionCount]) {
        var list = objects.enumerated().map { entry($1, position: $0) }
        let order = order()
        if plan != nil { list.sort(by: order) }  // stable; the store's order already (its ties: primary key)
        var counts: [SectionCount] = []
        for item in list {
            if counts.last?.name == item.section {
                counts[counts.count - 1].count += 1
            } else {
                counts.append(SectionCount(name: item.section, count: 1))
            }
        }
        return (SortedResults(sorted: list, by: order), counts)
    }

    /// Installs a state from `built(_:)`.
    func install(_ state: (results: SortedResults<ResultEntry>, counts: [SectionCount])) {
        results = state.results
        entries = [:]
        entries.reserveCapacity(state.results.count)
        for chunk in state.results.chunks { for item in chunk { entries[item.id] = item } }
        sectionCounts = state.counts
        cachedObjects = nil
        cachedSections = nil
        needsRefetch = false
    }

    /// The sections of a state from `built(_:)`.
    static func sections(
        of state: (results: SortedResults<ResultEntry>, counts: [SectionCount])
    ) -> [CdFetchedResultsSection<T>] {
        let objects = state.results.elements.map { unsafeDowncast($0.object, to: T.self) }
        var start = 0
        return state.counts.map { section in
            defer { start += section.count }
            return CdFetchedResultsSection(name: section.name, objects: Array(objects[start..<start + section.count]))
        }
    }

    /// Prepares `applied` without a refetch (the header's steps 1–2, reading only): nil when
    /// the results do not change, else a closure that changes the results in place (no copy
    /// of the results, so the cost stays that of the commit's objects) and returns what
    /// changed (step 3). The closure is called between willChange and the first change (RC3).
    func incrementalChanges(
        _ applied: AppliedChanges, plan: IncrementalPlan, container: CdContainer
    ) throws -> (() -> CdFetchedResultsChanges<T>)? {
        guard let old = results else { return nil }
        let kinds = plan.readSet.resultEntities
        let deleted = applied.deleted.filter { kinds.contains($0.entity) }
        let candidates = applied.inserted.union(applied.updated).filter { kinds.contains($0.entity) }
            .subtracting(deleted)
        guard !deleted.isEmpty || !candidates.isEmpty else { return nil }

        // 1. Which candidates match now, with their new values.
        var fresh: [ObjectID: ResultEntry] = [:]
        if !candidates.isEmpty {
            var request = plan.request
            let keys = try CdPredicate(format: "SELF IN %@", Array(candidates))
            request.predicate = request.predicate.map { .and(keys, $0) } ?? keys
            request.sortDescriptors = []
            let (snapshot, owned) = try container.main.readSnapshot()
            defer { if owned { snapshot.end() } }
            let matches = try snapshot.fetchObjects(request, pending: nil)
            let objects = try container.main.materialize(
                matches.map(\.id), from: snapshot, values: matches.map(\.values))
            for case let object as T in objects { fresh[object.objectID!] = entry(object, position: 0) }
        }

        // 2. Old places of the results that leave or stay in place.
        var leaving: [(entry: ResultEntry, position: Int)] = []
        var inPlace: [(entry: ResultEntry, position: Int)] = []
        for id in deleted.union(candidates) {
            guard let was = entries[id], let position = old.index(of: was) else { continue }
            if let now = fresh[id], now.section == was.section, now.key == was.key {
                fresh[id] = nil
                if applied.updated.contains(id) { inPlace.append((was, position)) }
            } else {
                leaving.append((was, position))
            }
        }
        let arrivals = Array(fresh.values)
        guard !leaving.isEmpty || !arrivals.isEmpty || !inPlace.isEmpty else { return nil }

        return { [self] in
            // 3. In place: out with the leaving, in with the arriving, then the index paths.
            let oldCounts = sectionCounts
            var counts = oldCounts
            cachedObjects = nil
            cachedSections = nil
            for (was, _) in leaving {
                results!.remove(was)
                entries[was.id] = nil
                if let s = counts.firstIndex(where: { $0.name == was.section }) {
                    counts[s].count -= 1
                    if counts[s].count == 0 { counts.remove(at: s) }
                }
            }
            for now in arrivals {
                let position = results!.insert(now)
                entries[now.id] = now
                if let s = counts.firstIndex(where: { $0.name == now.section }) {
                    counts[s].count += 1
                } else {
                    // A new section goes after the section of the result before it (RC2 keeps runs).
                    let before = position == 0 ? nil : SectionCount.indexPath(of: position - 1, in: counts)
                    let at = before.map { $0.section + 1 } ?? 0
                    counts.insert(SectionCount(name: now.section, count: 1), at: at)
                }
            }
            sectionCounts = counts
            let next = results!
            return Self.changes(
                leaving: leaving, arriving: arrivals.map { ($0, next.index(of: $0)!) },
                inPlace: inPlace.map { ($0.entry, $0.position, next.index(of: $0.entry)!) },
                oldCounts: oldCounts, newCounts: counts)
        }
    }

    /// The changes from the places that results left, took and kept (the header's step 3).
    static func changes(
        leaving: [(entry: ResultEntry, position: Int)], arriving: [(entry: ResultEntry, position: Int)],
        inPlace: [(entry: ResultEntry, old: Int, new: Int)], oldCounts: [SectionCount], newCounts: [SectionCount]
    ) -> CdFetchedResultsChanges<T> {
        func path(_ position: Int, _ counts: [SectionCount]) -> CdIndexPath {
            SectionCount.indexPath(of: position, in: counts)!
        }
        var sections: [CdFetchedResultsSectionChange] = []
        let oldNames = Set(oldCounts.map(\.name)), newNames = Set(newCounts.map(\.name))
        for (i, s) in oldCounts.enumerated() where !newNames.contains(s.name) {
            sections.append(CdFetchedResultsSectionChange(name: s.name, index: i, type: .delete))
        }
        for (i, s) in newCounts.enumerated() where !oldNames.contains(s.name) {
            sections.append(CdFetchedResultsSectionChange(name: s.name, index: i, type: .insert))
        }
        let leftAt = leaving.map(\.position).sorted(), tookAt = arriving.map(\.position).sorted()
        /// How many of the sorted `positions` are below `p` (binary search).
        func below(_ p: Int, _ positions: [Int]) -> Int {
            var a = 0, b = positions.count
            while a < b {
                let m = (a + b) / 2
                if positions[m] < p { a = m + 1 } else { b = m }
            }
            return a
        }
        let arrivedAt = Dictionary(arriving.map { ($0.entry.id, $0) }, uniquingKeysWith: { a, _ in a })
        var deletes: [CdFetchedResultsObjectChange<T>] = []
        var inserts: [CdFetchedResultsObjectChange<T>] = []
        var common: [(from: ResultEntry, old: Int, to: ResultEntry, new: Int)] = []
        var stayed = Set<ObjectID>()
        for (was, position) in leaving {
            if let now = arrivedAt[was.id] {
                common.append((was, position, now.entry, now.position))
                stayed.insert(was.id)
            } else {
                deletes.append(
                    .init(
                        object: unsafeDowncast(was.object, to: T.self), type: .delete,
                        indexPath: path(position, oldCounts), newIndexPath: nil))
            }
        }
        for (now, position) in arriving where !stayed.contains(now.id) {
            inserts.append(
                .init(
                    object: unsafeDowncast(now.object, to: T.self), type: .insert, indexPath: nil,
                    newIndexPath: path(position, newCounts)))
        }
        // A result that left and came back moved if its section or its rank among the untouched
        // results changed; among those with the same rank, all but a longest run in old order did.
        var moved = Set<ObjectID>()
        var byRank: [Int: [(old: Int, new: Int, id: ObjectID)]] = [:]
        for c in common {
            let rankBefore = c.old - below(c.old, leftAt), rankAfter = c.new - below(c.new, tookAt)
            if c.from.section != c.to.section || rankBefore != rankAfter {
                moved.insert(c.from.id)
            } else {
                byRank[rankBefore, default: []].append((c.old, c.new, c.from.id))
            }
        }
        for group in byRank.values where group.count > 1 {
            let inNewOrder = group.sorted { $0.new < $1.new }
            let keep = Self.longestIncreasingRun(inNewOrder.map(\.old))
            for (i, item) in inNewOrder.enumerated() where !keep.contains(i) { moved.insert(item.id) }
        }
        var moves: [CdFetchedResultsObjectChange<T>] = []
        var updates: [CdFetchedResultsObjectChange<T>] = []
        for c in common.sorted(by: { $0.new < $1.new }) {
            let change = CdFetchedResultsObjectChange(
                object: unsafeDowncast(c.to.object, to: T.self), type: moved.contains(c.from.id) ? .move : .update,
                indexPath: path(c.old, oldCounts), newIndexPath: path(c.new, newCounts))
            if change.type == .move { moves.append(change) } else { updates.append(change) }
        }
        for item in inPlace {
            updates.append(
                .init(
                    object: unsafeDowncast(item.entry.object, to: T.self), type: .update,
                    indexPath: path(item.old, oldCounts),
                    newIndexPath: path(item.new, newCounts)))
        }
        deletes.sort { $0.indexPath! < $1.indexPath! }
        inserts.sort { $0.newIndexPath! < $1.newIndexPath! }
        updates.sort { $0.newIndexPath! < $1.newIndexPath! }
        return CdFetchedResultsChanges(sections: sections, objects: deletes + inserts + moves + updates)
    }

    /// The indexes of one longest strictly increasing subsequence of `values`.
    static func longestIncreasingRun(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = []  // index into values of the smallest tail of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (i, v) in values.enumerated() {
            var a = 0, b = tails.count
            while a < b {
                let m = (a + b) / 2
                if values[tails[m]] < v { a = m + 1 } else { b = m }
            }
            if a > 0 { previous[i] = tails[a - 1] }
            if a == tails.count { tails.append(i) } else { tails[a] = i }
        }
        var run = Set<Int>()
        var i = tails.last ?? -1
        while i >= 0 {
            run.insert(i)
            i = previous[i]
        }
        return run
    }
}

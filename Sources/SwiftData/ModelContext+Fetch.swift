// Fetching through a context: the descriptor becomes a store request (PredicateTranslation), run
// on a snapshot of the store's last commit with this context's pending changes overlaid (unless
// `includePendingChanges` is false), and each match is this context's instance of the object.
//
// Invariants:
//  FE1. A fetch returns registered instances (MC1); a registered instance without pending
//       changes takes the fetched record's values, so a fetch sees what other contexts saved.
//  FE2. A fetch whose whole predicate is `persistentModelID == id` (or `id == persistentModelID`,
//       which its request states the other way round), with no pending changes to
//       overlay, reads that one record by primary key instead of running a query (the object
//       store's keyed fetch, ObjectSnapshot+KeyFetch FK1–FK2): the same answer (the object if a
//       record of the fetched entity exists, else nothing) without planning, in slot form.
//  FE3. Such a fetch with no sort either (the common `fetch by id`) is recognised before any
//       request is made: the identifier is read out of the predicate's tree (PC5 of
//       PredicateRequestCache.swift) and the store reads its record by ID (FK4), with the
//       descriptor's entity, subentities and paging as the request would state them. So it
//       answers exactly what FE2 answers, without the request, its boxed identifier or a plan.
//  FE4. A sort the store cannot run (a key path through a relationship, `\.trip?.name`, or to a
//       property it does not hold) is run in Swift with the descriptor's own `SortDescriptor`s
//       on every match, and the offset and limit are applied after it: the same models, in the
//       order `sorted(using:)` gives, as a store sort would on a property it held. Every match is
//       read for it, so such a fetch costs what a fetch without a limit does.

internal import CdObjects
import Foundation

extension ModelContext {
    /// The models `descriptor` matches, in its order.
    ///
    /// ```swift
    /// let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate)]))
    /// ```
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        if needsCatchUp { catchUp() }
        if !PredicateTranslation.storeSorts(descriptor.sortBy) { return try fetchSortedInSwift(descriptor) }  // FE4
        if let found = try fetchByIdentifier(descriptor) { return found }  // FE3
        let request = try request(descriptor)
        let pending = try overlay(descriptor.includePendingChanges)
        // Without pending changes, a fetch by identifier is read by primary key (FE2).
        let matches: [(id: ObjectID, values: [PropertyValue?]?)]
        do { matches = try container.store.read { try $0.fetchSlotObjects(request, pending: pending) } } catch {
            throw SwiftDataError.store(error)
        }
        return matches.compactMap { instance(for: $0.id, slots: $0.values) as? T }  // keeps FE1
    }

    /// The models of a fetch whose whole predicate is `persistentModelID == id` (either order),
    /// with no sort and no pending changes to overlay, read by ID (FE3); nil for any other fetch.
    private func fetchByIdentifier<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T]? {
        guard let predicate = descriptor.predicate, descriptor.sortBy.isEmpty,
            !(descriptor.includePendingChanges && hasChanges),
            let id = container.predicateCache.identifier(in: predicate)
        else { return nil }
        let entity = container.entityName(T.self)
        let matches: [(id: ObjectID, values: [PropertyValue?]?)]?
        do {
            matches = try container.store.read { snapshot in
                // The offset and limit as `PredicateTranslation.request` states them.
                try snapshot.keyedSlotObjects(
                    [id.objectID], entity: entity, includesSubentities: descriptor.includeSubentities,
                    offset: max(0, descriptor.fetchOffset ?? 0), limit: descriptor.fetchLimit)
            }
        } catch {
            throw SwiftDataError.store(error)
        }
        return matches?.compactMap { instance(for: $0.id, slots: $0.values) as? T }  // keeps FE1
    }

    /// The models of a fetch whose sort the store cannot run, sorted in Swift, then paged (FE4).
    private func fetchSortedInSwift<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        var unsorted = descriptor
        unsorted.sortBy = []
        unsorted.fetchOffset = nil
        unsorted.fetchLimit = nil
        let sorted = try fetch(unsorted).sorted(using: descriptor.sortBy)
        let start = min(sorted.count, max(0, descriptor.fetchOffset ?? 0))
        let end = descriptor.fetchLimit.map { min(sorted.count, start + max(0, $0)) } ?? sorted.count
        return Array(sorted[start..<end])
    }

    /// The number of models `descriptor` matches.
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        var descriptor = descriptor
        descriptor.sortBy = []  // the order changes no count (and a sort only Swift runs, FE4, would refuse)
        let request = try request(descriptor)
        let pending = try overlay(descriptor.includePendingChanges)
        do { return try container.store.read { try $0.count(request, pending: pending) } } catch {
            throw SwiftDataError.store(error)
        }
    }

    /// The identifiers of the models `descriptor` matches, without making the models.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier]
    {
        try fetchObjectIDs(descriptor).map {
            PersistentIdentifier(objectID: $0, storeIdentifier: container.storeIdentifier)
        }
    }

    func fetchObjectIDs<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [ObjectID] {
        if !PredicateTranslation.storeSorts(descriptor.sortBy) {  // FE4: the models give the order
            return try fetchSortedInSwift(descriptor).compactMap { $0.storage?.objectID }
        }
        let request = try request(descriptor)
        let pending = try overlay(descriptor.includePendingChanges)
        do { return try container.store.read { try $0.fetchIDs(request, pending: pending) } } catch {
            throw SwiftDataError.store(error)
        }
    }

    /// The store request of `descriptor`, its predicate translated once per shape; an
    /// `id == persistentModelID` comparison is stated as `SELF == id`, the form the store reads
    /// by primary key (FE2).
    func request<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> FetchRequest {
        var request = try PredicateTranslation.request(
            descriptor, entity: container.entityName(T.self), cache: container.predicateCache)
        if case var .comparison(c)? = request.predicate, c.op == .equal, c.quantifier == .direct,
            case .object = c.left, c.right == .evaluatedObject
        {
            (c.left, c.right) = (c.right, c.left)
            request.predicate = .comparison(c)
        }
        return request
    }

    /// The pending changes a fetch overlays, nil when there are none or they do not count.
    private func overlay(_ include: Bool) throws -> ChangeSet? {
        guard include, hasChanges else { return nil }
        return try pendingChangeSet()
    }
}

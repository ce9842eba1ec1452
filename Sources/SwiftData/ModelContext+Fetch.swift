// Fetching through a context: the descriptor becomes a store request (PredicateTranslation), run
// on a snapshot of the store's last commit with this context's pending changes overlaid (unless
// `includePendingChanges` is false), and each match is this context's instance of the object.
//
// Invariants:
//  FE1. A fetch returns registered instances (MC1); a registered instance without pending
//       changes takes the fetched record's values, so a fetch sees what other contexts saved.

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
        let request = try PredicateTranslation.request(descriptor)
        let pending = try overlay(descriptor.includePendingChanges)
        let matches: [(id: ObjectID, values: [String: PropertyValue]?)]
        do { matches = try container.store.read { try $0.fetchObjects(request, pending: pending) } } catch {
            throw SwiftDataError.store(error)
        }
        return matches.compactMap { instance(for: $0.id, record: $0.values) as? T }  // keeps FE1
    }

    /// The number of models `descriptor` matches.
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        let request = try PredicateTranslation.request(descriptor)
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
        let request = try PredicateTranslation.request(descriptor)
        let pending = try overlay(descriptor.includePendingChanges)
        do { return try container.store.read { try $0.fetchIDs(request, pending: pending) } } catch {
            throw SwiftDataError.store(error)
        }
    }

    /// The pending changes a fetch overlays, nil when there are none or they do not count.
    private func overlay(_ include: Bool) throws -> ChangeSet? {
        guard include, hasChanges else { return nil }
        return try pendingChangeSet()
    }
}

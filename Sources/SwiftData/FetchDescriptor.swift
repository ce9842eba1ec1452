// What to fetch: a predicate, a sort, a page (limit and offset) and whether unsaved changes
// count, as SwiftData's `FetchDescriptor` says it.

import Foundation

/// A fetch of models of one class.
///
/// ```swift
/// var upcoming = FetchDescriptor<Trip>(predicate: #Predicate { $0.startDate > now },
///                                      sortBy: [SortDescriptor(\.startDate)])
/// upcoming.fetchLimit = 10
/// let trips = try context.fetch(upcoming)
/// ```
public struct FetchDescriptor<T: PersistentModel>: @unchecked Sendable {
    /// Which models match; nil: all of them.
    public var predicate: Predicate<T>?
    /// The order of the results (a String key path sorts case-insensitively, as SwiftData's
    /// default `.localizedStandard` comparator does).
    public var sortBy: [Foundation.SortDescriptor<T>]
    /// At most this many results.
    public var fetchLimit: Int?
    /// Skip this many results first.
    public var fetchOffset: Int?
    /// Whether unsaved inserts, changes and deletes of the context count (default true).
    public var includePendingChanges = true
    /// Accepted; every persisted property is read (a fetch reads each matching record once).
    public var propertiesToFetch: [PartialKeyPath<T>] = []
    /// Accepted; related models are read on first access.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] = []
    /// Whether models of subclasses match too (model inheritance is not supported yet).
    var includeSubentities = true

    /// A fetch of the models `predicate` matches, in `sortBy` order.
    public init(predicate: Predicate<T>? = nil, sortBy: [Foundation.SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}

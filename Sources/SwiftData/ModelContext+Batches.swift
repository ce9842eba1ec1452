// Fetching in batches: `fetch(_:batchSize:)` answers with the identifiers of every match and
// reads the models a batch at a time (FetchResultsCollection.swift); `enumerate` walks such a
// collection, checking after each batch that the block left no change behind unless it may.
//
// Invariants:
//  BA1. The matches are those of `fetchIdentifiers` with the same descriptor: the predicate, sort,
//       limit and offset run in the store, pending changes included unless
//       `includePendingChanges` is false (as for `fetch(_:)`).
//  BA2. With `allowEscapingMutations` false, a batch whose blocks leave the context with pending
//       changes it did not have before the enumeration ends it with
//       `SwiftDataError.escapingMutations`, before the next batch is read; nothing is saved or
//       discarded, so the app decides (`save()` or `rollback()`).

internal import CdObjects
import Foundation

extension ModelContext {
    /// The models `descriptor` matches, in its order, read from the store `batchSize` at a time
    /// as they are accessed (only the batch in use is held by the collection).
    ///
    /// ```swift
    /// let all = try context.fetch(FetchDescriptor<Trip>(), batchSize: 1000)
    /// let total = all.reduce(0) { $0 + $1.accommodations.count }
    /// ```
    public func fetch<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int
    ) throws -> FetchResultsCollection<T> {
        try Self.checkBatchSize(batchSize)
        if needsCatchUp { catchUp() }
        return FetchResultsCollection(identifiers: try fetchObjectIDs(descriptor), batchSize: batchSize, context: self)
    }

    /// Runs `block` on each model `fetch` matches, reading the models `batchSize` at a time
    /// (default 5000). Unless `allowEscapingMutations` is true, a block that leaves the context
    /// with unsaved changes (when it had none before) ends the enumeration with
    /// `SwiftDataError.escapingMutations` at the end of that batch (BA2).
    ///
    /// ```swift
    /// try context.enumerate(FetchDescriptor<Trip>(), batchSize: 500) { trip in
    ///     print(trip.name)
    /// }
    /// ```
    public func enumerate<T: PersistentModel>(
        _ fetch: FetchDescriptor<T>, batchSize: Int = 5000, allowEscapingMutations: Bool = false,
        block: (T) throws -> Void
    ) throws {
        let hadChanges = hasChanges
        let models = try self.fetch(fetch, batchSize: batchSize)
        for position in models.indices {
            try block(models[position])
            let endsBatch = (position + 1) % batchSize == 0 || position + 1 == models.endIndex
            if endsBatch, !allowEscapingMutations, !hadChanges, hasChanges {  // keeps BA2
                throw SwiftDataError(
                    .escapingMutations,
                    "the enumerate block over \(T.self) changed models (by model \(position + 1) of \(models.count)); "
                        + "save them in the block, or pass allowEscapingMutations: true")
            }
        }
    }

    /// A batch holds at least one model.
    private static func checkBatchSize(_ batchSize: Int) throws {
        guard batchSize >= 1 else {
            throw SwiftDataError(.unsupportedValue, "batchSize \(batchSize): a batch holds at least one model")
        }
    }
}

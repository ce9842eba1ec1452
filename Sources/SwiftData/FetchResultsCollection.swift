// The result of `ModelContext.fetch(_:batchSize:)`: the identifiers of every match, fetched at
// once in the descriptor's order, and the models themselves read from the store a batch at a
// time, when an element of the batch is first accessed.
//
// Invariants:
//  FR1. The elements are the context's registered instances (MC1): a batch is read in one store
//       snapshot, each record handed to `ModelContext.instance(for:record:)`, so a registered
//       model without pending changes takes the record's values (FE1) and one with pending
//       changes keeps them.
//  FR2. The collection holds the models of one batch (the last one read) strongly, so that
//       memory is bounded by a batch whatever the size of the result; models of earlier batches
//       stay alive only if the app holds them (or they have pending changes, MC2).
//  FR3. The identifiers, and so the count and order, are those of the fetch: an object deleted
//       since (by another context's save) is still an element, read as a deleted object reads
//       (docs/SWIFTDATA.md §6).

internal import CdObjects
import Foundation

/// The models of a fetch, read from the store in batches as they are accessed.
///
/// ```swift
/// let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), batchSize: 500)
/// print(trips.count)          // no model read yet
/// for trip in trips { … }     // 500 at a time
/// ```
public struct FetchResultsCollection<Element: PersistentModel>: RandomAccessCollection {
    public typealias Index = Int

    private let identifiers: [ObjectID]
    private let batches: BatchReader<Element>

    init(identifiers: [ObjectID], batchSize: Int, context: ModelContext) {
        self.identifiers = identifiers
        self.batches = BatchReader(identifiers: identifiers, batchSize: batchSize, context: context)
    }

    /// The first position: 0.
    public var startIndex: Int { 0 }
    /// One past the last position: the number of matches.
    public var endIndex: Int { identifiers.count }

    /// The model at `position`, reading its batch from the store when it is not the batch in
    /// hand (FR2).
    public subscript(position: Int) -> Element {
        precondition(identifiers.indices.contains(position), "index \(position) out of range 0..<\(identifiers.count)")
        return batches.model(at: position)
    }
}

/// Reads the batches of a `FetchResultsCollection` and keeps the last one (FR2).
final class BatchReader<Element: PersistentModel> {
    private let identifiers: [ObjectID]
    private let batchSize: Int
    /// The context the models belong to; the collection keeps it alive, as an array of its
    /// models would not need to, since its models are read through it.
    private let context: ModelContext
    /// The batch in hand: its number and its models.
    private var current: (batch: Int, models: [Element])?

    init(identifiers: [ObjectID], batchSize: Int, context: ModelContext) {
        self.identifiers = identifiers
        self.batchSize = batchSize
        self.context = context
    }

    func model(at position: Int) -> Element {
        let batch = position / batchSize
        if current?.batch != batch { current = (batch, read(batch)) }
        return current!.models[position - batch * batchSize]
    }

    /// The models of batch `batch`, read in one snapshot (FR1).
    private func read(_ batch: Int) -> [Element] {
        if context.needsCatchUp { context.catchUp() }
        let ids = Array(identifiers[batch * batchSize..<min(identifiers.count, (batch + 1) * batchSize)])
        // Objects the context holds with pending changes need no record (MS4 keeps their values).
        let wanted = ids.filter { !(context.registry($0)?.storage?.hasChanges ?? false) }
        var records: [ObjectID: [String: PropertyValue]] = [:]
        do {
            records = try context.container.store.read { snapshot in
                var found: [ObjectID: [String: PropertyValue]] = [:]
                for id in wanted { found[id] = try snapshot.values(of: id) }
                return found
            }
        } catch {
            // Read as faults: each model reads its record on first access, and a failure there
            // is thrown by the next save, as for any fault.
            context.deferredError = SwiftDataError.store(error)
        }
        return ids.map { id in
            guard let model = context.instance(for: id, record: records[id]) as? Element else {
                preconditionFailure("\(id) is not a \(Element.self) of this context's schema")
            }
            return model
        }
    }
}

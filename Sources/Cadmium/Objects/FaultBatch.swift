// `batchSize` (Core Data's fetchBatchSize): a fetch with a batch size returns its objects as
// faults, cut into batches of that size. The first read of any object of a batch loads the
// whole batch's values from one snapshot; the other batches stay unloaded until their turn. So
// walking a large result costs one snapshot per batch instead of one per object, and objects
// that are never read are never decoded.
//
// The IDs and order of the results are still fetched whole (the store's query returns IDs);
// what is batched is loading the objects' values, which is what Core Data's batches save too.
//
// Confinement: the context's thread, like its objects.

import CdObjects

/// One batch of faults from a fetch with `batchSize`, loaded together on first use.
final class FaultBatch {
    private weak var context: CdManagedObjectContext?
    private var members: [WeakObject]
    /// `onlyProperties` of the fetch, kept when the batch loads.
    private let keys: Set<String>?

    init(context: CdManagedObjectContext, objects: [CdManagedObject], keys: Set<String>?) {
        self.context = context
        self.members = objects.map(WeakObject.init)
        self.keys = keys
    }

    /// Loads every member that is still this batch's fault, from one snapshot. Runs once.
    func load() {
        let pending = members.compactMap(\.object).filter { object in
            object.withState { !$0.loaded && $0.batch === self }
        }
        members = []
        guard let context, !pending.isEmpty, let (snapshot, owned) = try? context.readSnapshot() else { return }
        defer { if owned { snapshot.end() } }
        for object in pending {
            guard let id = object.objectID else { continue }
            let values = (try? snapshot.values(of: id)) ?? nil
            // To-many targets set by `prefetch` survive the load.
            let toMany = object.withState { $0.values.filter { if case .toMany = $0.value { true } else { false } } }
            defer {
                object.withState { state in
                    for (key, value) in toMany where state.values[key] == nil { state.values[key] = value }
                }
            }
            if let keys {
                object.refreshPartially(with: values, keys: keys)
            } else {
                object.refresh(with: values)
            }
        }
    }
}

// The verifier's way to a record by its key: read from the record tree and decoded on demand, so
// that checking a store holds no copy of its records (issue 27: the object checks at the end of
// an import of 1,000,000 objects held 413 MiB of decoded records).
//
// Invariants:
//   RL1. A look-up answers as the record tree does now: a record that is missing, does not decode,
//        or sits in another hierarchy's tree is no record (the record pass reports each of those).
//   RL2. Memory is bounded: at most `capacity` decoded records are kept (the ones asked for
//        last, cleared whole when full), whatever the size of the store.

import CdStore

/// Records of one transaction, looked up by key and decoded when asked for (RL1, RL2).
final class VerifierRecordLookup {
    private let tx: Transaction
    private let layout: StoreLayout
    private let capacity: Int
    private var trees: [String: Tree?] = [:]
    private var cache: [CacheKey: Record?] = [:]

    private struct CacheKey: Hashable {
        let root: String
        let primaryKey: Int64
    }

    init(tx: Transaction, layout: StoreLayout, capacity: Int = 4_096) {
        self.tx = tx
        self.layout = layout
        self.capacity = capacity
    }

    /// The record stored under `primaryKey` in hierarchy `root`'s tree, or nil (RL1).
    func record(root: String, _ primaryKey: Int64) throws -> Record? {
        let cacheKey = CacheKey(root: root, primaryKey: primaryKey)
        if let cached = cache[cacheKey] { return cached }
        let record = try read(root: root, primaryKey)
        if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
        cache[cacheKey] = record
        return record
    }

    /// The record of `id`, when one of exactly `id`'s entity is stored.
    func record(of id: ObjectID) throws -> Record? {
        guard let entity = layout.entity(of: id), let record = try record(root: entity.root, id.primaryKey),
            record.entity === entity
        else { return nil }
        return record
    }

    private func read(root: String, _ primaryKey: Int64) throws -> Record? {
        let tree: Tree?
        if let known = trees[root] {
            tree = known
        } else {
            tree = try tx.tree(StoreLayout.recordTreeName(root: root))
            trees[root] = tree
        }
        guard let tree, let bytes = try tree.get(RecordCodec.key(primaryKey)),
            let record = try? RecordCodec.decode(bytes, layout: layout), record.entity.root == root
        else { return nil }
        return record
    }
}

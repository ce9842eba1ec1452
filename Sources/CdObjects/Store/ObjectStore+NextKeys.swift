// Raising the stored next primary keys of a store that was just written with explicit keys (a
// migration's new store, an imported Core Data store), so that keys handed out later start past
// a high-water mark the source recorded (Core Data's Z_MAX may exceed the largest key).
//
// Keeps OS1 of ObjectStore.swift: a stored next key is only ever raised. Writes `cd.meta` behind
// the store's counters, so callers close the store at once (OS4 allows that, as for a migration).

import CdStore

extension ObjectStore {
    /// Stores `keys[root]` as the next key of each root whose stored next key is lower; roots the
    /// model does not have are ignored.
    package func raiseStoredNextKeys(_ keys: [String: Int64]) throws {
        do {
            try engine.write { tx in
                let stored = StoredObjects(tx: tx, layout: layout)
                for (root, next) in keys.sorted(by: { $0.key < $1.key }) {
                    guard layout.roots.contains(root), next > (try stored.storedNextKey(root: root)) else { continue }
                    var bytes: [UInt8] = []
                    bytes.appendLE(UInt64(bitPattern: next))
                    try stored.writableTree(StoreLayout.metaTree).put(StoreLayout.nextKeyKey(root: root), bytes)
                }
            }
        } catch let e as StoreError {
            throw CdError.store(e)
        }
    }
}

// Engine trees a migration does not own: every tree whose name is outside the `cd.` prefix
// belongs to a layer above CdObjects (CadmiumSync's `sync.state`: a replica's ID, its positions
// and its identity map from global IDs to object IDs), and its entries name objects by ID.
//
// Invariants:
//  MG12. A migration that keeps every object's ID (entity and primary key: a lightweight step
//        that adds or drops properties, or adds entities, keeps them) copies every foreign tree
//        into the new store unchanged before it is closed and swapped in (MG6: the swap brings
//        the objects and these trees together, or neither): an entry still names the object it
//        named. A migration that gives some object a new ID (an entity renamed, a key taken in a
//        new hierarchy) carries none — their entries would name other objects or none — and so
//        is refused (`MigrationRefusal.Reason.wouldDropForeignState`, after the mapping of step 3,
//        before any file is created) unless `allowsDataLoss` asks for it: a synced store that lost
//        its sync state would start syncing as a new replica and send its objects again under
//        new global IDs (docs/SYNC.md, Versions).

import CdStore

extension StoreMigrator {
    /// One foreign tree's entries, in key order.
    typealias ForeignTree = (name: String, entries: [(key: [UInt8], value: [UInt8])])

    /// The foreign trees of `old` to carry (MG12): all of them when the migration kept every
    /// object's ID; none when it did not and `allowsDataLoss` is on; otherwise, when there are
    /// some, the migration is refused.
    static func carriedForeignTrees(
        of old: ObjectStore, originalIDs: [ObjectID: ObjectID], path: String, stored: StoredModel,
        target: ObjectModel, allowsDataLoss: Bool
    ) throws -> [ForeignTree] {
        let trees = try foreignTrees(of: old)
        guard !trees.isEmpty, !originalIDs.allSatisfy({ $0.key == $0.value }) else { return trees }
        guard allowsDataLoss else {
            throw MigrationError.refused(
                MigrationRefusal(
                    path: path, storeVersionHash: stored.hash, modelVersionHash: target.versionHash,
                    reason: .wouldDropForeignState(trees: trees.map(\.name)), dropped: []))
        }
        return []
    }

    /// Every foreign tree of `old`, with its entries.
    private static func foreignTrees(of old: ObjectStore) throws -> [ForeignTree] {
        do {
            return try old.engine.read { tx in
                var trees: [ForeignTree] = []
                for name in try tx.treeNames() where !name.hasPrefix("cd.") {
                    guard let tree = try tx.tree(name) else { continue }
                    var entries: [(key: [UInt8], value: [UInt8])] = []
                    try tree.scan { key, value in
                        entries.append((key, value))
                        return true
                    }
                    trees.append((name, entries))
                }
                return trees
            }
        } catch let e as StoreError {
            throw CdError.store(e)
        }
    }

    /// Writes `trees` into `store` (the new store of step 4) in one commit (MG12).
    static func writeForeignTrees(_ trees: [ForeignTree], into store: ObjectStore) throws {
        guard !trees.isEmpty else { return }
        do {
            try store.engine.write { tx in
                for t in trees {
                    let tree = try tx.openOrCreateTree(t.name)
                    for e in t.entries { try tree.put(e.key, e.value) }
                }
            }
        } catch let e as StoreError {
            throw CdError.store(e)
        }
    }
}

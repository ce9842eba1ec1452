// Entries a layer above the object store writes into engine trees of its own in the same engine
// commit as a change set (a sync engine's cursor and identity map travel with the objects they
// describe, so a crash keeps both or neither).
//
// Invariants:
//  SW1. A side tree's name never starts with `cd.`: those trees are the object store's, and the
//       verifier reports any it does not know (OV6).
//  SW2. Side writes are applied after the change set's own writes, in the order given, in the
//       same engine write transaction; on a throw nothing of either is written.

import CdStore

/// One put or delete in a side tree (``SideTreeWrite``), carried by a ``ChangeSet``.
package struct SideTreeWrite: Sendable, Hashable {
    /// The engine tree, created when missing; never a `cd.` name (SW1).
    package var tree: String
    package var key: [UInt8]
    /// The new value; nil deletes the key.
    package var value: [UInt8]?

    package init(tree: String, key: [UInt8], value: [UInt8]?) {
        precondition(!tree.hasPrefix("cd."), "side tree \(tree) uses the object store's cd. prefix")  // SW1
        self.tree = tree
        self.key = key
        self.value = value
    }

    /// Writes `writes` in `tx`, in order (keeps SW2).
    static func apply(_ writes: [SideTreeWrite], in tx: WriteTransaction) throws {
        var open: [String: Tree] = [:]
        for w in writes {
            let tree: Tree
            if let t = open[w.tree] {
                tree = t
            } else {
                tree = try tx.openOrCreateTree(w.tree)
                open[w.tree] = tree
            }
            if let value = w.value { try tree.put(w.key, value) } else { try tree.delete(w.key) }
        }
    }
}

extension ObjectSnapshot {
    /// The engine tree `name` as this snapshot sees it (nil when missing): a side tree's state
    /// read in the same snapshot as the objects.
    package func sideTree(_ name: String) throws -> Tree? {
        do { return try tx.tree(name) } catch let e as StoreError { throw CdError.store(e) }
    }

    /// The persistent history after `token` as this snapshot sees it, oldest first: what
    /// ``ObjectStore/history(after:author:entity:)`` returns, read in the snapshot's own engine
    /// transaction, so that the values read beside it belong to the same commit.
    package func history(after token: CdHistoryToken?) throws -> [CdHistoryTransaction] {
        try store.history(after: token, in: tx)
    }
}

extension ObjectSnapshot {
    /// The snapshot's engine transaction, for the object verifier (`ObjectStoreVerifier.verify`).
    package var transactionForVerification: Transaction { tx }
}

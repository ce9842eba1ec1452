// How a backlog of local transactions is cut into push batches: a replica that was offline for
// long, or imported many objects, would otherwise send everything after its acknowledged
// position as one batch in one PostgreSQL transaction with one deadline (`serverTimeout`), and a
// backlog too large for that deadline failed with `serverUnreachable` at every retry.
//
// Invariants:
//  PB1. A batch is a run of whole local transactions, the first after the acknowledged
//       position: never a part of one. A transaction larger than the bounds goes alone, whole.
//  PB2. A batch ends only after a transaction past which no object it touched (created,
//       changed, deleted — inverses and delete rules included, as history records them) is
//       touched again. The push reads each object's current values (PC1), and for the objects
//       of such a batch those are exactly the values after its last transaction: the server's
//       state after the batch is the replica's state after that transaction, for every object
//       it names, and no batch carries part of a later transaction. A hot object touched all
//       through the backlog keeps its batch open until the backlog leaves it behind.
//  PB3. A batch closes at the first boundary of PB2 at or after `transactions` transactions or
//       `changes` changes of synced entities, whichever comes first.
//  PB4. Each batch is a push of its own: the server's compare-and-set on the replica's position
//       (PU1) from the batch's `from` to its `to`, and the local acknowledgement of its `to`
//       before the next batch is collected from that position (SE1). So each is applied exactly
//       once; a crash between batches leaves the rest pending, and the cut is made again from
//       the acknowledged position (it depends on nothing else).
//  PB5. The pending history is read and cut once per backlog, not once per batch: the cuts are
//       made in one pass and kept, in memory only, as a plan (PushPlan.swift) that later batches
//       of the backlog are taken from. A backlog of n transactions in batches of b costs one
//       read of n transactions, not n²/2b.

import CdObjects

/// The bounds of one push batch (PB3).
package struct PushBatchLimit: Sendable, Hashable {
    /// Transactions per batch, at least 1.
    package var transactions: Int
    /// Changes (history entries of synced entities) per batch, at least 1.
    package var changes: Int

    package init(transactions: Int, changes: Int) {
        self.transactions = max(1, transactions)
        self.changes = max(1, changes)
    }

    /// `pending` (oldest first) cut into batches (PB1–PB3), in one pass over it (PB5).
    func batches(of pending: ArraySlice<CdHistoryTransaction>, schema: SyncSchema) -> [PlannedBatch] {
        var lastTouch: [ObjectID: Int] = [:]
        for i in pending.indices {
            for c in pending[i].changes where schema.entities[c.objectID.entity] != nil { lastTouch[c.objectID] = i }
        }
        var result: [PlannedBatch] = []
        var start = pending.startIndex
        var reach = start  // the last transaction that touches an object of the batch so far (PB2)
        var changes = 0
        var objects = Set<ObjectID>()
        for i in pending.indices {
            for c in pending[i].changes where schema.entities[c.objectID.entity] != nil {
                reach = max(reach, lastTouch[c.objectID]!)
                changes += 1
                objects.insert(c.objectID)
            }
            if i >= reach && (i + 1 - start >= transactions || changes >= self.changes) || i == pending.endIndex - 1 {
                result.append(PlannedBatch(transactions: pending[start...i], objects: objects))
                start = i + 1
                reach = start
                changes = 0
                objects = []
            }
        }
        return result
    }
}

/// One batch of a plan: its transactions and the synced objects they touch (PB2, PB5).
struct PlannedBatch: Sendable {
    var transactions: ArraySlice<CdHistoryTransaction>
    var objects: Set<ObjectID>
}

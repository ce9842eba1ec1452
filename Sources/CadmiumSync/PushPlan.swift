// The batches of one backlog, cut once (PB5 of PushBatchSplit.swift) and taken one by one by the
// pushes that follow, so that a long backlog is read from the history once.
//
// Invariants:
//  PP1. A plan lives in the engine's memory only, and only between a batch's local
//       acknowledgement and the next push: a push takes it and gives back what remains only
//       after it acknowledged its batch. A failed push, a failed compare-and-set (a
//       reconciled position), a refusal or a crash leaves no plan, and the next push reads the
//       history after the acknowledged position again (the cut depends on nothing else, PB4).
//  PP2. A plan is used only from the position it was cut after: its next batch must start right
//       after the acknowledged position of the snapshot that takes it, in the same history.
//  PP3. A plan is used only while its next batch is still a clean cut (PB2) of the history as
//       the taking snapshot sees it: the transactions committed after the plan was read (read
//       again each time; usually none) must touch no object of that batch. Otherwise the plan
//       is dropped and the history read again, so a batch never reads values that a later
//       transaction changed.

import CdObjects
import Foundation

/// The remaining batches of a backlog, cut from one read of the history.
struct PushPlan: Sendable {
    /// The history the plan was read from.
    let historyID: UUID
    /// The acknowledged transaction the next batch follows (PP2).
    var after: UInt64
    /// The last transaction the plan's read saw (PP3 reads what follows it).
    let lastRead: UInt64
    /// The batches still to push, oldest first.
    var batches: ArraySlice<PlannedBatch>

    /// The plan of `pending`, the history read after position `after` (not empty).
    init(historyID: UUID, after: UInt64, pending: [CdHistoryTransaction], limit: PushBatchLimit, schema: SyncSchema) {
        self.historyID = historyID
        self.after = after
        self.lastRead = pending.last!.token.number
        self.batches = limit.batches(of: pending[...], schema: schema)[...]
    }

    /// The next batch when the plan still holds for `snapshot` at acknowledged position
    /// `pushed` (PP2, PP3), else nil.
    func next(
        _ snapshot: ObjectSnapshot, pushed: PushedPosition, schema: SyncSchema
    ) throws -> PlannedBatch? {
        guard pushed.historyID == historyID, pushed.number == after, let batch = batches.first else { return nil }
        let later: [CdHistoryTransaction]
        do {
            later = try snapshot.history(after: CdHistoryToken(storeID: historyID, number: lastRead))
        } catch let e as CdError where e.code == 134301 {
            return nil
        }
        for t in later {
            for c in t.changes where schema.entities[c.objectID.entity] != nil && batch.objects.contains(c.objectID) {
                return nil  // PP3
            }
        }
        return batch
    }

    /// The plan after its next batch was acknowledged, nil when none is left.
    func advanced() -> PushPlan? {
        guard let done = batches.first, batches.count > 1 else { return nil }
        var rest = self
        rest.after = done.transactions.last!.token.number
        rest.batches = batches.dropFirst()
        return rest
    }
}

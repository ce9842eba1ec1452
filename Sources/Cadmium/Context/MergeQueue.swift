// The commits of a container between their write and their merge into its main context
// (CdContainer+Commits.swift keeps ST1–ST3 with it): tickets handed out in commit order, commits
// that finished out of order, and merges ready for the main queue in commit order.
//
// Confinement: a value behind the container's `merges` lock.

import CdObjects

/// One commit waiting to be merged into the main context: what the store applied, and which
/// objects the change set updated itself (the others in `applied.updated` changed as a side effect).
struct PendingMerge {
    let direct: Set<ObjectID>
    let applied: AppliedChanges
}

/// The commits between their write and their merge: tickets handed out in commit order, commits
/// that finished out of order, and merges ready for the main queue in commit order (ST1–ST3).
struct MergeQueue {
    /// The ticket the next written commit takes.
    private var nextTicket: UInt64 = 0
    /// The oldest ticket not finished yet: every earlier one is in `ready` or merged.
    private var nextToRelease: UInt64 = 0
    /// Finished tickets after `nextToRelease`, with their merge (nil: the commit failed).
    private var finished: [UInt64: PendingMerge?] = [:]
    /// Merges of durable commits, in commit order, waiting for the main queue.
    var ready: [PendingMerge] = []

    /// A ticket for the commit just written (called under `saveLock`, so in commit order).
    mutating func takeTicket() -> UInt64 {
        defer { nextTicket += 1 }
        return nextTicket
    }

    /// Records that `ticket`'s commit finished and moves every merge whose earlier tickets have
    /// all finished to `ready` (keeps ST1, ST3). Returns whether `ready` went from empty to
    /// non-empty, i.e. whether a drain must be scheduled (ST2).
    mutating func finish(_ ticket: UInt64, _ merge: PendingMerge?) -> Bool {
        precondition(ticket >= nextToRelease && finished[ticket] == nil, "ticket \(ticket) finished twice")
        finished[ticket] = .some(merge)
        let wasEmpty = ready.isEmpty
        while let next = finished.removeValue(forKey: nextToRelease) {
            if let next { ready.append(next) }
            nextToRelease += 1
        }
        return wasEmpty && !ready.isEmpty
    }
}

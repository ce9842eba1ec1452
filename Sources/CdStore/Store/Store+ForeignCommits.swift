// Noticing the commits of other processes, for a layer that tells its process about them (the
// `Cd` layer's remote change events). A watcher polls `sharedStamp` — two atomic loads of the
// shared file's sequence and durable words, no system call — and, only when it moved, catches up
// (`newestForeignCommit`), which indexes the commits the others appended, as the next reader of
// this process would have done anyway.
//
// Invariants:
//  NC1. Every commit this process learns, while catching up, that another process wrote is noted
//       (`noteForeign`, under `stateLock`): catching up raises `written` only past commits this
//       process did not write (its own are indexed when it writes them), so every commit from the
//       old `written` to the new one is another process's. They are noted as runs.
//  NC2. `foreignVisible` is the newest noted commit that is at most `committed` (a new snapshot
//       shows it); `foreignPending` holds the runs of newer ones, ascending, until `committed`
//       reaches them — a run partly, when only its first commits are durable. So a steady
//       stream of other processes' commits, each written before it is durable, still moves
//       `foreignVisible` forward.

extension Store {
    /// Whether other processes may have this store open (it is attached to the shared file).
    package var isSharedWithProcesses: Bool { coordination.isShared }

    /// A value that changes whenever another process commits, checkpoints or makes a commit
    /// durable (two atomic loads); nil when the store is not shared.
    package var sharedStamp: (sequence: UInt64, durable: UInt64)? {
        coordination.isShared ? coordination.stamp() : nil
    }

    /// Catches up with the other processes when the shared state moved, and returns the newest
    /// commit another process wrote that this process's next snapshot shows (NC1, NC2); 0 when
    /// none has yet.
    package func newestForeignCommit() throws -> CommitSequence {
        guard coordination.isShared else { return CommitSequence(0) }
        try catchUpIfMoved()
        return stateLock.withLock {
            settleForeign()
            return foreignVisible
        }
    }

    /// Notes the commits after `previous` up to `last`, all written by another process (NC1).
    /// Under `stateLock`.
    func noteForeign(after previous: CommitSequence, through last: CommitSequence) {
        guard last > previous, last > foreignVisible else { return }
        let first = max(previous.next, foreignVisible.next)
        if let newest = foreignPending.last?.upperBound, newest >= first {
            foreignPending[foreignPending.count - 1] =
                foreignPending[foreignPending.count - 1].lowerBound...max(newest, last)
        } else {
            foreignPending.append(first...last)
        }
        settleForeign()
    }

    /// Moves what `committed` reached of the noted runs to `foreignVisible` (NC2). Under `stateLock`.
    private func settleForeign() {
        while let run = foreignPending.first, run.lowerBound <= committed {
            foreignVisible = max(foreignVisible, min(run.upperBound, committed))
            if run.upperBound <= committed {
                foreignPending.removeFirst()
            } else {
                foreignPending[0] = committed.next...run.upperBound
                break
            }
        }
    }
}

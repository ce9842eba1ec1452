// Which objects the recent commits of this store changed: the error merge policy's conflict
// check (MergePolicy.error). A transaction notes `visible` when it starts; at its commit, an
// object it changes that a commit stamped after that start also changed is a conflict, whether
// the other commit changed an attribute, a to-one or a link of a to-many. (The other policies
// compare values and merge links, and need no log.) The log lives in memory: it covers the
// commits of this process since the store was opened, which are all the commits while a store
// has one process.
//
// Invariants:
//  RC1. `stamp` counts the commits written; each commit's changed objects (updated and deleted,
//       cascades and inverse changes included) are recorded under its stamp while the commit
//       holds the engine's writer, so a later writer's check sees every earlier commit.
//  RC2. `visible` is the stamp of the newest commit that snapshots show (durable): a transaction
//       that starts at `visible` may have read every commit stamped up to it and none after.
//       A commit stamped after it but already visible only makes the check report a conflict
//       that a later start would not (never the reverse).
//  RC3. Changes stamped at or below `floor` are forgotten; a transaction that started below
//       `floor` is in conflict on every object it changes. The log holds at most `capacity`
//       objects: when a commit would exceed it, or changes a quarter of it at once, everything
//       is forgotten and `floor` rises to that commit's stamp, so memory stays bounded and a
//       bulk commit costs no insert per object.

import CdStore

/// The objects changed by recent commits, by commit stamp (RC1–RC3). Thread-safe.
package final class RecentChanges: @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`.
    private let lock = Lock()
    private var stamp: UInt64 = 0
    private var visibleStamp: UInt64 = 0
    private var floor: UInt64 = 0
    private var changed: [ObjectID: UInt64] = [:]
    /// The most objects remembered (RC3).
    package static let capacity = 65_536

    package init() {}

    /// The stamp a starting transaction notes (RC2).
    package var visible: UInt64 { lock.withLock { visibleStamp } }

    /// Records one commit's changed objects under a new stamp and returns it (RC1, RC3).
    package func record(_ updated: Set<ObjectID>, _ deleted: Set<ObjectID>) -> UInt64 {
        lock.withLock {
            stamp += 1
            let count = updated.count + deleted.count
            if count > Self.capacity / 4 || changed.count + count > Self.capacity {
                changed.removeAll()
                floor = stamp
                return stamp
            }
            for id in updated { changed[id] = stamp }
            for id in deleted { changed[id] = stamp }
            return stamp
        }
    }

    /// Marks the commit stamped `stamped` and every earlier one visible (RC2).
    package func markVisible(_ stamped: UInt64) {
        lock.withLock { visibleStamp = max(visibleStamp, stamped) }
    }

    /// Whether a commit stamped after `start` changed `id` (RC3: or may have).
    package func changedSince(_ id: ObjectID, start: UInt64) -> Bool {
        lock.withLock { start < floor || (changed[id] ?? 0) > start }
    }
}

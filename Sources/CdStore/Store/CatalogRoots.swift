// The catalog entries (tree name → root page) of the newest commit a transaction looked them up
// at or a writer wrote, shared by every transaction of that commit. A layer that begins a short read
// transaction per query (a SwiftData context's fetch, a `Cd` fault) finds its trees without a
// descent of the catalog each time, while each transaction is still registered on its own
// (Store P2): nothing here holds a snapshot open or keeps a checkpoint back.
//
// Invariants:
//  CR1. An entry says what the catalog held at `commit`: a tree's root page, or that no tree of
//       that name existed. The pages of a commit never change (PageCache PC1), so neither does
//       its catalog: an entry is never stale for its commit, and nothing is invalidated by a
//       commit or a checkpoint, of this process or another.
//  CR2. A transaction uses it only for its own snapshot's commit, and only while its catalog is
//       that commit's: a write transaction that created or dropped a tree reads its own catalog
//       from then on and notes nothing, and a transaction of another commit (older, or newer:
//       another process's commit it caught up with) looks its trees up in the catalog itself.
//  CR3. It holds one commit's entries: a transaction of a newer commit than the one held
//       replaces them, one of an older commit leaves them. Its size is bounded by the trees of
//       one commit.
//  CR4. A write transaction notes the trees it knows for the commit it wrote, once its frames are
//       in the log and before the next writer begins (the next writer's snapshot): roots never
//       move (BTree T1), and its tree table holds what it looked up, created, and not dropped, so
//       each entry is what that commit's catalog holds. The next write transaction then finds
//       its trees without a descent of the catalog.

/// The shared catalog entries of one commit (CR1–CR4). Thread-safe.
final class CatalogRoots: @unchecked Sendable {
    private struct State {
        var commit = CommitSequence(0)
        /// Name → root page, nil for a name with no tree at `commit`.
        var roots: [String: PageNumber?] = [:]
        var hits = 0
    }

    private let state = LockedState(State())

    /// What the catalog held for `name` at `commit`: `.some(root)`, `.some(nil)` for no tree, nil
    /// when that is not known here (CR2).
    func root(of name: String, at commit: CommitSequence) -> PageNumber?? {
        state.withLock { s in
            guard s.commit == commit, let known = s.roots[name] else { return nil }
            s.hits += 1
            return .some(known)
        }
    }

    /// Notes that the catalog held `root` (nil: no tree) for `name` at `commit` (keeps CR3).
    func note(_ name: String, root: PageNumber?, at commit: CommitSequence) {
        state.withLock { s in
            if commit > s.commit {
                s.commit = commit
                s.roots.removeAll(keepingCapacity: true)
            }
            guard commit == s.commit else { return }
            s.roots[name] = .some(root)
        }
    }

    /// Notes the roots of `trees` at `commit`, the commit a write transaction just wrote (keeps
    /// CR3, CR4).
    func noteWritten(_ trees: [String: BTree], at commit: CommitSequence) {
        guard !trees.isEmpty else { return }
        state.withLock { s in
            if commit > s.commit {
                s.commit = commit
                s.roots.removeAll(keepingCapacity: true)
            }
            guard commit == s.commit else { return }
            for (name, tree) in trees { s.roots[name] = .some(tree.root) }
        }
    }

    /// How many look-ups were answered here, for tests and statistics.
    var hits: Int { state.withLock { $0.hits } }
}

// The catalog entries (tree name → root page) of the newest commit a reader looked them up at,
// shared by every read transaction of that commit. A layer that begins a short read
// transaction per query (a SwiftData context's fetch, a `Cd` fault) finds its trees without a
// descent of the catalog each time, while each transaction is still registered on its own
// (Store P2): nothing here holds a snapshot open or keeps a checkpoint back.
//
// Invariants:
//  CR1. An entry says what the catalog held at `commit`: a tree's root page, or that no tree of
//       that name existed. The pages of a commit never change (PageCache PC1), so neither does
//       its catalog: an entry is never stale for its commit, and nothing is invalidated by a
//       commit or a checkpoint, of this process or another.
//  CR2. Only read transactions use it, and only for their own snapshot's commit: a write
//       transaction creates and drops trees in a catalog no reader sees yet, and a reader of
//       another commit (older, or newer: another process's commit it caught up with) looks its
//       trees up in the catalog itself.
//  CR3. It holds one commit's entries: a reader of a newer commit than the one held replaces
//       them, a reader of an older one leaves them. Its size is bounded by the trees of one
//       commit.

/// The shared catalog entries of one commit (CR1–CR3). Thread-safe.
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
                s.roots = [:]
            }
            guard commit == s.commit else { return }
            s.roots[name] = .some(root)
        }
    }

    /// How many look-ups were answered here, for tests and statistics.
    var hits: Int { state.withLock { $0.hits } }
}

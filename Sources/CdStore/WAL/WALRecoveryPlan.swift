// Which WAL commits recovery applies after the page file's commit: one rule, used by
// `Store.open` (to index them) and by the verifier's WAL pass (to see the store as recovery
// will), so that the two cannot drift.
//
// Invariants:
//  Y1. Recovery applies the complete commits that follow the page file's commit without a gap
//      (W1): commit c+1 after c. A gap ends it: nothing after a missing commit can be trusted.
//  Y2. A commit grows the store by at most the pages it writes: pages come into being only with an
//      image in the commit that allocates them. A commit record claiming more is not applied, nor
//      anything after it, so a hostile page count never reaches the writer or the checkpoint.
//  Y3. The page count never shrinks (the writer only grows it; freed pages stay counted): a commit
//      record counting fewer pages than the one before is not applied, nor anything after it, so
//      every page an applied commit wrote stays below the count the checkpoint maps.

/// Why recovery stops before the end of the WAL's complete commits.
enum WALRecoveryStop: Equatable, Sendable {
    /// Commit `found` follows commit `expected - 1`: commits are missing (Y1).
    case gap(expected: CommitSequence, found: WALCommitRecord)
    /// The commit records `found.pageCount` pages, more than the `before` pages before it plus its
    /// frames (Y2).
    case growth(before: UInt32, found: WALCommitRecord)
    /// The commit records `found.pageCount` pages, fewer than the `before` pages before it (Y3).
    case shrink(before: UInt32, found: WALCommitRecord)
}

/// The commits of a WAL scan that recovery applies after a page file at `commit` with `pageCount`
/// pages, and why it stops early, if it does.
struct WALRecoveryPlan: Sendable {
    var commits: [WALCommitRecord] = []
    var stop: WALRecoveryStop?

    init(scan: WALScanResult, after commit: CommitSequence, pageCount: UInt32) {
        var next = commit.next
        var count = pageCount
        for c in scan.commits {
            if c.commit < next { continue }  // already in the page file
            guard c.commit == next else { stop = .gap(expected: next, found: c); break }
            // Page 0 is never a page but is always counted: a new store's count of 0 is 1 here.
            guard UInt64(c.pageCount) <= UInt64(max(count, 1)) + UInt64(c.frames.count) else {
                stop = .growth(before: count, found: c)
                break
            }
            guard c.pageCount >= count else { stop = .shrink(before: count, found: c); break }
            commits.append(c)
            count = c.pageCount
            next = c.commit.next
        }
    }
}

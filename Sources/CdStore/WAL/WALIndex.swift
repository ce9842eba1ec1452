// The in-memory index of the WAL's committed frames (SQLite keeps this in the -shm file; our
// store is opened by one process at a time, so it lives in memory and is rebuilt by recovery).
//
// Invariants:
//  X1. For each page, entries are in ascending commit order, at most one per commit: when a commit
//      has more than one frame for a page (a spilled image, then its tombstone), the last one is
//      the page's version and replaces the earlier.
//  X2. The index holds only commits newer than the page file's header commit; a reader at snapshot
//      s reads page p from the newest entry with commit ≤ s, else from the page file.

/// Maps page numbers to their versions in the WAL.
struct WALIndex: Sendable {
    struct Entry: Equatable, Sendable {
        var commit: CommitSequence
        var offset: UInt64
        var length: UInt32
        var imageCRC: UInt32
        var isTombstone: Bool
    }

    private(set) var pages: [PageNumber: [Entry]] = [:]
    /// Logical page count after each indexed commit, ascending.
    private(set) var pageCounts: [(commit: CommitSequence, count: UInt32)] = []
    private(set) var frameCount = 0

    var isEmpty: Bool { pageCounts.isEmpty }
    var lastCommit: CommitSequence? { pageCounts.last?.commit }

    /// The version of `page` a snapshot at `snapshot` sees, if the WAL has one (X2).
    func lookup(_ page: PageNumber, atOrBefore snapshot: CommitSequence) -> Entry? {
        guard let list = pages[page] else { return nil }
        var i = list.count - 1
        while i >= 0 {
            if list[i].commit <= snapshot { return list[i] }
            i -= 1
        }
        return nil
    }

    mutating func add(commit: CommitSequence, frames: [WALFrameRecord], pageCount: UInt32) {
        for f in frames {
            let entry = Entry(
                commit: commit, offset: f.payloadOffset, length: f.payloadLength,
                imageCRC: f.imageCRC, isTombstone: f.kind == .tombstone)
            // Keeps X1: the last frame of a commit for a page is its version.
            if let last = pages[f.page]?.last, last.commit == commit {
                pages[f.page]![pages[f.page]!.count - 1] = entry
            } else {
                pages[f.page, default: []].append(entry)
            }
        }
        pageCounts.append((commit, pageCount))
        frameCount += frames.count + 1
    }

    /// The newest version of every page changed in (after, upTo], for a checkpoint.
    func latest(after: CommitSequence, upTo bound: CommitSequence) -> [(page: PageNumber, entry: Entry)] {
        var out: [(PageNumber, Entry)] = []
        for (page, list) in pages {
            if let e = list.last(where: { $0.commit <= bound }), e.commit > after { out.append((page, e)) }
        }
        return out.sorted { $0.0 < $1.0 }
    }

    /// The logical page count as of `commit`.
    func pageCount(atOrBefore commit: CommitSequence) -> UInt32? {
        pageCounts.last(where: { $0.commit <= commit })?.count
    }
}

// Splitting a tree into runs of adjacent subtrees, for a scan on several threads
// (Tree+Parallel.swift), and moving a cursor through one run.
//
// A subtree is named by its path: the child indexes taken from the root down to it (branch
// frames of a cursor hold the same indexes). All subtrees of one level, in path order, are in key
// order, and a run is the subtrees from one path up to (not including) the next run's first one.
// A run is walked by position, not by key: the cursor starts at the leftmost leaf below its first
// path and ends when its path reaches the next run's. So a piece visits exactly the entries, in the
// same order, and loads exactly the pages below its subtrees, that a whole-tree cursor visits and
// loads there, whatever the keys say (even a tree whose separators lie, T5).
//
// Invariants:
//  SU1. The runs of one split cover every subtree of their level exactly once, in order: run `j`
//       starts where run `j - 1` ends, the first starts at the leftmost subtree, the last has no end.
//  SU2. The level split is the shallowest whose node count reaches `wanted` (or the leaf level);
//       every node above it was read and was a branch, so the split holds only paths that exist
//       in this snapshot.
//  SU3. A tree with fewer than `minimumLeaves` leaves is not split (nil): a small scan stays on
//       one thread. The leaf count is exact when the split level is the leaf level, and at least
//       the level's node count otherwise (every subtree has a leaf, T6).

/// Adjacent subtrees of one level, from `start` up to `end` (SU1).
struct SubtreeRun: Sendable, Equatable {
    /// Child indexes from the root to the run's first subtree.
    let start: [Int]
    /// The path of the first subtree after the run; nil for the last run.
    let end: [Int]?
}

extension BTree {
    /// Splits the tree into at most `wanted` runs of about the same number of subtrees (SU1–SU3);
    /// nil when it has fewer than `minimumLeaves` leaves.
    ///
    /// - Throws: what reading a page throws; a branch level holding a leaf is corruption (T3).
    func subtreeRuns(wanted: Int, minimumLeaves: Int, in source: PageSource) throws -> [SubtreeRun]? {
        var level: [(path: [Int], page: PageNumber)] = [([], root)]
        for _ in 0..<BTreeLayout.maxDepth {
            let first = try BTreeNode(source.page(level[0].page), number: level[0].page)
            if first.isLeaf {
                guard level.count >= max(2, minimumLeaves) else { return nil }  // SU3: exact count
                break
            }
            if level.count >= max(2, wanted, minimumLeaves) { break }  // SU2, SU3: a lower bound
            var below: [(path: [Int], page: PageNumber)] = []
            for (i, (path, page)) in level.enumerated() {
                let node = i == 0 ? first : try BTreeNode(source.page(page), number: page)
                guard !node.isLeaf else {
                    throw btreeCorruption(page, "leaf among branches at depth \(path.count) of the tree at \(root)")
                }
                for child in 0...node.count { below.append((path + [child], try node.child(child))) }
            }
            level = below
        }
        guard level.count >= 2 else { return nil }
        let runs = min(level.count, max(1, wanted))
        return (0..<runs).map { j in
            SubtreeRun(
                start: level[j * level.count / runs].path,
                end: j + 1 < runs ? level[(j + 1) * level.count / runs].path : nil)
        }
    }
}

extension BTreeCursor {
    /// Moves to the first entry at or after the leftmost leaf below the subtree at `path`; false
    /// when there is none. The path's indexes are checked against each branch on the way.
    func first(under path: [Int]) throws -> Bool {
        try move {
            var page = tree.root
            for index in path {
                let node = try load(page)
                guard !node.isLeaf, index <= node.count else {
                    throw btreeCorruption(page, "a subtree path leads to child \(index) of page \(page)")
                }
                stack.append(Frame(node: node, index: index))
                page = try node.child(index)
            }
            try descendEdge(from: page, first: true)
            return try settle(forward: true)
        }
    }

    /// Whether the entry the cursor is on lies in a subtree before the one at `path`. In a tree
    /// that keeps T3 the cursor's branch frames reach below `path`; a leaf met higher up (a tree
    /// that breaks T3) counts as not before, so the run ends there instead of reading past a frame.
    func isBefore(_ path: [Int]) -> Bool {
        let branches = stack.count - 1
        for (depth, index) in path.enumerated() {
            guard depth < branches else { return false }
            let taken = stack[depth].index
            if taken != index { return taken < index }
        }
        return false
    }
}

// The structural checker for the verifier and the tests: walks a tree from its root and reports
// every violation of the invariants T2–T8 listed in BTree.swift, not just the first, as values.
// It never throws and never crashes on garbage: every page goes through the same validating
// accessors as the readers, and a page that cannot be parsed is reported and not descended into.

/// One violation found by `BTreeChecker`.
///
/// ```swift
/// for problem in BTreeChecker.check(tree, in: snapshot).problems { print(problem) }
/// ```
public struct BTreeProblem: Sendable, Hashable, CustomStringConvertible {
    /// The page where the violation was found.
    public var page: PageNumber
    /// The key involved, when one applies.
    public var key: [UInt8]?
    /// What failed.
    public var detail: String

    public var description: String {
        let keyText = key.map { " key " + $0.map { String($0, radix: 16) }.joined(separator: " ") } ?? ""
        return "page \(page)\(keyText): \(detail)"
    }
}

/// What a check found: problems, statistics, and every page reached with its type.
///
/// ```swift
/// let report = BTreeChecker.check(tree, in: snapshot)
/// assert(report.problems.isEmpty)
/// print(report.entryCount, report.depth, report.pages.count)
/// ```
public struct BTreeCheckReport: Sendable {
    /// Every violation found, in walk order.
    public var problems: [BTreeProblem] = []
    /// Entries in the leaves.
    public var entryCount = 0
    /// Levels from the root to the leaves (1 for a tree that is a single leaf).
    public var depth = 0
    /// Every page reached (branches, leaves, overflow pages) with its type, so that a caller can
    /// check that no page is shared by two trees and none leaked.
    public var pages: [PageNumber: PageType] = [:]

    /// Number of pages reached of each type.
    public var pagesByType: [PageType: Int] {
        pages.values.reduce(into: [:]) { $0[$1, default: 0] += 1 }
    }
}

/// Walks a tree and checks its structure (invariants T2–T8 of BTree.swift).
///
/// ```swift
/// let report = BTreeChecker.check(BTree(root: root), in: snapshot)
/// if !report.problems.isEmpty { throw VerifyError(report.problems) }
/// ```
public enum BTreeChecker {
    /// Checks the tree rooted at `tree.root`; never throws.
    ///
    /// ```swift
    /// #expect(BTreeChecker.check(tree, in: sink).problems.isEmpty)
    /// ```
    public static func check(_ tree: BTree, in source: PageSource) -> BTreeCheckReport {
        var walk = Walk(source: source, root: tree.root)
        walk.visit(tree.root, depth: 0, lower: nil, upper: nil)
        walk.report.depth = (walk.leafDepth ?? -1) + 1
        return walk.report
    }
}

private struct Walk {
    let source: PageSource
    let root: PageNumber
    var report = BTreeCheckReport()
    var leafDepth: Int?

    init(source: PageSource, root: PageNumber) {
        self.source = source
        self.root = root
    }

    mutating func problem(_ page: PageNumber, _ detail: String, key: [UInt8]? = nil) {
        report.problems.append(BTreeProblem(page: page, key: key, detail: detail))
    }

    mutating func problem(_ page: PageNumber, _ error: any Error, key: [UInt8]? = nil) {
        if case let .corruption(_, location, detail) = error as? StoreError {
            let where_ = if case let .page(at) = location { at } else { page }
            problem(where_, detail, key: key)
        } else {
            problem(page, "\(error)", key: key)
        }
    }

    /// Marks `page` reached (T2); false when it was reached before.
    mutating func claim(_ page: PageNumber, as type: PageType, from parent: PageNumber) -> Bool {
        if let earlier = report.pages[page] {
            problem(page, "reached twice (as \(earlier), now as \(type) from page \(parent)): a cycle or a shared page")
            return false
        }
        report.pages[page] = type
        return true
    }

    mutating func visit(_ page: PageNumber, depth: Int, lower: [UInt8]?, upper: [UInt8]?, parent: PageNumber = .none) {
        guard depth < BTreeLayout.maxDepth else {
            problem(page, "deeper than \(BTreeLayout.maxDepth) levels: a cycle?")
            return
        }
        let node: BTreeNode
        do {
            node = try BTreeNode(source.page(page), number: page)
        } catch {
            problem(page, error)
            return
        }
        guard claim(page, as: node.isLeaf ? .leaf : .branch, from: parent) else { return }
        checkSpace(node)
        let keys = checkKeys(node, lower: lower, upper: upper)
        if node.count == 0, !(node.isLeaf && page == root) {
            problem(page, "\(node.isLeaf ? "leaf" : "branch") has no cells (T6)")
        }
        if node.isLeaf {
            if let leafDepth, leafDepth != depth {
                problem(page, "leaf at depth \(depth), other leaves at depth \(leafDepth) (T3)")
            } else if leafDepth == nil {
                leafDepth = depth
            }
            report.entryCount += node.count
            checkValues(node, keys: keys)
            return
        }
        for index in 0...node.count {
            let child: PageNumber
            do { child = try node.child(index) } catch { problem(page, error); continue }
            // A separator that could not be read loosens the bound to the branch's own.
            let low = index == 0 ? lower : (keys[index - 1] ?? lower)
            let high = index == node.count ? upper : (keys[index] ?? upper)
            visit(child, depth: depth + 1, lower: low, upper: high, parent: page)
        }
    }

    /// T4 and T5: keys increase and lie within [lower, upper). Returns each key, nil if unreadable.
    mutating func checkKeys(_ node: BTreeNode, lower: [UInt8]?, upper: [UInt8]?) -> [[UInt8]?] {
        var keys: [[UInt8]?] = []
        var previous: [UInt8]?
        for index in 0..<node.count {
            do {
                let key = try node.key(index)
                if let previous, BTree.compareKeys(previous, key) >= 0 {
                    problem(node.number, "key of cell \(index) is not greater than the key before it (T4)", key: key)
                }
                if let lower, BTree.compareKeys(key, lower) < 0 {
                    problem(node.number, "key of cell \(index) is below its separator in the parent (T5)", key: key)
                }
                if let upper, BTree.compareKeys(key, upper) >= 0 {
                    problem(
                        node.number, "key of cell \(index) is not below the next separator in the parent (T5)", key: key
                    )
                }
                previous = key
                keys.append(key)
            } catch {
                problem(node.number, error)
                keys.append(nil)
            }
        }
        return keys
    }

    /// T8: cells inside the cell area, not overlapping, accounting for every byte with fragments.
    mutating func checkSpace(_ node: BTreeNode) {
        var extents: [(start: Int, end: Int)] = []
        for index in 0..<node.count {
            do {
                let start = try node.cellOffset(index)
                let size = node.isLeaf ? try node.leafCell(index).size : try node.branchCell(index).size
                extents.append((start, start + size))
            } catch {
                problem(node.number, error)
                return
            }
        }
        extents.sort { $0.start < $1.start }
        for (a, b) in zip(extents, extents.dropFirst()) where a.end > b.start {
            problem(node.number, "cells at \(a.start) and \(b.start) overlap (T8)")
            return
        }
        let cellBytes = extents.reduce(0) { $0 + $1.end - $1.start }
        if cellBytes + node.fragmented != node.pageSize - node.contentStart {
            problem(
                node.number,
                "cells (\(cellBytes) bytes) and fragments (\(node.fragmented)) do not fill the cell area of "
                    + "\(node.pageSize - node.contentStart) bytes (T8)"
            )
        }
    }

    /// T7: overflow references point at complete chains of the declared length, reached once.
    mutating func checkValues(_ node: BTreeNode, keys: [[UInt8]?]) {
        for index in 0..<node.count {
            let cell: LeafCell
            do { cell = try node.leafCell(index) } catch { continue }  // reported by checkSpace
            guard cell.isOverflow else { continue }
            let key = keys[index]
            if BTreeLayout.isInline(keyLength: cell.keyLength, valueLength: cell.valueLength, pageSize: node.pageSize) {
                problem(
                    node.number, "value of \(cell.valueLength) bytes is in an overflow chain but fits inline (T7)",
                    key: key)
            }
            let first = PageNumber(node.bytes.leU32(at: cell.valueStart))
            var previous = node.number
            do {
                try BTreeOverflow.walk(first: first, length: cell.valueLength, owner: node.number, in: source) {
                    page, _, _ in
                    guard claim(page, as: .overflow, from: previous) else {
                        throw btreeCorruption(page, "overflow chain runs into a page reached before")
                    }
                    previous = page
                }
            } catch {
                problem(node.number, error, key: key)
            }
        }
    }
}

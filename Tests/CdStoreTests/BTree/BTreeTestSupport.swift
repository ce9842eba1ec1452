// Helpers shared by the B-tree tests.

import Testing
@testable import CdStore

/// `value` as 4 big-endian bytes: integers sort as their keys do.
func intKey(_ value: Int) -> [UInt8] {
    [
        UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
        UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value),
    ]
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// A value of `count` bytes that differs for every `seed`.
func patternValue(_ seed: Int, count: Int) -> [UInt8] {
    var value = [UInt8](repeating: UInt8(truncatingIfNeeded: seed), count: count)
    for i in stride(from: 0, to: count, by: 97) { value[i] = UInt8(truncatingIfNeeded: seed >> 8 &+ i) }
    return value
}

/// Runs the checker and records every problem it finds.
@discardableResult
func expectClean(
    _ tree: BTree, _ source: PageSource, sourceLocation: SourceLocation = #_sourceLocation
) -> BTreeCheckReport {
    let report = BTreeChecker.check(tree, in: source)
    #expect(report.problems.isEmpty, "checker: \(report.problems.prefix(5))", sourceLocation: sourceLocation)
    return report
}

/// Every key of the tree in order, by cursor.
func allKeys(_ tree: BTree, _ source: PageSource) throws -> [[UInt8]] {
    let cursor = tree.cursor(in: source)
    var keys: [[UInt8]] = []
    var more = try cursor.first()
    while more {
        keys.append(cursor.key)
        more = try cursor.next()
    }
    return keys
}

/// Whether `error` is `StoreError.corruption` located at `page`.
func isCorruption(_ error: any Error, at page: PageNumber? = nil) -> Bool {
    guard case let .corruption(_, location, _) = error as? StoreError else { return false }
    guard let page else { return true }
    return location == .page(page)
}

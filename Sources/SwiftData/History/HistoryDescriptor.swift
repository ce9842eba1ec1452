// What to fetch from (or delete of) a container's history: a predicate over transactions, a
// sort and a limit, as SwiftData's `HistoryDescriptor` says it. How each part runs is
// HistoryQuery.swift's concern.

import Foundation

/// Which transactions of a container's history to fetch or delete.
///
/// ```swift
/// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
/// descriptor.predicate = #Predicate { $0.token > lastToken }
/// descriptor.fetchLimit = 100
/// let transactions = try context.fetchHistory(descriptor)
/// ```
public struct HistoryDescriptor<TransactionType: HistoryTransaction>: @unchecked Sendable {
    /// Which transactions match; nil: all of them.
    public var predicate: Predicate<TransactionType>?
    /// The order of the results; empty: the order of the history (oldest first).
    public var sortBy: [SortDescriptor<TransactionType>]
    /// At most this many transactions (after sorting); nil or 0: no limit.
    public var fetchLimit: Int?

    /// A descriptor of the transactions `predicate` matches.
    public init(predicate: Predicate<TransactionType>? = nil) {
        self.init(predicate: predicate, sortBy: [])
    }

    /// A descriptor of the transactions `predicate` matches, in `sortBy` order.
    public init(predicate: Predicate<TransactionType>? = nil, sortBy: [SortDescriptor<TransactionType>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}

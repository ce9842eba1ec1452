// One transaction of a container's history: one save of a context (one store commit that
// changed models), with its author, time, token and changes in the order the store recorded
// them. Made from the store's `CdHistoryTransaction` by HistoryTranslation.swift.
//
// Invariants:
//  TX1. `transactionIdentifier` and `id` are the store's transaction number, and `token` is
//       that transaction's token: transactions of one store order by any of them as the
//       history does.
//  TX2. `processIdentifier` and `bundleIdentifier` are those of the process that saved, when
//       this module saved it (HistoryProcess.swift); empty when another API wrote the commit.

import Foundation

/// A transaction of a store's history (SwiftData's `HistoryTransaction`).
public protocol HistoryTransaction: Hashable, Identifiable, Sendable {
    /// The type of `token`.
    associatedtype TokenType: Comparable, Hashable, Identifiable, Sendable
    /// The type of `transactionIdentifier`.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The author of the context that saved (`ModelContext.author`), if it had one.
    var author: String? { get }
    /// What the transaction changed, in the order the store recorded it.
    var changes: [HistoryChange] { get }
    /// The store the transaction belongs to: its file path, or `memory:UUID`.
    var storeIdentifier: String { get }
    /// When the transaction was saved.
    var timestamp: Date { get }
    /// The transaction's position in the history.
    var token: TokenType { get }
    /// The transaction's identity in the store's history.
    var transactionIdentifier: TransactionIdentifier { get }
}

/// A transaction of a container's history.
///
/// ```swift
/// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
/// descriptor.predicate = #Predicate { $0.token > lastToken && $0.author == "importer" }
/// for transaction in try context.fetchHistory(descriptor) {
///     print(transaction.timestamp, transaction.changes.count)
/// }
/// ```
public struct DefaultHistoryTransaction: HistoryTransaction {
    /// The store's transaction number.
    public typealias TransactionIdentifier = Int64
    /// The token type.
    public typealias TokenType = DefaultHistoryToken

    /// The store the transaction belongs to: its file path, or `memory:UUID`.
    public let storeIdentifier: String
    /// The bundle identifier of the app that saved (its process name where it has none), or
    /// empty when another API wrote the commit (TX2).
    public let bundleIdentifier: String
    /// The process identifier of the process that saved, or empty when another API wrote the
    /// commit (TX2).
    public let processIdentifier: String
    /// The store's transaction number (TX1).
    public let transactionIdentifier: Int64
    /// The transaction's position in the history, to keep and fetch after (TX1).
    public let token: DefaultHistoryToken
    /// The author of the context that saved (`ModelContext.author`), if it had one.
    public let author: String?
    /// What the transaction changed, in the order the store recorded it.
    public let changes: [HistoryChange]
    /// When the transaction was saved.
    public let timestamp: Date

    /// The store's transaction number (TX1).
    public var id: Int64 { transactionIdentifier }

    /// Two transactions are equal when they are the same transaction of the same history.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.token == rhs.token }

    public func hash(into hasher: inout Hasher) { hasher.combine(token) }
}

// How a `HistoryDescriptor` runs. The store reads history after a token and filters by author
// (`ObjectStore.history(after:author:)`); a transaction predicate is any `#Predicate` over
// `DefaultHistoryTransaction`. So the parts of the predicate the store can run narrow what it
// reads, and the whole predicate is then evaluated on each transaction read, in memory:
//
//   $0.token > t, $0.token >= t, t < $0.token, t <= $0.token   → read after t (or t's predecessor)
//   $0.author == "a"                                              → read that author's only
//   A && B                                                        → both narrowings
//   anything else (||, !, timestamps, …)                          → read every kept transaction
//
// Unlike a model fetch (whose predicate part the store cannot run is an error, never a scan),
// history is a log the store reads in order from a token, with no index on any other field: a
// read narrowed by token and author, then the predicate evaluated on what was read, accepts
// every predicate Foundation can evaluate, at the cost of reading the transactions after the
// bound.
//
// Invariants:
//  HQ1. Narrowing never leaves out a transaction the predicate matches: it is taken only from
//       conjuncts, and each narrowing is implied by its conjunct.
//  HQ2. The result is the transactions the predicate matches, in history order unless `sortBy`
//       says otherwise, then cut to `fetchLimit`.

internal import CdObjects
import Foundation

/// What the store can do of a transaction predicate (HQ1).
struct HistoryNarrowing {
    /// Read only the transactions after this token.
    var after: CdHistoryToken?
    /// Read only this author's transactions.
    var author: String?

    /// The narrowing of `predicate`: its token lower bounds and author equalities, taken from
    /// its top-level conjunction.
    init(_ predicate: Predicate<DefaultHistoryTransaction>?) {
        guard let predicate else { return }
        (predicate.expression as? any HistoryNarrowingNode)?.narrow(&self)
    }

    /// Keeps the later of two lower bounds of one history (any bound is implied by its
    /// conjunct, so the tightest one is).
    mutating func bound(after token: CdHistoryToken) {
        guard let current = after, current.storeID == token.storeID else {
            if after == nil { after = token }
            return
        }
        if token.number > current.number { after = token }
    }
}

/// A predicate node that can narrow a history read.
protocol HistoryNarrowingNode {
    /// Adds to `narrowing` what this node implies (HQ1).
    func narrow(_ narrowing: inout HistoryNarrowing)
}

/// `$0.token` of a transaction predicate.
private typealias TokenKeyPath = PredicateExpressions.KeyPath<
    PredicateExpressions.Variable<DefaultHistoryTransaction>, DefaultHistoryToken
>
/// `$0.author`.
private typealias AuthorKeyPath = PredicateExpressions.KeyPath<
    PredicateExpressions.Variable<DefaultHistoryTransaction>, String?
>

extension PredicateExpressions.Conjunction: HistoryNarrowingNode {
    func narrow(_ narrowing: inout HistoryNarrowing) {
        (lhs as? any HistoryNarrowingNode)?.narrow(&narrowing)
        (rhs as? any HistoryNarrowingNode)?.narrow(&narrowing)
    }
}

extension PredicateExpressions.Comparison: HistoryNarrowingNode {
    func narrow(_ narrowing: inout HistoryNarrowing) {
        let token: DefaultHistoryToken
        let inclusive: Bool
        if let path = lhs as? TokenKeyPath, path.keyPath == \DefaultHistoryTransaction.token,
            let value = rhs as? PredicateExpressions.Value<DefaultHistoryToken>
        {
            guard op == .greaterThan || op == .greaterThanOrEqual else { return }
            (token, inclusive) = (value.value, op == .greaterThanOrEqual)
        } else if let path = rhs as? TokenKeyPath, path.keyPath == \DefaultHistoryTransaction.token,
            let value = lhs as? PredicateExpressions.Value<DefaultHistoryToken>
        {
            guard op == .lessThan || op == .lessThanOrEqual else { return }
            (token, inclusive) = (value.value, op == .lessThanOrEqual)
        } else {
            return
        }
        let bound = token.storeToken
        if !inclusive {
            narrowing.bound(after: bound)
        } else if bound.number > 0 {
            narrowing.bound(after: CdHistoryToken(storeID: bound.storeID, number: bound.number - 1))
        }
    }
}

extension PredicateExpressions.Equal: HistoryNarrowingNode {
    func narrow(_ narrowing: inout HistoryNarrowing) {
        guard narrowing.author == nil else { return }
        if let path = lhs as? AuthorKeyPath, path.keyPath == \DefaultHistoryTransaction.author {
            narrowing.author = Self.author(rhs)
        } else if let path = rhs as? AuthorKeyPath, path.keyPath == \DefaultHistoryTransaction.author {
            narrowing.author = Self.author(lhs)
        }
    }

    /// The author a captured value names; nil for nil (the store cannot select "no author").
    private static func author(_ expression: Any) -> String? {
        if let value = expression as? PredicateExpressions.Value<String?> { return value.value }
        if let value = expression as? PredicateExpressions.Value<String> { return value.value }
        return nil
    }
}

extension ModelContainer {
    /// The transactions `descriptor` selects (keeps HQ2): `historyTokenExpired` for a token
    /// bound older than the kept history or of another history, `unsupportedPredicate` when
    /// Foundation cannot evaluate the predicate.
    func history(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
        try select(descriptor, from: readHistory(HistoryNarrowing(descriptor.predicate)))
    }

    /// The kept transactions `narrowing` lets through, oldest first.
    func readHistory(_ narrowing: HistoryNarrowing) throws -> [DefaultHistoryTransaction] {
        let stored: [CdHistoryTransaction]
        do { stored = try store.history(after: narrowing.after, author: narrowing.author) } catch let error as CdError {
            if case let .persistentHistoryTokenExpired(token, reason) = error {
                throw SwiftDataError(
                    .historyTokenExpired,
                    "the history after token \(token) cannot be read: \(reason); fetch the history from its start "
                        + "(a descriptor without a token bound) and read the models again")
            }
            throw SwiftDataError.store(error)
        }
        return try stored.map { try historyTransaction($0) }
    }

    /// The transactions of `transactions` (oldest first) that `descriptor` selects (HQ2).
    func select(
        _ descriptor: HistoryDescriptor<DefaultHistoryTransaction>, from transactions: [DefaultHistoryTransaction]
    ) throws -> [DefaultHistoryTransaction] {
        var result = transactions
        if let predicate = descriptor.predicate {
            result = try transactions.filter { transaction in
                do { return try predicate.evaluate(transaction) } catch {
                    throw SwiftDataError(
                        .unsupportedPredicate,
                        "the history predicate could not be evaluated on transaction "
                            + "\(transaction.transactionIdentifier): \(error)")
                }
            }
        }
        if !descriptor.sortBy.isEmpty { result.sort(using: descriptor.sortBy) }
        if let limit = descriptor.fetchLimit, limit > 0, result.count > limit {
            result.removeLast(result.count - limit)
        }
        return result
    }
}

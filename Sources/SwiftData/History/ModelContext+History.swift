// A context's history calls: `fetchHistory(_:)` and `deleteHistory(_:)` on its container's
// store, whose every save is recorded (ModelContainer opens stores with history tracked).
// Each save records the context's `author` and the saving process (ModelContext+Save.swift).
//
// Invariants:
//  HD1. `deleteHistory` deletes exactly the transactions the descriptor selects, or nothing:
//       the store deletes the oldest transactions up to a token and keeps its newest one (HS4
//       in CdObjects' HistoryLayout.swift), so a selection that is not a run of the oldest kept
//       transactions, or that includes the newest, is refused with
//       `invalidTransactionFetchRequest` before anything is deleted.

internal import CdObjects
import Foundation

extension ModelContext {
    /// The transactions of the container's history that `descriptor` selects, oldest first
    /// unless it sorts them. The predicate's token lower bounds and author equalities narrow
    /// what the store reads; the whole predicate is then evaluated on each transaction read.
    /// A token bound older than the kept history, or of another history, is
    /// `SwiftDataError.historyTokenExpired`.
    ///
    /// ```swift
    /// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
    /// descriptor.predicate = #Predicate { $0.token > lastToken }
    /// let transactions = try context.fetchHistory(descriptor)
    /// ```
    public func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        let transactions = try container.history(defaultDescriptor(descriptor, in: "fetchHistory"))
        return transactions.compactMap { $0 as? T }
    }

    /// Deletes the transactions `descriptor` selects, which must be the oldest kept ones, up to
    /// but not including the newest transaction (keeps HD1): the store deletes history before a
    /// token only. `#Predicate { $0.token < token }` with a token read from the history is such
    /// a descriptor; any other selection is `SwiftDataError.invalidTransactionFetchRequest`,
    /// and nothing is deleted.
    ///
    /// ```swift
    /// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
    /// descriptor.predicate = #Predicate { $0.token < processedToken }
    /// try context.deleteHistory(descriptor)
    /// ```
    public func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        let descriptor = try defaultDescriptor(descriptor, in: "deleteHistory")
        let kept = try container.readHistory(HistoryNarrowing(nil))
        let selected = try container.select(descriptor, from: kept).map(\.token).sorted()
        guard let last = selected.last else { return }
        guard selected == kept.prefix(selected.count).map(\.token) else {
            let gap = kept.first { !selected.contains($0.token) && $0.token < last }
            throw SwiftDataError(
                .invalidTransactionFetchRequest,
                "deleteHistory deletes the oldest transactions up to a token, but the descriptor selects transaction "
                    + "\(last.id) and not the older transaction \(gap?.transactionIdentifier ?? 0); select them with "
                    + "#Predicate { $0.token < token }")
        }
        guard selected.count < kept.count else {
            throw SwiftDataError(
                .invalidTransactionFetchRequest,
                "deleteHistory cannot delete the newest transaction (\(last.id)): the store keeps it, so that the "
                    + "numbers of later transactions follow it; select #Predicate { $0.token < newest.token }")
        }
        let before = CdHistoryToken(storeID: last.storeToken.storeID, number: last.storeToken.number + 1)
        do { try container.store.deleteHistory(before: before) } catch { throw SwiftDataError.store(error) }
    }

    /// `descriptor` as a descriptor of this module's transactions, or
    /// `invalidTransactionFetchRequest` for a transaction type of a custom store.
    private func defaultDescriptor<T: HistoryTransaction>(
        _ descriptor: HistoryDescriptor<T>, in call: String
    ) throws -> HistoryDescriptor<DefaultHistoryTransaction> {
        guard let descriptor = descriptor as? HistoryDescriptor<DefaultHistoryTransaction> else {
            throw SwiftDataError(
                .invalidTransactionFetchRequest,
                "\(call) reads DefaultHistoryTransaction; \(T.self) is a transaction type of a custom store, which "
                    + "this module does not support")
        }
        return descriptor
    }
}

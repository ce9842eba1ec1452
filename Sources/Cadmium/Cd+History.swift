// `Cd.history(after:)` and `Cd.deleteHistory(before:)`: the store's persistent history through
// the `Cd` API (docs/CADMIUM-API.md §History; the design is docs/ARCHITECTURE.md §History).

import CdObjects

extension Cd {
    /// The store's recorded transactions after `token` (every kept one for nil), oldest first:
    /// Core Data's `NSPersistentHistoryChangeRequest.fetchHistory(after:)`. Needs a store opened
    /// with `StoreOptions.history = .tracked`. With `author`, only that author's transactions;
    /// with `entity`, only changes of that entity (and its sub-entities). A token older than what
    /// the store keeps throws a ``CdError`` whose code is 134301 (persistentHistoryTokenExpired).
    ///
    /// ```swift
    /// let all = try Cd.history(after: nil)
    /// let newer = try Cd.history(after: all.last?.token, entity: "Employee")
    /// ```
    public static func history(
        after token: CdHistoryToken?, author: String? = nil, entity: String? = nil
    ) throws -> [CdHistoryTransaction] {
        try requireContainer("Cd.history(after:)").store.history(after: token, author: author, entity: entity)
    }

    /// ``history(after:author:entity:)`` with the changes of objects of class `T` only.
    ///
    /// ```swift
    /// let employees = try Cd.history(after: token, entity: Employee.self)
    /// ```
    public static func history<T: CdManagedObject>(
        after token: CdHistoryToken?, author: String? = nil, entity: T.Type
    ) throws -> [CdHistoryTransaction] {
        let container = try requireContainer("Cd.history(after:entity:)")
        guard let description = container.model.entity(for: entity) else {
            throw CdError.validation(
                ValidationFailure(
                    entity: "\(entity)", key: "entity", message: "\(entity) is not an entity of the model"))
        }
        return try container.store.history(after: token, author: author, entity: description.name)
    }

    /// Deletes the recorded transactions before `token` (Core Data's
    /// `deleteHistory(before:)`); the token's own transaction is kept.
    ///
    /// ```swift
    /// try Cd.deleteHistory(before: lastProcessed)
    /// ```
    public static func deleteHistory(before token: CdHistoryToken) throws {
        try requireContainer("Cd.deleteHistory(before:)").store.deleteHistory(before: token)
    }
}

// This module's history changes: an insert, an update and a delete of a model of class `Model`,
// made from the store's `CdHistoryChange` by HistoryTranslation.swift.
//
// Invariants:
//  DC1. `transactionIdentifier` is the store's transaction number; `changeIdentifier` is that
//       number times 2^32 plus the change's position in its transaction, so change identifiers
//       order as the history does and two changes of one store never share one (while
//       transaction numbers stay below 2^31 and a transaction holds below 2^32 changes).
//  DC2. Two changes are equal when they are the same change of the same model (identifiers),
//       and, for updates, name the same properties.

import Foundation

/// The identifiers of DC1.
enum HistoryChangeNumbering {
    /// The change identifier of change `index` of transaction `number` (DC1).
    static func changeIdentifier(transaction number: UInt64, index: Int) -> Int64 {
        Int64(truncatingIfNeeded: number &<< 32 | UInt64(truncatingIfNeeded: index) & 0xFFFF_FFFF)
    }
}

/// A model inserted by a transaction of a container's history.
///
/// ```swift
/// if case .insert(let insert as DefaultHistoryInsert<Trip>) = change {
///     let trip = context.model(for: insert.changedPersistentIdentifier) as? Trip
/// }
/// ```
public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert, Hashable {
    /// The store transaction number and the change's position in it (DC1).
    public typealias ChangeIdentifier = Int64
    /// The store transaction number.
    public typealias TransactionIdentifier = Int64
    /// This change's identity in the store's history (DC1).
    public let changeIdentifier: Int64
    /// The identifier of the model inserted.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The transaction this change belongs to.
    public let transactionIdentifier: Int64
}

/// A model updated by a transaction of a container's history.
///
/// ```swift
/// if case .update(let update as DefaultHistoryUpdate<Trip>) = change,
///    update.updatedAttributes.contains(where: { $0 == \Trip.name }) { refreshTitle() }
/// ```
public struct DefaultHistoryUpdate<Model: PersistentModel>: HistoryUpdate, Hashable {
    /// The store transaction number and the change's position in it (DC1).
    public typealias ChangeIdentifier = Int64
    /// The store transaction number.
    public typealias TransactionIdentifier = Int64
    /// This change's identity in the store's history (DC1).
    public let changeIdentifier: Int64
    /// The identifier of the model updated.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The transaction this change belongs to.
    public let transactionIdentifier: Int64
    /// The key paths of the persisted properties (attributes and relationships) whose values
    /// the transaction changed, in the order the class declares them, including relationships
    /// the store changed to keep an inverse or a delete rule.
    public let updatedAttributes: [any PartialKeyPath<Model> & Sendable]

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.changeIdentifier == rhs.changeIdentifier
            && lhs.changedPersistentIdentifier == rhs.changedPersistentIdentifier
            && lhs.transactionIdentifier == rhs.transactionIdentifier
            && lhs.updatedAttributes.map { $0 as AnyKeyPath } == rhs.updatedAttributes.map { $0 as AnyKeyPath }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(changeIdentifier)
        hasher.combine(changedPersistentIdentifier)
        hasher.combine(transactionIdentifier)
        for keyPath in updatedAttributes { hasher.combine(keyPath as AnyKeyPath) }
    }
}

/// A model deleted by a transaction of a container's history.
///
/// ```swift
/// if case .delete(let delete as DefaultHistoryDelete<Trip>) = change {
///     print(delete.tombstone[\.name] as? String ?? "no name kept")
/// }
/// ```
public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete, Hashable {
    /// The store transaction number and the change's position in it (DC1).
    public typealias ChangeIdentifier = Int64
    /// The store transaction number.
    public typealias TransactionIdentifier = Int64
    /// This change's identity in the store's history (DC1).
    public let changeIdentifier: Int64
    /// The identifier the deleted model had.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The transaction this change belongs to.
    public let transactionIdentifier: Int64
    /// The values the model held in its `@Attribute(.preserveValueOnDeletion)` attributes.
    public let tombstone: HistoryTombstone<Model>

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.changeIdentifier == rhs.changeIdentifier
            && lhs.changedPersistentIdentifier == rhs.changedPersistentIdentifier
            && lhs.transactionIdentifier == rhs.transactionIdentifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(changeIdentifier)
        hasher.combine(changedPersistentIdentifier)
        hasher.combine(transactionIdentifier)
    }
}

// One change of a history transaction, as SwiftData declares it: an enum of an insert, an
// update or a delete, each an existential of a protocol generic over the model class, so that
// an app matches the class it wants:
//
//   case .update(let update as DefaultHistoryUpdate<Trip>): print(update.updatedAttributes)
//
// The protocols are SwiftData's (for custom stores); this module's values are the
// `DefaultHistory…` structs of DefaultHistoryChanges.swift.

import Foundation

/// What a transaction did to one model (SwiftData's `HistoryChange`).
///
/// ```swift
/// for change in transaction.changes {
///     switch change {
///     case .insert(let insert as DefaultHistoryInsert<Trip>): print(insert.changedPersistentIdentifier)
///     case .update(let update as DefaultHistoryUpdate<Trip>): print(update.updatedAttributes)
///     case .delete(let delete as DefaultHistoryDelete<Trip>): print(delete.tombstone[\.name] as Any)
///     default: break
///     }
/// }
/// ```
public enum HistoryChange: Sendable {
    /// The model was inserted.
    case insert(any HistoryInsert)
    /// Persisted properties of the model changed.
    case update(any HistoryUpdate)
    /// The model was deleted (asked for, or by a delete rule).
    case delete(any HistoryDelete)

    /// The identifier of the model changed.
    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case let .insert(change): return change.changedPersistentIdentifier
        case let .update(change): return change.changedPersistentIdentifier
        case let .delete(change): return change.changedPersistentIdentifier
        }
    }
}

/// An insert in a transaction (SwiftData's `HistoryInsert`).
public protocol HistoryInsert<Model>: Sendable {
    /// The class of the model inserted.
    associatedtype Model: PersistentModel
    /// The type of `changeIdentifier`.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// The type of `transactionIdentifier`.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// This change's identity in the store's history.
    var changeIdentifier: ChangeIdentifier { get }
    /// The identifier of the model inserted.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The transaction this change belongs to.
    var transactionIdentifier: TransactionIdentifier { get }
}

/// An update in a transaction (SwiftData's `HistoryUpdate`).
public protocol HistoryUpdate<Model>: Sendable {
    /// The class of the model updated.
    associatedtype Model: PersistentModel
    /// The type of `changeIdentifier`.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// The type of `transactionIdentifier`.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// A key path of a property the update changed.
    typealias PropertyUpdate = PartialKeyPath<Model> & Sendable
    /// This change's identity in the store's history.
    var changeIdentifier: ChangeIdentifier { get }
    /// The identifier of the model updated.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The transaction this change belongs to.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The key paths of the persisted properties whose values changed.
    var updatedAttributes: [any PartialKeyPath<Model> & Sendable] { get }
}

/// A delete in a transaction (SwiftData's `HistoryDelete`).
public protocol HistoryDelete<Model>: Sendable {
    /// The class of the model deleted.
    associatedtype Model: PersistentModel
    /// The type of `changeIdentifier`.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// The type of `transactionIdentifier`.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// This change's identity in the store's history.
    var changeIdentifier: ChangeIdentifier { get }
    /// The identifier the deleted model had.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The transaction this change belongs to.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The values the model held in its `.preserveValueOnDeletion` attributes.
    var tombstone: HistoryTombstone<Model> { get }
}

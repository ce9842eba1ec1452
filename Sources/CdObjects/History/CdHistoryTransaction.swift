// The persistent history's values as a reader sees them: one transaction (one commit) and its
// changes. Decoded from the `cd.history` tree by HistoryCodec; nothing here is stored as is.

import Foundation

/// One recorded commit (Core Data's `NSPersistentHistoryTransaction`).
///
/// ```swift
/// for transaction in try store.history(after: token) {
///     print(transaction.author ?? "-", transaction.timestamp, transaction.changes.count)
/// }
/// ```
public struct CdHistoryTransaction: Sendable, Equatable {
    /// Where this transaction lies in the store's history.
    public let token: CdHistoryToken
    /// When the commit was written.
    public let timestamp: Date
    /// The author the committing transaction gave itself, if any.
    public let author: String?
    /// The name of the committing context, if it had one.
    public let contextName: String?
    /// What the commit changed, one change per object, in the order recorded.
    public let changes: [CdHistoryChange]

    /// A transaction; readers get them from the store.
    public init(
        token: CdHistoryToken, timestamp: Date, author: String?, contextName: String?, changes: [CdHistoryChange]
    ) {
        self.token = token
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
        self.changes = changes
    }
}

/// What a commit did to one object (Core Data's `NSPersistentHistoryChange`).
///
/// ```swift
/// if change.kind == .update, change.updatedProperties.contains("name") { refresh(change.objectID) }
/// if change.kind == .delete { print(change.tombstone?["name"] ?? .null) }
/// ```
public struct CdHistoryChange: Sendable, Equatable {
    /// The object changed.
    public let objectID: ObjectID
    /// Whether it was inserted, updated or deleted.
    public let kind: CdHistoryChangeKind
    /// For an update, the stored properties whose value changed (attributes, to-ones and
    /// to-manys, including those the store changed to keep inverses and delete rules); for an
    /// insert, the properties the new object holds a value in; empty for a delete.
    public let updatedProperties: Set<String>
    /// For a delete, the values the object held in the attributes marked
    /// `preservesValueInHistoryOnDeletion`, by name (nil values are left out); nil otherwise.
    public let tombstone: [String: CdValue]?

    /// A change; readers get them from the store.
    public init(
        objectID: ObjectID, kind: CdHistoryChangeKind, updatedProperties: Set<String>,
        tombstone: [String: CdValue]? = nil
    ) {
        self.objectID = objectID
        self.kind = kind
        self.updatedProperties = updatedProperties
        self.tombstone = tombstone
    }
}

/// The kind of a ``CdHistoryChange`` (Core Data's `NSPersistentHistoryChangeType`). Prints as
/// `insert`, `update` or `delete`. Raw values are stored (frozen).
public enum CdHistoryChangeKind: UInt8, Sendable, Hashable, CaseIterable {
    /// The commit inserted the object.
    case insert = 1
    /// The commit changed stored properties of the object.
    case update = 2
    /// The commit deleted the object (asked for, or by a cascade).
    case delete = 3
}

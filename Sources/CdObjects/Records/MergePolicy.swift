// How a commit resolves a conflict: an attribute of an object that another transaction changed
// after this one read it. Core Data's merge policies, by their names; the store detects a
// conflict by comparing, attribute by attribute, the value the transaction read with the value
// stored at commit time (no version number is stored: a value changed and changed back is no
// conflict, which is what the comparison of values in Core Data's merge does as well).
//
// Relationship links never conflict: to-many changes travel as links added and removed
// (`ToManyDelta`) and merge link by link; a to-one is set by the last commit.
//
// An object that another transaction deleted after this one read it: the delete wins. Its
// changes are dropped (and links to it are not made), except under `.error`, which reports it.

/// How a commit resolves attributes that another transaction changed since this one read them.
///
/// ```swift
/// var changes = ChangeSet()
/// changes.mergePolicy = .error      // fail with 133020 instead of merging
/// ```
public enum MergePolicy: String, Sendable, Hashable, CaseIterable {
    /// NSMergeByPropertyObjectTrumpMergePolicy (the default): per property, the committing
    /// transaction's value wins; properties it did not change keep the other transaction's values.
    case mergeByPropertyObjectTrump
    /// NSMergeByPropertyStoreTrumpMergePolicy: per property, the stored value wins where both
    /// changed it; the transaction's other changes apply.
    case mergeByPropertyStoreTrump
    /// NSOverwriteMergePolicy: an object in conflict is written whole as the transaction holds it
    /// (the values it read, with its changes), undoing the other transaction's attribute changes.
    case overwrite
    /// NSRollbackMergePolicy: an object in conflict keeps the stored values; the transaction's
    /// attribute changes to it are dropped (its link changes still apply, link by link).
    case rollback
    /// NSErrorMergePolicy: any conflict fails the commit with ``CdError/mergeConflict(_:)``
    /// (133020); nothing is written.
    case error
}

/// One object in conflict, as ``CdError/mergeConflict(_:)`` lists it.
public struct MergeConflict: Sendable, Hashable, CustomStringConvertible {
    /// One attribute that changed in the store after the transaction read it.
    public struct Property: Sendable, Hashable {
        /// The attribute's name.
        public var key: String
        /// The value the transaction read.
        public var read: CdValue
        /// The value stored when the transaction committed.
        public var stored: CdValue
        /// The value the transaction set, or nil when it did not change this attribute.
        public var committing: CdValue?

        public init(key: String, read: CdValue, stored: CdValue, committing: CdValue?) {
            self.key = key
            self.read = read
            self.stored = stored
            self.committing = committing
        }
    }

    /// The object.
    public var objectID: ObjectID
    /// Its attributes that changed in the store since the transaction read them; empty when the
    /// object was deleted, or when another transaction changed only its relationships or
    /// attributes this one did not read.
    public var properties: [Property]
    /// Whether another transaction deleted the object after this one read it.
    public var deleted: Bool

    public init(objectID: ObjectID, properties: [Property], deleted: Bool = false) {
        self.objectID = objectID
        self.properties = properties
        self.deleted = deleted
    }

    public var description: String {
        if deleted { return "\(objectID) was deleted by another transaction after this one read it" }
        if properties.isEmpty { return "\(objectID) was changed by another transaction after this one began" }
        let keys = properties.map { p in
            let mine = p.committing.map { ", this transaction sets \($0)" } ?? ""
            return "\(p.key): read \(p.read), stored \(p.stored)\(mine)"
        }
        return "\(objectID) (" + keys.joined(separator: "; ") + ")"
    }
}

/// The value of one property of an object, as a change set carries it and a record read returns it.
public enum PropertyValue: Hashable, Sendable {
    /// An attribute's value (`.null` for nil).
    case attribute(CdValue)
    /// A to-one relationship's target, or nil.
    case toOne(ObjectID?)
    /// A to-many relationship's targets. For an ordered relationship the order is kept; for an
    /// unordered one it is not significant.
    case toMany([ObjectID])
}

/// Everything one save changes, applied by `ObjectStore.apply(_:)` in one engine write
/// transaction: all of it, or — on any validation, uniqueness, delete-rule or I/O failure —
/// none of it.
///
/// Inverses are kept in step by the store: setting `employee.department` also adds the employee
/// to `department.employees`, so a change set may name one side only (or both, consistently).
public struct ChangeSet: Sendable, Equatable {
    /// New objects with their property values. Properties not given take the model's default
    /// (or nil); required ones without a value fail with code 1570.
    public var inserted: [ObjectID: [String: PropertyValue]] = [:]
    /// Existing objects with the properties that changed (only those).
    public var updated: [ObjectID: [String: PropertyValue]] = [:]
    /// Objects to delete; delete rules then cascade, nullify or deny.
    public var deleted: Set<ObjectID> = []
    /// Links added to and removed from to-many relationships of existing objects, applied to
    /// the lists as stored at commit time (links other transactions made meanwhile are kept).
    /// A `.toMany` value in `updated` instead sets the whole list.
    public var toManyDeltas: [ObjectID: [String: ToManyDelta]] = [:]
    /// Per updated object, the attribute values the transaction read before changing them; with
    /// them the store finds attributes that another transaction changed meanwhile (conflicts),
    /// which `mergePolicy` resolves. Objects not listed are never in conflict.
    public var read: [ObjectID: [String: CdValue]] = [:]
    /// How conflicts are resolved.
    public var mergePolicy: MergePolicy = .mergeByPropertyObjectTrump
    /// The `ObjectStore.recentChanges` stamp at which the transaction started (its `visible`);
    /// with `mergePolicy == .error`, an object changed by a commit after it is a conflict.
    package var startStamp: UInt64?
    /// Who made the change, recorded in the store's persistent history (Core Data's
    /// `transactionAuthor`); ignored when the store keeps no history.
    public var author: String?
    /// The name of the context that made the change, recorded in the persistent history.
    public var contextName: String?
    /// Entries a layer above writes into trees of its own in the same engine commit (SW1, SW2 in
    /// SideTreeWrites.swift).
    package var sideWrites: [SideTreeWrite] = []

    public init(
        inserted: [ObjectID: [String: PropertyValue]] = [:],
        updated: [ObjectID: [String: PropertyValue]] = [:],
        deleted: Set<ObjectID> = [],
        toManyDeltas: [ObjectID: [String: ToManyDelta]] = [:]
    ) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.toManyDeltas = toManyDeltas
    }

    public var isEmpty: Bool {
        sideWrites.isEmpty && inserted.isEmpty && updated.isEmpty && deleted.isEmpty
            && toManyDeltas.values.allSatisfy { $0.isEmpty }
    }
}

/// What a successful `apply` did, including what the store did on its own: objects deleted by
/// cascade and objects changed by nullify or by inverse maintenance. The context layer uses it to
/// refresh objects and send update events.
public struct AppliedChanges: Sendable, Equatable {
    public var inserted: Set<ObjectID> = []
    /// Objects whose stored values changed (given updates, plus inverse and nullify changes).
    public var updated: Set<ObjectID> = []
    /// Every object deleted, cascaded deletes included.
    public var deleted: Set<ObjectID> = []
    /// Objects the change set updated that another commit had deleted meanwhile: the delete won
    /// and their changes were dropped (CA6 of ChangeApplier.swift). Not in `deleted`: this
    /// commit deleted nothing of them.
    public var goneMeanwhile: Set<ObjectID> = []
    public init() {}
}

/// A change set in slot form: what the object layer hands to `ObjectStore.apply(slots:)`.
/// Values are indexed by the entity's `PropertySlots` (the record slots of EL1, then to-many,
/// then transient slots, which are ignored), so the store stages records from them without a
/// name lookup, and a managed object's value buffer can travel as it is, shared and not copied.
package struct SlotChangeSet: Sendable {
    /// One object's values by slot; nil: not given (an insert takes the default, an update
    /// leaves the property alone).
    package struct Entry: Sendable {
        package var id: ObjectID
        package var values: [PropertyValue?]
        /// To-many changes by slot (an existing object's; see `ChangeSet.toManyDeltas`).
        package var deltas: [Int: ToManyDelta]
        /// The values the transaction read, by slot, before it changed the object's attributes
        /// (see `ChangeSet.read`); nil: the object is never in conflict.
        package var read: [PropertyValue?]?
        package init(
            id: ObjectID, values: [PropertyValue?], deltas: [Int: ToManyDelta] = [:], read: [PropertyValue?]? = nil
        ) {
            self.id = id
            self.values = values
            self.deltas = deltas
            self.read = read
        }
    }

    /// New objects, in the order they were made.
    package var inserted: [Entry] = []
    /// Existing objects with their changed slots.
    package var updated: [Entry] = []
    /// Objects to delete.
    package var deleted: Set<ObjectID> = []
    /// How conflicts are resolved (`ChangeSet.mergePolicy`).
    package var mergePolicy: MergePolicy = .mergeByPropertyObjectTrump
    /// See `ChangeSet.startStamp`.
    package var startStamp: UInt64?
    /// See `ChangeSet.author`.
    package var author: String?
    /// See `ChangeSet.contextName`.
    package var contextName: String?

    package init() {}

    package var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

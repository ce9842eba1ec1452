// Why a store was not migrated to the model it was opened with although it could have been: the
// migration would step the store back to a version it has moved past, or would drop data the
// store holds, and nobody asked for that (`MigrationOptions.allowsDataLoss`).
//
// Invariants:
//  MR1. A migration runs without `allowsDataLoss` only when it is a declared forward step (the
//       plan's or the model file's versions say the store's version comes before the model's),
//       a step with a custom stage, or an inferred step that drops no stored value, object or
//       link (`LightweightMapping.droppedData`). Anything else is refused with this error before
//       a byte is written: the store is as it was (docs/MIGRATION.md, "Stepping back").
//  MR2. `dropped` lists what the refused step would have dropped, entity by entity, so that the
//       message says what is at stake; it may be empty only for `.storeIsNewer` and
//       `.wouldDropForeignState` (which names the trees instead).

/// A migration refused because it would step a newer store back or drop stored data that nothing
/// asked to drop (Core Data error 134100, NSPersistentStoreIncompatibleVersionHashError: the store
/// stays as it was and is not opened).
///
/// ```swift
/// do {
///     try Cd.initWithStore(model: model, storeURL: url)
/// } catch let MigrationError.refused(refusal) {
///     print(refusal)        // names the store, both version hashes and what would be dropped
///     // Only if losing it is really meant:
///     try Cd.initWithStore(model: model, storeURL: url, migration: .allowingDataLoss)
/// }
/// ```
public struct MigrationRefusal: Sendable, Hashable, CustomStringConvertible {
    /// Why the step is not one that may run unasked.
    public enum Reason: Sendable, Hashable {
        /// The model's versions (a model file's, or a plan's) put the store's version
        /// (`storeVersion`) after the one opened (`modelVersion`): the store was written by a
        /// newer build.
        case storeIsNewer(storeVersion: String, modelVersion: String)
        /// The store's version is not among the model's versions, and the inferred step from the
        /// model the store records to the model opened drops data the store holds: an older build
        /// meeting a store a newer one wrote looks exactly like this.
        case wouldDropData
        /// The step gives some objects new IDs (an entity renamed, a key taken in a new
        /// hierarchy), and the store holds engine trees of a layer above CdObjects that name
        /// objects by ID (`trees`, such as CadmiumSync's `sync.state`), which would be dropped
        /// (MG12 of StoreMigrator+ForeignTrees.swift).
        case wouldDropForeignState(trees: [String])
    }

    /// Stored data that a refused migration would have dropped.
    public struct DroppedData: Sendable, Hashable, CustomStringConvertible {
        /// The entity (in the store's model) whose objects hold the data.
        public var entity: String
        /// The attribute or relationship whose values would go; nil when the objects themselves
        /// would go (their entity is not in the model opened).
        public var key: String?
        /// How many objects hold a value (or, with `key == nil`, how many objects would go).
        public var objects: Int

        /// `objects` objects of `entity` holding `key` (nil: the objects themselves).
        public init(entity: String, key: String?, objects: Int) {
            self.entity = entity
            self.key = key
            self.objects = objects
        }

        /// `Note.priority (12 objects)`, or `Tag (3 objects, the entity)`.
        public var description: String {
            let count = objects == 1 ? "1 object" : "\(objects) objects"
            if let key { return "\(entity).\(key) (\(count) with a value)" }
            return "\(entity) (\(count); the model opened has no such entity)"
        }
    }

    /// The store file.
    public var path: String
    /// The version hash the store records.
    public var storeVersionHash: String
    /// The version hash of the model it was opened with.
    public var modelVersionHash: String
    /// Why the migration was refused.
    public var reason: Reason
    /// What it would have dropped (MR2).
    public var dropped: [DroppedData]

    /// A refusal for the store at `path`.
    public init(
        path: String, storeVersionHash: String, modelVersionHash: String, reason: Reason, dropped: [DroppedData]
    ) {
        self.path = path
        self.storeVersionHash = storeVersionHash
        self.modelVersionHash = modelVersionHash
        self.reason = reason
        self.dropped = dropped
    }

    /// Core Data's code: 134100 (NSPersistentStoreIncompatibleVersionHashError).
    public var code: Int { 134100 }

    /// The store, both hashes, why, what would be dropped, and how to ask for the migration.
    public var description: String {
        let why: String
        switch reason {
        case let .storeIsNewer(storeVersion, modelVersion):
            why =
                "it was written with version \(storeVersion), which comes after \(modelVersion), the version opened "
                + "(a newer build wrote it, and a newer store is never migrated back unasked)"
        case .wouldDropData:
            why =
                "its model is not among the versions of the model opened, and migrating to the model opened "
                + "would drop data (the store may have been written by a newer build)"
        case let .wouldDropForeignState(trees):
            why =
                "the migration gives some objects new IDs, and the store's \(trees.joined(separator: ", ")) "
                + "(state kept by a layer above the object store, such as sync, that names objects by ID) "
                + "would be dropped"
        }
        let loss =
            dropped.isEmpty
            ? "" : "; it would drop " + dropped.map(\.description).joined(separator: ", ")
        return
            "store \(path) (model version hash \(storeVersionHash)) was not migrated to the model opened "
            + "(version hash \(modelVersionHash)): \(why)\(loss). Nothing was changed. To migrate anyway, "
            + "open it with MigrationOptions(allowsDataLoss: true) (Core Data error \(code))"
    }
}

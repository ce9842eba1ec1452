// What a model context asks of any model's backing data, whatever its model class: the model's
// life in the context (`ModelState`), its values in store form for a save, the values a fetch or
// a refresh hands it, and the relationship edits that keep inverses in step. `ModelStorage` is the
// one implementation (its invariants MS1–MS10 are at the top of ModelStorage.swift); a context
// holds its models' storages as `any AnyModelStorage`, since their model classes differ.
//
// Invariant:
//  AS1. Every `ModelStorage` is a `ModelStorageBase` whose `anyStorage` is the storage itself,
//       set by its initializer before any use. A model met as `any PersistentModel` finds its
//       storage by a class cast to this non-generic class (one step up the class chain), not by
//       a cast to `ModelStorage<Model>`, which builds that generic class's metadata and the
//       existential `any BackingData<Model>`'s on every call.

internal import CdObjects

/// The life of a model in a context.
enum ModelState {
    /// Made by its initializer and not inserted.
    case new
    /// Inserted, not yet saved.
    case inserted
    /// Saved (or made from the store).
    case saved
    /// Deleted: pending until the next save, or saved.
    case deleted
}

/// What a context asks of any model's backing data.
protocol AnyModelStorage: AnyObject {
    var context: ModelContext? { get }
    var objectID: ObjectID? { get }
    var identifier: PersistentIdentifier? { get }
    var state: ModelState { get set }
    /// Whether the model was made with its class's property table (its values in slots); one
    /// made while the table could not be read (a named transformer not yet registered) keeps
    /// its values where no save reads them, so it is never inserted.
    var hasTable: Bool { get }
    var hasChanges: Bool { get }
    var isDeleted: Bool { get }
    /// The model these values belong to, while it is alive.
    var model: (any PersistentModel)? { get }
    /// The class's property table.
    func propertyTable() throws -> ModelPropertyTable
    /// Adds `other` to the relationship `name` (sets it, for a to-one), keeping MS2.
    func link(_ name: String, to other: any PersistentModel)
    /// Removes `other` from the relationship `name` (clears it, for a to-one).
    func unlink(_ name: String, from other: any PersistentModel)
    /// Makes `model` the model these values belong to.
    func bind(_ model: any PersistentModel)
    /// Takes an inserted model's values as an update of this saved one (an upsert): every
    /// attribute, and the relationships where the inserted model has related models.
    func absorb(_ other: any AnyModelStorage)
    /// The values set, by slot of the property table (for `absorb`).
    var setValues: [Any?] { get }
    /// Makes this inserted model the saved object `id` (an upsert onto an unregistered object):
    /// its values are then an update of every attribute and of the non-empty relationships.
    func becomeUpdate(of id: ObjectID)
    /// Registers the storage in `context` under `id`.
    func attach(to context: ModelContext, id: ObjectID, storeIdentifier: String, state: ModelState)
    /// Leaves the context (after a saved delete, or a rollback of an insert).
    func detach()
    /// The models the loaded relationship values hold (for inserting a graph).
    func loadedRelatedModels() -> [any PersistentModel]
    /// The store values of every property (`all`) or of the changed ones (MS3); a changed to-many
    /// of a saved model whose list was read travels as a delta instead (`storeDeltas`).
    func storeValues(all: Bool, isGone: (ObjectID) -> Bool) throws -> [String: PropertyValue]
    /// The links added to and removed from each changed to-many of a saved model since its list
    /// was read (MS5), by relationship name.
    func storeDeltas(isGone: (ObjectID) -> Bool) throws -> [String: ToManyDelta]
    /// `storeValues(all:isGone:)` in slot form: property i's value at `map[i]` of an array of
    /// `count` (the entity's stored properties, PS2 of CdObjects' PropertySlots), nil where none.
    func storeValues(all: Bool, isGone: (ObjectID) -> Bool, slots map: [Int?], count: Int) throws -> [PropertyValue?]
    /// `storeDeltas(isGone:)` by store slot (`map[i]` for property i).
    func storeDeltas(isGone: (ObjectID) -> Bool, slots map: [Int?]) throws -> [Int: ToManyDelta]
    /// Takes `record`'s attribute and to-one values (keeps MS4); `overwrite` replaces loaded ones.
    func fill(from record: [String: PropertyValue], overwrite: Bool)
    /// `fill(from:overwrite:)` with a record in slot form: property i's value is
    /// `record[map[i]]` (nil in `map` for a property the record does not hold).
    func fill(fromSlots record: [PropertyValue?], map: [Int?], overwrite: Bool)
    /// Forgets every loaded value; the next access reads the store. Only for unchanged models.
    func refault()
    /// Marks the save done: no property changed.
    func didSave()
    /// Makes sure each relationship's inverse holds this model (for a model set up in its
    /// initializer, where the accessors do not keep MS2).
    func linkInverses()
}

/// The non-generic class of every `ModelStorage` (AS1).
@usableFromInline
class ModelStorageBase {
    /// The storage itself, as a context holds it (AS1). Unowned and unchecked: it refers to the
    /// object that holds it, so it is valid whenever that object is reached.
    unowned(unsafe) private(set) var anyStorage: (any AnyModelStorage)?

    init() {}

    /// Sets `anyStorage` (AS1); called by the subclass's initializers.
    func bindAnyStorage(_ storage: any AnyModelStorage) {
        precondition(storage === self, "a storage names only itself")
        anyStorage = storage
    }
}

// The backing data of `@Model` classes: a model's persisted values by key path, and its place in a
// context. A new model holds every value its initializer set; a model a context made from the
// store starts as a fault and reads its record on first access (a fetch hands the record's values
// over at once); a to-many relationship is read from the store on first access.
//
// Invariants:
//  MS1. `values[k]`, when present, is a value of the property's exact Swift type (the type of
//       `k`'s value), so reading it back is a cast that cannot fail for a present value.
//  MS2. Setting a relationship keeps its inverse in step on the related models, in memory, at
//       once: a model added to a to-many has its to-one inverse set (and is removed from the list
//       it was in before); a model removed has it cleared.
//  MS3. `changed` holds the key paths set since the last save of a saved model; an inserted
//       model writes all its values, a new model (in no context) records nothing.
//  MS4. Values loaded from the store never overwrite a property changed and not yet saved.
//  MS5. `loadedLists[k]` is the to-many list `k` as last read from the store, until the next save
//       or refault: a save sends its difference from the current list as links added and
//       removed (`ToManyDelta`), never the list, so another context's links saved meanwhile stay.

internal import Cadmium
internal import CdObjects
import Foundation

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
    /// The values set, by key path (for `absorb`).
    var setValues: [AnyKeyPath: Any] { get }
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
    /// Takes `record`'s attribute and to-one values (keeps MS4); `overwrite` replaces loaded ones.
    func fill(from record: [String: PropertyValue], overwrite: Bool)
    /// Forgets every loaded value; the next access reads the store. Only for unchanged models.
    func refault()
    /// Marks the save done: no property changed.
    func didSave()
    /// Makes sure each relationship's inverse holds this model (for a model set up in its
    /// initializer, where the accessors do not keep MS2).
    func linkInverses()
}

/// The default backing data of `@Model` classes.
final class ModelStorage<Model: PersistentModel>: BackingData, AnyModelStorage {
    /// Loaded or set values, by key path (MS1).
    private(set) var values: [AnyKeyPath: Any] = [:]
    /// Whether the record's attributes and to-ones were read (always true for a new model).
    private var recordLoaded = true
    /// Key paths set since the last save (MS3).
    private var changed: Set<AnyKeyPath> = []
    /// The to-many lists as read from the store, by key path (MS5).
    private var loadedLists: [AnyKeyPath: [ObjectID]] = [:]
    private weak var owner: Model?
    private(set) weak var context: ModelContext?
    private(set) var objectID: ObjectID?
    private var storeIdentifier = ""
    var state: ModelState = .new

    init(for modelType: Model.Type) {}

    /// A fault for the object `id` of `context`, or a model with its record's values.
    init(faultFor id: ObjectID, in context: ModelContext, storeIdentifier: String, record: [String: PropertyValue]?) {
        self.objectID = id
        self.context = context
        self.storeIdentifier = storeIdentifier
        self.state = .saved
        self.recordLoaded = false
        if let record { fill(from: record, overwrite: true) }
    }

    var persistentModelID: PersistentIdentifier? { identifier }

    var identifier: PersistentIdentifier? {
        objectID.map { PersistentIdentifier(objectID: $0, storeIdentifier: storeIdentifier) }
    }

    var hasChanges: Bool { state == .inserted || state == .deleted || !changed.isEmpty }
    var isDeleted: Bool { state == .deleted }
    var model: (any PersistentModel)? { owner }

    func propertyTable() throws -> ModelPropertyTable { try ModelPropertyTable.of(Model.self) }

    /// A temporary identifier for a model in no context: unique while the model lives.
    static func unsavedIdentifier(_ model: Model) -> PersistentIdentifier {
        let address = Int64(bitPattern: UInt64(UInt(bitPattern: Unmanaged.passUnretained(model).toOpaque())))
        return PersistentIdentifier(
            objectID: ObjectID(entity: Schema.entityName(for: Model.self), primaryKey: address), storeIdentifier: "")
    }

    // MARK: - BackingData

    func getValue<Value>(forKey key: KeyPath<Model, Value>) -> Value {
        if let owner { return value(key, of: owner) }
        return (values[key] as? Value) ?? Self.empty(Value.self, key)
    }

    func setValue<Value>(forKey key: KeyPath<Model, Value>, to newValue: Value) {
        if let owner { set(key, to: newValue, of: owner) } else { values[key] = newValue }
    }

    // MARK: - Reading and writing

    /// The value of `key`, read from the store when not loaded.
    func value<Value>(_ key: KeyPath<Model, Value>, of model: Model) -> Value {
        if owner == nil { owner = model }
        if let context, context.needsCatchUp { context.catchUp() }
        if let value = values[key] as? Value { return value }  // MS1
        load(key)
        return (values[key] as? Value) ?? Self.empty(Value.self, key)
    }

    /// Sets `key`; a relationship keeps its inverse in step (MS2) and brings new related models
    /// into the context.
    func set<Value>(_ key: KeyPath<Model, Value>, to newValue: Value, of model: Model) {
        if owner == nil { owner = model }
        guard let table = try? propertyTable(), let index = table.property(key) else {
            values[key] = newValue
            return
        }
        let property = table.properties[index]
        if property.isRelationship {
            if values[key] == nil { load(key) }
            let old = values[key].map(Self.models(in:)) ?? []
            values[key] = newValue
            let new = Self.models(in: newValue)
            if let inverse = property.inverse {
                for gone in old where !new.contains(where: { $0 === gone }) {
                    gone.storage?.unlink(inverse, from: model)
                }
                for added in new where !old.contains(where: { $0 === added }) {
                    added.storage?.link(inverse, to: model)
                }
            }
            context?.didRelate(new)
        } else {
            values[key] = newValue
        }
        noteChanged(key)
    }

    private func noteChanged(_ key: AnyKeyPath) {
        guard state == .saved else { return }  // keeps MS3
        changed.insert(key)
        context?.noteChanged(self)
    }

    /// Reads what `key` needs from the store: the record, or a to-many list.
    private func load(_ key: AnyKeyPath) {
        guard let context, let objectID, state == .saved || state == .deleted else { return }
        if !recordLoaded {
            recordLoaded = true
            if let record = context.loadRecord(objectID) { fill(from: record, overwrite: false) }
        }
        guard values[key] == nil, let table = try? propertyTable(), let index = table.property(key) else { return }
        let property = table.properties[index]
        if case .toMany = property.kind, let ids = context.loadRelated(objectID, property.name) {
            values[key] = Self.relationshipValue(property, ids.compactMap { context.instance(for: $0, record: nil) })
            loadedLists[key] = ids  // keeps MS5
        }
    }

    // MARK: - Inverses (MS2)

    /// Adds `other` to the relationship `name` of this model (sets it, for a to-one).
    func link(_ name: String, to other: any PersistentModel) {
        guard let (key, property) = relationship(name) else { return }
        if values[key] == nil { load(key) }
        // A non-optional to-many grows by one element, its elements neither cast nor re-wrapped.
        if case .toMany(_, false) = property.kind, let list = values[key] as? any ModelArray {
            if list.holds(other) { return }
            if let longer = list.appending(other) {
                values[key] = longer  // keeps MS1: the same array type
                noteChanged(key)
                return
            }
        }
        var current = values[key].map(Self.models(in:)) ?? []
        if current.contains(where: { $0 === other }) { return }
        if case .toOne = property.kind {
            // The model leaves the list of its previous holder.
            if let owner, let inverse = property.inverse {
                current.forEach { $0.storage?.unlink(inverse, from: owner) }
            }
            current = [other]
        } else {
            current.append(other)
        }
        values[key] = Self.relationshipValue(property, current)
        noteChanged(key)
    }

    /// Removes `other` from the relationship `name` of this model (clears it, for a to-one).
    func unlink(_ name: String, from other: any PersistentModel) {
        guard let (key, property) = relationship(name) else { return }
        if values[key] == nil { load(key) }
        let current = values[key].map(Self.models(in:)) ?? []
        guard current.contains(where: { $0 === other }) else { return }
        if case .toOne(_, false) = property.kind { return }  // a required to-one stays until set again
        values[key] = Self.relationshipValue(property, current.filter { $0 !== other })
        noteChanged(key)
    }

    func linkInverses() {
        guard let owner, let table = try? propertyTable() else { return }
        for property in table.properties where property.isRelationship {
            guard let inverse = property.inverse, let value = values[property.keyPath] else { continue }
            for related in Self.models(in: value) { related.storage?.link(inverse, to: owner) }
        }
    }

    private func relationship(_ name: String) -> (AnyKeyPath, ModelPropertyTable.Property)? {
        guard let table = try? propertyTable(), let index = table.indexByName[name] else { return nil }
        let property = table.properties[index]
        return property.isRelationship ? (property.keyPath, property) : nil
    }

    // MARK: - The context's side

    func attach(to context: ModelContext, id: ObjectID, storeIdentifier: String, state: ModelState) {
        self.context = context
        self.objectID = id
        self.storeIdentifier = storeIdentifier
        self.state = state
    }

    func bind(_ model: any PersistentModel) {
        if let model = model as? Model { owner = model }
    }

    var setValues: [AnyKeyPath: Any] { values }

    func absorb(_ other: any AnyModelStorage) {
        guard let table = try? propertyTable() else { return }
        let given = other.setValues
        for property in table.properties {
            guard let value = given[property.keyPath] else { continue }
            if property.isRelationship, Self.models(in: value).isEmpty { continue }
            values[property.keyPath] = value
            if state == .saved { changed.insert(property.keyPath) }
        }
        if state == .saved { context?.noteChanged(self) }
    }

    func becomeUpdate(of id: ObjectID) {
        guard let table = try? propertyTable() else { return }
        objectID = id
        state = .saved
        recordLoaded = true
        for property in table.properties {
            guard let value = values[property.keyPath] else { continue }
            if property.isRelationship, Self.models(in: value).isEmpty { continue }
            changed.insert(property.keyPath)
        }
    }

    func detach() {
        context = nil
        changed = []
    }

    func loadedRelatedModels() -> [any PersistentModel] {
        guard let table = try? propertyTable() else { return [] }
        return table.properties.filter(\.isRelationship).flatMap { values[$0.keyPath].map(Self.models(in:)) ?? [] }
    }

    func storeValues(all: Bool, isGone: (ObjectID) -> Bool) throws -> [String: PropertyValue] {
        let table = try propertyTable()
        var result: [String: PropertyValue] = [:]
        for property in table.properties where all || changed.contains(property.keyPath) {
            guard let value = values[property.keyPath] else { continue }
            switch property.kind {
            case .attribute:
                do { result[property.name] = .attribute(try AttributeCoding.storeValue(value)) } catch let e
                    as SwiftDataError
                {
                    throw SwiftDataError(.unsupportedValue, "\(table.entityName).\(property.name): \(e.message)")
                }
            case .toOne:
                let id = Self.models(in: value).first.flatMap { Self.storedID(of: $0, isGone: isGone) }
                result[property.name] = .toOne(id)
            case .toMany:
                // A saved model's list that was read travels as a delta (MS5, `storeDeltas`).
                if !all, state == .saved, loadedLists[property.keyPath] != nil { continue }
                let ids = Self.models(in: value).compactMap { Self.storedID(of: $0, isGone: isGone) }
                result[property.name] = ChangeSetParts.toMany(ids)
            }
        }
        return result
    }

    func storeDeltas(isGone: (ObjectID) -> Bool) throws -> [String: ToManyDelta] {
        guard state == .saved else { return [:] }
        let table = try propertyTable()
        var result: [String: ToManyDelta] = [:]
        for property in table.properties where changed.contains(property.keyPath) {
            guard case .toMany = property.kind, let loaded = loadedLists[property.keyPath],
                let value = values[property.keyPath]
            else { continue }
            let ids = Self.models(in: value).compactMap { Self.storedID(of: $0, isGone: isGone) }
            if let delta = ChangeSetParts.toManyDelta(from: loaded, to: ids) { result[property.name] = delta }
        }
        return result
    }

    /// The object a related model stands for in a change set: nil for a model that is deleted
    /// (pending or saved) or in no context (an insert deleted before its save never reaches the
    /// store, so nothing may point at it).
    private static func storedID(of model: any PersistentModel, isGone: (ObjectID) -> Bool) -> ObjectID? {
        guard let storage = model.storage, storage.context != nil, storage.state != .deleted,
            let id = storage.objectID, !isGone(id)
        else { return nil }
        return id
    }

    func fill(from record: [String: PropertyValue], overwrite: Bool) {
        guard let table = try? propertyTable() else { return }
        for property in table.properties {
            let key = property.keyPath
            guard !changed.contains(key), overwrite || values[key] == nil else { continue }  // keeps MS4
            switch (property.kind, record[property.name]) {
            case let (.attribute, .attribute(stored)?):
                if let value = try? AttributeCoding.swiftValue(stored, as: property.valueType) { values[key] = value }
            case let (.toOne, .toOne(id)?):
                let target = id.flatMap { context?.instance(for: $0, record: nil) }
                values[key] = Self.relationshipValue(property, target.map { [$0] } ?? [])
            case (.toMany, _):
                if overwrite {  // read again on next access
                    values[key] = nil
                    loadedLists[key] = nil
                }
            default:
                break
            }
        }
        recordLoaded = true
    }

    func refault() {
        guard !hasChanges else { return }
        values = [:]
        loadedLists = [:]
        recordLoaded = false
    }

    func didSave() {
        // Keeps MS5: a list read before the save is read again, with other saves' links.
        for key in loadedLists.keys where changed.contains(key) { values[key] = nil }
        loadedLists = [:]
        changed = []
        if state == .inserted { state = .saved }
    }

    // MARK: - Relationship values

    /// The models a relationship value holds: a model, an optional one, or an array of them.
    static func models(in value: Any) -> [any PersistentModel] {
        if let model = value as? any PersistentModel { return [model] }
        if let many = value as? any ModelArray { return many.models }
        if let optional = value as? any OptionalValue { return optional.wrappedValue.map(models(in:)) ?? [] }
        return []
    }

    /// A value of `property`'s Swift type holding `models` (keeps MS1).
    static func relationshipValue(_ property: ModelPropertyTable.Property, _ models: [any PersistentModel]) -> Any? {
        switch property.kind {
        case .attribute:
            return nil
        case .toOne(_, false):
            return models.first
        case .toOne(_, true):
            let optional = property.valueType as? any OptionalValue.Type
            guard let first = models.first else { return optional?.none }
            return optional?.wrapping(first)
        case .toMany(_, false):
            return (property.valueType as? any ModelArray.Type)?.make(models)
        case .toMany(_, true):
            let optional = property.valueType as? any OptionalValue.Type
            guard let array = (optional?.wrappedType as? any ModelArray.Type)?.make(models) else {
                return optional?.none
            }
            return optional?.wrapping(array)
        }
    }

    /// The value read for a property that has none: nil, an empty list, or a scalar's empty
    /// value. A model whose record is gone (deleted by another context) reads so; a property
    /// with no such value is a program error, as in SwiftData.
    static func empty<Value>(_ type: Value.Type, _ key: AnyKeyPath) -> Value {
        if let optional = Value.self as? any OptionalValue.Type, let none = optional.none as? Value { return none }
        if let many = Value.self as? any ModelArray.Type, let empty = many.make([]) as? Value { return empty }
        if let scalar = Value.self as? any CdAttributeValue.Type, let empty = scalar.cdEmptyValue as? Value {
            return empty
        }
        preconditionFailure("\(key) of a \(Model.self) has no value: the model was deleted, or its store unreadable")
    }
}

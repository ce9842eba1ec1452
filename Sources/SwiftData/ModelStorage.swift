// The backing data of `@Model` classes: a model's persisted values, one slot per property of its
// class's property table, and its place in a context. A new model holds every value its
// initializer set; a model a context made from the store starts as a fault and reads its record
// on first access (a fetch hands the record's values over at once); a to-many relationship is
// read from the store on first access, a to-one's model is made on first access.
//
// Invariants:
//  MS1. `slots[i]`, when present, is a value of property i's exact Swift type (the type of its
//       key path's value), so reading it back is a cast that cannot fail for a present value;
//       `others` holds values of key paths the table does not list, by key path.
//  MS2. Setting a relationship keeps its inverse in step on the related models, in memory, at
//       once: a model added to a to-many has its to-one inverse set (and is removed from the list
//       it was in before); a model removed has it cleared.
//  MS3. `changed` holds the slots set since the last save of a saved model; an inserted
//       model writes all its values, a new model (in no context) records nothing.
//  MS4. Values loaded from the store never overwrite a property changed and not yet saved.
//  MS5. `loadedLists[i]` is the to-many list of slot i as last read from the store, until the next save
//       or refault: a save sends its difference from the current list as links added and
//       removed (`ToManyDelta`), never the list, so another context's links saved meanwhile stay.
//  MS6. A to-one read with the record is kept as its target's identifier (`unmadeToOnes`), its
//       slot empty, until the slot is first needed: reading a model does not make the models it
//       points at. A slot set or loaded has no entry there.
//  MS7. `members[i]`, when present, is exactly the set of identities of the models in slot i.
//  MS8. `checkedGeneration` is a generation of the container's change log that the context has
//       taken in (CL1 of ContainerChangeLog.swift); while the log is still at it, the context has
//       nothing to catch up, so a property read skips the context (and its weak load). Contexts
//       only move forward, so the generation stays taken in.
//  MS9. `ownerIdentity` is the identity `owner` had when set: a read by that model itself (alive,
//       since it is reading) finds its owner bound without a weak load.
//  MS10. A storage made for a model read from the store drops what `setValue(forKey:to:)` writes
//       into it until `bindOwner` binds it: the class's declared defaults, written by the init
//       accessors while `init(backingData:)` runs with this storage handed over (BH2 of
//       BackingDataHandOff.swift); the record or the store gives its values instead.
//  MS11. A relationship slot written while no model is bound (an initializer's init accessor,
//       before `set` can reach the owner) leaves its inverses out of step (MS2) until
//       `linkInverses` runs at insert; `inversesPending` says whether there is such a slot, so an
//       insert of a model whose relationships were all set through `set` links nothing again.

internal import Cadmium
internal import CdObjects
import Foundation

/// The default backing data of `@Model` classes.
/// Usable from inlinable code (`PersistentModel.getValue`/`setValue`, inlined into the module of
/// the model classes), so that a property access there finds this class without a lookup of its
/// generic metadata.
@usableFromInline
final class ModelStorage<Model: PersistentModel>: ModelStorageBase, BackingData, AnyModelStorage {
    /// The class's property table; nil when its metadata had no stored form when the model was
    /// made (then every value is in `others`, and the model cannot be inserted: `hasTable`).
    private let table: ModelPropertyTable?
    /// Loaded or set values, by property index (MS1).
    private var slots: [Any?]
    /// Values of key paths the table does not list (MS1).
    private var others: [AnyKeyPath: Any] = [:]
    /// Whether the record's attributes and to-ones were read (always true for a new model).
    private var recordLoaded = true
    /// Slots set since the last save (MS3).
    private var changed: Set<Int> = []
    /// The to-many lists as read from the store, by slot (MS5).
    private var loadedLists: [Int: [ObjectID]] = [:]
    /// The identities of the models of to-many slots, by slot, made on the first membership
    /// test of a slot and dropped whenever the slot is written otherwise than by `link` (MS7).
    private var members: [Int: Set<ObjectIdentifier>] = [:]
    /// To-ones read with the record whose models are not made yet, by slot (MS6).
    private var unmadeToOnes = UnmadeToOnes()
    /// Set only by `own(_:)`, which keeps MS9.
    private weak var owner: Model?
    /// The identity of `owner` when set (MS9).
    private var ownerIdentity: ObjectIdentifier?
    private(set) weak var context: ModelContext?
    /// The change log of the context's container, and a generation of it the context has taken in
    /// (MS8); nil out of a context.
    private var changeLog: ContainerChangeLog?
    private var checkedGeneration = 0
    private(set) var objectID: ObjectID?
    private var storeIdentifier = ""
    var state: ModelState = .new
    /// Whether initial values written before the owner is bound are dropped (MS10).
    private var dropsInitialValues = false
    /// Whether a relationship slot was written without its inverses kept in step (MS11).
    private var inversesPending = false

    @usableFromInline
    init(for modelType: Model.Type) {
        table = try? ModelPropertyTable.of(Model.self)
        slots = Array(repeating: nil, count: table?.properties.count ?? 0)
        super.init()
        bindAnyStorage(self)  // keeps AS1
    }

    /// A fault for the object `id` of `context`, or a model with its record's values.
    init(
        faultFor id: ObjectID, in context: ModelContext, storeIdentifier: String, table: ModelPropertyTable?,
        record: [String: PropertyValue]?
    ) {
        self.table = table
        slots = Array(repeating: nil, count: table?.properties.count ?? 0)
        self.objectID = id
        self.context = context
        self.changeLog = context.container.changeLog
        self.checkedGeneration = context.seenGeneration  // keeps MS8
        self.storeIdentifier = storeIdentifier
        self.state = .saved
        self.recordLoaded = false
        self.dropsInitialValues = true  // keeps MS10 until bindOwner
        super.init()
        bindAnyStorage(self)  // keeps AS1
        if let record { fill(from: record, overwrite: true) }
    }

    @usableFromInline
    var persistentModelID: PersistentIdentifier? { identifier }

    var identifier: PersistentIdentifier? {
        objectID.map { PersistentIdentifier(objectID: $0, storeIdentifier: storeIdentifier) }
    }

    var hasTable: Bool { table != nil }

    var hasChanges: Bool { state == .inserted || state == .deleted || !changed.isEmpty }
    var isDeleted: Bool { state == .deleted }
    var model: (any PersistentModel)? { owner }

    func propertyTable() throws -> ModelPropertyTable {
        if let table { return table }
        return try ModelPropertyTable.of(Model.self)  // throws what the metadata lacks
    }

    /// The slot of `key`, nil for a key path the table does not list.
    private func slot(_ key: AnyKeyPath) -> Int? { table?.slot(of: key) }

    /// The value of `key`, loaded or set (MS1).
    private func stored(_ key: AnyKeyPath) -> Any? {
        if let i = slot(key) { return slots[i] }
        return others[key]
    }

    /// A temporary identifier for a model in no context: unique while the model lives.
    static func unsavedIdentifier(_ model: Model) -> PersistentIdentifier {
        let address = Int64(bitPattern: UInt64(UInt(bitPattern: Unmanaged.passUnretained(model).toOpaque())))
        return PersistentIdentifier(
            objectID: ObjectID(entity: Schema.entityName(for: Model.self), primaryKey: address), storeIdentifier: "")
    }

    // MARK: - BackingData

    @usableFromInline
    func getValue<Value>(forKey key: KeyPath<Model, Value>) -> Value {
        if let owner { return value(key, of: owner) }
        if let value = stored(key) as? Value { return value }
        return Self.empty(Value.self, key)
    }

    @usableFromInline
    func setValue<Value>(forKey key: KeyPath<Model, Value>, to newValue: Value) {
        if dropsInitialValues { return }  // MS10
        if let owner {
            set(key, to: newValue, of: owner)
        } else if let i = slot(key) {
            slots[i] = newValue
            if !members.isEmpty { members[i] = nil }
            // Keeps MS11; an initializer's nil or empty default relates nothing.
            if let property = table?.properties[i], property.isRelationship, !property.models(in: newValue).isEmpty {
                inversesPending = true
            }
        } else {
            others[key] = newValue
        }
    }

    // MARK: - Reading and writing

    /// The value in the slot of `key`, read from the store when not loaded; nil when there is none
    /// or `key` is not in the table (then `value(_:of:)` answers). Not generic over the value, so
    /// that the cast to it is made where it is known (`PersistentModel.getValue`, inlined into the
    /// model's module), not with its metadata looked up on every read.
    @usableFromInline
    func slotValue(_ key: AnyKeyPath, of model: Model) -> Any? {
        if ownerIdentity != ObjectIdentifier(model), owner == nil { own(model) }  // MS9
        if let changeLog, changeLog.generation != checkedGeneration { catchUpContext() }  // MS8
        guard let i = slot(key) else { return nil }
        if let present = slots[i] { return present }
        load(i)
        return slots[i]
    }

    /// The value of `key`, read from the store when not loaded.
    @usableFromInline
    func value<Value>(_ key: KeyPath<Model, Value>, of model: Model) -> Value {
        if ownerIdentity != ObjectIdentifier(model), owner == nil { own(model) }  // MS9
        if let changeLog, changeLog.generation != checkedGeneration { catchUpContext() }  // MS8
        guard let i = slot(key) else { return (others[key] as? Value) ?? Self.empty(Value.self, key) }
        if let present = slots[i], let value = present as? Value { return value }  // MS1
        load(i)
        if let present = slots[i], let value = present as? Value { return value }
        return Self.empty(Value.self, key)
    }

    /// Lets the context take in its container's other saves, and notes the generation it reached
    /// (keeps MS8).
    private func catchUpContext() {
        guard let context else { return }
        if context.needsCatchUp { context.catchUp() }
        checkedGeneration = context.seenGeneration
    }

    /// Sets `key`; a relationship keeps its inverse in step (MS2) and brings new related models
    /// into the context.
    @usableFromInline
    func set<Value>(_ key: KeyPath<Model, Value>, to newValue: Value, of model: Model) {
        if owner == nil { own(model) }
        guard let table, let index = slot(key) else {
            others[key] = newValue
            return
        }
        let property = table.properties[index]
        if property.isRelationship {
            if slots[index] == nil { load(index) }
            _ = unmadeToOnes.remove(index)
            let old = slots[index].map(property.models(in:)) ?? []
            slots[index] = newValue
            members[index] = nil
            let new = property.models(in: newValue)
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
            slots[index] = newValue
        }
        noteChanged(index)
    }

    private func noteChanged(_ index: Int) {
        guard state == .saved else { return }  // keeps MS3
        changed.insert(index)
        context?.noteChanged(self)
    }

    /// Reads what slot `index` needs from the store: the record, or a to-many list.
    private func load(_ index: Int) {
        guard let context, let objectID, let table, state == .saved || state == .deleted else { return }
        if !recordLoaded {
            recordLoaded = true
            if let record = context.loadRecord(objectID) { fill(from: record, overwrite: false) }
        }
        guard slots[index] == nil else { return }
        let property = table.properties[index]
        if let target = unmadeToOnes.remove(index) {  // keeps MS6
            let model = target.flatMap { context.instance(for: $0, record: nil) }
            slots[index] = Self.relationshipValue(property, model.map { [$0] } ?? [])
            return
        }
        if case .toMany = property.kind, let ids = context.loadRelated(objectID, property.name) {
            slots[index] = Self.relationshipValue(property, ids.compactMap { context.instance(for: $0, record: nil) })
            members[index] = nil
            loadedLists[index] = ids  // keeps MS5
        }
    }

    // MARK: - Inverses (MS2)

    /// Adds `other` to the relationship `name` of this model (sets it, for a to-one); a new `other`
    /// joins this model's context at once (MC3), as it does when this model's own setter relates it.
    func link(_ name: String, to other: any PersistentModel) {
        guard linkInPlace(name, to: other), let context, state == .inserted || state == .saved else { return }
        context.didRelate([other])  // keeps MC3
    }

    /// `link(_:to:)` without the context: true when the relationship changed.
    private func linkInPlace(_ name: String, to other: any PersistentModel) -> Bool {
        guard let (key, property) = relationship(name) else { return false }
        if slots[key] == nil { load(key) }
        // A non-optional to-many grows by one element, its elements neither cast nor re-wrapped.
        if case .toMany(_, false) = property.kind, let listType = property.valueType as? any ModelArray.Type {
            if members[key] == nil { members[key] = (slots[key] as? any ModelArray)?.identities }
            let identity = ObjectIdentifier(other)
            if members[key]?.contains(identity) == true { return false }
            if members[key] != nil, listType.append(other, into: &slots[key]) {  // keeps MS1: the same array type
                // In place, through the dictionary: a copy of the set per link was quadratic in a
                // bulk insert, as the list's copy was (ModelArray.append).
                members[key]?.insert(identity)  // keeps MS7
                noteChanged(key)
                return true
            }
        }
        var current = slots[key].map(property.models(in:)) ?? []
        if current.contains(where: { $0 === other }) { return false }
        if case .toOne = property.kind {
            // The model leaves the list of its previous holder.
            if let owner, let inverse = property.inverse {
                current.forEach { $0.storage?.unlink(inverse, from: owner) }
            }
            current = [other]
        } else {
            current.append(other)
        }
        slots[key] = Self.relationshipValue(property, current)
        members[key] = nil
        noteChanged(key)
        return true
    }

    /// Removes `other` from the relationship `name` of this model (clears it, for a to-one).
    func unlink(_ name: String, from other: any PersistentModel) {
        guard let (key, property) = relationship(name) else { return }
        if slots[key] == nil { load(key) }
        let current = slots[key].map(property.models(in:)) ?? []
        guard current.contains(where: { $0 === other }) else { return }
        if case .toOne(_, false) = property.kind { return }  // a required to-one stays until set again
        slots[key] = Self.relationshipValue(property, current.filter { $0 !== other })
        members[key] = nil
        noteChanged(key)
    }

    func linkInverses() {
        guard inversesPending, let owner, let table else { return }  // MS11
        inversesPending = false
        for (i, property) in table.properties.enumerated() where property.isRelationship {
            guard let inverse = property.inverse, let value = slots[i] else { continue }
            for related in property.models(in: value) { related.storage?.link(inverse, to: owner) }
        }
    }

    /// The slot and property of the relationship `name`.
    private func relationship(_ name: String) -> (Int, ModelPropertyTable.Property)? {
        guard let table, let index = table.indexByName[name] else { return nil }
        let property = table.properties[index]
        return property.isRelationship ? (index, property) : nil
    }

    // MARK: - The context's side

    func attach(to context: ModelContext, id: ObjectID, storeIdentifier: String, state: ModelState) {
        self.context = context
        self.changeLog = context.container.changeLog
        self.checkedGeneration = context.seenGeneration  // keeps MS8
        self.objectID = id
        self.storeIdentifier = storeIdentifier
        self.state = state
    }

    func bind(_ model: any PersistentModel) {
        if let model = model as? Model { own(model) }
    }

    /// Makes `model` the owner, and notes its identity (keeps MS9) without reading the weak
    /// reference back.
    private func own(_ model: Model) {
        owner = model
        ownerIdentity = ObjectIdentifier(model)
    }

    /// `bind(_:)` for a model of the class itself, without the cast.
    func bindOwner(_ model: Model) {
        own(model)
        dropsInitialValues = false  // keeps MS10
    }

    var setValues: [Any?] { slots }

    func absorb(_ other: any AnyModelStorage) {
        guard let table else { return }
        let given = other.setValues
        for (i, property) in table.properties.enumerated() {
            guard i < given.count, let value = given[i] else { continue }
            if property.isRelationship, property.models(in: value).isEmpty { continue }
            slots[i] = value
            members[i] = nil
            if state == .saved { changed.insert(i) }
        }
        if state == .saved { context?.noteChanged(self) }
    }

    func becomeUpdate(of id: ObjectID) {
        guard let table else { return }
        objectID = id
        state = .saved
        recordLoaded = true
        for (i, property) in table.properties.enumerated() {
            guard let value = slots[i] else { continue }
            if property.isRelationship, property.models(in: value).isEmpty { continue }
            changed.insert(i)
        }
    }

    func detach() {
        context = nil
        changeLog = nil
        changed = []
        // Keeps MS11: a rollback refaults the models this one was linked to, so an insert again
        // links its relationships again (linking is idempotent).
        inversesPending = true
    }

    func loadedRelatedModels() -> [any PersistentModel] {
        guard let table else { return [] }
        var models: [any PersistentModel] = []
        for i in table.relationshipSlots { if let value = slots[i] { models += table.properties[i].models(in: value) } }
        return models
    }

    func storeValues(all: Bool, isGone: (ObjectID) -> Bool) throws -> [String: PropertyValue] {
        let table = try propertyTable()
        var result: [String: PropertyValue] = [:]
        try forEachStoreValue(all: all, isGone: isGone) { i, value in result[table.properties[i].name] = value }
        return result
    }

    func storeValues(
        all: Bool, isGone: (ObjectID) -> Bool, slots map: [Int?], count: Int
    ) throws -> [PropertyValue?] {
        var result = [PropertyValue?](repeating: nil, count: count)
        try forEachStoreValue(all: all, isGone: isGone) { i, value in
            if i < map.count, let slot = map[i], slot < count { result[slot] = value }
        }
        return result
    }

    /// Calls `put` with the index and store value of each property to write: every one (`all`) or
    /// the changed ones (MS3), to-manys as `storeValues(all:isGone:)` documents.
    private func forEachStoreValue(
        all: Bool, isGone: (ObjectID) -> Bool, _ put: (Int, PropertyValue) -> Void
    ) throws {
        let table = try propertyTable()
        for (i, property) in table.properties.enumerated() where all || changed.contains(i) {
            guard i < slots.count, let value = slots[i] else { continue }
            switch property.kind {
            case .attribute:
                do { put(i, .attribute(try property.coding.store(value))) } catch let e as SwiftDataError {
                    throw SwiftDataError(.unsupportedValue, "\(table.entityName).\(property.name): \(e.message)")
                }
            case .toOne:
                put(i, .toOne(property.models(in: value).first.flatMap { Self.storedID(of: $0, isGone: isGone) }))
            case .toMany:
                // A saved model's list that was read travels as a delta (MS5, `storeDeltas`).
                if !all, state == .saved, loadedLists[i] != nil { continue }
                // A new model's list whose inverse is a to-one is written by its members: each
                // names this model in its own to-one (MS2), which the change set carries.
                if state == .inserted, property.inverseIsToOne { continue }
                let ids = property.models(in: value).compactMap { Self.storedID(of: $0, isGone: isGone) }
                put(i, ChangeSetParts.toMany(ids))
            }
        }
    }

    func storeDeltas(isGone: (ObjectID) -> Bool) throws -> [String: ToManyDelta] {
        let table = try propertyTable()
        var result: [String: ToManyDelta] = [:]
        try forEachStoreDelta(isGone: isGone) { i, delta in result[table.properties[i].name] = delta }
        return result
    }

    func storeDeltas(isGone: (ObjectID) -> Bool, slots map: [Int?]) throws -> [Int: ToManyDelta] {
        var result: [Int: ToManyDelta] = [:]
        try forEachStoreDelta(isGone: isGone) { i, delta in
            if i < map.count, let slot = map[i] { result[slot] = delta }
        }
        return result
    }

    /// Calls `put` with the index and delta of each changed to-many of a saved model whose list
    /// was read (MS5).
    private func forEachStoreDelta(isGone: (ObjectID) -> Bool, _ put: (Int, ToManyDelta) -> Void) throws {
        guard state == .saved else { return }
        let table = try propertyTable()
        for (i, property) in table.properties.enumerated() where changed.contains(i) {
            guard case .toMany = property.kind, let loaded = loadedLists[i], let value = slots[i] else { continue }
            let ids = property.models(in: value).compactMap { Self.storedID(of: $0, isGone: isGone) }
            if let delta = ChangeSetParts.toManyDelta(from: loaded, to: ids) { put(i, delta) }
        }
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
        guard let table else { return }
        fill(overwrite: overwrite) { i in record[table.properties[i].name] }
    }

    func fill(fromSlots record: [PropertyValue?], map: [Int?], overwrite: Bool) {
        fill(overwrite: overwrite) { i in
            guard i < map.count, let slot = map[i], slot < record.count else { return nil }
            return record[slot]
        }
    }

    /// Takes the value `stored` gives for each property (keeps MS4). The properties are read in
    /// place, field by field, not copied.
    private func fill(overwrite: Bool, _ stored: (Int) -> PropertyValue?) {
        guard let table else { return }
        // The slots are filled in a local array, moved out and back: one access to the stored
        // property instead of one per slot.
        var slots = self.slots
        self.slots = []
        defer { self.slots = slots }
        for (i, property) in table.properties.enumerated() {
            guard overwrite || slots[i] == nil, changed.isEmpty || !changed.contains(i) else { continue }  // MS4
            switch (property.kind, stored(i)) {
            case let (.attribute, .attribute(stored)?):
                if let value = property.coding.swift(stored) { slots[i] = value }
            case let (.toOne, .toOne(id)?):
                // Keeps MS6: made on first use, a registered model included.
                slots[i] = nil
                unmadeToOnes.set(i, id)
            case (.toMany, _):
                if overwrite {  // read again on next access
                    slots[i] = nil
                    if !members.isEmpty { members[i] = nil }
                    if !loadedLists.isEmpty { loadedLists[i] = nil }
                }
            default:
                break
            }
        }
        recordLoaded = true
    }

    func refault() {
        guard !hasChanges else { return }
        for i in slots.indices { slots[i] = nil }
        members = [:]
        others = [:]
        loadedLists = [:]
        unmadeToOnes.removeAll()
        recordLoaded = false
    }

    func didSave() {
        // Keeps MS5: a list read before the save is read again, with other saves' links.
        for i in loadedLists.keys where changed.contains(i) {
            slots[i] = nil
            members[i] = nil
        }
        loadedLists = [:]
        changed = []
        if state == .inserted { state = .saved }
    }

    // MARK: - Relationship values

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

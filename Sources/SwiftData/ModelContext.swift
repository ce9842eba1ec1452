// A context: a long-lived editing session on a container's store. It registers one instance per
// persisted object, keeps inserts, changes and deletes pending until `save()` applies them to
// the store in one write, and answers fetches with those pending changes included.
//
// Confinement: a context is not Sendable; it is used on the thread or actor that made it (a
// `ModelActor`'s context on the actor's executor, `mainContext` on the main actor).
//
// Invariants:
//  MC1. One instance per object: `registry[id]` is the only live model for `id` in this context,
//       and every model a fetch, a relationship or `model(for:)` returns comes from it.
//  MC2. A pending model is held strongly (`inserted`, `changed`, `deleted`) until the save or
//       rollback that ends it; registered clean models are held weakly.
//  MC3. Inserting a model inserts every new model its relationships reach, and a new model
//       related to a model of the context later joins it at once, from either side: through the
//       setter of the model in the context (`ModelStorage.set`) or through the inverse the new
//       model's own setter keeps (`ModelStorage.link`). So nothing new is reachable from the
//       context's models that it does not hold, and a save has no graph to walk.
//  MC5. The main context takes in every other save of its container (other contexts, the `Cd`
//       API and other processes on the file) soon after it is recorded, on the main actor, and
//       tells the observers of each clean model it refreshed or found deleted: each persisted
//       property of such a model sends its observation events once the new values are in
//       (`withObservationTracking` fires). Other contexts take saves in on their next fetch or
//       read, without events. A context's own save sends none.
//  MC4. The registry's dead entries are dropped whenever it reaches twice the entries that were
//       alive at the last sweep (and at least 4,096): a context that makes many models over its
//       life (a loop of fetches whose results it lets go) keeps entries for those still alive, not
//       one for every model it ever made, at a cost per registration that does not grow. A dead
//       entry answers as no entry does (`registry` gives nil), so dropping it changes no answer.

internal import CdObjects
import Foundation

/// A weak reference to a registered model, kept as the model existential, so that reading it
/// back needs no conformance look-up.
struct WeakModel {
    weak var model: (any PersistentModel)?
}

/// An editing context on a `ModelContainer`.
///
/// ```swift
/// let context = ModelContext(container)
/// context.insert(Trip(name: "Lisbon"))
/// try context.save()
/// ```
public final class ModelContext {
    /// The container whose store this context edits.
    public let container: ModelContainer
    /// Whether changes are saved on their own, soon after they are made (on by default for the
    /// container's `mainContext`, where the save runs on the main actor).
    public var autosaveEnabled = false
    /// The author recorded with this context's saves in the container's history
    /// (`DefaultHistoryTransaction.author`); nil by default.
    ///
    /// ```swift
    /// let importer = ModelContext(container)
    /// importer.author = "importer"
    /// ```
    public var author: String?
    /// Posted before a save writes, with the context as the object.
    public static let willSave = Notification.Name("SwiftData.ModelContext.willSave")
    /// Posted after a save wrote, with the context as the object.
    public static let didSave = Notification.Name("SwiftData.ModelContext.didSave")

    var isMainContext = false
    private var registered: [ObjectID: WeakModel] = [:]  // MC1
    /// The registry's size at which its dead entries are next dropped (MC4).
    private var registrySweepSize = smallestRegistrySweep
    private static let smallestRegistrySweep = 4096
    /// Pending inserts in insertion order (MC2).
    var insertOrder: [ObjectID] = []
    var inserted: [ObjectID: any PersistentModel] = [:]
    var changed: [ObjectID: any PersistentModel] = [:]
    var deleted: [ObjectID: any PersistentModel] = [:]
    /// An error met where none could be thrown (reading a fault, an insert that found no key);
    /// the next save throws it.
    var deferredError: (any Error)?
    private var autosaveScheduled = false
    /// The change log generation this context has taken in (CL1).
    private(set) var seenGeneration = 0

    /// A new context on `container`.
    public init(_ container: ModelContainer) {
        self.container = container
        self.seenGeneration = container.changeLog.generation
    }

    // MARK: - Pending changes

    /// Whether anything is pending.
    public var hasChanges: Bool { !inserted.isEmpty || !changed.isEmpty || !deleted.isEmpty }

    /// The models inserted since the last save.
    public var insertedModelsArray: [any PersistentModel] { insertOrder.compactMap { inserted[$0] } }
    /// The saved models changed since the last save.
    public var changedModelsArray: [any PersistentModel] { changed.keys.sorted().compactMap { changed[$0] } }
    /// The models deleted since the last save.
    public var deletedModelsArray: [any PersistentModel] { deleted.keys.sorted().compactMap { deleted[$0] } }

    /// Changes are recorded as they are made; there is nothing to process.
    public func processPendingChanges() {}

    /// Inserts `model` and every new model related to it (MC3); they are saved by the next save.
    public func insert<T: PersistentModel>(_ model: T) { insertAny(model) }

    func insertAny(_ model: any PersistentModel) {
        guard let storage = model.storage else {
            deferredError = SwiftDataError(
                .unsupportedValue, "a \(type(of: model)) with backing data of its own cannot be inserted")
            return
        }
        insert(model, storage: storage)
    }

    /// `insertAny(_:)` with the model's backing data found.
    private func insert(_ model: any PersistentModel, storage: any AnyModelStorage) {
        if let context = storage.context, context !== self {
            deferredError = SwiftDataError(
                .missingModelContext, "a \(type(of: model)) registered in another context was inserted into this one")
            return
        }
        if storage.context === self {
            if storage.state == .deleted, let id = storage.objectID {  // an insert undoes a pending delete
                deleted[id] = nil
                storage.state = .saved
            }
            return
        }
        guard storage.hasTable else {
            deferredError = SwiftDataError(
                .unknownSchema,
                "a \(type(of: model)) made before its class's schema could be read (a transformer name registered "
                    + "after the model was made?) cannot be inserted: its values are not where a save reads them")
            return
        }
        // A class of the schema names an entity of the store's model, built from that schema.
        let schemaTable = container.tablesByType[ObjectIdentifier(type(of: model))]
        let entity = schemaTable?.entityName ?? Schema.entityName(for: type(of: model))
        guard schemaTable != nil || container.store.model.entity(named: entity) != nil else {
            deferredError = SwiftDataError(.unknownSchema, "\(entity) is not in the container's schema")
            return
        }
        let id: ObjectID
        do { id = try container.store.newObjectIDs(entity: entity, count: 1)[0] } catch {
            deferredError = SwiftDataError.store(error)
            return
        }
        storage.bind(model)
        storage.attach(to: self, id: id, storeIdentifier: container.storeIdentifier, state: .inserted)
        register(model, as: id)
        inserted[id] = model
        insertOrder.append(id)
        storage.linkInverses()
        didRelate(storage.loadedRelatedModels())  // keeps MC3
        scheduleAutosave()
    }

    /// Inserts the models of `models` that are in no context yet (MC3).
    func didRelate(_ models: [any PersistentModel]) {
        for model in models {
            guard let storage = model.storage, storage.context == nil, storage.state == .new else { continue }
            insert(model, storage: storage)
        }
    }

    /// Records a change of a saved model.
    func noteChanged(_ storage: any AnyModelStorage) {
        guard let id = storage.objectID, let model = storage.model, deleted[id] == nil else { return }
        changed[id] = model
        scheduleAutosave()
    }

    /// Deletes `model` at the next save; its delete rules then apply. An inserted, unsaved model
    /// is simply no longer inserted.
    public func delete<T: PersistentModel>(_ model: T) { deleteAny(model) }

    func deleteAny(_ model: any PersistentModel) {
        guard let storage = model.storage, storage.context === self, let id = storage.objectID else { return }
        switch storage.state {
        case .inserted:
            inserted[id] = nil
            insertOrder.removeAll { $0 == id }
            registered[id] = nil
            storage.state = .deleted
            storage.detach()
        case .saved:
            storage.state = .deleted
            changed[id] = nil
            deleted[id] = model
        case .new, .deleted:
            return
        }
        scheduleAutosave()
    }

    /// Deletes, at the next save, every model of `model` that `predicate` matches (all of them
    /// when nil), pending changes included.
    public func delete<T: PersistentModel>(
        model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true
    ) throws {
        var descriptor = FetchDescriptor<T>(predicate: predicate)
        descriptor.includeSubentities = includeSubclasses
        for id in try fetchObjectIDs(descriptor) {
            if let model = instance(for: id, record: nil) { deleteAny(model) }
        }
    }

    /// Deletes every model of `type` at the next save.
    func deleteAll(_ type: any PersistentModel.Type) throws {
        func delete<T: PersistentModel>(_: T.Type) throws { try self.delete(model: T.self) }
        try delete(type)
    }

    /// Discards every pending change: inserted models leave the context, changed and deleted
    /// ones read their saved values again.
    public func rollback() {
        for model in inserted.values {
            guard let storage = model.storage else { continue }
            if let id = storage.objectID { registered[id] = nil }
            storage.state = .new
            storage.detach()
        }
        for model in Array(changed.values) + Array(deleted.values) {
            guard let storage = model.storage else { continue }
            storage.state = .saved
            storage.didSave()
            storage.refault()
        }
        inserted = [:]
        insertOrder = []
        changed = [:]
        deleted = [:]
        deferredError = nil
    }

    /// Runs `block`, then saves what it changed.
    public func transaction(block: () throws -> Void) throws {
        try block()
        try save()
    }

    // MARK: - Registered models

    /// The model with `persistentModelID`: the registered one, or one read from the store when
    /// first used. An identifier of an entity not in the schema is a program error.
    public func model(for persistentModelID: PersistentIdentifier) -> any PersistentModel {
        guard let model = instance(for: persistentModelID.objectID, record: nil) else {
            preconditionFailure("\(persistentModelID) names no model of this container's schema")
        }
        return model
    }

    /// The model with `persistentModelID` if this context has it registered.
    public func registeredModel<T: PersistentModel>(for persistentModelID: PersistentIdentifier) -> T? {
        registered[persistentModelID.objectID]?.model as? T
    }

    /// The registered model of `id`, if it is alive.
    func registry(_ id: ObjectID) -> (any PersistentModel)? {
        // Read in place: the subscript's `Optional` would copy the weak reference first.
        guard let index = registered.index(forKey: id) else { return nil }
        return registered.values[index].model
    }

    /// Registers `model` as the instance of `id` (MC1).
    func register(_ model: any PersistentModel, as id: ObjectID) {
        registered[id] = WeakModel(model: model)
        if registered.count >= registrySweepSize { sweepRegistry() }
    }

    /// How many entries the registry holds, dead ones included (for tests of MC4).
    var registrySize: Int { registered.count }

    /// Drops the entries of models that are gone, and sets the size of the next sweep (keeps MC4).
    private func sweepRegistry() {
        registered = registered.filter { $0.value.model != nil }
        registrySweepSize = max(Self.smallestRegistrySweep, 2 * registered.count)
    }

    /// Forgets the instance of `id`.
    func unregister(_ id: ObjectID) { registered[id] = nil }

    /// The registered instance of `id`, or a new one from the store (MC1); `record` refreshes a
    /// registered instance that has no pending change.
    func instance(for id: ObjectID, record: [String: PropertyValue]?) -> (any PersistentModel)? {
        instance(for: id, entity: container.entitiesByCode[id.entityCode]) { storage in
            record.map { storage.fill(from: $0, overwrite: true) } != nil
        }
    }

    /// `instance(for:record:)` with a record in slot form (`ObjectSnapshot.fetchSlotObjects`).
    func instance(for id: ObjectID, slots record: [PropertyValue?]?) -> (any PersistentModel)? {
        let entity = container.entitiesByCode[id.entityCode]
        return instance(for: id, entity: entity) { storage in
            guard let record, let map = entity?.recordSlots else { return false }
            storage.fill(fromSlots: record, map: map, overwrite: true)
            return true
        }
    }

    /// The registered instance of `id` (of `entity`, nil when the schema lacks it) or a new one,
    /// `fill` giving it the fetched record's values, if any (not to a registered instance with
    /// pending changes).
    private func instance(
        for id: ObjectID, entity: ModelContainer.ModelEntity?, fill: (any AnyModelStorage) -> Bool
    ) -> (any PersistentModel)? {
        if let model = registry(id) {
            if let storage = model.storage, !storage.hasChanges { _ = fill(storage) }
            return model
        }
        guard let entity else { return nil }
        func make<T: PersistentModel>(_: T.Type) -> T {
            let storage = ModelStorage<T>(
                faultFor: id, in: self, storeIdentifier: container.storeIdentifier, table: entity.table, record: nil)
            // No throwaway storage made in `init(backingData:)` (BH1), the class's defaults dropped (MS10).
            let model = BackingDataHandOff.handing(storage) { T(backingData: storage) }
            storage.bindOwner(model)
            _ = fill(storage)
            return model
        }
        let model = make(entity.type)
        register(model, as: id)
        return model
    }

    /// The stored values of `id` (attributes and to-ones); nil when it is gone.
    func loadRecord(_ id: ObjectID) -> [String: PropertyValue]? {
        do { return try container.store.read { try $0.values(of: id) } } catch {
            deferredError = SwiftDataError.store(error)
            return nil
        }
    }

    /// The stored targets of the to-many `name` of `id`.
    func loadRelated(_ id: ObjectID, _ name: String) -> [ObjectID]? {
        do { return try container.store.read { try $0.related(id, name) } } catch {
            deferredError = SwiftDataError.store(error)
            return nil
        }
    }

    // MARK: - Saves of other contexts

    /// Whether another context saved since this one last looked.
    var needsCatchUp: Bool { container.changeLog.generation != seenGeneration }

    /// Takes in the saves of the container's other contexts: clean registered models of changed
    /// objects read their values again, those of deleted objects become deleted. Models with
    /// pending changes here keep them (the next save then meets the store's state). The main
    /// context then tells the observers of the models it refreshed (MC5); `own` is the
    /// generation of this context's own save, whose models changed nothing it did not know.
    func catchUp(own: Int? = nil) {
        let (entries, generation) = container.changeLog.since(seenGeneration)
        seenGeneration = generation
        var touched: [any PersistentModel] = []
        defer {
            if isMainContext { for model in touched { model._$storeValuesChanged() } }  // MC5
        }
        guard let entries else {
            for id in Array(registered.keys) {
                guard let model = registry(id), let storage = model.storage, !storage.hasChanges else { continue }
                storage.refault()
                touched.append(model)
            }
            return
        }
        for entry in entries {
            let notes = entry.generation != own
            for id in entry.updated {
                guard let model = registry(id), let storage = model.storage, !storage.hasChanges else { continue }
                storage.refault()
                if notes { touched.append(model) }
            }
            for id in entry.deleted {
                guard let model = registry(id), let storage = model.storage, !storage.hasChanges else { continue }
                storage.state = .deleted
                storage.detach()
                unregister(id)
                if notes { touched.append(model) }
            }
        }
    }

    // MARK: - Autosave

    /// Schedules a save on the main actor, for the main context with autosave on.
    private func scheduleAutosave() {
        guard autosaveEnabled, isMainContext, !autosaveScheduled else { return }
        autosaveScheduled = true
        // The main context is made and used on the main actor only (ModelContainer.mainContext).
        nonisolated(unsafe) let context = self
        Task { @MainActor in
            context.autosaveScheduled = false
            guard context.autosaveEnabled else { return }
            do { try context.save() } catch { context.deferredError = error }
        }
    }
}

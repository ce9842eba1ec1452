// A container: a schema bound to one store. Containers do not share state with each other or with
// Cadmium's `Cd` API: several containers on different files (or in memory) live side by side in
// one process. Every user of one file in the process — other containers, `Cd.initWithStore`, a
// `CdContainer` — shares its store through a lease (OpenObjectStores in CdObjects, OO1–OO4): a
// file is opened once per process, and each user's saves reach the others (HY2).
//
// Concurrency: a container is Sendable; its store is thread-safe. `mainContext` is made and used
// on the main actor only.
//
// Invariants:
//  HY1. Every store a container opens records persistent history (`StoreOptions.history =
//       .tracked`): a new store from its first save; a store written before without history
//       (by an earlier build, or by the `Cd` API) starts its history at this open, so its
//       history holds every save from then on and none before (docs/SWIFTDATA.md §5a). Once
//       started, the store records every commit, whoever opens it (HS6 in CdObjects'
//       HistoryLayout.swift). A store another user opened without history starts recording it
//       when the container joins it (OO4).
//  HY2. Each save is announced to the store's other leases once durable, and each of theirs is
//       recorded in `changeLog` (CL1), so that this container's contexts refresh the models they
//       hold of the objects another user changed, as they do for each other's saves.

internal import CdObjects
internal import CdStore
import Foundation
import Synchronization

/// The schema and store of an app's models.
///
/// ```swift
/// let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
/// let context = ModelContext(container)
/// ```
public final class ModelContainer: @unchecked Sendable {
    /// The classes stored.
    public let schema: Schema
    /// The configurations given (one is supported; see docs/SWIFTDATA.md).
    public let configurations: Set<ModelConfiguration>
    let configuration: ModelConfiguration
    /// The container's lease on the process's store for its file (HY2); released with the container.
    let lease: ObjectStoreLease
    var store: ObjectStore { lease.store }
    /// The store's identity in persistent identifiers: its file path, or `memory:UUID`.
    let storeIdentifier: String
    /// What each save of this container's contexts changed (ContainerChangeLog.swift).
    let changeLog = ContainerChangeLog()
    /// The translated `#Predicate` shapes its contexts fetched with.
    let predicateCache = PredicateRequestCache()
    /// The schema's classes by entity name, and their property tables by class, read once.
    let typesByEntity: [String: any PersistentModel.Type]
    let tablesByType: [ObjectIdentifier: ModelPropertyTable]
    /// Per entity, the store record slot of each property of its table (nil for a to-many),
    /// so that fetched records in slot form fill models without a dictionary by name.
    let recordSlots: [String: [Int?]]
    /// The class, table, record slots and store slots of each entity, by the interned name an
    /// `ObjectID` carries, so that making a fetched model or saving one looks its entity up once,
    /// by an integer.
    let entitiesByCode: [EntityNameCode: ModelEntity]
    /// Touched on the main actor only (`mainContext`).
    nonisolated(unsafe) private var main: ModelContext?
    /// Whether `mainContext` was made, and whether a catch-up of it is scheduled (MC5).
    private let hasMainContext = Atomic<Bool>(false)
    private let mainCatchUpScheduled = Atomic<Bool>(false)

    /// The migration plan the store was brought up to date with, if any.
    public let migrationPlan: (any SchemaMigrationPlan.Type)?

    /// A container for `forTypes` (and the classes they relate to) with `configurations`
    /// (default: the default file).
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: ModelConfiguration...
    ) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// A container for `schema` with `configurations` (default: the default file).
    public convenience init(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: ModelConfiguration...
    ) throws {
        try self.init(for: schema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// A container for `schema` with `configurations` (default: the default file). A file written
    /// with an earlier version is migrated first: along `migrationPlan` when given, else by the
    /// lightweight migration inferred from the file's model to this schema's.
    public init(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: [ModelConfiguration]
    ) throws {
        guard configurations.count <= 1 else {
            throw SwiftDataError(
                .loadIssueModelContainer,
                "\(configurations.count) configurations given; one configuration per container is supported")
        }
        let configuration = configurations.first ?? ModelConfiguration(schema: schema)
        let model = try schema.objectModel()
        self.schema = schema
        var typesByEntity: [String: any PersistentModel.Type] = [:]
        var tablesByType: [ObjectIdentifier: ModelPropertyTable] = [:]
        for type in schema.types {
            let table = try ModelPropertyTable.of(type)
            typesByEntity[table.entityName] = type
            tablesByType[ObjectIdentifier(type)] = table
        }
        self.typesByEntity = typesByEntity
        self.tablesByType = tablesByType
        let storeSlots = PropertySlots.tables(of: model)
        var recordSlots: [String: [Int?]] = [:]
        var savedSlots: [String: (map: [Int?], count: Int)] = [:]
        for table in tablesByType.values {
            guard let slots = storeSlots[table.entityName] else { continue }
            recordSlots[table.entityName] = table.properties.map { property in
                slots.slot(of: property.name).flatMap { $0 < slots.attributeCount + slots.toOneCount ? $0 : nil }
            }
            let stored = table.properties.map { property in
                slots.slot(of: property.name).flatMap { $0 < slots.storedCount ? $0 : nil }
            }
            savedSlots[table.entityName] = (stored, slots.storedCount)
        }
        self.recordSlots = recordSlots
        var entitiesByCode: [EntityNameCode: ModelEntity] = [:]
        for (name, type) in typesByEntity {
            guard let table = tablesByType[ObjectIdentifier(type)] else { continue }
            entitiesByCode[EntityNames.shared.code(for: name)] = ModelEntity(
                type: type, table: table, recordSlots: recordSlots[name], storeSlots: savedSlots[name])
        }
        self.entitiesByCode = entitiesByCode
        self.migrationPlan = migrationPlan
        self.configurations = Set(configurations)
        self.configuration = configuration
        let path: String?
        if configuration.isStoredInMemoryOnly {
            storeIdentifier = "memory:" + UUID().uuidString
            path = nil
        } else {
            let standard = configuration.url.standardizedFileURL.path
            storeIdentifier = standard
            path = standard
            if let migrationPlan, !OpenObjectStores.isOpen(path: standard) {
                try SchemaMigrator.migrate(path: standard, plan: migrationPlan)
            }
            let directory = (standard as NSString).deletingLastPathComponent
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        do {
            // A file of another model is migrated lightweight, as SwiftData does on its own; a file
            // open in this process with another schema is refused (OO3).
            lease = try OpenObjectStores.acquire(
                path: path, model: model, options: Self.storeOptions, migration: .automatic)
        } catch {
            throw SwiftDataError.store(error, opening: true)
        }
        lease.observeOtherCommits { [weak self, changeLog] applied in
            changeLog.record(updated: applied.updated, deleted: applied.deleted)  // keeps HY2
            self?.mainContextMayCatchUp()  // MC5
        }
    }

    /// What a context needs to make a model of one entity (`entitiesByCode`): a class, so that
    /// looking one up for each fetched object is a retain, not a copy of its fields.
    final class ModelEntity: Sendable {
        let type: any PersistentModel.Type
        let table: ModelPropertyTable
        /// The store record slot of each property of `table`, nil for a to-many; nil when the
        /// store has no such entity.
        let recordSlots: [Int?]?
        /// The store slot of each property of `table` (to-manys included) and the number of
        /// stored slots (`storeSlots`); nil when the store has no such entity.
        let storeSlots: (map: [Int?], count: Int)?

        init(
            type: any PersistentModel.Type, table: ModelPropertyTable, recordSlots: [Int?]?,
            storeSlots: (map: [Int?], count: Int)?
        ) {
            self.type = type
            self.table = table
            self.recordSlots = recordSlots
            self.storeSlots = storeSlots
        }
    }

    /// How containers open their stores: with persistent history tracked (HY1), as Apple's
    /// SwiftData always tracks it.
    static var storeOptions: StoreOptions {
        var options = StoreOptions()
        options.history = .tracked
        return options
    }

    /// The property table of `type`: the schema's, read without a lock, else the process's.
    func table(_ type: any PersistentModel.Type) throws -> ModelPropertyTable {
        if let table = tablesByType[ObjectIdentifier(type)] { return table }
        return try ModelPropertyTable.of(type)
    }

    /// The entity name of `type`.
    func entityName(_ type: any PersistentModel.Type) -> String {
        tablesByType[ObjectIdentifier(type)]?.entityName ?? Schema.entityName(for: type)
    }

    /// The main actor's context, made on first use, with autosave on.
    @MainActor public var mainContext: ModelContext {
        if let main { return main }
        let context = ModelContext(self)
        context.autosaveEnabled = true
        context.isMainContext = true
        main = context
        hasMainContext.store(true, ordering: .releasing)
        return context
    }

    /// After a save was recorded: lets the main context take it in on the main actor, once for
    /// any number of saves recorded before it runs (MC5 of ModelContext.swift).
    func mainContextMayCatchUp() {
        guard hasMainContext.load(ordering: .acquiring),
            !mainCatchUpScheduled.exchange(true, ordering: .acquiringAndReleasing)
        else { return }
        Task { @MainActor [self] in
            mainCatchUpScheduled.store(false, ordering: .releasing)
            guard let main, main.needsCatchUp else { return }
            main.catchUp()
        }
    }

    /// Deletes every model of the store, in one save.
    public func erase() throws {
        let context = ModelContext(self)
        for type in schema.types {
            try context.deleteAll(type)
        }
        try context.save()
    }

    /// `erase()`, under its earlier name.
    @available(*, deprecated, renamed: "erase()")
    public func deleteAllData() { try? erase() }
}

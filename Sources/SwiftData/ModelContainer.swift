// A container: a schema bound to one store of its own. Containers do not share state with each
// other or with Cadmium's `Cd` API: each owns an `ObjectStore`, and several containers on
// different files (or in memory) live side by side in one process. Two containers on the same
// file share one store (SharedStores), as the engine locks a file once per process.
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
//       HistoryLayout.swift).

internal import CdObjects
internal import CdStore
import Foundation

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
    let shared: SharedStore
    var store: ObjectStore { shared.store }
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
    /// Touched on the main actor only (`mainContext`).
    nonisolated(unsafe) private var main: ModelContext?

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
        for table in tablesByType.values {
            guard let slots = storeSlots[table.entityName] else { continue }
            recordSlots[table.entityName] = table.properties.map { property in
                slots.slot(of: property.name).flatMap { $0 < slots.attributeCount + slots.toOneCount ? $0 : nil }
            }
        }
        self.recordSlots = recordSlots
        self.migrationPlan = migrationPlan
        self.configurations = Set(configurations)
        self.configuration = configuration
        if configuration.isStoredInMemoryOnly {
            storeIdentifier = "memory:" + UUID().uuidString
            do {
                shared = SharedStore(
                    store: try ObjectStore.open(path: nil, model: model, options: Self.storeOptions), path: nil)
            } catch {
                throw SwiftDataError.store(error, opening: true)
            }
        } else {
            let path = configuration.url.standardizedFileURL.path
            storeIdentifier = path
            if let migrationPlan { try SchemaMigrator.migrate(path: path, plan: migrationPlan) }
            shared = try SharedStores.open(path: path, model: model)
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
        return context
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

/// A store open in this process, closed when its last container goes.
final class SharedStore: @unchecked Sendable {
    let store: ObjectStore
    let path: String?

    init(store: ObjectStore, path: String?) {
        self.store = store
        self.path = path
    }

    deinit { try? store.close() }
}

/// The stores open by path, so that two containers on one file share its store.
enum SharedStores {
    private static let open = LockedState<[String: WeakStore]>([:])

    struct WeakStore { weak var shared: SharedStore? }

    /// The store at `path`, opened now or shared with a container that has it open; a container
    /// with another model on the same file is refused.
    static func open(path: String, model: ObjectModel) throws -> SharedStore {
        try open.withLock { stores in
            if let existing = stores[path]?.shared {
                guard existing.store.model.versionHash == model.versionHash else {
                    throw SwiftDataError(
                        .loadIssueModelContainer,
                        "\(path) is open in this process with another schema; one file holds one schema")
                }
                return existing
            }
            let directory = (path as NSString).deletingLastPathComponent
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let shared: SharedStore
            do {
                // A file of another model is migrated lightweight, as SwiftData does on its own.
                let store = try ObjectStore.open(
                    path: path, model: model, options: ModelContainer.storeOptions, migration: .automatic)
                shared = SharedStore(store: store, path: path)
            } catch {
                throw SwiftDataError.store(error, opening: true)
            }
            stores[path] = WeakStore(shared: shared)
            return shared
        }
    }
}

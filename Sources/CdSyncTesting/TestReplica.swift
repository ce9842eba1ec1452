// One replica of the sync tests: an object store with history in a directory of its own, and
// its sync engine committing pulled changes with the store's own `apply`.

import CadmiumSync
import CdObjects
import CdStore
import Foundation

/// A replica: its store and engine.
package final class TestReplica: Sendable {
    package let store: ObjectStore
    package let engine: SyncEngine
    package let path: String

    /// Opens (creating) the store at `path` and an engine syncing `scope` on `server`.
    package convenience init(
        path: String, server: URL, scope: String, options: SyncEngineOptions = SyncEngineOptions()
    ) throws {
        try self.init(
            path: path, server: server, scope: scope, model: try SyncTestModel.make(),
            entities: SyncTestModel.entities, options: options)
    }

    /// Opens (creating, or migrating to `model` when it was written with another) the store at
    /// `path` and an engine syncing `entities` of `scope` on `server`.
    package init(
        path: String, server: URL, scope: String, model: ObjectModel, entities: [String],
        options: SyncEngineOptions = SyncEngineOptions()
    ) throws {
        var storeOptions = StoreOptions()
        storeOptions.history = .tracked
        let store = try ObjectStore.open(path: path, model: model, options: storeOptions, migration: .automatic)
        self.store = store
        self.path = path
        engine = try SyncEngine(
            store: store, commitPath: .store(store), server: server, scope: scope, entities: entities, options: options)
    }

    /// Closes the engine's connection and the store.
    package func close() async throws {
        await engine.close()
        try store.close()
    }

    // MARK: - Writes

    /// Creates an object with `values` and returns its ID.
    @discardableResult
    package func create(_ entity: String, _ values: [String: PropertyValue]) throws -> ObjectID {
        let id = try store.newObjectIDs(entity: entity, count: 1)[0]
        try store.apply(ChangeSet(inserted: [id: values]))
        return id
    }

    package func update(_ id: ObjectID, _ values: [String: PropertyValue]) throws {
        try store.apply(ChangeSet(updated: [id: values]))
    }

    package func delete(_ id: ObjectID) throws {
        try store.apply(ChangeSet(deleted: [id]))
    }

    /// The objects of `entity` whose `attribute` is the string `value`.
    package func find(_ entity: String, _ attribute: String, _ value: String) throws -> [ObjectID] {
        var request = FetchRequest(entity: entity)
        request.predicate = try CdPredicate(format: "\(attribute) == %@", value)
        return try store.read { try $0.fetchIDs(request) }
    }

    // MARK: - State

    /// Every synced object's state in global IDs (entity, attributes, owned relationships), the
    /// form in which replicas are compared.
    package func canonicalState() throws -> [String: String] {
        try store.read { try SyncTestState.canonical($0, model: store.model) }
    }
}

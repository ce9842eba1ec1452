import CdStore
import Foundation
import Testing
@testable import CdObjects

/// Engine trees outside the `cd.` prefix (another layer's: CadmiumSync's `sync.state`) across a
/// migration (MG12 of StoreMigrator+ForeignTrees.swift): carried unchanged when every object
/// keeps its ID; when some object's ID changes (their entries would name other objects), refused,
/// or dropped when data loss is allowed.
@Suite struct ForeignTreeMigrationTests {
    static let path = "/data/foreign.cdstore"

    static let v1 = try! ObjectModel(entities: [
        EntityDescription(name: "Item", attributes: [.init(name: "name", type: .string)])
    ])
    /// v1 with a property added: every object keeps its ID.
    static let added = try! ObjectModel(entities: [
        EntityDescription(
            name: "Item", attributes: [.init(name: "name", type: .string), .init(name: "note", type: .string)])
    ])
    /// v1 with the entity renamed: every object's ID changes.
    static let renamed = try! ObjectModel(entities: [
        EntityDescription(name: "Thing", attributes: [.init(name: "name", type: .string)], renamingIdentifier: "Item")
    ])

    static let entries: [(key: [UInt8], value: [UInt8])] = [
        (Array("m.replica".utf8), Array(repeating: 7, count: 16)), (Array("l.Item\u{0}1".utf8), [1, 2, 3]),
    ]

    /// A store of v1 with two items and the foreign tree `app.state`.
    static func makeStore(_ fs: InMemoryFileSystem) throws {
        let store = try ObjectStore.open(path: path, model: v1, options: StoreOptions(fileSystem: fs))
        let ids = try store.newObjectIDs(entity: "Item", count: 2)
        var changes = ChangeSet(inserted: [ids[0]: ["name": .attribute(.string("a"))], ids[1]: [:]])
        changes.sideWrites = entries.map { SideTreeWrite(tree: "app.state", key: $0.key, value: $0.value) }
        try store.apply(changes)
        try store.close()
    }

    static func foreignEntries(_ store: ObjectStore) throws -> [[UInt8]: [UInt8]]? {
        try store.read { snapshot in
            guard let tree = try snapshot.sideTree("app.state") else { return nil }
            var found: [[UInt8]: [UInt8]] = [:]
            try tree.scan { key, value in
                found[key] = value
                return true
            }
            return found
        }
    }

    @Test func migrationThatKeepsEveryIDCarriesForeignTrees() throws {
        let fs = InMemoryFileSystem()
        try Self.makeStore(fs)
        let store = try ObjectStore.open(
            path: Self.path, model: Self.added, options: StoreOptions(fileSystem: fs), migration: .automatic)
        defer { try? store.close() }
        #expect(try store.read { try $0.fetchIDs(FetchRequest(entity: "Item")) }.count == 2)
        let carried = try #require(try Self.foreignEntries(store), "the foreign tree was dropped")
        #expect(carried == Dictionary(uniqueKeysWithValues: Self.entries.map { ($0.key, $0.value) }))
    }

    /// Compaction is a migration to the same model (CP1): a synced store compacted keeps its
    /// sync state (before MG12 `cdstore compact` dropped it).
    @Test func compactionCarriesForeignTrees() throws {
        let fs = InMemoryFileSystem()
        try Self.makeStore(fs)
        try ObjectStore.compact(path: Self.path, options: StoreOptions(fileSystem: fs))
        let store = try ObjectStore.open(path: Self.path, model: Self.v1, options: StoreOptions(fileSystem: fs))
        defer { try? store.close() }
        #expect(
            try Self.foreignEntries(store) == Dictionary(uniqueKeysWithValues: Self.entries.map { ($0.key, $0.value) }))
    }

    @Test func migrationThatChangesAnIDIsRefusedWhileForeignTreesWouldGo() throws {
        let fs = InMemoryFileSystem()
        try Self.makeStore(fs)
        let error = try #require(throws: MigrationError.self) {
            _ = try ObjectStore.open(
                path: Self.path, model: Self.renamed, options: StoreOptions(fileSystem: fs), migration: .automatic)
        }
        guard case let .refused(refusal) = error else {
            Issue.record("not a refusal: \(error)")
            return
        }
        #expect(refusal.reason == .wouldDropForeignState(trees: ["app.state"]))
        #expect(refusal.description.contains("app.state"), "\(refusal)")
        // The store is as it was: it opens with its own model, objects and tree.
        let store = try ObjectStore.open(path: Self.path, model: Self.v1, options: StoreOptions(fileSystem: fs))
        defer { try? store.close() }
        #expect(try store.read { try $0.fetchIDs(FetchRequest(entity: "Item")) }.count == 2)
        #expect(try Self.foreignEntries(store)?.count == Self.entries.count)
    }

    @Test func migrationThatChangesAnIDDropsForeignTreesWhenDataLossIsAllowed() throws {
        let fs = InMemoryFileSystem()
        try Self.makeStore(fs)
        let store = try ObjectStore.open(
            path: Self.path, model: Self.renamed, options: StoreOptions(fileSystem: fs),
            migration: MigrationOptions(allowsDataLoss: true))
        defer { try? store.close() }
        #expect(try store.read { try $0.fetchIDs(FetchRequest(entity: "Thing")) }.count == 2)
        #expect(try Self.foreignEntries(store) == nil)
    }
}

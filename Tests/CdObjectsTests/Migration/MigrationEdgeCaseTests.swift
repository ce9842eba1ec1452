import CdStore
import Foundation
import Testing
@testable import CdObjects

/// Migration edge cases: an ordered to-many keeps its order, a migration the new model's
/// validation refuses leaves the old store and no `.migration` files, and a store of a newer
/// version than the model opened is never stepped back.
@Suite struct MigrationEdgeCaseTests {
    static let path = "/data/s.cdstore"
    static func options(_ fs: any StoreFileSystem) -> StoreOptions {
        var o = StoreOptions(fileSystem: fs)
        o.pageSize = 4096
        return o
    }
    static func str(_ s: String) -> PropertyValue { .attribute(.string(s)) }

    static let v1 = try! ObjectModel(entities: [
        EntityDescription(
            name: "List", attributes: [.init(name: "title", type: .string)],
            relationships: [.toMany("items", destination: "Item", inverse: "list", ordered: true)]),
        EntityDescription(
            name: "Item", attributes: [.init(name: "label", type: .string), .init(name: "n", type: .integer64)],
            relationships: [.init(name: "list", destination: "List", inverse: "items")]),
    ])
    // v2: adds a required attribute without default to Item.
    static let v2 = try! ObjectModel(entities: [
        EntityDescription(
            name: "List", attributes: [.init(name: "title", type: .string)],
            relationships: [.toMany("items", destination: "Item", inverse: "list", ordered: true)]),
        EntityDescription(
            name: "Item",
            attributes: [
                .init(name: "label", type: .string), .init(name: "n", type: .integer64),
                .init(name: "extra", type: .string, isOptional: false),
            ],
            relationships: [.init(name: "list", destination: "List", inverse: "items")]),
    ])
    // v3: adds an optional attribute, keeps the order; n narrowed to int16.
    static let v3 = try! ObjectModel(entities: [
        EntityDescription(
            name: "List", attributes: [.init(name: "title", type: .string), .init(name: "x", type: .string)],
            relationships: [.toMany("items", destination: "Item", inverse: "list", ordered: true)]),
        EntityDescription(
            name: "Item", attributes: [.init(name: "label", type: .string), .init(name: "n", type: .integer16)],
            relationships: [.init(name: "list", destination: "List", inverse: "items")]),
    ])

    static func seed(_ fs: any StoreFileSystem, n: Int64 = 5) throws -> (ObjectID, [ObjectID]) {
        let store = try ObjectStore.open(path: path, model: v1, options: options(fs))
        defer { try? store.close() }
        let list = try store.newObjectIDs(entity: "List", count: 1)[0]
        let items = try store.newObjectIDs(entity: "Item", count: 4)
        var inserted: [ObjectID: [String: PropertyValue]] = [list: ["title": str("L")]]
        for (i, id) in items.enumerated() {
            inserted[id] = ["label": str("i\(i)"), "n": .attribute(.integer(n)), "list": .toOne(list)]
        }
        try store.apply(ChangeSet(inserted: inserted))
        // reorder: 3, 1, 0, 2
        try store.apply(
            ChangeSet(updated: [list: ["items": .toMany([items[3], items[1], items[0], items[2]])]]))
        return (list, items)
    }

    @Test func orderedToManyKeepsItsOrder() throws {
        let fs = InMemoryFileSystem()
        let (list, items) = try Self.seed(fs)
        let store = try ObjectStore.open(
            path: Self.path, model: Self.v3, options: Self.options(fs), migration: .automatic)
        defer { try? store.close() }
        try store.read { s in
            #expect((try? s.related(list, "items")) == [items[3], items[1], items[0], items[2]])
        }
    }

    @Test func requiredWithoutDefaultFailsAndLeavesOld() throws {
        let fs = InMemoryFileSystem()
        _ = try Self.seed(fs)
        #expect(throws: MigrationError.self) {
            try ObjectStore.open(path: Self.path, model: Self.v2, options: Self.options(fs), migration: .automatic)
        }
        #expect(fs.paths.allSatisfy { !$0.contains(".migration") }, "\(fs.paths)")
        let old = try ObjectStore.open(path: Self.path, model: Self.v1, options: Self.options(fs))
        let c = try old.read { s in try s.count(FetchRequest(entity: "Item")) }; #expect(c == 4)
        try old.close()
    }

    @Test func narrowingOutOfRangeFails() throws {
        let fs = InMemoryFileSystem()
        _ = try Self.seed(fs, n: 100_000)
        #expect(throws: MigrationError.self) {
            try ObjectStore.open(path: Self.path, model: Self.v3, options: Self.options(fs), migration: .automatic)
        }
        #expect(fs.paths.allSatisfy { !$0.contains(".migration") }, "\(fs.paths)")
    }

    @Test func aNewerStoreIsNeverSteppedBack() throws {
        let fs = InMemoryFileSystem()
        let (list, _) = try Self.seed(fs)
        let newer = try ObjectStore.open(
            path: Self.path, model: Self.v3, options: Self.options(fs), migration: .automatic)
        try newer.apply(ChangeSet(updated: [list: ["x": Self.str("only in v3")]]))
        try newer.close()
        let before = fs.contents(of: Self.path)
        let plan = MigrationPlan(versions: [
            ModelVersion(name: "v1", model: Self.v1), ModelVersion(name: "v3", model: Self.v3),
        ])
        #expect(throws: MigrationError.self) {
            try ObjectStore.open(
                path: Self.path, model: Self.v1, options: Self.options(fs), migration: MigrationOptions(plan: plan))
        }
        let unchanged = fs.contents(of: Self.path) == before
        #expect(unchanged, "the newer store is as it was")
        let reopened = try ObjectStore.open(path: Self.path, model: Self.v3, options: Self.options(fs))
        let x = try reopened.read { s in try s.values(of: list)?["x"] }
        #expect(x == Self.str("only in v3"))
        try reopened.close()
    }

    /// A custom stage that lists an object twice in a to-many gets it once, in its first place.
    @Test func aStageListingAnObjectTwiceGetsItOnce() throws {
        let fs = InMemoryFileSystem()
        let (list, items) = try Self.seed(fs)
        let plan = MigrationPlan(
            versions: [ModelVersion(name: "v1", model: Self.v1), ModelVersion(name: "v3", model: Self.v3)],
            stages: [
                .custom(from: "v1", to: "v3") { step in
                    let id = try #require(step.destinationID(for: list))
                    let twice = [items[2], items[0], items[2], items[1], items[0], items[3]]
                    try step.setValue(.toMany(twice), forKey: "items", of: id)
                }
            ])
        let store = try ObjectStore.open(
            path: Self.path, model: Self.v3, options: Self.options(fs), migration: MigrationOptions(plan: plan))
        defer { try? store.close() }
        let related = try store.read { s in try s.related(list, "items") }
        #expect(related == [items[2], items[0], items[1], items[3]])
    }

    /// While a migration reads, maps and writes, the old store stays locked: another opener
    /// (another process, here another handle) cannot commit to it — a commit the migrated store
    /// would silently lack — nor start a second migration.
    @Test func theOldStoreStaysLockedWhileItIsMigrated() throws {
        let fs = InMemoryFileSystem()
        let (list, _) = try Self.seed(fs)
        let intruder = LockedIntruder()
        let options = MigrationOptions { progress in
            guard progress.phase == .mapping || progress.phase == .writing else { return }
            intruder.tryCommit(fs: fs, list: list)
        }
        let store = try ObjectStore.open(path: Self.path, model: Self.v3, options: Self.options(fs), migration: options)
        defer { try? store.close() }
        #expect(intruder.attempts > 0)
        #expect(intruder.commits == 0, "the old store was opened and written during the migration")
        let title = try store.read { s in try s.values(of: list)?["title"] }
        #expect(title == Self.str("L"))
    }
}

/// Tries to open the old store and commit to it, as another process would, and counts.
final class LockedIntruder: @unchecked Sendable {
    // @unchecked: used from the migrating thread only (the progress callback).
    private(set) var attempts = 0
    private(set) var commits = 0

    func tryCommit(fs: InMemoryFileSystem, list: ObjectID) {
        attempts += 1
        guard
            let store = try? ObjectStore.open(
                path: MigrationEdgeCaseTests.path, model: MigrationEdgeCaseTests.v1,
                options: MigrationEdgeCaseTests.options(fs))
        else { return }
        defer { try? store.close() }
        if (try? store.apply(ChangeSet(updated: [list: ["title": MigrationEdgeCaseTests.str("intruder")]]))) != nil {
            commits += 1
        }
    }
}

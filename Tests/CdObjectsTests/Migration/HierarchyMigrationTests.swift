import CdStore
import Foundation
import Testing
@testable import CdObjects

/// An entity that moves into another hierarchy: its objects keep their keys where the new
/// hierarchy has them free and get new ones where not, and relationships follow them.
@Suite struct HierarchyMigrationTests {
    static let path = "/data/hierarchy.cdstore"

    static let v1 = try! ObjectModel(entities: [
        EntityDescription(name: "Animal", attributes: [.init(name: "name", type: .string)]),
        EntityDescription(
            name: "Plant", attributes: [.init(name: "name", type: .string)],
            relationships: [.init(name: "garden", destination: "Garden", inverse: "plants")]),
        EntityDescription(
            name: "Garden", attributes: [.init(name: "name", type: .string)],
            relationships: [.toMany("plants", destination: "Plant", inverse: "garden")]),
    ])

    /// Plant becomes a sub-entity of Animal (one hierarchy, one key space).
    static let v2: ObjectModel = {
        var entities = v1.entities
        entities[1].parent = "Animal"
        entities[1].attributes = []
        return try! ObjectModel(entities: entities)
    }()

    static func name(_ s: String) -> PropertyValue { .attribute(.string(s)) }

    @Test func objectsMovingIntoAnotherHierarchyGetFreeKeys() throws {
        let fs = InMemoryFileSystem()
        let options = StoreOptions(fileSystem: fs)
        let old = try ObjectStore.open(path: Self.path, model: Self.v1, options: options)
        let animals = try old.newObjectIDs(entity: "Animal", count: 2)
        let plants = try old.newObjectIDs(entity: "Plant", count: 3)
        let garden = try old.newObjectIDs(entity: "Garden", count: 1)[0]
        var inserted: [ObjectID: [String: PropertyValue]] = [garden: ["name": Self.name("Eden")]]
        for (i, id) in animals.enumerated() { inserted[id] = ["name": Self.name("animal \(i)")] }
        for (i, id) in plants.enumerated() { inserted[id] = ["name": Self.name("plant \(i)")] }
        inserted[plants[0]]?["garden"] = .toOne(garden)
        inserted[plants[2]]?["garden"] = .toOne(garden)
        try old.apply(ChangeSet(inserted: inserted))
        try old.close()
        #expect(plants.map(\.primaryKey) == [1, 2, 3] && animals.map(\.primaryKey) == [1, 2])

        let store = try ObjectStore.open(path: Self.path, model: Self.v2, options: options, migration: .automatic)
        defer { try? store.close() }
        try store.read { snapshot throws in
            let all = try snapshot.fetchObjects(FetchRequest(entity: "Animal"))
            var byName: [String: ObjectID] = [:]
            for (id, values) in all { if case let .attribute(.string(n))? = values?["name"] { byName[n] = id } }
            #expect(byName.count == 5, "\(byName)")
            #expect(Set(all.map(\.id.primaryKey)).count == 5, "one key space, no key twice")
            #expect(byName["animal 0"] == animals[0] && byName["animal 1"] == animals[1])
            // Plant 3's key is free among the animals; plants 1 and 2 collide and move past it.
            #expect(byName["plant 2"] == ObjectID(entity: "Plant", primaryKey: 3))
            #expect(byName["plant 0"] == ObjectID(entity: "Plant", primaryKey: 4))
            #expect(byName["plant 1"] == ObjectID(entity: "Plant", primaryKey: 5))
            #expect(Set(try snapshot.related(garden, "plants")) == [byName["plant 0"]!, byName["plant 2"]!])
            #expect(try snapshot.values(of: byName["plant 0"]!)?["garden"] == .toOne(garden))
        }
        #expect(try store.newObjectIDs(entity: "Animal", count: 1)[0].primaryKey == 6)
    }
}

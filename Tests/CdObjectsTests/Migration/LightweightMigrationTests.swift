import CdStore
import Foundation
import Testing
@testable import CdObjects

/// Lightweight migration inferred from two models, through `ObjectStore.open(…, migration:)`: the
/// changes Core Data infers, renames by renaming identifier, and the failures that leave the old
/// store as it was.
@Suite struct LightweightMigrationTests {
    static let path = "/data/migrate.cdstore"

    static func options(_ fs: any StoreFileSystem) -> StoreOptions {
        var o = StoreOptions(fileSystem: fs)
        o.pageSize = 4096
        return o
    }

    /// v1: Person (name, age, nickname) with to-many pets; Pet (name) with to-one owner.
    static let v1 = try! ObjectModel(entities: [
        EntityDescription(
            name: "Person",
            attributes: [
                .init(name: "name", type: .string, isOptional: false),
                .init(name: "age", type: .integer16),
                .init(name: "nickname", type: .string),
            ],
            relationships: [.toMany("pets", destination: "Pet", inverse: "owner")]),
        EntityDescription(
            name: "Pet", attributes: [.init(name: "name", type: .string)],
            relationships: [.init(name: "owner", destination: "Person", inverse: "pets")]),
    ])

    /// v2: Person renamed Human; nickname removed; age renamed years, required with default 0;
    /// email added; Pet.owner renamed owners and to-many (a many-to-many with Human.pets); Toy added.
    static let v2 = try! ObjectModel(entities: [
        EntityDescription(
            name: "Human",
            attributes: [
                .init(name: "name", type: .string, isOptional: false),
                .init(
                    name: "years", type: .integer16, isOptional: false, defaultValue: .integer(0),
                    renamingIdentifier: "age"),
                .init(name: "email", type: .string),
            ],
            relationships: [.toMany("pets", destination: "Pet", inverse: "owners")],
            renamingIdentifier: "Person"),
        EntityDescription(
            name: "Pet", attributes: [.init(name: "name", type: .string)],
            relationships: [
                RelationshipDescription(
                    name: "owners", destination: "Human", inverse: "pets", isToMany: true, renamingIdentifier: "owner")
            ]),
        EntityDescription(name: "Toy", attributes: [.init(name: "label", type: .string)]),
    ])

    /// v1 then v2, declared: the step drops `Person.nickname`, which only a declared step (or
    /// `allowsDataLoss`) may do; an inferred one is refused (`anUndeclaredStepThatDropsDataIsRefused`).
    static let declared = MigrationPlan(versions: [
        ModelVersion(name: "v1", model: v1), ModelVersion(name: "v2", model: v2),
    ])

    static func str(_ s: String) -> PropertyValue { .attribute(.string(s)) }

    /// Ann (age 30, two pets) and Bob (no age, no pets); a third pet without owner.
    static func seed(_ fs: any StoreFileSystem) throws -> (ann: ObjectID, bob: ObjectID, pets: [ObjectID]) {
        let store = try ObjectStore.open(path: path, model: v1, options: options(fs))
        defer { try? store.close() }
        let people = try store.newObjectIDs(entity: "Person", count: 2)
        let pets = try store.newObjectIDs(entity: "Pet", count: 3)
        try store.apply(
            ChangeSet(inserted: [
                people[0]: ["name": str("Ann"), "age": .attribute(.integer(30)), "nickname": str("A")],
                people[1]: ["name": str("Bob")],
                pets[0]: ["name": str("Rex"), "owner": .toOne(people[0])],
                pets[1]: ["name": str("Tom"), "owner": .toOne(people[0])],
                pets[2]: ["name": str("Stray")],
            ]))
        // A deleted object: its key is never handed out again, after migration too (OS1).
        let gone = try store.newObjectIDs(entity: "Pet", count: 1)[0]
        try store.apply(ChangeSet(inserted: [gone: ["name": str("Gone")]]))
        try store.apply(ChangeSet(deleted: [gone]))
        return (people[0], people[1], pets)
    }

    @Test func inferredChangesKeepEveryObject() throws {
        let fs = InMemoryFileSystem()
        let (ann, bob, pets) = try Self.seed(fs)
        let store = try ObjectStore.open(
            path: Self.path, model: Self.v2, options: Self.options(fs), migration: MigrationOptions(plan: Self.declared)
        )
        defer { try? store.close() }
        try store.read { snapshot throws in
            let humans = try snapshot.fetchIDs(FetchRequest(entity: "Human")).sorted()
            #expect(humans.map(\.primaryKey) == [ann.primaryKey, bob.primaryKey])
            let annValues = try #require(try snapshot.values(of: humans[0]))
            #expect(annValues["name"] == Self.str("Ann"))
            #expect(annValues["years"] == .attribute(.integer(30)))
            #expect(annValues["email"] == .attribute(.null))
            #expect(annValues["nickname"] == nil)
            // Bob had no age: the now required attribute takes its default.
            #expect(try snapshot.values(of: humans[1])?["years"] == .attribute(.integer(0)))
            #expect(try snapshot.related(humans[0], "pets").map(\.primaryKey) == pets[0...1].map(\.primaryKey))
            #expect(try snapshot.related(humans[1], "pets").isEmpty)
            let newPets = try snapshot.fetchIDs(FetchRequest(entity: "Pet")).sorted()
            #expect(newPets == pets)
            #expect(try snapshot.related(pets[0], "owners") == [humans[0]])
            #expect(try snapshot.related(pets[2], "owners").isEmpty)
            #expect(try snapshot.count(FetchRequest(entity: "Toy")) == 0)
        }
        // Keys of deleted objects stay used (OS1 across the migration).
        #expect(try store.newObjectIDs(entity: "Pet", count: 1)[0].primaryKey == 5)
        #expect(fs.paths.allSatisfy { !$0.contains(".migration") }, "\(fs.paths)")
    }

    @Test func aStoreOfTheSameModelIsNotRewritten() throws {
        let fs = InMemoryFileSystem()
        _ = try Self.seed(fs)
        let before = fs.contents(of: Self.path)
        var phases: [MigrationProgress.Phase] = []
        let seen = LockedPhases()
        let store = try ObjectStore.open(
            path: Self.path, model: Self.v1, options: Self.options(fs),
            migration: MigrationOptions { seen.append($0.phase) })
        try store.close()
        phases = seen.phases
        #expect(phases.isEmpty)
        #expect(fs.contents(of: Self.path)?.count == before?.count)
    }

    @Test func progressGoesThroughEveryPhase() throws {
        let fs = InMemoryFileSystem()
        _ = try Self.seed(fs)
        let seen = LockedPhases()
        let store = try ObjectStore.open(
            path: Self.path, model: Self.v2, options: Self.options(fs),
            migration: MigrationOptions(plan: Self.declared) { seen.append($0.phase) })
        try store.close()
        var distinct: [MigrationProgress.Phase] = []
        for phase in seen.phases where distinct.last != phase { distinct.append(phase) }
        #expect(distinct == [.reading, .mapping, .writing, .swapping, .finished])
    }

    @Test func disabledMigrationRefusesTheStore() throws {
        let fs = InMemoryFileSystem()
        _ = try Self.seed(fs)
        #expect(throws: CdError.self) {
            _ = try ObjectStore.open(path: Self.path, model: Self.v2, options: Self.options(fs), migration: .disabled)
        }
        var readOnly = Self.options(fs)
        readOnly.readOnly = true
        #expect(throws: CdError.self, "a read-only open never migrates") {
            _ = try ObjectStore.open(path: Self.path, model: Self.v2, options: readOnly, migration: .automatic)
        }
        let store = try ObjectStore.open(path: Self.path, model: Self.v1, options: Self.options(fs))
        try store.close()
    }

    @Test func addedIndexesAndConstraintsAreBuiltAndTheStoreVerifies() throws {
        let fs = InMemoryFileSystem()
        _ = try Self.seed(fs)
        var entities = Self.v1.entities
        entities[0].attributes[0].isIndexed = true  // Person.name
        entities[0].uniquenessConstraints = [["name"]]
        entities[1].fetchIndexes = [
            FetchIndexDescription(name: "byName", elements: [FetchIndexElement(property: "name")])
        ]
        let indexed = try ObjectModel(entities: entities)
        let store = try ObjectStore.open(
            path: Self.path, model: indexed, options: Self.options(fs), migration: .automatic)
        var request = FetchRequest(entity: "Person")
        request.predicate = try CdPredicate(format: "name == %@", "Bob")
        #expect(try store.read { try $0.explain(request) }.hasPrefix("INDEX SCAN"))
        #expect(try store.read { try $0.fetchIDs(request).count } == 1)
        try store.close()
        var options = VerifierOptions(fileSystem: fs)
        options.additionalPasses = [ObjectStoreCheck()]
        let report = try StoreVerifier.verify(path: Self.path, options: options)
        #expect(report.problemCount == 0, "\(report.problems.prefix(3))")
        // And back: indexes and the constraint removed.
        let back = try ObjectStore.open(
            path: Self.path, model: Self.v1, options: Self.options(fs), migration: .automatic)
        #expect(try back.read { try $0.fetchIDs(request).count } == 1)
        try back.close()
    }

    @Test func deleteRulesAndCountsNeedNoMigration() throws {
        let fs = InMemoryFileSystem()
        _ = try Self.seed(fs)
        var entities = Self.v1.entities
        entities[0].relationships[0].deleteRule = .cascade
        entities[0].relationships[0].maxCount = 5
        let changed = try ObjectModel(entities: entities)
        #expect(changed.versionHash == Self.v1.versionHash, "not part of the stored shape")
        let seen = LockedPhases()
        let store = try ObjectStore.open(
            path: Self.path, model: changed, options: Self.options(fs),
            migration: MigrationOptions { seen.append($0.phase) })
        defer { try? store.close() }
        #expect(seen.phases.isEmpty)
        // The new rule applies at once: deleting Ann cascades to her two pets.
        let ann = try #require(try store.read { try $0.fetchIDs(FetchRequest(entity: "Person")).first })
        let applied = try store.apply(ChangeSet(deleted: [ann]))
        #expect(applied.deleted.count == 3)
    }

    @Test func aViolatedNewConstraintListsTheObjectsAndLeavesTheOldStore() throws {
        let fs = InMemoryFileSystem()
        let store = try ObjectStore.open(path: Self.path, model: Self.v1, options: Self.options(fs))
        let pets = try store.newObjectIDs(entity: "Pet", count: 3)
        try store.apply(
            ChangeSet(inserted: [
                pets[0]: ["name": Self.str("Rex")], pets[1]: ["name": Self.str("Rex")],
                pets[2]: ["name": Self.str("Tom")],
            ]))
        try store.close()
        var unique = Self.v1.entities
        unique[1].uniquenessConstraints = [["name"]]
        let v2 = try ObjectModel(entities: unique)
        do {
            _ = try ObjectStore.open(path: Self.path, model: v2, options: Self.options(fs), migration: .automatic)
            Issue.record("the migration should have failed")
        } catch let MigrationError.constraintViolation(entity, properties, objects) {
            #expect(entity == "Pet" && properties == ["name"])
            #expect(objects == [pets[0], pets[1]])
        }
        #expect(fs.paths.allSatisfy { !$0.contains(".migration") }, "\(fs.paths)")
        let old = try ObjectStore.open(path: Self.path, model: Self.v1, options: Self.options(fs))
        #expect(try old.read { try $0.count(FetchRequest(entity: "Pet")) } == 3)
        try old.close()
    }

    @Test func aToManyOfSeveralCannotBecomeAToOne() throws {
        let fs = InMemoryFileSystem()
        let (ann, _, _) = try Self.seed(fs)
        var entities = Self.v1.entities
        entities[0].relationships = [.init(name: "pets", destination: "Pet", inverse: "owner")]
        let v2 = try ObjectModel(entities: entities)
        do {
            _ = try ObjectStore.open(path: Self.path, model: v2, options: Self.options(fs), migration: .automatic)
            Issue.record("the migration should have failed")
        } catch let MigrationError.needsCustomStage(entity, key, object, _) {
            #expect(entity == "Person" && key == "pets" && object == ann)
        }
        let old = try ObjectStore.open(path: Self.path, model: Self.v1, options: Self.options(fs))
        #expect(try old.read { try $0.related(ann, "pets").count } == 2)
        try old.close()
    }

    @Test func aCustomStageSplitsANameInTwo() throws {
        let fs = InMemoryFileSystem()
        let (ann, bob, _) = try Self.seed(fs)
        var entities = Self.v1.entities
        entities[0].attributes = [
            .init(name: "firstName", type: .string), .init(name: "lastName", type: .string),
            .init(name: "age", type: .integer16),
        ]
        let v2 = try ObjectModel(entities: entities)
        let plan = MigrationPlan(
            versions: [ModelVersion(name: "v1", model: Self.v1), ModelVersion(name: "v2", model: v2)],
            stages: [
                .custom(from: "v1", to: "v2") { step in
                    for person in step.sourceObjects(of: "Person") {
                        let full = person.string("name") ?? ""
                        let parts = full.split(separator: " ", maxSplits: 1).map(String.init)
                        let id = try #require(step.destinationID(for: person.id))
                        try step.setValue(.attribute(.string(parts.first ?? "")), forKey: "firstName", of: id)
                        try step.setValue(
                            .attribute(parts.count > 1 ? .string(parts[1]) : .null), forKey: "lastName", of: id)
                    }
                }
            ])
        // Give Ann a last name first.
        let old = try ObjectStore.open(path: Self.path, model: Self.v1, options: Self.options(fs))
        try old.apply(ChangeSet(updated: [ann: ["name": Self.str("Ann Lee")]]))
        try old.close()
        let store = try ObjectStore.open(
            path: Self.path, model: v2, options: Self.options(fs), migration: MigrationOptions(plan: plan))
        defer { try? store.close() }
        try store.read { snapshot throws in
            #expect(try snapshot.values(of: ann)?["firstName"] == Self.str("Ann"))
            #expect(try snapshot.values(of: ann)?["lastName"] == Self.str("Lee"))
            #expect(try snapshot.values(of: bob)?["firstName"] == Self.str("Bob"))
            #expect(try snapshot.values(of: bob)?["lastName"] == .attribute(.null))
            #expect(try snapshot.related(ann, "pets").count == 2)
        }
    }
}

/// Phases seen by a progress callback (which may run on any thread).
final class LockedPhases: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [MigrationProgress.Phase] = []
    func append(_ phase: MigrationProgress.Phase) { lock.withLock { seen.append(phase) } }
    var phases: [MigrationProgress.Phase] { lock.withLock { seen } }
}

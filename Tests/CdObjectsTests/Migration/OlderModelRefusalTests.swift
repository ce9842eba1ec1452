import CdStore
import Foundation
import Testing
@testable import CdObjects

/// An older build meets a store a newer build wrote: a model declared in code, or a model file
/// whose versions end before the store's, opens it. The migration back would drop what the newer
/// model added, so it is refused (`MigrationError.refused`, 134100) with the store untouched,
/// unless `MigrationOptions.allowsDataLoss` asks for it (MigrationRefusal, MR1; StoreMigrator, MG10).
@Suite struct OlderModelRefusalTests {
    static let path = "/data/notes.cdstore"
    static func options(_ fs: any StoreFileSystem) -> StoreOptions {
        var o = StoreOptions(fileSystem: fs)
        o.pageSize = 4096
        return o
    }
    static func str(_ s: String) -> PropertyValue { .attribute(.string(s)) }

    /// The older build's model: Note (text), Person (name) ⇄ Pet (name) through owner/pets.
    static let older = try! ObjectModel(entities: [
        EntityDescription(name: "Note", attributes: [.init(name: "text", type: .string)]),
        EntityDescription(
            name: "Person", attributes: [.init(name: "name", type: .string)],
            relationships: [.toMany("pets", destination: "Pet", inverse: "owner")]),
        EntityDescription(
            name: "Pet", attributes: [.init(name: "name", type: .string)],
            relationships: [.init(name: "owner", destination: "Person", inverse: "pets")]),
    ])

    /// The newer build's: Note gains `priority` and `draft`, and a Tag entity is added.
    static let newer = try! ObjectModel(entities: [
        EntityDescription(
            name: "Note",
            attributes: [
                .init(name: "text", type: .string), .init(name: "priority", type: .integer64),
                .init(name: "draft", type: .string),
            ]),
        EntityDescription(name: "Tag", attributes: [.init(name: "label", type: .string)]),
        EntityDescription(
            name: "Person", attributes: [.init(name: "name", type: .string)],
            relationships: [.toMany("pets", destination: "Pet", inverse: "owner")]),
        EntityDescription(
            name: "Pet", attributes: [.init(name: "name", type: .string)],
            relationships: [.init(name: "owner", destination: "Person", inverse: "pets")]),
    ])

    /// The newer build writes three notes (two with a priority, none with a draft) and a tag.
    static func writeWithNewer(_ fs: any StoreFileSystem, model: ObjectModel = newer) throws -> [ObjectID] {
        let store = try ObjectStore.open(path: path, model: model, options: options(fs))
        defer { try? store.close() }
        let notes = try store.newObjectIDs(entity: "Note", count: 3)
        var inserted: [ObjectID: [String: PropertyValue]] = [
            notes[0]: ["text": str("milk"), "priority": .attribute(.integer(1))],
            notes[1]: ["text": str("call"), "priority": .attribute(.integer(2))],
            notes[2]: ["text": str("later")],
        ]
        if model.entity(named: "Tag") != nil {
            inserted[try store.newObjectIDs(entity: "Tag", count: 1)[0]] = ["label": str("home")]
        }
        try store.apply(ChangeSet(inserted: inserted))
        return notes
    }

    static func expectIntact(_ fs: InMemoryFileSystem, _ notes: [ObjectID], model: ObjectModel = newer) throws {
        #expect(fs.paths.allSatisfy { !$0.contains(".migration") }, "\(fs.paths)")
        let store = try ObjectStore.open(path: path, model: model, options: options(fs))
        defer { try? store.close() }
        #expect(try store.read { try $0.values(of: notes[1])?["priority"] } == .attribute(.integer(2)))
    }

    // MARK: - A model declared in code

    @Test func anOlderModelInCodeIsRefusedAndTheStoreKeepsItsData() throws {
        let fs = InMemoryFileSystem()
        let notes = try Self.writeWithNewer(fs)
        let before = fs.contents(of: Self.path)
        do {
            _ = try ObjectStore.open(
                path: Self.path, model: Self.older, options: Self.options(fs), migration: .automatic)
            Issue.record("an older model must not migrate a newer store back")
        } catch let MigrationError.refused(refusal) {
            #expect(refusal.reason == .wouldDropData)
            #expect(
                refusal.dropped == [
                    .init(entity: "Note", key: "priority", objects: 2), .init(entity: "Tag", key: nil, objects: 1),
                ])
            #expect(refusal.storeVersionHash == Self.newer.versionHash)
            #expect(refusal.modelVersionHash == Self.older.versionHash)
            #expect(MigrationError.refused(refusal).code == 134100)
            let text = "\(MigrationError.refused(refusal))"
            for part in [Self.path, Self.newer.versionHash, Self.older.versionHash, "Note.priority", "Tag", "134100"] {
                #expect(text.contains(part), "\(part) missing from: \(text)")
            }
            #expect(!text.contains("draft"), "a property holding no value drops nothing")
        }
        #expect(fs.contents(of: Self.path) == before, "the refused store is as it was")
        try Self.expectIntact(fs, notes)
    }

    @Test func askingForTheMigrationMigratesTheStoreBack() throws {
        let fs = InMemoryFileSystem()
        let notes = try Self.writeWithNewer(fs)
        let store = try ObjectStore.open(
            path: Self.path, model: Self.older, options: Self.options(fs), migration: .allowingDataLoss)
        defer { try? store.close() }
        #expect(try store.read { try $0.values(of: notes[1]) } == ["text": Self.str("call")])
        #expect(try store.read { try $0.count(FetchRequest(entity: "Note")) } == 3)
    }

    @Test func aStepBackThatDropsNothingStillRuns() throws {
        // The newer model's additions hold no value here: nothing is lost, the older model opens.
        let fs = InMemoryFileSystem()
        let store = try ObjectStore.open(path: Self.path, model: Self.newer, options: Self.options(fs))
        let id = try store.newObjectIDs(entity: "Note", count: 1)[0]
        try store.apply(ChangeSet(inserted: [id: ["text": Self.str("only text")]]))
        try store.close()
        let older = try ObjectStore.open(
            path: Self.path, model: Self.older, options: Self.options(fs), migration: .automatic)
        defer { try? older.close() }
        #expect(try older.read { try $0.values(of: id)?["text"] } == Self.str("only text"))
    }

    @Test func aLinkKeptByItsInverseIsNotDropped() throws {
        // The model opened lacks Person.pets but keeps Pet.owner: every link survives (MG3).
        let fs = InMemoryFileSystem()
        let store = try ObjectStore.open(path: Self.path, model: Self.older, options: Self.options(fs))
        let ann = try store.newObjectIDs(entity: "Person", count: 1)[0]
        let rex = try store.newObjectIDs(entity: "Pet", count: 1)[0]
        try store.apply(ChangeSet(inserted: [ann: ["name": Self.str("Ann")], rex: ["owner": .toOne(ann)]]))
        try store.close()
        var entities = Self.older.entities
        entities[1].relationships = []
        entities[2].relationships = [.init(name: "owner", destination: "Person")]
        let oneSided = try ObjectModel(entities: entities)
        let migrated = try ObjectStore.open(
            path: Self.path, model: oneSided, options: Self.options(fs), migration: .automatic)
        defer { try? migrated.close() }
        #expect(try migrated.read { try $0.values(of: rex)?["owner"] } == .toOne(ann))
    }

    @Test func linksOfARelationshipGoneOnBothSidesAreData() throws {
        // Neither Person.pets nor Pet.owner survives: the link is dropped, and named on both sides.
        let fs = InMemoryFileSystem()
        let store = try ObjectStore.open(path: Self.path, model: Self.older, options: Self.options(fs))
        let ann = try store.newObjectIDs(entity: "Person", count: 1)[0]
        let pets = try store.newObjectIDs(entity: "Pet", count: 2)
        try store.apply(
            ChangeSet(inserted: [ann: [:], pets[0]: ["owner": .toOne(ann)], pets[1]: ["owner": .toOne(ann)]]))
        try store.close()
        var entities = Self.older.entities
        entities[1].relationships = []
        entities[2].relationships = []
        let unlinked = try ObjectModel(entities: entities)
        do {
            _ = try ObjectStore.open(path: Self.path, model: unlinked, options: Self.options(fs), migration: .automatic)
            Issue.record("dropping every link must be refused")
        } catch let MigrationError.refused(refusal) {
            #expect(
                refusal.dropped == [
                    .init(entity: "Person", key: "pets", objects: 1), .init(entity: "Pet", key: "owner", objects: 2),
                ])
        }
    }

    @Test func aStepBackAlongThePlanIsRefusedUnlessAsked() throws {
        let fs = InMemoryFileSystem()
        let notes = try Self.writeWithNewer(fs)
        let plan = MigrationPlan(versions: [
            ModelVersion(name: "v1", model: Self.older), ModelVersion(name: "v2", model: Self.newer),
        ])
        do {
            _ = try ObjectStore.open(
                path: Self.path, model: Self.older, options: Self.options(fs), migration: MigrationOptions(plan: plan))
            Issue.record("a step back along the plan must be refused")
        } catch let MigrationError.refused(refusal) {
            #expect(refusal.reason == .storeIsNewer(storeVersion: "v2", modelVersion: "v1"))
            #expect("\(refusal)".contains("comes after v1"))
        }
        try Self.expectIntact(fs, notes)
        let back = try ObjectStore.open(
            path: Self.path, model: Self.older, options: Self.options(fs),
            migration: MigrationOptions(plan: plan, allowsDataLoss: true))
        #expect(try back.read { try $0.values(of: notes[0])?["priority"] } == nil)
        try back.close()
    }

    // MARK: - Model files

    /// A bundle `Notes.xcdatamodeld` with the versions given (name → contents body), the last current.
    static func bundle(_ versions: [(String, String)]) throws -> TempDirectory {
        let dir = try TempDirectory()
        for (name, body) in versions {
            try dir.write("Notes.xcdatamodeld/\(name).xcdatamodel/contents", modelXML(body))
        }
        try dir.write(
            "Notes.xcdatamodeld/.xccurrentversion",
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\"><dict><key>_XCCurrentVersionName</key>"
                + "<string>\(versions.last!.0).xcdatamodel</string></dict></plist>")
        return dir
    }

    static let noteV1 =
        "<entity name=\"Note\"><attribute name=\"text\" attributeType=\"String\" optional=\"YES\"/></entity>"
    static let noteV2 =
        "<entity name=\"Note\"><attribute name=\"text\" attributeType=\"String\" optional=\"YES\"/>"
        + "<attribute name=\"priority\" attributeType=\"Integer 64\" optional=\"YES\"/></entity>"

    @Test func anOlderModelFileIsRefusedAndAskingMigratesBack() throws {
        let newerBuild = try Self.bundle([("Notes", Self.noteV1), ("Notes 2", Self.noteV2)])
        let olderBuild = try Self.bundle([("Notes", Self.noteV1)])
        defer {
            newerBuild.remove()
            olderBuild.remove()
        }
        let newerHistory = try ModelFileReader.loadVersions(at: newerBuild.path("Notes.xcdatamodeld"))
        let olderHistory = try ModelFileReader.loadVersions(at: olderBuild.path("Notes.xcdatamodeld"))
        let newerModel = try #require(newerHistory.current?.model)
        let olderModel = try #require(olderHistory.current?.model)
        let fs = InMemoryFileSystem()
        let notes = try Self.writeWithNewer(fs, model: newerModel)
        // The older build's file does not know version 2: the inferred step back would drop data.
        do {
            _ = try ObjectStore.open(
                path: Self.path, model: olderModel, options: Self.options(fs),
                migration: MigrationOptions(plan: MigrationPlan(versions: olderHistory.versions)))
            Issue.record("an older model file must not migrate a newer store back")
        } catch let MigrationError.refused(refusal) {
            #expect(refusal.reason == .wouldDropData)
            #expect(refusal.dropped == [.init(entity: "Note", key: "priority", objects: 2)])
        }
        // The newer build's file opened at its first version: its versions say the store is newer.
        do {
            _ = try ObjectStore.open(
                path: Self.path, model: olderModel, options: Self.options(fs),
                migration: MigrationOptions(plan: MigrationPlan(versions: newerHistory.versions)))
            Issue.record("a step back along the file's versions must be refused")
        } catch let MigrationError.refused(refusal) {
            #expect(
                refusal.reason == .storeIsNewer(storeVersion: "Notes 2.xcdatamodel", modelVersion: "Notes.xcdatamodel"))
        }
        try Self.expectIntact(fs, notes, model: newerModel)
        let back = try ObjectStore.open(
            path: Self.path, model: olderModel, options: Self.options(fs),
            migration: MigrationOptions(plan: MigrationPlan(versions: olderHistory.versions), allowsDataLoss: true))
        #expect(try back.read { try $0.values(of: notes[1]) } == ["text": Self.str("call")])
        try back.close()
    }

    // MARK: - Messages

    @Test func aConstraintErrorListsTenObjectsAndCountsTheRest() throws {
        let fs = InMemoryFileSystem()
        let store = try ObjectStore.open(path: Self.path, model: Self.older, options: Self.options(fs))
        let pets = try store.newObjectIDs(entity: "Pet", count: 25)
        try store.apply(
            ChangeSet(inserted: Dictionary(uniqueKeysWithValues: pets.map { ($0, ["name": Self.str("Rex")]) })))
        try store.close()
        var entities = Self.older.entities
        entities[2].uniquenessConstraints = [["name"]]
        let unique = try ObjectModel(entities: entities)
        do {
            _ = try ObjectStore.open(path: Self.path, model: unique, options: Self.options(fs), migration: .automatic)
            Issue.record("the migration should have failed")
        } catch let error as MigrationError {
            guard case let .constraintViolation(_, _, objects) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(objects.count == 25, "the error keeps every object")
            #expect(error.code == 134111)
            let text = error.description
            #expect(text.contains("25 objects of Pet share name"))
            #expect(text.contains(pets[9].description + " and 15 more"), "\(text)")
            #expect(!text.contains(pets[10].description + ","), "\(text)")
            #expect(text.count < 600, "\(text.count) characters")
        }
    }
}

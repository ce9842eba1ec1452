import Foundation
import Testing

@testable import CdObjects

// Conditions on relationships planned on the relationship trees (QueryPlan+Relationships.swift):
// each form's plan, and its result against the answer computed from the generated data, with and
// without pending changes (RA1–RA3).

@Suite("Relationship query plans")
struct RelationshipPlanTests {
    static let model: ObjectModel = {
        do {
            return try ObjectModel(entities: [
                EntityDescription(
                    name: "Note",
                    attributes: [AttributeDescription(name: "title", type: .string)],
                    relationships: [
                        .toMany("tags", destination: "Tag", inverse: "notes"),
                        RelationshipDescription(name: "folder", destination: "Folder", inverse: "notes"),
                    ]),
                EntityDescription(
                    name: "Tag",
                    attributes: [
                        AttributeDescription(name: "name", type: .string, isIndexed: true),
                        AttributeDescription(name: "weight", type: .integer64),
                    ],
                    relationships: [.toMany("notes", destination: "Note", inverse: "tags")]),
                EntityDescription(
                    name: "Folder",
                    attributes: [AttributeDescription(name: "title", type: .string, isIndexed: true)],
                    relationships: [.toMany("notes", destination: "Note", inverse: "folder")]),
            ])
        } catch {
            fatalError("the note model is invalid: \(error)")
        }
    }()

    /// The data, as the test knows it.
    struct World {
        var store: ObjectStore
        var tags: [ObjectID] = []
        var tagName: [ObjectID: String] = [:]
        var tagWeight: [ObjectID: Int64] = [:]
        var folders: [ObjectID] = []
        var folderTitle: [ObjectID: String] = [:]
        var notes: [ObjectID] = []
        var noteTags: [ObjectID: Set<ObjectID>] = [:]
        var noteFolder: [ObjectID: ObjectID] = [:]
    }

    static func world(seed: UInt64) throws -> World {
        var rng = SeededGenerator(seed: seed)
        var w = World(store: try ObjectStore.open(path: nil, model: model))
        let names = ["red", "green", "blue", "amber", "azure"]
        w.tags = try w.store.newObjectIDs(entity: "Tag", count: 8)
        w.folders = try w.store.newObjectIDs(entity: "Folder", count: 4)
        w.notes = try w.store.newObjectIDs(entity: "Note", count: 120)
        var inserted: [ObjectID: [String: PropertyValue]] = [:]
        for (i, tag) in w.tags.enumerated() {
            w.tagName[tag] = names[i % names.count]
            w.tagWeight[tag] = Int64(i)
            inserted[tag] = [
                "name": .attribute(.string(names[i % names.count])), "weight": .attribute(.integer(Int64(i))),
            ]
        }
        for (i, folder) in w.folders.enumerated() {
            let title = ["Archive", "Inbox", "Alpha", "Work"][i]
            w.folderTitle[folder] = title
            inserted[folder] = ["title": .attribute(.string(title))]
        }
        for (i, note) in w.notes.enumerated() {
            var values: [String: PropertyValue] = ["title": .attribute(.string("note \(i)"))]
            let tags = Set(w.tags.filter { _ in Int.random(in: 0..<5, using: &rng) == 0 })
            w.noteTags[note] = tags
            values["tags"] = .toMany(tags.sorted())
            if Int.random(in: 0..<4, using: &rng) != 0 {
                let folder = w.folders[Int.random(in: 0..<w.folders.count, using: &rng)]
                w.noteFolder[note] = folder
                values["folder"] = .toOne(folder)
            }
            inserted[note] = values
        }
        try w.store.apply(ChangeSet(inserted: inserted))
        return w
    }

    static func fetch(
        _ w: World, _ format: String, _ args: [Any], pending: ChangeSet? = nil
    ) throws -> (
        plan: String, ids: [ObjectID]
    ) {
        var request = FetchRequest(entity: "Note")
        request.predicate = try CdPredicate(format: format, argumentArray: args)
        return (try w.store.read { try $0.explain(request) }, try w.store.fetch(request, pending: pending))
    }

    @Test(arguments: [1, 2, 3] as [UInt64]) func oneNamedObjectReadsItsList(_ seed: UInt64) throws {
        let w = try Self.world(seed: seed)
        let tag = w.tags[2]
        let expected = w.notes.filter { w.noteTags[$0]!.contains(tag) }
        for format in ["ANY tags == %@", "tags CONTAINS %@", "%@ IN tags"] {
            let (plan, ids) = try Self.fetch(w, format, [tag])
            #expect(plan == "RELATIONSHIP \(tag).notes", "\(format)")
            #expect(ids == expected, "\(format)")
        }
        let folder = w.folders[1]
        let (plan, ids) = try Self.fetch(w, "folder == %@", [folder])
        #expect(plan == "RELATIONSHIP \(folder).notes")
        #expect(ids == w.notes.filter { w.noteFolder[$0] == folder })
    }

    @Test(arguments: [1, 2, 3] as [UInt64]) func farSideConditionsReadTheirTargetsLists(_ seed: UInt64) throws {
        let w = try Self.world(seed: seed)
        func tagged(_ test: (ObjectID) -> Bool) -> [ObjectID] {
            w.notes.filter { w.noteTags[$0]!.contains(where: test) }
        }
        let cases: [(String, String, [ObjectID])] = [
            ("ANY tags.name == 'red'", "RELATED notes OF Tag WHERE ", tagged { w.tagName[$0] == "red" }),
            ("ANY tags.name BEGINSWITH 'a'", "RELATED notes OF Tag WHERE ", tagged { w.tagName[$0]!.hasPrefix("a") }),
            (
                "SUBQUERY(tags, $t, $t.name == 'red' AND $t.weight > 2).@count > 0", "RELATED notes OF Tag WHERE ",
                tagged { w.tagName[$0] == "red" && w.tagWeight[$0]! > 2 }
            ),
            (
                "ANY tags.name == 'blue' AND title ENDSWITH '1'", "RELATED notes OF Tag WHERE ",
                tagged { w.tagName[$0] == "blue" }.filter { w.notes.firstIndex(of: $0)! % 10 == 1 }
            ),
            (
                "folder.title BEGINSWITH 'A'", "RELATED notes OF Folder WHERE ",
                w.notes.filter { w.noteFolder[$0].map { w.folderTitle[$0]!.hasPrefix("A") } ?? false }
            ),
            // A missing folder satisfies `!=`: no far-side path, the scan answers.
            (
                "folder.title != 'Inbox'", "FULL SCAN Note",
                w.notes.filter { w.noteFolder[$0].map { w.folderTitle[$0] != "Inbox" } ?? true }
            ),
            (
                "NONE tags.name == 'red'", "FULL SCAN Note",
                w.notes.filter { !tagged { w.tagName[$0] == "red" }.contains($0) }
            ),
            (
                "ALL tags.name == 'red'", "FULL SCAN Note",
                w.notes.filter { w.noteTags[$0]!.allSatisfy { w.tagName[$0] == "red" } }
            ),
        ]
        for (format, planPrefix, expected) in cases {
            let (plan, ids) = try Self.fetch(w, format, [])
            #expect(plan.hasPrefix(planPrefix), "\(format): \(plan)")
            #expect(ids == expected, "\(format)")
        }
    }

    /// Pending changes (RA3): a renamed tag, a new link and a new note are seen as the store would
    /// see them after saving.
    @Test func pendingChangesAreSeen() throws {
        let w = try Self.world(seed: 7)
        let renamed = w.tags[1]  // green → purple
        let linked = try #require(w.notes.first { !w.noteTags[$0]!.contains(renamed) })
        let fresh = ObjectID(entity: "Note", primaryKey: 10_000)
        var pending = ChangeSet()
        pending.updated[renamed] = ["name": .attribute(.string("purple"))]
        pending.updated[linked] = ["tags": .toMany((w.noteTags[linked]! + [renamed]).sorted())]
        pending.inserted[fresh] = ["title": .attribute(.string("new")), "tags": .toMany([renamed])]
        let expected =
            w.notes.filter { $0 == linked || w.noteTags[$0]!.contains(renamed) } + [fresh]
        let (plan, ids) = try Self.fetch(w, "ANY tags.name == 'purple'", [], pending: pending)
        #expect(plan.hasPrefix("RELATED notes OF Tag WHERE "))
        #expect(Set(ids) == Set(expected))
        #expect(try Self.fetch(w, "ANY tags.name == 'green'", [], pending: pending).ids.contains(linked) == false)
    }
}

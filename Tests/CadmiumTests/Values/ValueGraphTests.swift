// Values over object graphs with inverses (a model file's usual shape): saving keeps both sides
// in step, an unchanged value saves nothing, and a struct that reads an inverse back into the
// value it came from is a typed error, not endless recursion.

import Foundation
import Testing
import CdObjects
@testable import Cadmium

/// A folder and its notes, with the inverse `folder` declared in the model.
struct Folder: CdManagedPersistentStruct, Equatable {
    var objectID: ObjectID?
    var name: String
    var notes: [Note]
}

struct Note: CdManagedPersistentStruct, Equatable {
    var objectID: ObjectID?
    var text: String
}

/// A folder without its notes.
struct FolderName: CdManagedPersistentStruct {
    static let entityName = "Folder"
    var objectID: ObjectID?
    var name: String
}

/// A note with its folder's name.
struct NoteWithFolder: CdManagedPersistentStruct {
    static let entityName = "Note"
    var objectID: ObjectID?
    var text: String
    var folder: FolderName?
}

/// A note that reads its folder back with the folder's notes: a cycle through `Folder.notes`.
struct NoteInCycle: CdManagedPersistentStruct {
    static let entityName = "Note"
    var objectID: ObjectID?
    var text: String
    var folder: Folder?
}

extension CadmiumSuites {
    @Suite struct ValueGraphTests {
        /// Folder.notes (unordered to-many) ↔ Note.folder (to-one), cascade from the folder.
        static func open() throws {
            let model = try ObjectModel(entities: [
                EntityDescription(
                    name: "Folder", attributes: [.init(name: "name", type: .string, isOptional: false)],
                    relationships: [.toMany("notes", destination: "Note", inverse: "folder", deleteRule: .cascade)]),
                EntityDescription(
                    name: "Note", attributes: [.init(name: "text", type: .string, isOptional: false)],
                    relationships: [.init(name: "folder", destination: "Folder", inverse: "notes")]),
            ])
            try Cd.initWithStore(model: CdModel(objectModel: model, classes: []), storeURL: nil)
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
        }

        @Test func inversesAndDeleteRulesOfTheModelApply() throws {
            try Self.open()
            try background {
                let folder = try Cd.transactAndWait { () throws -> Folder in
                    var folder = Folder(name: "F", notes: [Note(text: "a"), Note(text: "b")])
                    try folder.save()
                    return folder
                }
                #expect(folder.notes.allSatisfy { $0.objectID != nil })
                let notes = try Cd.values(NoteWithFolder.self).sorted("text").fetch()
                #expect(notes.map { $0.folder?.name } == ["F", "F"], "the inverse was set")
                // An unchanged value, an unordered to-many in another order: nothing to save.
                let changed = try Cd.transactAndWait { () throws -> Bool in
                    var same = try #require(try Cd.values(Folder.self).fetchOne())
                    same.notes.reverse()
                    try same.save()
                    return try Cd.transactionContext().hasChanges
                }
                #expect(changed == false)
                // Removing a note unlinks it: its inverse is nil afterwards.
                try Cd.transactAndWait {
                    var fewer = folder
                    fewer.notes.removeAll { $0.text == "a" }
                    try fewer.save()
                }
                let orphan = try Cd.values(NoteWithFolder.self).filter("text == %@", "a").fetchOne()
                #expect(orphan != nil && orphan?.folder == nil)
                // Cascade: deleting the folder deletes the notes it still holds.
                try Cd.transactAndWait { try folder.delete() }
                #expect(try Cd.values(Note.self).fetch().map(\.text) == ["a"])
            }
        }

        @Test func aCycleOfRelationshipsIsATypedError() throws {
            try Self.open()
            try background {
                try Cd.transactAndWait {
                    var folder = Folder(name: "F", notes: [Note(text: "a")])
                    try folder.save()
                }
                // Note → folder → Folder → notes → the same note again.
                expectValueError(.unsupportedShape, "Folder", property: "notes", entity: "Folder") {
                    _ = try Cd.values(NoteInCycle.self).fetch()
                }
            }
        }
    }
}

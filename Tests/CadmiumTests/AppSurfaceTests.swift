// The API as an app sees it: this file imports `Cadmium` without `@testable`, and `Foundation`,
// and nothing of the layers below. It names every type `import Cadmium` is meant to show (the
// list in docs/CADMIUM-API.md, "What `import Cadmium` shows") and uses Foundation's
// `SortDescriptor` unqualified: with the object store's sort key re-exported, that name would be
// ambiguous and this file would not compile.

import Cadmium
import Foundation
import Testing

/// A folder of notes, declared as an app declares its entities.
final class AppFolder: CdManagedObject {
    @Attribute(.unique) var title: String
    @Relationship(inverse: "folder", deleteRule: DeleteRule.cascade) var notes: Set<AppNote>
}

/// A note in a folder.
final class AppNote: CdManagedObject {
    @Attribute(.length(1...64)) var title: String
    @Attribute var words: Int64 = 0
    @Attribute var edited: Date?
    @Relationship(inverse: "notes") var folder: AppFolder?
}

/// A note's values outside any context, sorted with Foundation's `SortDescriptor`.
private struct NoteRow: Equatable {
    var title: String
    var words: Int64
}

extension CadmiumSuites {
    @Suite struct AppSurface {
        /// Opens an in-memory store with the app's model and options.
        private func openStore() throws -> CdModel {
            let model = try CdModel(classes: [AppFolder.self, AppNote.self])
            var options = StoreOptions()
            options.durability = Durability.full
            try Cd.initWithStore(model: model, storeURL: nil, options: options, serialTX: false)
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            return model
        }

        @Test func modelOptionsAndObjectIDs() throws {
            let model = try openStore()
            let objectModel: ObjectModel = model.objectModel
            #expect(objectModel.entityNames.sorted() == ["AppFolder", "AppNote"])
            let ids: [ObjectID] = try background {
                try Cd.transactAndWait {
                    let folder = try Cd.create(AppFolder.self)
                    folder.title = "Ideas"
                    let notes = try Cd.create(AppNote.self, count: 3)
                    for (note, (title, words)) in zip(notes, [("b", 20), ("a", 10), ("c", 30)]) {
                        note.title = title
                        note.words = Int64(words)
                        note.folder = folder
                    }
                    return notes.compactMap(\.objectID)
                }
            }
            #expect(ids.count == 3)
            let byTitle = try background {
                try Cd.read {
                    try Cd.objects(AppNote.self)
                        .filter(try CdPredicate(format: "words >= %@", 20))
                        .sorted(CdSortDescriptor("title", ascending: false))
                        .fetch()
                        .map(\.title)
                }
            }
            #expect(byTitle == ["c", "b"])
            let sum = try background {
                try Cd.read {
                    try Cd.dictionaryQuery(for: AppNote.self)
                        .includeExpression("total", resultType: AttributeType.integer64, withFormat: "@sum.words")
                        .onlyProperties(["total"])
                        .fetch()
                }
            }
            #expect(sum.first?["total"] as? Int64 == 60)
            let value: CdValue = "a".cdValue
            #expect(value == CdValue.string("a"))
        }

        @Test func foundationSortDescriptorIsTheUnqualifiedOne() throws {
            _ = try openStore()
            try background {
                try Cd.transactAndWait {
                    for (title, words) in [("x", 3), ("y", 1), ("z", 2)] {
                        let note = try Cd.create(AppNote.self)
                        note.title = title
                        note.words = Int64(words)
                    }
                }
            }
            let rows = try background {
                try Cd.read { try Cd.objects(AppNote.self).fetch().map { NoteRow(title: $0.title, words: $0.words) } }
            }
            let byWords = SortDescriptor(\NoteRow.words, order: .forward)
            #expect(rows.sorted(using: byWords).map(\.title) == ["y", "z", "x"])
        }

        @Test func errorsAnAppCatches() throws {
            _ = try openStore()
            // A required attribute left unset: the commit throws the store's validation error.
            do {
                try background { try Cd.transactAndWait { _ = try Cd.create(AppNote.self) } }
                Issue.record("the commit should have failed validation")
            } catch let error as CdError {
                let failure: ValidationFailure? = error.failure
                #expect(error.code == 1570)
                #expect(failure?.entity == "AppNote")
            }
            // A malformed predicate format is thrown by the query's terminal.
            do {
                _ = try background { try Cd.read { try Cd.objects(AppNote.self).filter("title ==").fetch() } }
                Issue.record("the malformed format should have thrown")
            } catch let error as CdPredicateError {
                #expect(!error.description.isEmpty)
            }
            // Every case of CdError is reachable by name, with its payload's type.
            func describe(_ error: CdError) -> String {
                switch error {
                case let .model(modelError): return "model: \(modelError as ModelError)"
                case let .store(storeError): return "store: \(storeError as StoreError)"
                default: return "\(error)"
                }
            }
            #expect(describe(.store(StoreError.locked(path: "p"))).hasPrefix("store: "))
        }

        @Test func misuseIsThrownAsCdMisuse() throws {
            _ = try openStore()
            let seen = LockedBox<[CdMisuse.Kind]>([])
            Cd.misuseHandler = { misuse in seen.update { $0.append(misuse.kind) } }
            defer { Cd.misuseHandler = Cd.defaultMisuseHandler }
            try background {
                do {
                    try Cd.commit()
                    Issue.record("commit outside a transaction should have thrown")
                } catch let misuse as CdMisuse {
                    #expect(misuse.kind == .f4)
                }
            }
            #expect(seen.get() == [.f4])
        }
    }
}

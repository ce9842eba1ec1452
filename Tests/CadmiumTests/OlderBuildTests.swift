// The reproduction of issue 25's older-build finding through the `Cd` API: an app whose classes
// lack an attribute a newer build added (NoteV1 lacks NoteV2's `stars`) opens the newer build's
// store. The open is refused, the values stay, and an explicit request migrates back.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct OlderBuild {
        @MainActor @Test func anOlderBuildIsRefusedUnlessItAsksToMigrateBack() throws {
            let url = try CadmiumSuites.Close.temporaryStore()
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            // The newer build writes a note with 5 stars.
            try Cd.initWithStore(model: try CdModel(classes: [NoteV2.self]), storeURL: url)
            try background {
                try Cd.transactAndWait {
                    let note = try Cd.create(NoteV2.self)
                    note.title = "rated"
                    note.stars = 5
                }
            }
            try Cd.close()
            let before = try Data(contentsOf: url)
            // The older build: refused, with the store, the hashes and what would go in the message.
            let older = try CdModel(classes: [NoteV1.self])
            do {
                try Cd.initWithStore(model: older, storeURL: url)
                Issue.record("the older build must not migrate the newer store back")
            } catch let MigrationError.refused(refusal) {
                #expect(refusal.dropped == [.init(entity: "Note", key: "stars", objects: 1)])
                #expect(refusal.modelVersionHash == older.objectModel.versionHash)
                let text = String(describing: MigrationError.refused(refusal))
                #expect(text.contains(url.path) && text.contains("Note.stars") && text.contains("134100"), "\(text)")
            }
            #expect(try Data(contentsOf: url) == before, "the store is as the newer build left it")
            // The newer build still reads its values.
            try Cd.initWithStore(model: try CdModel(classes: [NoteV2.self]), storeURL: url)
            #expect(try Cd.objects(NoteV2.self).fetch().map(\.stars) == [5])
            try Cd.close()
            // Asked for explicitly, the older build migrates it back.
            try Cd.initWithStore(model: older, storeURL: url, migration: .allowingDataLoss)
            #expect(try Cd.objects(NoteV1.self).fetch().map(\.title) == ["rated"])
            try Cd.close()
        }
    }
}

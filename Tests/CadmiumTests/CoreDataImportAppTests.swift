import Cadmium
import CdCoreDataImport
import Foundation
import Testing

extension CadmiumSuites {
    /// The issue's example, as an app runs it: import a real Core Data store, open it with the
    /// `Cd` API under the version the report names, and find an object by its Core Data key.
    @Suite("Imported Core Data store in the Cd API") struct CoreDataImportApp {
        @MainActor @Test func anImportedStoreOpensAndFindsObjectsByTheirCoreDataKeys() throws {
            var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            var fixture: URL?
            while folder.path != "/" {
                let candidate = folder.deletingLastPathComponent()
                    .appendingPathComponent("shared/fixtures/coredata-stores/wibosco-one-to-one-v3")
                if FileManager.default.fileExists(atPath: candidate.path) { fixture = candidate }
                folder = folder.deletingLastPathComponent()
            }
            guard let fixture else {
                #expect(ProcessInfo.processInfo.environment["CI"] != "true", "fixture folder is missing")
                return
            }
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cd-import-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let storeURL = dir.appendingPathComponent("Posts.cdstore")
            let bundle = fixture.appendingPathComponent("CoreDataMigration_Example.xcdatamodeld")
            let report = try CoreDataImport.importStore(
                at: fixture.appendingPathComponent("CoreDataMigration_Example_3.sqlite"), model: bundle, to: storeURL)
            let model = try CdModel(contentsOf: bundle, version: report.modelVersion, classes: [])
            try Cd.initWithStore(model: model, storeURL: storeURL, serialTX: false)
            defer { try? Cd.close() }
            let posts = try Cd.objects(entityNamed: "Post").fetch()
            #expect(posts.count == report.objectCounts["Post"])
            let first = try #require(posts.first?.objectID)
            let uri = try #require(URL(string: "x-coredata://\(report.storeUUID)/Post/p\(first.primaryKey)"))
            let id = try #require(ObjectID(coreDataURI: uri, storeUUID: report.storeUUID))
            let post = try Cd.objects(entityNamed: "Post").filter("SELF == %@", id).fetchOne()
            #expect(post?.objectID == first)
        }
    }
}

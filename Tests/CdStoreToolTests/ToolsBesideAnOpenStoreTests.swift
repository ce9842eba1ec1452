// Every reading subcommand of `cdstore` works on a store an app holds open and keeps writing,
// without stopping it: each reads a consistent snapshot that holds the app's last commit, and the
// app commits again meanwhile and afterwards. (Compaction, which replaces the file, is refused
// instead: CompactCommandTests.)

import CdObjects
import CdStore
import Foundation
import Testing

@Suite struct ToolsBesideAnOpenStoreTests {
    @Test func readingSubcommandsReadWhatTheOpenStoreCommittedAndItGoesOn() throws {
        try Cdstore.withTempDir { dir in
            let path = dir.appendingPathComponent("open.cdstore").path
            try SampleStore.create(at: path)
            let app = try ObjectStore.open(path: path, model: SampleStore.model)
            defer { try? app.close() }
            func hire(_ name: String) throws {
                let id = try app.newObjectIDs(entity: "Employee", count: 1)[0]
                try app.apply(ChangeSet(inserted: [id: ["name": .attribute(.string(name))]]))
            }
            try hire("Barbara")
            let export = try Cdstore.run(["export", path, "--format", "ndjson"])
            #expect(export.status == 0, "\(export.stderr)")
            #expect(export.stdout.contains("Barbara"), "the export read the open store's last commit")
            try hire("Edsger")
            let info = try Cdstore.run(["info", path])
            #expect(info.status == 0, "\(info.stderr)")
            let verify = try Cdstore.run(["verify", "--quiet", path])
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
            try hire("Tony")
            let again = try Cdstore.run(["export", path, "--format", "ndjson"])
            #expect(again.stdout.contains("Edsger") && again.stdout.contains("Tony"))
            let employees = try app.read { snapshot in try snapshot.fetchIDs(FetchRequest(entity: "Employee")).count }
            #expect(employees == 7, "the app's commits before, between and after the tools")
        }
    }
}

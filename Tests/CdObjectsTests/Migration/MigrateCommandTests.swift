import CdFaultSupport
import CdStore
import Foundation
import Testing
@testable import CdObjects

/// `cdstore-migrate`, the built binary: migrates a checked-in v1 store to SampleModel v3 and
/// verifies it (exit 0); a migration that is not possible (v3 back to v1: a store is never
/// stepped back to an earlier version unasked) exits 4 and leaves the store as it was, and
/// `--allow-data-loss` asks for it (which here fails on its own: v1 requires a value v3 lacks).
@Suite(.enabled(if: ModelFixtures.shouldRun, ModelFixtures.skipReason))
struct MigrateCommandTests {
    @Test func migratesAndVerifiesOrRefusesLeavingTheStore() throws {
        guard let model = ModelFixtures.path("SampleModel.xcdatamodeld") else { return }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cd-migrate-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("s.cdstore").path
        try FileManager.default.copyItem(atPath: MigrationFixtureTests.fixture(0).path, toPath: store)
        let tool = try BuiltExecutable.locate("cdstore-migrate")
        let forward = try BuiltExecutable.run(
            tool, arguments: ["--no-progress", "--model", model, "--version", "SampleModel3", store])
        #expect(forward.status == 0, "\(forward.stdout) \(forward.stderr)")
        #expect(forward.stdout.contains("version SampleModel3.xcdatamodel"))
        #expect(forward.stdout.contains("verified: no problems"))
        let history = try ModelFileReader.loadVersions(at: model)
        let v3 = history.versions[2].versionHash
        #expect(try StoreMigrator.storedModel(path: store, options: StoreOptions())?.hash == v3)
        let back = try BuiltExecutable.run(tool, arguments: ["--no-progress", "--model", model, store])
        #expect(back.status == 4, "\(back.stdout) \(back.stderr)")
        #expect(back.stderr.contains("never migrated back"), "\(back.stderr)")
        #expect(try StoreMigrator.storedModel(path: store, options: StoreOptions())?.hash == v3)
        // Asked for, the step back is tried (MG10): here it cannot be inferred (v1 requires a
        // Person.id that v3 dropped), so the store stays v3, refused for that reason instead.
        let asked = try BuiltExecutable.run(
            tool, arguments: ["--no-progress", "--allow-data-loss", "--model", model, store])
        #expect(asked.status == 4, "\(asked.stdout) \(asked.stderr)")
        #expect(!asked.stderr.contains("MigrationError.refused"), "\(asked.stderr)")
        #expect(asked.stderr.contains("(Person/1).id: a value is required"), "\(asked.stderr)")
        #expect(try StoreMigrator.storedModel(path: store, options: StoreOptions())?.hash == v3)
        let usage = try BuiltExecutable.run(tool, arguments: ["--model", model, "--version", "Nope", store])
        #expect(usage.status == 16)
    }
}

import CdStore
import Foundation
import Testing
@testable import CdObjects

/// Stores written with each version of SampleModel, checked in under Fixtures/migration, so that a
/// later change of the format or of migration is tested against real old files: each opens with
/// the newest version and holds every object. `CADMIUM_WRITE_FIXTURES=1` rewrites them (only do
/// that when the files are meant to change).
@Suite(.enabled(if: ModelFixtures.shouldRun, ModelFixtures.skipReason))
struct MigrationFixtureTests {
    static let folder = ModelFixtures.repoRoot.appendingPathComponent("Fixtures/migration")

    static func fixture(_ index: Int) -> URL { folder.appendingPathComponent("SampleModel-v\(index + 1).cdstore") }

    @Test(arguments: [0, 1, 2])
    func aCheckedInStoreOfEveryVersionOpensWithTheNewest(version index: Int) throws {
        guard let history = try SampleModelMigrationTests.history() else { return }
        let source = Self.fixture(index)
        if ProcessInfo.processInfo.environment["CADMIUM_WRITE_FIXTURES"] == "1" {
            try FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true)
            let fs = InMemoryFileSystem()
            _ = try SampleModelMigrationTests.write(version: history.versions[index], fs: fs)
            try Data(try #require(fs.contents(of: SampleModelMigrationTests.path))).write(to: source)
        }
        // The fixture is copied into a file system of its own: the checked-in file never changes.
        let bytes = try [UInt8](Data(contentsOf: source))
        let fs = InMemoryFileSystem()
        let file = try fs.open(SampleModelMigrationTests.path, mode: .createIfMissing)
        try bytes.withUnsafeBytes { try file.write($0, at: 0) }
        try file.close()
        let stored = try #require(
            try StoreMigrator.storedModel(path: SampleModelMigrationTests.path, options: StoreOptions(fileSystem: fs)))
        #expect(stored.hash == history.versions[index].versionHash, "the fixture is a store of its version")
        let store = try ObjectStore.open(
            path: SampleModelMigrationTests.path, model: history.versions[2].model,
            options: StoreOptions(fileSystem: fs),
            migration: MigrationOptions(plan: MigrationPlan(versions: history.versions)))
        defer { try? store.close() }
        let expensive = index == 0 ? "ExpensiveSportCar" : "LuxuryCar"
        // The ids `write` hands out: people 1–2, cars 1–3 in one hierarchy.
        let ids = [
            "ann": ObjectID(entity: "Person", primaryKey: 1), "bob": ObjectID(entity: "Person", primaryKey: 2),
            "car": ObjectID(entity: "Car", primaryKey: 1), "sport": ObjectID(entity: "SportCar", primaryKey: 2),
            "luxury": ObjectID(entity: expensive, primaryKey: 3),
        ]
        try SampleModelMigrationTests.expectMigrated(store, ids)
    }
}

import CdStore
import CdStoreTesting
import Foundation
import Testing
@testable import CdObjects

/// Crash safety of a migration (StoreMigrator MG5–MG8): a simulated crash, then power loss, at
/// every file operation of a SampleModel v1 → v3 migration leaves either the old store (which
/// verifies clean and migrates on the next open) or the new one, complete; an I/O error at any
/// operation throws and leaves the old store.
@Suite(.enabled(if: ModelFixtures.shouldRun, ModelFixtures.skipReason))
struct MigrationFaultTests {
    static let path = SampleModelMigrationTests.path

    /// The v1 store's files, and the ids of its objects.
    static func v1Files(_ history: ModelVersionHistory) throws -> ([String: [UInt8]], [String: ObjectID]) {
        let fs = InMemoryFileSystem()
        let ids = try SampleModelMigrationTests.write(version: history.versions[0], fs: fs)
        var files: [String: [UInt8]] = [:]
        for path in fs.paths { files[path] = fs.contents(of: path) }
        return (files, ids)
    }

    static func migrate(_ fs: any StoreFileSystem, _ history: ModelVersionHistory) throws -> ObjectStore {
        try ObjectStore.open(
            path: path, model: history.versions[2].model, options: StoreOptions(fileSystem: fs),
            migration: MigrationOptions(plan: MigrationPlan(versions: history.versions)))
    }

    static func verifyClean(_ fs: any StoreFileSystem, _ label: String) throws {
        var options = VerifierOptions(fileSystem: fs)
        options.additionalPasses = [ObjectStoreCheck()]
        let report = try StoreVerifier.verify(path: path, options: options)
        #expect(report.problemCount == 0, "\(label): \(report.problems.prefix(3))")
    }

    @Test func aCrashAtEveryOperationLeavesTheOldStoreOrTheNewOne() throws {
        guard let history = try SampleModelMigrationTests.history() else { return }
        let (files, ids) = try Self.v1Files(history)
        let clean = FaultInjectingFileSystem(files: files, logsOperations: true)
        try Self.migrate(clean, history).close()
        let total = clean.operationCount
        #expect(clean.operationLog.contains { $0.kind == .rename })
        var outcomes: [String: Int] = [:]
        for point in 1...total {
            let fs = FaultInjectingFileSystem(
                files: files, plan: .crash(atOperation: point, landing: (point * 389) % 6000), logsOperations: false)
            do {
                try Self.migrate(fs, history).close()
            } catch  where fs.crash != nil {
            }
            for mode: PowerLossMode in [.dropUnsynced, [.reorderUnsynced, .tearLast]] {
                let rebooted = fs.powerLoss(seed: UInt64(point), mode: mode)
                let label = "crash at op \(point)/\(total), mode \(mode.rawValue)"
                let stored = try #require(
                    try StoreMigrator.storedModel(path: Self.path, options: StoreOptions(fileSystem: rebooted)),
                    "\(label): no store")
                let version = history.versions.firstIndex { $0.versionHash == stored.hash }
                #expect(version == 0 || version == 2, "\(label): the store is of neither version")
                outcomes[version == 0 ? "old" : "new", default: 0] += 1
                try Self.verifyClean(rebooted, label)
                let store = try Self.migrate(rebooted, history)
                try SampleModelMigrationTests.expectMigrated(store, ids)
                try store.close()
                try Self.verifyClean(rebooted, "\(label), migrated")
            }
        }
        // Both outcomes happen: crashes before the swap and after it.
        #expect(outcomes["old", default: 0] > 0 && outcomes["new", default: 0] > 0, "\(outcomes)")
    }

    @Test(arguments: [EIO, ENOSPC])
    func anIOErrorAtEveryOperationLeavesTheOldStore(errno code: Int32) throws {
        guard let history = try SampleModelMigrationTests.history() else { return }
        let (files, ids) = try Self.v1Files(history)
        let clean = FaultInjectingFileSystem(files: files, logsOperations: false)
        try Self.migrate(clean, history).close()
        for op in 1...clean.operationCount {
            let fs = FaultInjectingFileSystem(
                files: files, plan: .fail(operation: op, errno: code), logsOperations: false)
            let label = "errno \(code) at op \(op)"
            var migrated = false
            do {
                try Self.migrate(fs, history).close()
                migrated = true
            } catch {
                #expect(error is CdError || error is MigrationError, "\(label): \(error)")
            }
            fs.plan = .none
            let stored = try #require(
                try StoreMigrator.storedModel(path: Self.path, options: StoreOptions(fileSystem: fs)))
            let version = history.versions.firstIndex { $0.versionHash == stored.hash }
            if !migrated { #expect(version == 0 || version == 2, "\(label)") }
            let store = try Self.migrate(fs, history)
            try SampleModelMigrationTests.expectMigrated(store, ids)
            try store.close()
        }
    }
}

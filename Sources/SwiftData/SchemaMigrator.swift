// Runs a `SchemaMigrationPlan` on a store file before its container opens it: finds the version the
// file was written with, then runs the stages from there to the newest version one by one, each
// on its own, so that a failure leaves the file at the last completed version.
//
// Invariants:
//  SM1. The file's version is the plan's version whose entity model the file opens with (the
//       store compares model hashes); a file of no version of the plan is left alone and the
//       container's own open reports it.
//  SM2. A stage's lightweight step is the engine's migration from one version's model to the
//       next's, crash-safe (written beside the file, then swapped in).

internal import CdObjects
internal import CdStore
import Foundation

/// Migration of a file along a plan.
enum SchemaMigrator {
    /// Brings the file at `path` to the newest version of `plan`.
    static func migrate(path: String, plan: any SchemaMigrationPlan.Type) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        let schemas = plan.schemas
        let models = try schemas.map { try Schema(versionedSchema: $0).objectModel() }
        guard var current = try storedVersion(path: path, models: models) else { return }  // keeps SM1
        while current < schemas.count - 1 {
            let from = schemas[current], to = schemas[current + 1]
            let stage = plan.stages.first {
                $0.fromVersion.versionIdentifier == from.versionIdentifier
                    && $0.toVersion.versionIdentifier == to.versionIdentifier
            }
            if case let .custom(_, _, willMigrate, _)? = stage, let willMigrate {
                try run(willMigrate, on: path, schema: Schema(versionedSchema: from))
            }
            try step(path: path, from: (from, models[current]), to: (to, models[current + 1]))
            if case let .custom(_, _, _, didMigrate)? = stage, let didMigrate {
                try run(didMigrate, on: path, schema: Schema(versionedSchema: to))
            }
            current += 1
        }
    }

    /// The index of the version the file was written with, nil when it is none of them.
    private static func storedVersion(path: String, models: [ObjectModel]) throws -> Int? {
        for (index, model) in models.enumerated().reversed() {
            do {
                let store = try ObjectStore.open(path: path, model: model, migration: .disabled)
                try store.close()
                return index
            } catch CdError.incompatibleModel {
                continue
            } catch {
                throw SwiftDataError.store(error, opening: true)
            }
        }
        return nil
    }

    /// The lightweight step between two versions (keeps SM2).
    private static func step(
        path: String, from: (any VersionedSchema.Type, ObjectModel), to: (any VersionedSchema.Type, ObjectModel)
    ) throws {
        let fromName = "\(from.0.versionIdentifier)", toName = "\(to.0.versionIdentifier)"
        let plan = MigrationPlan(
            versions: [ModelVersion(name: fromName, model: from.1), ModelVersion(name: toName, model: to.1)],
            stages: [CdObjects.MigrationStage.lightweight(from: fromName, to: toName)])
        do {
            let store = try ObjectStore.open(path: path, model: to.1, migration: MigrationOptions(plan: plan))
            try store.close()
        } catch {
            throw SwiftDataError(
                .loadIssueModelContainer, "migrating \(path) from version \(fromName) to \(toName) failed: \(error)")
        }
    }

    /// Runs a stage's closure in a context on `schema`, saves it, and closes the store.
    private static func run(_ body: (ModelContext) throws -> Void, on path: String, schema: Schema) throws {
        let container = try ModelContainer(
            for: schema, configurations: [ModelConfiguration(url: URL(fileURLWithPath: path))])
        let context = ModelContext(container)
        try body(context)
        try context.save()
    }
}

// Opening a store with migration: a store written with another model version is migrated to the
// model it is opened with (StoreMigrator: beside the old file, then swapped), then opened.

import CdStore

extension ObjectStore {
    /// Opens the store at `path` as ``open(path:model:options:)`` does; a store written with
    /// another model is first migrated to `model` when `migration` allows it (crash-safely: the
    /// new store is written beside the old one and replaces it only when complete; see
    /// docs/MIGRATION.md). An in-memory store (`path == nil`) is always new.
    ///
    /// - Throws: `MigrationError` when the migration cannot be done (the old store is then as it
    ///   was); `CdError.incompatibleModel` when migration is disabled; store errors.
    /// ```swift
    /// let store = try ObjectStore.open(path: path, model: v3, migration: MigrationOptions(plan: plan))
    /// ```
    public static func open(
        path: String?, model: ObjectModel, options: StoreOptions = StoreOptions(), migration: MigrationOptions
    ) throws -> ObjectStore {
        if let path, migration.isEnabled {
            // Leftovers of a migration that did not finish are removed at its next start; here only
            // the store's own model decides.
            if let stored = try StoreMigrator.storedModel(path: path, options: options),
                stored.hash != model.versionHash
            {
                try StoreMigrator.migrate(
                    path: path, stored: stored, target: model, options: options, migration: migration)
                migration.progress?(MigrationProgress(phase: .finished, completed: 1, total: 1))
            }
        }
        return try open(path: path, model: model, options: options)
    }
}

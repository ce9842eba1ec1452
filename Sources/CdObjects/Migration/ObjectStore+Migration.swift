// Opening a store with migration: a store written with another model version is migrated to the
// model it is opened with (StoreMigrator: beside the old file, then swapped), then opened.

import CdStore

extension ObjectStore {
    /// Opens the store at `path` as ``open(path:model:options:)`` does; a store written with
    /// another model is first migrated to `model` when `migration` allows it and the open is not
    /// read-only (crash-safely: the new store is written beside the old one and replaces it only
    /// when complete; see docs/MIGRATION.md). An in-memory store (`path == nil`) is always new.
    ///
    /// - Throws: `MigrationError` when the migration cannot be done (the old store is then as it
    ///   was), `MigrationError.refused` (134100) when it would step a newer store back or drop
    ///   stored data and `migration.allowsDataLoss` is off; `CdError.incompatibleModel` when
    ///   migration is disabled or the open read-only; store errors.
    /// ```swift
    /// let store = try ObjectStore.open(path: path, model: v3, migration: MigrationOptions(plan: plan))
    /// ```
    public static func open(
        path: String?, model: ObjectModel, options: StoreOptions = StoreOptions(), migration: MigrationOptions
    ) throws -> ObjectStore {
        // The common case pays nothing: the store is opened as usual, and only a store of another
        // model (the plain open refuses it with its objects untouched) is read again and migrated.
        do {
            return try open(path: path, model: model, options: options)
        } catch CdError.incompatibleModel where path != nil && migration.isEnabled && !options.readOnly {
        }
        guard let path, let stored = try StoreMigrator.storedModel(path: path, options: options) else {
            return try open(path: path, model: model, options: options)
        }
        try StoreMigrator.migrate(path: path, stored: stored, target: model, options: options, migration: migration)
        migration.progress?(MigrationProgress(phase: .finished, completed: 1, total: 1))
        return try open(path: path, model: model, options: options)
    }
}

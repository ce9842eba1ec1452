// Compaction: the store's live objects rewritten into a fresh file that replaces the old one, for
// `cdstore compact`.
//
// Compaction is a migration from the store's recorded model to the same model: StoreMigrator's
// steps 1–6 read every object with the old store open (and so locked), write them into a new store
// at `<path>.migration` in one commit with the same object IDs and next keys, close it, and
// rename it over `<path>`. So the crash-safety argument is the migration's (MG5–MG9): until the
// rename, `<path>` is the old store, whole; after it, the new one, whole.
//
// Invariants:
//  CP1. Every object keeps its ID and every value and relationship; each root's next key is kept
//       (MG4), so a key handed out before compaction is never handed out again.
//  CP2. A store another handle has open is refused (`StoreError.locked`) before any file is made:
//       the old store is opened for writing, which takes its exclusive lock.
//  CP3. The persistent history is kept: same model, same IDs, so the history ID and every
//       transaction are copied (MG11); so are the engine trees of other layers, such as a synced
//       store's `sync.state` (MG12).

import CdStore
import Foundation

extension ObjectStore {
    /// Rewrites the store at `path` into a fresh file of its live data and replaces it (CP1, CP2).
    /// Throws `CdError.store(.locked)` when another handle has the store open.
    ///
    /// ```swift
    /// try ObjectStore.compact(path: "app.cdstore", options: StoreOptions())
    /// ```
    package static func compact(
        path: String, options: StoreOptions, progress: (@Sendable (MigrationProgress) -> Void)? = nil
    ) throws {
        guard let stored = try StoreMigrator.storedModel(path: path, options: options) else {
            throw StoredModelError.noObjectModel(path: path)
        }
        guard let model = stored.model else {
            throw StoredModelError.unreadableModel(path: path, detail: "the model JSON is missing or does not decode")
        }
        var migration = MigrationOptions()
        migration.progress = progress
        try StoreMigrator.migrate(path: path, stored: stored, target: model, options: options, migration: migration)
    }
}

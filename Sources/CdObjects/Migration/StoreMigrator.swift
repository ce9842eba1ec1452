// Migrating a store file to the model it is opened with, crash-safely.
//
// The old store is only read. The new store is written beside it, at `<path>.migration` (with
// its log `<path>.migration-wal`), complete and closed before it replaces the old one:
//
//   1. open the old store with the model it was written with (it stays open, and locked,
//      until step 4 is done); remove `<path>.migration` and `<path>.migration-wal` left by an
//      earlier attempt;
//   2. read every object of the old store into memory;
//   3. map the objects step by step (lightweight or custom stages), check uniqueness;
//   4. create the new store at `<path>.migration`, insert every object in one commit, store the
//      next keys, close it (checkpoint, fsync; its log is emptied); then close the old store
//      (its close checkpoints: every commit is in `<path>` and `<path>-wal` is empty);
//   5. remove `<path>.migration-wal` and `<path>-wal` (both empty, 4), sync the directory;
//   6. rename `<path>.migration` to `<path>` (atomic replacement), sync the directory.
//
// Invariants (the crash-safety argument, checked by the migration fault and kill tests):
//  MG5. Until step 6, `<path>` is the old page file (with its log while it is open), and holds
//       every commit of the old store: a crash leaves the old store, which opens (a missing log
//       is an empty one) and is migrated again from step 1.
//  MG6. Step 6 is one `rename`, and when it runs `<path>.migration` is a complete, closed and
//       synced store of the new model: after it, `<path>` is the new store, whole.
//  MG7. No `-wal` file survives beside a page file it does not belong to: both logs are removed
//       (step 5) before the page files change names, so a log can never be replayed onto the
//       other store's pages.
//  MG9. While the objects are read, mapped and written (steps 2–4) the old store is open and
//       holds its lock: another process cannot open it, commit to it (a commit the new store
//       would not have) or start a second migration that removes this one's new files.
//  MG8. A failure before step 6 (a constraint the old data breaks, a value that needs a custom
//       stage, an I/O error) removes the new files and throws; `<path>` is as it was.
//  MG10. A step back (the model's versions put the store's after the one opened) and an inferred
//       step outside the declared versions that drops stored data run only with
//       `MigrationOptions.allowsDataLoss`; otherwise `MigrationError.refused` is thrown after
//       step 2 at the latest, before any file is created (MigrationRefusal, MR1).
//  MG11. Persistent history does not cross a migration: the new store's objects are written
//       with no history, and when the old store kept history (or the open asks for it) the new
//       one starts it anew in step 4, with a new history ID and no transactions, so its first
//       commit is number 1 and every token of the old store throws 134301 (HS5 in
//       HistoryLayout.swift): a reader then reads the objects again, as after losing its place.
//       A rewrite to the same model (no step: `cdstore compact`) keeps every object ID, so it
//       carries the history over instead: the same history ID and transactions, and tokens stay
//       valid.
//  MG12. Engine trees outside the `cd.` prefix (another layer's) are carried over when every
//       object keeps its ID; otherwise the migration is refused, or with `allowsDataLoss` drops
//       them (StoreMigrator+ForeignTrees.swift).

import CdStore
import Foundation

/// Migrates store files; `ObjectStore.open(path:model:options:migration:)` uses it.
enum StoreMigrator {
    /// What the store at a path records: its version hash and model.
    struct StoredModel {
        let hash: String
        let model: ObjectModel?
    }

    /// The hash and model recorded in the store at `path`, nil for a missing or new store.
    static func storedModel(path: String, options: StoreOptions) throws -> StoredModel? {
        guard options.fileSystem.fileExists(path),
            let entries = try ObjectStore.metaEntries(path: path, options: options), let hash = entries.hash
        else { return nil }
        let model = entries.model.flatMap { try? JSONDecoder().decode(ObjectModel.self, from: Data($0)) }
        return StoredModel(hash: String(decoding: hash, as: UTF8.self), model: model)
    }

    /// The path of the new store while it is being written.
    static func migrationPath(_ path: String) -> String { path + ".migration" }

    /// Migrates the store at `path` (written with `stored`) to `target` (steps 1–6 above).
    static func migrate(
        path: String, stored: StoredModel, target: ObjectModel, options: StoreOptions, migration: MigrationOptions
    ) throws {
        let fs = options.fileSystem
        let report = migration.progress ?? { _ in }
        let newPath = migrationPath(path)
        let steps: [Step]
        do {
            steps = try plannedSteps(
                stored: stored, target: target, plan: migration.plan, allowsDataLoss: migration.allowsDataLoss)
        } catch let StepBack.storeIsNewer(storeVersion, modelVersion) {
            throw MigrationError.refused(
                MigrationRefusal(
                    path: path, storeVersionHash: stored.hash, modelVersionHash: target.versionHash,
                    reason: .storeIsNewer(storeVersion: storeVersion, modelVersion: modelVersion), dropped: []))
        }
        // The old store stays open, and so locked, until the new one is written (MG9): exclusively,
        // so that no other process has it open (each holds a shared lock) while it is replaced.
        var options = options
        options.sharing = .exclusive
        let old = try ObjectStore.open(path: path, model: steps.first?.source ?? target, options: options)
        var closed = false
        defer { if !closed { try? old.close() } }
        // 2. Read the old store (before step 1, so that a refusal touches no file, MG10).
        var data = try MigrationData.read(from: old, progress: report)
        if !migration.allowsDataLoss, let step = steps.first, !step.isDeclared, !step.stage.isCustom {
            let dropped = LightweightMapping(source: step.source, destination: step.destination).droppedData(in: data)
            if !dropped.isEmpty {
                throw MigrationError.refused(
                    MigrationRefusal(
                        path: path, storeVersionHash: stored.hash, modelVersionHash: target.versionHash,
                        reason: .wouldDropData, dropped: dropped))
            }
        }
        // 1. Leftovers of an attempt that did not finish (MG5: never the only copy), removed
        // under the old store's lock, so never the files of a migration running now (MG9).
        try removeNewFiles(newPath, fs)
        // 3. Map, step by step.
        var originalIDs: [ObjectID: ObjectID] = Dictionary(uniqueKeysWithValues: data.objects.keys.map { ($0, $0) })
        for step in steps {
            let name = "\(step.from) → \(step.to)"
            let total = data.objects.count
            report(MigrationProgress(phase: .mapping, step: name, completed: 0, total: total))
            let mapping = LightweightMapping(source: step.source, destination: step.destination)
            let (mapped, ids) = try mapping.apply(to: data) { done in
                report(MigrationProgress(phase: .mapping, step: name, completed: done, total: total))
            }
            var next = mapped
            if let transform = step.stage.transform {
                let context = MigrationStageContext(
                    from: step.from, to: step.to, source: data, destination: mapped, ids: ids)
                try transform(context)
                next = context.destination
            }
            var carried: [ObjectID: ObjectID] = [:]
            for (old, new) in ids { if let original = originalIDs[old] { carried[new] = original } }
            originalIDs = carried
            data = next
        }
        data.raiseNextKeys()
        try data.checkUniqueness(originalIDs: originalIDs)
        let foreign = try carriedForeignTrees(
            of: old, originalIDs: originalIDs, path: path, stored: stored, target: target,
            allowsDataLoss: migration.allowsDataLoss)  // MG12: a refusal comes before any file is made
        // 4. Write the new store beside the old one (MG8 on failure).
        do {
            // History starts anew in the new store when the old one kept it or the open asks for
            // it (MG11): its objects' IDs and the model of its changes are the old store's.
            let tracked = options.history == .tracked || old.isHistoryTracked
            // A rewrite to the same model (compaction) keeps every ID, so the history is carried.
            let carried = stored.hash == target.versionHash && old.isHistoryTracked ? old : nil
            try write(
                data, at: newPath, options: options, tracked: tracked, carrying: carried, foreign: foreign,
                report: report)
        } catch {
            try? removeNewFiles(newPath, fs)
            if let cd = error as? CdError, case .store = cd { throw error }
            if let cd = error as? CdError { throw MigrationError.invalidObjects(cd) }
            throw error
        }
        // The old store's close checkpoints it: every commit is in `<path>`, its log is empty.
        closed = true
        do { try old.close() } catch {
            try? removeNewFiles(newPath, fs)
            throw error
        }
        // 5. Drop both (empty) logs before the names change (MG7).
        report(MigrationProgress(phase: .swapping, completed: 0, total: 1))
        do {
            try fs.remove(newPath + "-wal")
            try fs.remove(path + "-wal")
            try fs.syncDirectory(containing: path)
            // 6. The swap (MG6).
            try fs.rename(newPath, to: path)
            try fs.syncDirectory(containing: path)
        } catch let e as StoreError {
            throw CdError.store(e)
        }
        report(MigrationProgress(phase: .swapping, completed: 1, total: 1))
    }

    /// Writes `data` into a new store at `path` and closes it (step 4).
    private static func write(
        _ data: MigrationData, at path: String, options: StoreOptions, tracked: Bool, carrying old: ObjectStore?,
        foreign: [ForeignTree],
        report: (MigrationProgress) -> Void
    ) throws {
        // The copy of the objects is no change anybody made: it is written without history,
        // which then starts anew (MG11, HS5).
        var untracked = options
        untracked.history = .off
        let store = try ObjectStore.open(path: path, model: data.model, options: untracked)
        do {
            report(MigrationProgress(phase: .writing, completed: 0, total: data.objects.count))
            try store.apply(data.changeSet())
            try store.raiseStoredNextKeys(data.nextKeys)
            try writeForeignTrees(foreign, into: store)  // MG12
            if let old {
                try store.copyHistory(from: old)
            } else if tracked {
                _ = try store.startHistoryAnew()
            }
            report(MigrationProgress(phase: .writing, completed: data.objects.count, total: data.objects.count))
            try store.close()
        } catch {
            try? store.close()
            throw error
        }
    }

    private static func removeNewFiles(_ newPath: String, _ fs: any StoreFileSystem) throws {
        do {
            try fs.remove(newPath)
            try fs.remove(newPath + "-wal")
        } catch let e as StoreError {
            throw CdError.store(e)
        }
    }

    // MARK: - Steps

    /// One step of a migration: its two models and its stage.
    struct Step {
        let from: String
        let to: String
        let source: ObjectModel
        let destination: ObjectModel
        let stage: MigrationStage
        /// Whether the versions declared it (a forward step between two listed versions), as
        /// opposed to the one step inferred from the model the store records (MG10).
        let isDeclared: Bool
    }

    /// A step back that nobody asked for, by version names (thrown by `plannedSteps`, turned into
    /// `MigrationError.refused` by `migrate`, which knows the path).
    enum StepBack: Error {
        case storeIsNewer(storeVersion: String, modelVersion: String)
    }

    /// The steps from the stored model to `target`: through the plan's versions when the stored
    /// hash is one of them and comes before the target, else one inferred step from the model the
    /// store records. A stored hash that comes after the target's is `StepBack` (never stepped
    /// back), unless `allowsDataLoss`, which infers one step back (MG10).
    static func plannedSteps(
        stored: StoredModel, target: ObjectModel, plan: MigrationPlan?, allowsDataLoss: Bool = false
    ) throws -> [Step] {
        var versions = plan?.versions ?? []
        let targetHash = target.versionHash
        if !versions.contains(where: { $0.versionHash == targetHash }) {
            versions.append(ModelVersion(name: "target", model: target))
        }
        let history = ModelVersionHistory(versions: versions)
        // A store of a later version than the model opened: an older build of the app must not
        // step it back and drop what the later versions added.
        if let from = history.versions.firstIndex(where: { $0.versionHash == stored.hash }),
            let to = history.index(ofHash: targetHash), from > to, !allowsDataLoss
        {
            throw StepBack.storeIsNewer(storeVersion: versions[from].name, modelVersion: versions[to].name)
        }
        if let from = history.versions.firstIndex(where: { $0.versionHash == stored.hash }),
            let to = history.index(ofHash: targetHash), from < to
        {
            return (from..<to).map { i in
                let a = versions[i], b = versions[i + 1]
                return Step(
                    from: a.name, to: b.name, source: a.model, destination: b.model,
                    stage: plan?.stage(from: a.name, to: b.name) ?? .lightweight(from: a.name, to: b.name),
                    isDeclared: true)
            }
        }
        guard let model = stored.model, model.versionHash == stored.hash else {
            throw MigrationError.invalidPlan(
                "the store's model (version hash \(stored.hash)) is neither among the plan's versions nor readable "
                    + "from the store")
        }
        let name = "store"
        let targetName = versions.first { $0.versionHash == targetHash }?.name ?? "target"
        return [
            Step(
                from: name, to: targetName, source: model, destination: target,
                stage: plan?.stage(from: name, to: targetName) ?? .lightweight(from: name, to: targetName),
                isDeclared: false)
        ]
    }
}

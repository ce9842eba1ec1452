// One import of a Core Data store, start to finish.
//
//   1. refuse an existing destination; copy the store's files (`X`, `X-wal`, `X-shm`,
//      `X-journal`) to a private scratch folder and open the copy (SQ1: the user's files are only
//      ever read, byte for byte as they were);
//   2. read the bookkeeping (CoreDataStoreSchema) and choose the model version (CoreDataVersionChooser);
//   3. create the new store at `.<destination name>.importing` beside the destination (removing
//      one an interrupted import left) and write into it through CoreDataImportWriter, which
//      commits every `Options.commitSize` objects and links: every object once, with its
//      attributes and to-ones, table by table in Z_PK order (+Objects), then every to-many list
//      as relationship entries, a batch of members at a time (+Links), then the rare to-one
//      whose target turned out bad is cleared (+Links);
//   4. raise the next keys past Z_MAX and the largest key, check the to-many counts the model
//      declares, run the object checks (ObjectStoreVerifier) and close;
//   5. remove the closed store's empty log, rename the new store to the destination, sync the
//      directory.
//
// Invariants:
//  CI1. The destination exists only after step 5's rename, which is one `rename(2)` of a
//       complete, verified, closed and synced store: an import that fails or is interrupted
//       leaves no store at the destination (at most the `.importing` files, removed by the
//       next import to the same destination). Step 3's commits go to the `.importing` store.
//  CI2. Memory is bounded by one commit (`Options.commitSize` objects and links, or
//       `Options.commitBytes` of values), one batch (`Options.batchSize` objects, or members of
//       one to-many list: a longer list is written in pieces, +Links), and the bad rows (listed,
//       and the keys of rows not imported): rows are streamed from SQLite, and each commit ends
//       the engine transaction that held them. No part of the import holds a whole list.
//       Step 4's object checks keep no copy of the store either (OV7 of ObjectStoreVerifier):
//       they hold the page cache, a few thousand decoded records and one to-many list at a time.
//  CI3. Every row of an app table is either imported as it is (each Z_PK kept as the object's
//       primary key, each value unchanged) or listed in the report as a CoreDataBadRow (thrown
//       with `strict`); a relationship that points at no imported row is left empty and listed.
//  CI4. Both sides of every relationship agree: +Objects and +Links keep a link by one rule (LK1
//       in +Objects), and the object checks of step 4 confirm it before the rename.

import CdObjects
import CdStore
import Foundation

final class CoreDataImporter {
    let store: URL
    let model: URL
    let destination: URL
    let options: CoreDataImport.Options
    var badRows: [CoreDataBadRow] = []
    var badRowCount = 0
    /// Rows not imported (bad rows), so that relationships to them are listed, not followed.
    var notImported: Set<ObjectID> = []
    var objectCounts: [String: Int] = [:]
    /// Largest Z_PK per root entity.
    var largestKeys: [String: Int64] = [:]
    /// To-ones left out of the objects written and listed already (+Objects), so that
    /// `clearLinksToRowsNotImported` lists each once.
    var linksLeftOut: Set<LinkKey> = []
    /// The writer's commits, and the most objects and links one held (CI2), for the report.
    var commits = 0
    var largestCommit = 0

    init(store: URL, model: URL, destination: URL, options: CoreDataImport.Options) {
        self.store = store
        self.model = model
        self.destination = destination
        self.options = options
    }

    /// Lists a bad row, or throws it when the import is strict (CI3).
    func bad(_ table: String, _ key: Int64, _ problem: String) throws(CoreDataImportError) {
        let row = CoreDataBadRow(table: table, primaryKey: key, problem: problem)
        if options.strict { throw .badRow(row) }
        badRowCount += 1
        if badRows.count < options.maxListedBadRows { badRows.append(row) }
    }

    func progress(_ phase: String, _ completed: Int, _ total: Int) {
        options.progress?(CoreDataImportProgress(phase: phase, completed: completed, total: total))
    }

    func run() throws(CoreDataImportError) -> CoreDataImportReport {
        let fileManager = FileManager.default
        guard fileManager.fileExists(atPath: store.path) else {
            throw .unreadableStore(path: store.path, detail: "no such file")
        }
        // A log without its page file would be replayed onto the new store's pages: refuse it too.
        for path in [destination.path, destination.path + "-wal"] where fileManager.fileExists(atPath: path) {
            throw .destinationExists(path: path)
        }
        // 1. The private copy (SQ1).
        let scratch = fileManager.temporaryDirectory.appendingPathComponent("cdstore-import-\(UUID().uuidString)")
        defer { try? fileManager.removeItem(at: scratch) }
        let copy = scratch.appendingPathComponent(store.lastPathComponent)
        do {
            try fileManager.createDirectory(at: scratch, withIntermediateDirectories: true)
            for suffix in ["", "-wal", "-shm", "-journal"] where fileManager.fileExists(atPath: store.path + suffix) {
                try fileManager.copyItem(atPath: store.path + suffix, toPath: copy.path + suffix)
            }
        } catch {
            throw .fileError(path: store.path, detail: "cannot copy the store to \(scratch.path): \(error)")
        }
        let db = try SQLiteDatabase(path: copy.path)
        defer { db.close() }
        // 2. Schema and version.
        let schema = try CoreDataStoreSchema(db: db, path: store.path)
        let (version, layout) = try CoreDataVersionChooser.choose(
            model: model, version: options.version, schema: schema)
        let external = ExternalData.externalAttributes(contents: version.file.contentsPath)
        // 3–5.
        try write(db: db, schema: schema, layout: layout, external: external)
        return CoreDataImportReport(
            modelVersion: version.name, storeUUID: schema.uuid, objectCounts: objectCounts,
            skippedTables: schema.skippedTables, badRows: badRows, badRowCount: badRowCount,
            modelWarnings: version.file.warnings.map(\.message), commits: commits, largestCommit: largestCommit)
    }

    /// The path the new store is written at before it is renamed into place (CI1).
    var temporaryPath: String {
        destination.deletingLastPathComponent().appendingPathComponent(".\(destination.lastPathComponent).importing")
            .path
    }

    private func write(
        db: SQLiteDatabase, schema: CoreDataStoreSchema, layout: CoreDataLayout, external: Set<ExternalAttribute>
    ) throws(CoreDataImportError) {
        let fs = StoreOptions().fileSystem
        let temp = temporaryPath
        func removeTemporary() {
            try? fs.remove(temp)
            try? fs.remove(temp + "-wal")
        }
        removeTemporary()
        var objectStore: ObjectStore?
        var openWriter: CoreDataImportWriter?
        do {
            // The temporary store is this import's alone: no shared file beside it (StoreSharing).
            var targetOptions = StoreOptions()
            targetOptions.sharing = .exclusive
            let target = try ObjectStore.open(path: temp, model: layout.model, options: targetOptions)
            objectStore = target
            let writer = CoreDataImportWriter(
                store: target, commitSize: options.commitSize, commitBytes: options.commitBytes)
            openWriter = writer
            try importObjects(db: db, layout: layout, external: external, writer: writer)
            try importLinks(db: db, schema: schema, layout: layout, writer: writer)
            try clearLinksToRowsNotImported(db: db, layout: layout, writer: writer)
            try writer.finish()
            openWriter = nil
            commits = writer.commits
            largestCommit = writer.largestCommit
            // Next keys past Z_MAX (which may exceed the largest key) and the largest key.
            var nextKeys: [String: Int64] = [:]
            for (root, _) in layout.tables {
                let maxKey =
                    layout.entityOfNumber.filter { $0.value == root }.keys.compactMap { schema.entities[$0]?.maxKey }
                    .max() ?? 0
                nextKeys[root] = max(maxKey, largestKeys[root] ?? 0) + 1
            }
            try target.raiseStoredNextKeys(nextKeys)
            progress("verifying", 0, 1)
            // The counts a load leaves to its end (LD4 of the store's load).
            let countErrors = try target.toManyCountErrors()
            if countErrors.count == 1 { throw countErrors[0] }
            if countErrors.count > 1 { throw CdError.multipleValidationErrors(countErrors) }
            let problems = try target.engine.read { tx in try ObjectStoreVerifier(maxProblems: 20).verify(tx) }
            guard problems.isEmpty else {
                throw CoreDataImportError.verificationFailed(path: temp, problems: problems.map(\.description))
            }
            progress("verifying", 1, 1)
            objectStore = nil
            try target.close()
            // The closed store's log is empty (its close checkpoints); drop it before the rename.
            try fs.remove(temp + "-wal")
            try fs.syncDirectory(containing: temp)
            try fs.rename(temp, to: destination.path)
            try fs.syncDirectory(containing: destination.path)
        } catch {
            openWriter?.abandon()
            try? objectStore?.close()
            removeTemporary()
            if let e = error as? CoreDataImportError { throw e }
            throw .writeFailed(path: destination.path, detail: "\(error)")
        }
    }
}

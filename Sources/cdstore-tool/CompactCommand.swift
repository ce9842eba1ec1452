import ArgumentParser
import CdObjects
import CdStore
import CdStoreCommands
import Foundation

// `cdstore compact STORE`: rewrites the live objects into a fresh file that replaces the store
// (ObjectStore+Compaction: a migration to the same model, crash-safe by MG5–MG9), then reports
// the sizes before and after, with the migration's progress bar on a terminal. Refused while
// another process has the store open.

struct CompactCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Rewrite a store into a fresh, smallest file (crash-safe; refused while the store is open).",
        discussion: """
            The objects are written into STORE.migration beside the store, which then replaces it in one \
            rename: at every moment a whole store is at the path. Exit codes: 0 compacted, 8 cannot compact \
            (missing, not an object store, damaged, open in another process), 16 usage error.
            """
    )

    @Argument(help: "The store's page file.")
    var store: String

    func execute(tool: String) -> Int32 {
        reportingFailures(tool: tool) {
            guard FileManager.default.fileExists(atPath: store) else {
                throw ToolFailure.operational("\(store): no such file")
            }
            let before = StoreInfo.fileSize(store) + StoreInfo.fileSize(store + "-wal")
            // The path exists (checked above); the new file beside it is created by the compaction.
            // The migration's bar, on a terminal only.
            let bar = isatty(STDERR_FILENO) == 1 ? MigrationProgressBar() : nil
            do {
                var progress: (@Sendable (MigrationProgress) -> Void)?
                if let bar { progress = { bar.update($0) } }
                try ObjectStore.compact(path: store, options: StoreOptions(), progress: progress)
                bar?.finish()
            } catch {
                bar?.finish()
                throw ToolFailure.from(error, path: store)
            }
            let after = StoreInfo.fileSize(store) + StoreInfo.fileSize(store + "-wal")
            let out = OutputSink.standardOutput()
            try out.write("\(store): \(StoreInfo.bytes(before)) before, \(StoreInfo.bytes(after)) after\n")
            try out.close()
        }
    }
}

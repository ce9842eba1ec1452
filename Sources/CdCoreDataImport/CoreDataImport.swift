// The public face of the Core Data importer: `CoreDataImport.importStore(at:model:to:options:)`,
// its options, progress and report. CoreDataImporter.swift does the work; docs/COREDATA-IMPORT.md
// documents the mapping and the guarantees.

import CdObjects
import Foundation

/// Imports an Apple Core Data SQLite store (`NSSQLiteStoreType`) into a new Cadmium store.
///
/// ```swift
/// let report = try CoreDataImport.importStore(at: URL(fileURLWithPath: "Posts.sqlite"),
///                                             model: URL(fileURLWithPath: "Posts.xcdatamodeld"),
///                                             to: URL(fileURLWithPath: "Posts.cdstore"))
/// print(report.modelVersion, report.storeUUID, report.objectCounts["Post"] ?? 0)
/// ```
public enum CoreDataImport {
    /// Imports the store at `store` (with its `-wal`, and external data beside it), written with a
    /// version of the model at `model` (a `.xcdatamodeld` bundle, a `.xcdatamodel` or its
    /// `contents`), into a new Cadmium store at `destination`. The source files are only read;
    /// the destination appears whole or not at all.
    ///
    /// ```swift
    /// var options = CoreDataImport.Options()
    /// options.strict = true
    /// try CoreDataImport.importStore(at: store, model: model, to: output, options: options)
    /// ```
    @discardableResult
    public static func importStore(
        at store: URL, model: URL, to destination: URL, options: Options = Options()
    ) throws(CoreDataImportError) -> CoreDataImportReport {
        try CoreDataImporter(store: store, model: model, destination: destination, options: options).run()
    }

    /// How an import runs.
    public struct Options: Sendable {
        /// The model version to read the store with (e.g. `"Posts 3"`); nil: chosen by the store's
        /// schema.
        public var version: String?
        /// Refuse the import at the first row that breaks the model, instead of listing it.
        public var strict: Bool
        /// Called as the import goes, on the importing thread.
        public var progress: (@Sendable (CoreDataImportProgress) -> Void)?
        /// Objects per write batch, and members of one to-many list per piece (a longer list is
        /// written in several pieces): memory grows with it, not with the store.
        public var batchSize: Int
        /// Objects and to-many links per commit into the new store (memory grows with it, not
        /// with the store; the store appears at the destination only when all are in).
        public var commitSize: Int
        /// Bytes of attribute values (strings, binary data) after which a commit is made early.
        public var commitBytes: Int
        /// The report lists at most this many bad rows (all are counted).
        public var maxListedBadRows: Int

        public init(
            version: String? = nil, strict: Bool = false, progress: (@Sendable (CoreDataImportProgress) -> Void)? = nil,
            batchSize: Int = 2000, maxListedBadRows: Int = 1000, commitSize: Int = 50_000,
            commitBytes: Int = 32 << 20
        ) {
            self.version = version
            self.strict = strict
            self.progress = progress
            self.batchSize = max(1, batchSize)
            self.commitSize = max(1, commitSize)
            self.commitBytes = max(1, commitBytes)
            self.maxListedBadRows = maxListedBadRows
        }
    }
}

/// Where an import is.
public struct CoreDataImportProgress: Sendable {
    /// `objects`, `relationships` or `verifying`.
    public var phase: String
    /// Rows read (objects), relationships set (relationships), or 0/1 (verifying).
    public var completed: Int
    /// What `completed` counts up to in this phase.
    public var total: Int
}

/// What an import found and did.
public struct CoreDataImportReport: Sendable, Codable {
    /// The model version whose schema the store matches (its `.xcdatamodel` name without extension).
    public var modelVersion: String
    /// `Z_METADATA.Z_UUID`: the store UUID in the store's `x-coredata://` object URIs.
    public var storeUUID: String
    /// Imported objects per concrete entity (sub-entities under their own names).
    public var objectCounts: [String: Int]
    /// Core Data's private tables, not objects: persistent history and CloudKit mirroring.
    public var skippedTables: [String]
    /// Rows that break the model (at most `Options.maxListedBadRows`).
    public var badRows: [CoreDataBadRow]
    /// How many bad rows there were in all.
    public var badRowCount: Int
    /// What the model reader remarked on the chosen version (asymmetric inverses, …).
    public var modelWarnings: [String]
    /// How many commits wrote the new store (each ends the transaction that held its writes).
    public var commits: Int
    /// The most objects and to-many links one commit held: below `Options.commitSize` plus
    /// `Options.batchSize` (a commit follows the batch, or piece of a list, that reaches
    /// `commitSize`), whatever the store's size or its longest list.
    public var largestCommit: Int

    /// Every imported object.
    public var objectCount: Int { objectCounts.values.reduce(0, +) }
}

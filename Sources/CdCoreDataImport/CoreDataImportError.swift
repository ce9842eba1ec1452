// The one error type of the Core Data importer: each case names what failed and where (the
// file, the table and `Z_PK`, the model version) so that a user can act on it.

import CdObjects

/// Why a Core Data store could not be imported.
///
/// ```swift
/// do { try CoreDataImport.importStore(at: store, model: model, to: output) } catch let e as CoreDataImportError {
///     print(e)   // e.g. "no version of Posts.xcdatamodeld matches the store's schema; closest: …"
/// }
/// ```
public enum CoreDataImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The Core Data store is missing, not SQLite, or lacks Core Data's bookkeeping tables.
    case unreadableStore(path: String, detail: String)
    /// The model file could not be read (`ModelError` text in `detail`).
    case unreadableModel(path: String, detail: String)
    /// No model version predicts the store's tables and columns: the closest versions with
    /// their first differences.
    case noMatchingVersion(closest: [VersionMismatch])
    /// Several versions predict the store's schema exactly; pass one with `version:`.
    case ambiguousVersion(versions: [String])
    /// The version asked for does not match the store's schema.
    case versionMismatch(VersionMismatch)
    /// The destination (or a `-wal` log at its path) already exists; the importer never
    /// overwrites a store.
    case destinationExists(path: String)
    /// A row breaks the model and `strict` was set: the first such row.
    case badRow(CoreDataBadRow)
    /// Writing the Cadmium store failed (the underlying error's text).
    case writeFailed(path: String, detail: String)
    /// The written store failed the object checks (first problems); nothing was renamed into place.
    case verificationFailed(path: String, problems: [String])
    /// A file of the store (its `-wal`, an external data file) could not be copied or read.
    case fileError(path: String, detail: String)

    public var description: String {
        switch self {
        case let .unreadableStore(path, detail): return "\(path): not a readable Core Data store: \(detail)"
        case let .unreadableModel(path, detail): return "\(path): cannot read the model: \(detail)"
        case let .noMatchingVersion(closest):
            return "no model version matches the store's schema; closest: "
                + closest.map(\.description).joined(separator: "; ")
        case let .ambiguousVersion(versions):
            return "several model versions match the store's schema exactly (\(versions.joined(separator: ", "))); "
                + "choose one with --version"
        case let .versionMismatch(m): return "the store was not written with version \(m.description)"
        case let .destinationExists(path): return "\(path) already exists; the importer never replaces a store"
        case let .badRow(row): return "a row breaks the model (strict import): \(row)"
        case let .writeFailed(path, detail): return "\(path): writing the Cadmium store failed: \(detail)"
        case let .verificationFailed(path, problems):
            return "\(path): the imported store fails its object checks: " + problems.joined(separator: "; ")
        case let .fileError(path, detail): return "\(path): \(detail)"
        }
    }
}

/// How far one model version's predicted schema is from a store's.
public struct VersionMismatch: Sendable, Equatable, CustomStringConvertible {
    /// The version (its `.xcdatamodel` name without the extension).
    public var version: String
    /// Every difference, e.g. "table ZPOST: column ZCOLOR is not in the model".
    public var differences: [String]

    public var description: String {
        let shown = differences.prefix(3).joined(separator: ", ")
        let more = differences.count > 3 ? ", and \(differences.count - 3) more" : ""
        return "\(version) (\(differences.count) difference\(differences.count == 1 ? "" : "s"): \(shown)\(more))"
    }
}

/// A row of the Core Data store that breaks the model, listed in the report (or thrown with
/// `strict`).
public struct CoreDataBadRow: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The SQLite table.
    public var table: String
    /// The row's `Z_PK` (for a join table, the key of the row that owns the relationship).
    public var primaryKey: Int64
    /// What is wrong, and what the importer did about it.
    public var problem: String

    /// A bad row of `table` with `Z_PK` `primaryKey`.
    public init(table: String, primaryKey: Int64, problem: String) {
        self.table = table
        self.primaryKey = primaryKey
        self.problem = problem
    }

    public var description: String { "\(table) Z_PK \(primaryKey): \(problem)" }
}

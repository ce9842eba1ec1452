// The sync layer's one error type: a code, a message naming what and where, and the underlying
// cause (a PostgreSQL error, a store error).

import CdObjects
import Foundation

/// Why a sync step failed. Every case names what failed and where; `cause` keeps the underlying
/// error's text (PostgreSQL's, or the store's).
///
/// ```swift
/// do { try await sync.syncNow() } catch let e as CdSyncError where e.code == .serverUnreachable {
///     // local writes go on; the next sync pushes them
/// }
/// ```
public struct CdSyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: String, Sendable, Hashable {
        /// The server URL is not a `postgres://` URL the engine can use.
        case invalidServerURL
        /// PostgreSQL could not be reached or the connection broke; nothing was lost, retry later.
        case serverUnreachable
        /// PostgreSQL answered with an error to a statement of the protocol.
        case serverError
        /// The store keeps no persistent history (`StoreOptions.history = .tracked` is needed).
        case historyNotTracked
        /// A synced entity breaks a model rule of sync (docs/SYNC.md, Model rules).
        case modelRule
        /// An entity named for sync is not in the model.
        case unknownEntity
        /// The server's record of this replica's pushes does not match the store: the store file
        /// was copied and another copy pushed under the same replica ID.
        case replicaForked
        /// The store is already synced to another scope.
        case scopeMismatch
        /// The server refuses pushes from this model version (its minimum is higher).
        case modelTooOld
        /// The error policy refused the batch: these properties were changed concurrently.
        case conflictRefused
        /// A value from the server does not decode, or does not fit the local model.
        case badServerValue
        /// The local store failed (its error is the cause).
        case store
        /// `start()` was called while the engine was already running, or after `stop()`.
        case misuse
    }

    /// What kind of failure this is.
    public let code: Code
    /// What failed and where.
    public let message: String
    /// The underlying error's text, when there is one.
    public let cause: String?

    /// A sync error.
    public init(_ code: Code, _ message: String, cause: String? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// `<code>: <message> (<cause>)`.
    public var description: String {
        "\(code.rawValue): \(message)" + (cause.map { " (\($0))" } ?? "")
    }

    /// Wraps a local store error.
    static func store(_ error: any Error, _ what: String) -> CdSyncError {
        if let e = error as? CdSyncError { return e }
        return CdSyncError(.store, what, cause: "\(error)")
    }
}

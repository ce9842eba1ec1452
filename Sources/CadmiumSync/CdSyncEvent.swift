// What a sync engine reports, and its status (docs/SYNC.md, Events and status).

import Foundation

/// One thing the sync engine did, as `CdSync.events` yields it.
///
/// ```swift
/// for await event in sync.events {
///     if case let .conflict(c) = event { log.notice("\(c)") }
/// }
/// ```
public enum CdSyncEvent: Sendable, Hashable, CustomStringConvertible {
    /// A batch of local changes reached the server: its number and how many objects it carried.
    case pushed(batch: UInt64, objects: Int)
    /// Remote changes were applied locally in one commit: how many objects changed, and the new
    /// cursor (the server's change number).
    case pulled(objects: Int, cursor: Int64)
    /// A policy decided against an edit.
    case conflict(CdSyncConflict)
    /// A sync step failed; the background engine retries (local writes go on meanwhile).
    case error(CdSyncError)

    /// `pushed batch 3 (2 objects)`, `pulled 5 objects (cursor 12)`, …
    public var description: String {
        switch self {
        case let .pushed(batch, objects): return "pushed batch \(batch) (\(objects) objects)"
        case let .pulled(objects, cursor): return "pulled \(objects) objects (cursor \(cursor))"
        case let .conflict(c): return "conflict: \(c)"
        case let .error(e): return "error: \(e)"
        }
    }
}

/// A replica's sync state: what `CdSync.status()` and `cdsync status` show.
public struct CdSyncStatus: Sendable, Hashable {
    /// The replica's ID (nil before its first sync).
    public var replicaID: UUID?
    /// The scope the store syncs (nil before its first sync).
    public var scope: String?
    /// Local transactions not pushed yet (the engine's own pulled ones are not counted).
    public var pendingTransactions: Int
    /// The last local history number the server acknowledged, and how many batches so far.
    public var acknowledgedTransaction: UInt64?
    public var acknowledgedBatches: UInt64
    /// The server change number the store has pulled up to.
    public var cursor: Int64?
    /// When this process last pushed and pulled (nil: not yet).
    public var lastPush: Date?
    public var lastPull: Date?
    /// The last error, cleared by the next successful sync.
    public var lastError: CdSyncError?
}

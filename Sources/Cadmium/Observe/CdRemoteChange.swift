// `CdRemoteChange`: another process committed to the store this process has open. The element of
// `Cd.remoteChanges` and the payload of the `cdStoreRemoteChange` notification, Cadmium's
// counterpart of Core Data's `NSPersistentStoreRemoteChange` (RemoteChangeWatcher.swift says how
// the commits are noticed, and how soon).

import Foundation
import CdObjects

/// Other processes committed to the store: their commits are now visible to this process's new
/// snapshots, and were merged into the main context before this event was delivered.
///
/// With persistent history (`StoreOptions.history = .tracked`) the event carries the token of the
/// newest recorded transaction and the other processes' transactions since the previous event;
/// without it, ``historyToken`` is nil and ``transactions`` is empty, and ``storeCommit`` alone
/// says how far the store has got.
///
/// ```swift
/// for await change in Cd.remoteChanges {
///     let theirs = change.transactions.flatMap(\.changes)
///     print("\(theirs.count) objects changed elsewhere, up to \(change.historyToken?.description ?? "-")")
/// }
/// ```
public struct CdRemoteChange: Sendable, Equatable, CustomStringConvertible {
    /// The store's file.
    public let storeURL: URL
    /// The newest transaction of the persistent history when the change was read (Core Data's
    /// `NSPersistentHistoryTokenKey`); nil when the store keeps no history.
    public let historyToken: CdHistoryToken?
    /// The engine's commit number up to which this process now sees the other processes'
    /// commits (it only grows while the store is open).
    public let storeCommit: UInt64
    /// The other processes' transactions since the previous event, oldest first (empty without
    /// history, or when the history between the two events was deleted meanwhile).
    public let transactions: [CdHistoryTransaction]

    /// The user info key of the ``CdRemoteChange`` itself.
    public static let changeKey = "remoteChange"
    /// The user info key of ``historyToken`` (present only with history).
    public static let historyTokenKey = "historyToken"
    /// The user info key of ``storeURL``.
    public static let storeURLKey = "storeURL"

    /// The notification's user info: the change under ``changeKey``, the URL and the token.
    public var userInfo: [AnyHashable: Any] {
        var info: [AnyHashable: Any] = [Self.changeKey: self, Self.storeURLKey: storeURL]
        if let historyToken { info[Self.historyTokenKey] = historyToken }
        return info
    }

    /// "remote change: commit 42, token <uuid>#17, 2 transactions".
    public var description: String {
        "remote change: commit \(storeCommit), token \(historyToken?.description ?? "none"), "
            + "\(transactions.count) transaction\(transactions.count == 1 ? "" : "s")"
    }
}

extension Notification.Name {
    /// Posted on the main queue (by `NotificationCenter.default`, with no object) when other
    /// processes' commits became visible to this process, after they were merged into the main
    /// context; the user info is ``CdRemoteChange/userInfo``. Core Data's
    /// `NSPersistentStoreRemoteChange`.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .cdStoreRemoteChange, object: nil, queue: nil) { note in
    ///     let token = note.userInfo?[CdRemoteChange.historyTokenKey] as? CdHistoryToken
    ///     print("another process committed; history up to", token?.description ?? "-")
    /// }
    /// ```
    public static let cdStoreRemoteChange = Notification.Name("CdStoreRemoteChange")
}

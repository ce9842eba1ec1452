// A container's remote change broadcast: each `CdRemoteChange` the watcher found
// (RemoteChangeWatcher.swift) is yielded to every `CdContainer.remoteChanges` subscriber, on the
// main queue, after the main context merged it; the container then hands it to the
// `Cd.remoteChanges` subscribers when it is the default (CN4) and posts the `cdStoreRemoteChange`
// notification.
//
// Invariants (BS1, BS2 of BroadcastSubscribers.swift):
//   RB1. A subscriber is registered from the moment `Cd.remoteChanges` returns its sequence until
//        the sequence terminates; termination removes it.
//   RB2. Every change delivered while a subscriber is registered is yielded to it, in delivery
//        order (the buffer is unbounded).
//
// Confinement: thread-safe; `deliver` is called on the main queue only.

import Foundation
import CdObjects
import CdStore

/// Fans each remote change out to one container's subscribers.
final class RemoteChangeBroadcast: Sendable {
    private let subscribers = BroadcastSubscribers<CdRemoteChange>()

    /// A new subscription: every remote change delivered from now on (keeps RB1, RB2).
    func subscribe() -> AsyncStream<CdRemoteChange> { subscribers.subscribe() }

    /// The number of live subscriptions (tests check that cancelled ones are gone, RB1).
    var subscriberCount: Int { subscribers.count }

    /// On the main queue: hands `change` to the subscribers (RB2).
    func deliver(_ change: CdRemoteChange) {
        subscribers.yield(change)
    }
}

extension Cd {
    /// Every time other processes' commits to the open store become visible to this process,
    /// from now on, as an asynchronous sequence: Core Data's remote change notification. Each
    /// event comes after the main context merged those commits; with persistent history it
    /// carries the newest ``CdHistoryToken`` and the other processes' transactions. Other
    /// processes' commits are noticed within about 10 ms (RemoteChangeWatcher.swift). Usable
    /// from any task; each access is a new subscription, which ends when its task is cancelled
    /// or its iterator is dropped.
    ///
    /// ```swift
    /// let follower = Task {
    ///     for await change in Cd.remoteChanges {
    ///         let news = try Cd.history(after: lastSeen)   // or change.transactions
    ///         lastSeen = change.historyToken ?? lastSeen
    ///     }
    /// }
    /// ```
    /// Outside any container scope it follows the default container, inside one it is that
    /// container's (``CdContainer/remoteChanges``).
    public static var remoteChanges: AsyncStream<CdRemoteChange> {
        scopedNonDefaultContainer?.remoteChanges ?? defaultContainerRemoteChanges.subscribe()
    }
}

// A container's commit broadcast: after each commit is merged into the container's main context
// (`CdContainer.drainMerges`, on the main queue, in commit order), it numbers the commit and yields
// it to every subscriber of `CdContainer.commits`; the container then hands it to the `Cd.commits`
// subscribers when it is the default (CN4) and posts the `cdDidMergeCommit` notification.
//
// Invariants:
//   OB1. A container's commits are numbered 1, 2, 3… in the order they are merged (the main
//        context's merge order, which is commit order, ST1), and every subscriber sees them in
//        that order.
//   OB2. A subscriber is registered from the moment `Cd.commits` returns its sequence until
//        the sequence terminates (its task was cancelled, its iterator was dropped, or it was
//        finished); termination removes it, so no continuation outlives its consumer.
//   OB3. Every commit merged while a subscriber is registered is yielded to it: the buffer is
//        unbounded (a subscriber that never reads keeps its commits until it goes away).
//
// Confinement: thread-safe; `didMerge` is called on the main queue only.

import Foundation
import CdObjects
import CdStore

/// Numbers each commit merged into one container's main context and fans it out to the
/// container's subscribers.
final class CommitBroadcast: Sendable {
    /// The commits merged so far (OB1).
    private let merged = LockedState(UInt64(0))
    private let subscribers = BroadcastSubscribers<CdCommit>()

    /// A new subscription: every commit merged from now on (keeps OB2, OB3).
    func subscribe() -> AsyncStream<CdCommit> { subscribers.subscribe() }

    /// The number of live subscriptions (tests check that cancelled ones are gone, OB2).
    var subscriberCount: Int { subscribers.count }

    /// On the main queue, after `applied` was merged into the main context: numbers the commit
    /// and hands it to the subscribers (keeps OB1, OB3); returns it for the container to post.
    func didMerge(_ applied: AppliedChanges) -> CdCommit {
        let number = merged.withLock { merged -> UInt64 in
            merged += 1
            return merged
        }
        let commit = CdCommit(number: number, applied)
        subscribers.yield(commit)
        return commit
    }
}

extension Cd {
    /// Every commit merged into the main context from now on, as an asynchronous sequence, in
    /// commit order: the default container's (whichever it is when the commit is merged, so a
    /// subscription made before ``initWithStore(model:storeURL:options:serialTX:)`` receives),
    /// or, inside ``withContainer(_:_:)-(CdContainer,()throws->R)`` or a body of another container,
    /// that container's (``CdContainer/commits``). Usable from any task; each access is a new,
    /// independent subscription, which ends when its task is cancelled or its iterator is
    /// dropped. A subscriber that does not keep up keeps its commits buffered (none is dropped).
    ///
    /// ```swift
    /// let watcher = Task {
    ///     for await commit in Cd.commits {
    ///         log.info("\(commit)")        // "commit #3: inserted Employee×2"
    ///     }
    /// }
    /// …
    /// watcher.cancel()
    /// ```
    public static var commits: AsyncStream<CdCommit> {
        scopedNonDefaultContainer?.commits ?? defaultContainerCommits.subscribe()
    }
}

// The subscriptions of one broadcast (`Cd.commits`, `Cd.remoteChanges`, a sync engine's
// `events`): each an asynchronous sequence with an unbounded buffer, registered until it
// terminates.
//
// Invariants:
//   BS1. A subscriber is registered from the moment `subscribe` returns its sequence until the
//        sequence terminates (its task was cancelled, its iterator was dropped, or it was
//        finished); termination removes it, so no continuation outlives its consumer.
//   BS2. Every element yielded while a subscriber is registered reaches it, in yield order: the
//        buffer is unbounded (a subscriber that never reads keeps its elements until it goes away).
//
// Confinement: thread-safe.

import CdStore

/// The live subscriptions of a broadcast of `Element`s (BS1, BS2).
package final class BroadcastSubscribers<Element: Sendable>: Sendable {
    private struct State {
        var nextSubscriber = 0
        var continuations: [Int: AsyncStream<Element>.Continuation] = [:]
    }

    private let state = LockedState(State())

    /// A new subscription: every element yielded from now on (keeps BS1, BS2).
    package init() {}

    package func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .unbounded)
        let id = state.withLock { state -> Int in
            state.nextSubscriber += 1
            state.continuations[state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        // Set after registering: nothing can terminate the stream before this function returns it.
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// The number of live subscriptions (tests check that cancelled ones are gone, BS1).
    package var count: Int { state.withLock { $0.continuations.count } }

    /// Hands `element` to every live subscription (BS2).
    package func yield(_ element: Element) {
        for continuation in state.withLock({ Array($0.continuations.values) }) { continuation.yield(element) }
    }

    /// Ends every subscription (its owner stopped): each sequence ends after the elements it
    /// holds, and is removed (BS1).
    package func finish() {
        let continuations = state.withLock { state -> [AsyncStream<Element>.Continuation] in
            defer { state.continuations = [:] }
            return Array(state.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}

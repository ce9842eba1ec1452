// Fans sync events out to every `events` subscriber.
//
// Invariants:
//  EB1. A subscriber is registered from the moment its stream is made until it terminates; it
//       receives every event yielded meanwhile, in order (unbounded buffer, nothing dropped).

import Foundation
import Synchronization

/// The subscribers of one engine's events. Thread-safe.
final class EventBroadcast: Sendable {
    private struct State {
        var next = 0
        var subscribers: [Int: AsyncStream<CdSyncEvent>.Continuation] = [:]
    }

    private let state = Mutex(State())

    /// A new subscription (keeps EB1).
    func subscribe() -> AsyncStream<CdSyncEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: CdSyncEvent.self, bufferingPolicy: .unbounded)
        let id = state.withLock { s -> Int in
            s.next += 1
            s.subscribers[s.next] = continuation
            return s.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    func yield(_ event: CdSyncEvent) {
        for c in state.withLock({ Array($0.subscribers.values) }) { c.yield(event) }
    }

    /// Ends every subscription (the engine stopped).
    func finish() {
        for c in state.withLock({ s -> [AsyncStream<CdSyncEvent>.Continuation] in
            defer { s.subscribers = [:] }
            return Array(s.subscribers.values)
        }) { c.finish() }
    }
}

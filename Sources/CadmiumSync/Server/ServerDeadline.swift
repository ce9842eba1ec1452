// A deadline on one exchange with the server that nothing can outwait.
//
// Why it is not a task group racing the operation against `Task.sleep`: a task group returns only
// when all its children have returned, so a child that never returns keeps the caller waiting
// past any deadline. postgres-nio 1.33 has such a wait: `PostgresConnection.query` on a
// connection the server has already closed (`pg_terminate_backend`, a server stopped under open
// connections) writes its request into a channel whose handlers are gone, drops the write's
// failure (`promise: nil`), and awaits a promise that nothing ever completes — and that await
// does not answer cancellation. Closing the connection, which the earlier deadline did, changes
// nothing for it. So the caller here waits on a continuation of its own, which the operation or
// the timer resumes, whichever comes first; the operation is not awaited.
//
// Invariants:
//  SD1. The caller is resumed exactly once: with the operation's result, with
//       `serverUnreachable` when the timeout passes first, or with `CancellationError` when its
//       task is cancelled first.
//  SD2. The timer runs on a Dispatch queue, not on Swift's cooperative thread pool, so it fires
//       even when every thread of the pool is busy or blocked.
//  SD3. When the timer wins, `onTimeout` runs before the caller is resumed (the engine closes the
//       connection there, failing whatever postgres-nio still answers, and drops it, so the caller
//       never finds it again); the operation is cancelled and left to
//       end by itself, its result discarded. What it may still have committed on the server is
//       recovered by the compare-and-set of the next push (SE1 in SyncEngine.swift).

import Dispatch
import Foundation
import Synchronization

/// Runs `body`, resuming the caller with its result or, after `timeout`, with a
/// `serverUnreachable` error naming `what` (SD1–SD3).
func withServerDeadline<R: Sendable>(
    _ timeout: Duration, _ what: String, onTimeout: @escaping @Sendable () -> Void,
    _ body: @escaping @Sendable () async throws -> R
) async throws -> R {
    let race = DeadlineRace<R>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
            race.arm(continuation)
            let operation = Task.detached {
                do { race.finish(.success(try await body())) } catch { race.finish(.failure(error)) }
            }
            let (seconds, attoseconds) = timeout.components
            let nanoseconds = max(0, Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
                let error = CdSyncError(.serverUnreachable, "\(what) took over \(timeout); the connection was closed")
                if race.finish(.failure(error), beforeResuming: onTimeout) {  // SD3
                    operation.cancel()
                }
            }
        }
    } onCancel: {
        race.finish(.failure(CancellationError()))
    }
}

/// The one resumption of a deadline's caller (SD1).
private final class DeadlineRace<R: Sendable>: Sendable {
    private enum State {
        case waiting
        case armed(CheckedContinuation<R, any Error>)
        /// Finished before the continuation was armed (a cancellation that came first).
        case finished(Result<R, any Error>)
        case resumed
    }

    private let state = Mutex<State>(.waiting)

    func arm(_ continuation: CheckedContinuation<R, any Error>) {
        let early = state.withLock { s -> Result<R, any Error>? in
            guard case let .finished(result) = s else {
                s = .armed(continuation)
                return nil
            }
            s = .resumed
            return result
        }
        if let early { continuation.resume(with: early) }
    }

    /// Resumes the caller with `result` unless it was resumed already, running `beforeResuming`
    /// first; true when this call did.
    @discardableResult
    func finish(_ result: Result<R, any Error>, beforeResuming: () -> Void = {}) -> Bool {
        let continuation = state.withLock { s -> CheckedContinuation<R, any Error>?? in
            switch s {
            case .waiting:
                s = .finished(result)
                return .some(nil)
            case let .armed(c):
                s = .resumed
                return .some(c)
            case .finished, .resumed:
                return nil
            }
        }
        guard let continuation else { return false }
        beforeResuming()
        continuation?.resume(with: result)
        return true
    }
}

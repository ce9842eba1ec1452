// A thread of one pull's own, for store work that must stay on one thread across awaits: the
// streaming writer of a paged pull. The object store remembers which thread holds its writer and
// reserves new object keys inside the writer only on that thread (KR2 of ObjectStore); on any
// other thread a reservation would wait for the writer, which the pull itself holds. A serial
// Dispatch queue runs its blocks on whichever thread is free, so it cannot promise that.
//
// Invariants:
//  ST1. Jobs run one at a time, in submission order, on the one thread `init` started.
//  ST2. `finish()` lets the thread end once the jobs submitted before it have run; a job
//       submitted after it fails with `CdSyncError` (`store`) instead of waiting for ever.
//  ST3. The thread is never Swift's cooperative pool's: a job may wait for the store's write
//       lock, which another process can hold (SE6 of SyncEngine.swift).

import Dispatch
import Foundation
import Synchronization

/// One thread that runs submitted jobs in order (ST1–ST3).
final class StoreThread: Sendable {
    /// The jobs not run yet, shared with the thread.
    private final class Jobs: Sendable {
        struct Queue {
            var jobs: [@Sendable () -> Void] = []
            var finished = false
        }
        let queue = Mutex(Queue())
        /// Signalled once per job, and once by `finish()`.
        let ready = DispatchSemaphore(value: 0)
    }

    private let jobs = Jobs()

    /// Starts the thread; `name` labels it for debuggers.
    init(name: String) {
        let jobs = self.jobs
        let thread = Thread {
            while true {
                jobs.ready.wait()
                let job = jobs.queue.withLock { q -> (@Sendable () -> Void)? in
                    q.jobs.isEmpty ? nil : q.jobs.removeFirst()
                }
                guard let job else { return }  // ST2: finished, nothing left
                job()
            }
        }
        thread.name = name
        thread.start()
    }

    /// Runs `body` on the thread, resuming the caller with its result (ST1).
    func run<R: Sendable>(_ body: @escaping @Sendable () throws -> R) async throws -> R {
        try await withCheckedThrowingContinuation { continuation in
            let accepted = jobs.queue.withLock { q -> Bool in
                guard !q.finished else { return false }
                q.jobs.append { continuation.resume(with: Result { try body() }) }
                return true
            }
            if accepted {
                jobs.ready.signal()
            } else {
                continuation.resume(throwing: CdSyncError(.misuse, "a pull's store thread was used after it finished"))
            }
        }
    }

    /// Lets the thread end after the jobs submitted so far (ST2).
    func finish() {
        let first = jobs.queue.withLock { q -> Bool in
            defer { q.finished = true }
            return !q.finished
        }
        if first { jobs.ready.signal() }
    }
}

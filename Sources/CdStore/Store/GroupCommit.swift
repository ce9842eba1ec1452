#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Group commit: durable commits that wait for an fsync of the WAL share one (leader/follower, as
// PostgreSQL's WAL flush and InnoDB's group commit do). A `Durability.full` commit writes its
// frames under the writer gate, releases the gate, and then waits here until a sync that began
// after its frames were written has completed: the first waiter to find no sync running becomes the
// leader and syncs the log for every commit written so far; the others wait for its result. While
// one sync runs, the next writers write their frames and queue up, so that under load one fsync
// makes many commits durable.
//
// Invariants:
//  GC1. `durable` is the last commit a completed sync covered: every commit up to it has all its
//       frames on stable storage. A sync covers the commits written (`Store.written`) when it began,
//       since the WAL is written in commit order and fsync covers every write before it.
//  GC2. At most one sync runs at a time (`syncing`); a commit returns only once `durable` reaches
//       it, so no commit is acknowledged before its frames are durable.
//  GC3. A failed sync poisons the store (Store P4) and is final: every waiter, and every later one,
//       gets an error; none returns success after it, and no sync is attempted again.
//  GC4. Readers see a durable commit only (Store P1): `Store.committed` advances to a sync's
//       target before `durable` does, so a waiter that returns finds its commit visible.

/// The group-commit state of one store. Thread-safe.
final class GroupCommit: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let path: String
    private var durable: CommitSequence
    private var syncing = false
    private var failure: String?
    /// Syncs run and commits they covered, for statistics and tests.
    private(set) var syncCount = 0

    init(path: String, durable: CommitSequence) {
        self.path = path
        self.durable = durable
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(cond, nil)
    }

    deinit {
        pthread_cond_destroy(cond); pthread_mutex_destroy(mutex)
        cond.deallocate(); mutex.deallocate()
    }

    /// Syncs run so far.
    var syncs: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return syncCount
    }

    /// Returns once commit `commit` is durable (GC2). `target` reads the last written commit and the
    /// WAL end after it; `sync` fsyncs the WAL; `publish` makes a synced target visible to readers
    /// (GC4); `poison` poisons the store with a cause (GC3). The leader rethrows the sync's own
    /// error; every other waiter gets `StoreError.poisoned`.
    func waitDurable(
        _ commit: CommitSequence, target: () -> (CommitSequence, UInt64), sync: () throws -> Void,
        publish: ((CommitSequence, UInt64)) -> Void, poison: (String) -> Void
    ) throws {
        pthread_mutex_lock(mutex)
        while true {
            if durable >= commit { pthread_mutex_unlock(mutex); return }
            if let failure {
                pthread_mutex_unlock(mutex)
                throw StoreError.poisoned(path: path, cause: failure)
            }
            if syncing { pthread_cond_wait(cond, mutex); continue }
            // The leader (GC2): sync for every commit written so far.
            syncing = true
            pthread_mutex_unlock(mutex)
            let covered = target()
            do {
                try sync()
            } catch {
                let cause = "fsync of the WAL failed: \(error)"
                poison(cause)
                pthread_mutex_lock(mutex)
                failure = cause  // GC3
                syncing = false
                pthread_cond_broadcast(cond)
                pthread_mutex_unlock(mutex)
                throw error
            }
            publish(covered)  // GC4: visible before anyone is told it is durable
            pthread_mutex_lock(mutex)
            if covered.0 > durable { durable = covered.0 }  // GC1
            syncCount += 1
            syncing = false
            pthread_cond_broadcast(cond)
        }
    }
}

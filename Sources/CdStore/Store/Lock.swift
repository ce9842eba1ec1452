#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutual-exclusion lock over pthread_mutex; `withLock` is the only way in. With
/// `LockedState` (a value behind such a lock) it is the one lock primitive of every module of
/// the package: the engine, the object store, Cadmium's contexts and objects, the tools and the
/// tests.
package final class Lock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    package init() { pthread_mutex_init(mutex, nil) }
    deinit { pthread_mutex_destroy(mutex); mutex.deallocate() }
    @inline(__always)
    package func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A readers–writer lock over pthread_rwlock: page reads share it, checkpoint publication and WAL
/// reset take it exclusively (see Store+Checkpoint.swift).
final class ReadWriteLock: @unchecked Sendable {
    private let rw = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
    init() { pthread_rwlock_init(rw, nil) }
    deinit { pthread_rwlock_destroy(rw); rw.deallocate() }
    @inline(__always)
    func withReadLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_rwlock_rdlock(rw)
        defer { pthread_rwlock_unlock(rw) }
        return try body()
    }
    func withWriteLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_rwlock_wrlock(rw)
        defer { pthread_rwlock_unlock(rw) }
        return try body()
    }
}

/// A binary semaphore that may be released from another thread than the one that took it: the
/// single-writer gate, held for the life of a write transaction.
final class WriterGate: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var held = false
    init() { pthread_mutex_init(mutex, nil); pthread_cond_init(cond, nil) }
    deinit {
        pthread_cond_destroy(cond); pthread_mutex_destroy(mutex)
        cond.deallocate(); mutex.deallocate()
    }
    func acquire() {
        pthread_mutex_lock(mutex)
        while held { pthread_cond_wait(cond, mutex) }
        held = true
        pthread_mutex_unlock(mutex)
    }
    func release() {
        pthread_mutex_lock(mutex)
        held = false
        pthread_cond_signal(cond)
        pthread_mutex_unlock(mutex)
    }
}

/// A value behind a pthread mutex, with `Synchronization.Mutex`'s `withLock` shape. Every module
/// uses it instead of `Mutex`, whose Linux implementation waits on a raw futex that
/// ThreadSanitizer cannot see: every access under a `Mutex` is reported as a race
/// ("Swift access race"), which would bury real reports from `make test-tsan`.
package final class LockedState<Value>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit { pthread_mutex_destroy(mutex); mutex.deallocate() }

    package func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

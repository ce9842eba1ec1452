// Per-thread state (docs/CADMIUM-API.md §4): the thread's current context and three flags, kept in a
// POSIX thread-specific slot (Cadmium used the thread's `threadDictionary`; every property
// access reads this state, and a slot costs a few nanoseconds where the dictionary cost a
// string hash and a bridged lookup). The slot holds one retain, released when the thread ends. On
// the main thread the current context is always the main context of the current container
// (CdContainer+Current.swift; nil when there is none), so it is not stored.
// "Main" means the main thread or the main queue (see `isMain`).
//
// Confinement: a `ThreadState` is created, read and written only by its own thread.

import Foundation

final class ThreadState {
    /// The transaction context attached to this thread (never the main context).
    var context: CdManagedObjectContext?
    /// `cancelImplicitCommit()` was called in the running transaction body.
    var noImplicitCommit = false
    /// The thread is running a transaction body (nested `transactAndWait` then skips the
    /// serial queue).
    var insideTransaction = false
    /// The main thread is inside a sanctioned merge (J1 does not apply).
    var insideMainMerge = false
    /// Whether this thread's transaction context holds the store's writer (BW4 in
    /// CdManagedObjectContext+Flush.swift).
    var holdsStoreWriter = false
    /// The ordinal the next property wrapper initialised on this thread takes (`WrapperOrdinals`).
    var nextWrapperOrdinal = 0
    /// While `WrapperSpecs.capture` runs: the specs of the wrappers initialised, by ordinal.
    var capturedSpecs: [(any WrapperSpec)?]?
    /// While `WrapperSpecs.capture` runs: an ordinal was taken twice (`WrapperSpecs.record`).
    var capturedOrdinalTwice = false
    /// This is the process's main thread. Asked once per thread: on Linux `Thread.isMainThread`
    /// is a `gettid` system call, and every property access asks.
    let isMainThread = Thread.isMainThread

    /// The thread-specific slot holding each thread's state (retained once).
    private static let slot: pthread_key_t = {
        var key = pthread_key_t()
        #if canImport(Glibc) || canImport(Musl)
        let status = pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<ThreadState>.fromOpaque(pointer).release() }
        }
        #else
        let status = pthread_key_create(&key) { pointer in Unmanaged<ThreadState>.fromOpaque(pointer).release() }
        #endif
        precondition(status == 0, "pthread_key_create failed (\(status)): the process is out of thread-specific keys")
        return key
    }()

    /// This thread's state, created on first use.
    static var current: ThreadState {
        if let pointer = pthread_getspecific(slot) {
            return Unmanaged<ThreadState>.fromOpaque(pointer).takeUnretainedValue()
        }
        let state = ThreadState()
        pthread_setspecific(slot, Unmanaged.passRetained(state).toOpaque())
        return state
    }

    /// The key that marks blocks running on the main queue.
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Whether the caller is "main": the main thread, or a block running on the main queue.
    /// On Linux, once the main thread has called `dispatch_main()` (as test runners do), the
    /// main queue is drained by another thread; it is still the main context's queue.
    static var isMain: Bool { current.isMain }

    /// `ThreadState.isMain` for the thread that owns this state.
    var isMain: Bool {
        isMainThread || DispatchQueue.getSpecific(key: ThreadState.mainQueueKey) == true
    }

    /// The calling thread's current context: the main context on the main thread, the attached
    /// transaction context elsewhere.
    static var currentContext: CdManagedObjectContext? { current.currentContext }

    /// `ThreadState.currentContext` for the thread that owns this state.
    var currentContext: CdManagedObjectContext? { currentContext(isMain: isMain) }

    /// `currentContext` when the caller has already asked `isMain`.
    func currentContext(isMain: Bool) -> CdManagedObjectContext? {
        isMain ? (context ?? Cd.container?.main) : context
    }

    /// A name for messages: "main thread" or the thread's name / description.
    static var threadName: String {
        if ThreadState.isMain { return "main thread" }
        let name = Thread.current.name ?? ""
        return name.isEmpty ? "background thread \(Thread.current.description)" : "background thread '\(name)'"
    }

    /// "main", "transaction" or "no transaction": where the caller is, for messages.
    static var situation: String {
        if ThreadState.isMain { return "on the main thread" }
        return current.context == nil ? "on a background thread outside any transaction" : "inside a transaction"
    }
}

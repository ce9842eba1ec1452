// Per-thread state (CADMIUM.md §1.1): the thread's current context and three flags, kept in the
// thread's `threadDictionary` under one key, as Cadmium did. On the main thread the current
// context is always the main context (nil before `Cd.initWithStore`), so it is not stored.
// "Main" means the main thread or the main queue (see `isMain`).
//
// Confinement: a `ThreadState` is created, read and written only by its own thread.

import Foundation

final class ThreadState {
    private static let key = "org.cadmium.linux.threadState"

    /// The transaction context attached to this thread (never the main context).
    var context: CdManagedObjectContext?
    /// `cancelImplicitCommit()` was called in the running transaction body.
    var noImplicitCommit = false
    /// The thread is running a transaction body (nested `transactAndWait` then skips the
    /// serial queue).
    var insideTransaction = false
    /// The main thread is inside a sanctioned merge (J1 does not apply).
    var insideMainMerge = false

    /// This thread's state, created on first use.
    static var current: ThreadState {
        let dictionary = Thread.current.threadDictionary
        if let state = dictionary[key] as? ThreadState { return state }
        let state = ThreadState()
        dictionary[key] = state
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
    static var isMain: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueueKey) == true
    }

    /// The calling thread's current context: the main context on the main thread, the attached
    /// transaction context elsewhere.
    static var currentContext: CdManagedObjectContext? {
        if ThreadState.isMain { return current.context ?? Cd.stack?.main }
        return current.context
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

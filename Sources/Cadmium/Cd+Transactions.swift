// Transactions (docs/CADMIUM-API.md §3, "Serial transactions", "Body execution"): every body runs
// in a fresh context attached to the thread that runs it, and commits implicitly at its end unless
// `cancelImplicitCommit()` was called. This file holds the body runner, the asynchronous forms
// and the calls made inside a body; the waiting forms are in Cd+TransactAndWait.swift.
//
// Serial rule: useSerial = (serial ?? defaultSerialTransactions) || (serial != false && queue != nil),
// and for the waiting forms also `&& !insideTransaction`, so a nested `transactAndWait` never
// waits on the serial queue (it would deadlock behind its own outer transaction).
//
//   transact         serial: Q.async { S.sync { run } }   otherwise: a global queue, async
//   transactAndWait  serial: Q.sync { S.sync { run } }    otherwise: run on the calling thread
//
// S is the container's default serial queue, Q the caller's queue (no queue given: S alone, without
// the hop). Invariants:
//   TX1. Every serial transaction runs whole (body and commit) inside S, so serial transactions
//        never overlap, whichever queue the caller gave: a caller's queue is ordered by itself
//        and then by S, as Cadmium's README promises ("the dispatch queue you provide will target
//        the internal default serial queue"). A concurrent caller's queue serialises too.
//   TX2. A thread that is inside a transaction body never waits on S (nested waiting forms run
//        at once), and the main queue never waits on S (a transaction there is misuse F5).
//   TX3. An error is never dropped: it is thrown, passed to `completion`, or passed to
//        `Cd.commitFailureHandler` (a misuse has gone to `Cd.misuseHandler`).

import Foundation
import CdObjects

extension Cd {
    static func useSerial(_ serial: Bool?, _ queue: DispatchQueue?, _ container: CdContainer) -> Bool {
        (serial ?? container.defaultSerialTransactions.load(ordering: .relaxed)) || (serial != false && queue != nil)
    }

    // MARK: - Running a body

    /// Runs `body` in a fresh transaction context on this thread, then commits (steps 1–4 of
    /// Cadmium's `transactOperation`). The thread's previous context and flags are restored.
    static func runTransaction<R>(_ container: CdContainer, _ body: () throws -> R) throws -> R {
        guard container.running.enter() else { throw closedContainerMisuse() }
        defer { container.running.leave() }
        let context = container.newTransactionContext()
        let state = ThreadState.current
        let saved = (state.context, state.noImplicitCommit, state.insideTransaction)
        try attach(context)
        state.noImplicitCommit = false
        state.insideTransaction = true
        defer { (state.context, state.noImplicitCommit, state.insideTransaction) = saved }
        do {
            let result = try body()
            if !state.noImplicitCommit { try commit(context) }
            context.discardChanges()
            return result
        } catch {
            context.discardChanges()
            throw error
        }
    }

    /// Attaches a transaction context to this thread (check F5: never the main thread).
    static func attach(_ context: CdManagedObjectContext) throws {
        if ThreadState.isMain {
            throw Misuse.report(
                .f5,
                "A transaction context (\(context)) was about to be attached to the main thread, "
                    + "whose context is always the main context. Run transactions on a background queue: "
                    + "do not pass DispatchQueue.main as a transaction's queue.")
        }
        ThreadState.current.context = context
    }

    /// Commits `context`; a failure names `call` (the commit that met it) in its description.
    static func commit(
        _ context: CdManagedObjectContext, call: String = "the commit at the end of a transaction body"
    ) throws {
        do { try context.commit() } catch let error as CdError { throw error.during(call) }
    }

    // MARK: - Serial execution

    /// Runs `work` later as a serial transaction: on the default serial queue, or on `queue`
    /// and then inside the default serial queue (keeps TX1).
    static func enqueueSerial(_ container: CdContainer, _ queue: DispatchQueue?, _ work: @escaping @Sendable () -> Void)
    {
        guard let queue else {
            container.serialQueue.async(execute: work)
            return
        }
        queue.async { insideSerialQueue(container, work) }
    }

    /// Runs `work` now as a serial transaction on the calling thread's behalf: inside `queue`
    /// if one is given, and inside the default serial queue (keeps TX1).
    static func runSerial<R>(_ container: CdContainer, _ queue: DispatchQueue?, _ work: () throws -> R) throws -> R {
        guard let queue else { return try container.serialQueue.sync(execute: work) }
        return try queue.sync { try insideSerialQueue(container, work) }
    }

    /// `work` inside the default serial queue; on the main queue at once (keeps TX2: the
    /// transaction there fails with F5, and main must not wait).
    private static func insideSerialQueue<R>(_ container: CdContainer, _ work: () throws -> R) rethrows -> R {
        if ThreadState.isMain { return try work() }
        return try container.serialQueue.sync(execute: work)
    }

    // MARK: - Asynchronous

    /// Runs `operation` in a new transaction, asynchronously; commits at its end.
    ///
    /// Allowed on any thread, including main. `completion` (on a global queue, after the commit)
    /// gets the error the body or the commit threw, or nil. With no `completion`, such an error
    /// goes to ``commitFailureHandler`` (by default it stops the program, as Cadmium's
    /// `try! commit()` did); a misuse has gone to ``misuseHandler``.
    /// ```swift
    /// Cd.transact {
    ///     let item = try Cd.create(Item.self)
    ///     item.name = "new"
    /// }
    /// ```
    public static func transact(
        serial: Bool? = nil, on queue: DispatchQueue? = nil,
        operation: @escaping () throws -> Void,
        completion: (((any Error)?) -> Void)? = nil
    ) {
        let container: CdContainer
        do {
            container = try requireContainer("Cd.transact")
        } catch {
            completion?(error)  // a misuse (A1): reported already
            return
        }
        // The body and completion run on another thread: Cadmium's model, checked at run time.
        let operationBox = Unchecked(operation), completionBox = Unchecked(completion)
        // The body and the completion run with the container current (CN3).
        let work: @Sendable () -> Void = {
            let error: (any Error)?
            do {
                try withContainer(container) { try runTransaction(container, operationBox.value) }
                error = nil
            } catch let thrown {
                error = thrown
            }
            guard completionBox.value != nil else {
                if let error { reportUnthrown(error) }  // keeps TX3
                return
            }
            // Not on the transaction's queue: a serial queue would deadlock a completion that
            // starts a serial transactAndWait.
            let result = Unchecked(error)
            DispatchQueue.global().async { withContainer(container) { completionBox.value?(result.value) } }
        }
        if useSerial(serial, queue, container) {
            enqueueSerial(container, queue, work)
        } else {
            DispatchQueue.global().async(execute: work)
        }
    }

    /// `transact` with `object` moved into the transaction (nil if it is not available there).
    public static func transactWith<T: CdManagedObject>(
        _ object: T, serial: Bool? = nil, on queue: DispatchQueue? = nil,
        operation: @escaping (T?) throws -> Void,
        completion: (((any Error)?) -> Void)? = nil
    ) {
        transact(
            serial: serial, on: queue, operation: { try operation(try throwingUseInCurrentContext(object)) },
            completion: completion)
    }

    /// `transact` with `objects` moved into the transaction; unavailable ones are dropped.
    public static func transactWith<T: CdManagedObject>(
        _ objects: [T], serial: Bool? = nil, on queue: DispatchQueue? = nil,
        operation: @escaping ([T]) throws -> Void,
        completion: (((any Error)?) -> Void)? = nil
    ) {
        transact(
            serial: serial, on: queue, operation: { try operation(try throwingUseInCurrentContext(objects)) },
            completion: completion)
    }

    // MARK: - Inside a transaction

    /// The running transaction's context (check F3).
    public static func transactionContext() throws -> CdManagedObjectContext {
        try currentTransaction("Cd.transactionContext()", .f3)
    }

    /// Skips the implicit commit at the end of the running transaction body (check F2; if the
    /// misuse handler returns, nothing happens).
    ///
    /// ```swift
    /// Cd.transact {
    ///     modifyThings()
    ///     if someErrorOccurred {
    ///         Cd.cancelImplicitCommit()
    ///         return
    ///     }
    /// }
    /// ```
    public static func cancelImplicitCommit() {
        try? throwingCancelImplicitCommit()
    }

    /// ``cancelImplicitCommit()`` that throws the misuse when the handler returns.
    static func throwingCancelImplicitCommit() throws {
        _ = try currentTransaction("Cd.cancelImplicitCommit()", .f2)
        ThreadState.current.noImplicitCommit = true
    }

    /// Commits the running transaction's changes now; returns when they are durable in the
    /// store (check F4). Throws validation failures as `CdError`.
    public static func commit() throws {
        try commit(try currentTransaction("Cd.commit()", .f4), call: "Cd.commit()")
    }

    static func currentTransaction(_ call: String, _ kind: CdMisuse.Kind) throws -> CdManagedObjectContext {
        if ThreadState.isMain {
            throw Misuse.report(
                kind,
                "\(call) was called on the main thread, which is not inside a transaction. "
                    + "Call it inside a Cd.transact { } or Cd.transactAndWait { } body.")
        }
        guard let context = ThreadState.current.context, context.kind == .transaction else {
            throw Misuse.report(
                kind,
                "\(call) was called on a background thread outside any transaction. "
                    + "Call it inside a Cd.transact { } or Cd.transactAndWait { } body.")
        }
        return context
    }

    /// The running transaction's context for a call that writes: misuse `onMain` on the main
    /// thread (its context is read-only), `outside` on a background thread outside any
    /// transaction; `advice` ends both messages.
    static func writingTransaction(
        _ call: String, onMain: CdMisuse.Kind, outside: CdMisuse.Kind, advice: String
    ) throws -> CdManagedObjectContext {
        if ThreadState.isMain {
            throw Misuse.report(onMain, "\(call) was called on the main thread, whose context is read-only. \(advice)")
        }
        guard let context = ThreadState.current.context, context.kind == .transaction else {
            throw Misuse.report(outside, "\(call) was called on a background thread outside any transaction. \(advice)")
        }
        return context
    }

    // MARK: - Read snapshots

    /// Runs `body` with a read-only snapshot of the last commit as the thread's context, on any
    /// thread (for servers and tools without a main run loop). Fetches in `body` see that commit;
    /// objects are read-only and belong to the snapshot.
    ///
    /// ```swift
    /// let names = try Cd.read { try Cd.objects(Item.self).sorted("name").fetch().map(\.name) }
    /// ```
    public static func read<R>(_ body: () throws -> R) throws -> R {
        let container = try requireContainer("Cd.read")
        // `Cd.close()` waits for a running read as for a transaction (MG1); a read inside a
        // running body is covered by that body's entry.
        let state = ThreadState.current
        let nested = state.insideTransaction || state.context?.kind == .snapshot
        if !nested, !container.running.enter() { throw closedContainerMisuse() }
        defer { if !nested { container.running.leave() } }
        let snapshot = try container.store.beginSnapshot()
        defer { snapshot.end() }
        let context = CdManagedObjectContext(kind: .snapshot, container: container, number: 0, snapshot: snapshot)
        let saved = state.context
        state.context = context
        defer { state.context = saved }
        return try body()
    }
}

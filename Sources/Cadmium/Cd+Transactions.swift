// Transactions (docs/CADMIUM-API.md §3, "Serial transactions", "Body execution"): every body runs
// in a fresh context attached to the thread that runs it, and commits implicitly at its end unless
// `cancelImplicitCommit()` was called.
//
// Serial rule: useSerial = (serial ?? defaultSerialTransactions) || (serial != false && queue != nil),
// and for the waiting forms also `&& !insideTransaction`, so a nested `transactAndWait` never
// waits on the serial queue (it would deadlock behind its own outer transaction).
//
//   transact         serial: queue.async { run }        otherwise: a global queue, async
//   transactAndWait  serial: queue.sync { run }         otherwise: run on the calling thread
//
// A custom queue is used as given: a concurrent one serialises nothing (as in Cadmium ≥ 1.0.3).

import Foundation
import CdObjects

extension Cd {
    static func useSerial(_ serial: Bool?, _ queue: DispatchQueue?) -> Bool {
        (serial ?? defaultSerialTransactions) || (serial != false && queue != nil)
    }

    static func requireStack(_ call: String) throws -> CdStack {
        if let stack { return stack }
        throw Misuse.report(
            .a1,
            "\(call) was called before Cd.initWithStore(model:storeURL:serialTX:). "
                + "Initialise Cadmium first, once, at startup.")
    }

    // MARK: - Running a body

    /// Runs `body` in a fresh transaction context on this thread, then commits (steps 1–4 of
    /// Cadmium's `transactOperation`). The thread's previous context and flags are restored.
    static func runTransaction<R>(_ stack: CdStack, _ body: () throws -> R) throws -> R {
        let context = stack.newTransactionContext()
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

    static func commit(_ context: CdManagedObjectContext) throws {
        try context.commit()
    }

    // MARK: - Asynchronous

    /// Runs `operation` in a new transaction, asynchronously; commits at its end.
    ///
    /// Allowed on any thread, including main. `completion` (on a global queue, after the commit)
    /// gets the error the body or the commit threw, or nil.
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
        let stack: CdStack
        do {
            stack = try requireStack("Cd.transact")
        } catch {
            completion?(error)
            return
        }
        // The body and completion run on another thread: Cadmium's model, checked at run time.
        let operationBox = Unchecked(operation), completionBox = Unchecked(completion)
        let work: @Sendable () -> Void = {
            let error: (any Error)?
            do {
                try runTransaction(stack, operationBox.value)
                error = nil
            } catch let thrown {
                error = thrown
            }
            // Not on the transaction's queue: a serial queue would deadlock a completion that
            // starts a serial transactAndWait.
            if completionBox.value != nil {
                let result = Unchecked(error)
                DispatchQueue.global().async { completionBox.value?(result.value) }
            }
        }
        if useSerial(serial, queue) {
            (queue ?? stack.serialQueue).async(execute: work)
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
            serial: serial, on: queue, operation: { try operation(try useInCurrentContext(object)) },
            completion: completion)
    }

    /// `transact` with `objects` moved into the transaction; unavailable ones are dropped.
    public static func transactWith<T: CdManagedObject>(
        _ objects: [T], serial: Bool? = nil, on queue: DispatchQueue? = nil,
        operation: @escaping ([T]) throws -> Void,
        completion: (((any Error)?) -> Void)? = nil
    ) {
        transact(
            serial: serial, on: queue, operation: { try operation(try useInCurrentContext(objects)) },
            completion: completion)
    }

    // MARK: - Synchronous

    /// Runs `operation` in a new transaction and waits for it and its commit; returns the
    /// body's value and throws what the body or the commit threw (a validation failure at the
    /// implicit commit is a `CdError`). Not on the main thread (check F1).
    ///
    /// ```swift
    /// let count = try Cd.transactAndWait { try Cd.objects(Item.self).count() }
    /// ```
    @discardableResult
    public static func transactAndWait<R>(
        serial: Bool? = nil, on queue: DispatchQueue? = nil,
        operation: () throws -> R
    ) throws -> R {
        if ThreadState.isMain {
            throw Misuse.report(
                .f1,
                "Cd.transactAndWait was called on the main thread, which must never wait for a "
                    + "transaction. Use Cd.transact { } (asynchronous), "
                    + "or call transactAndWait from a background queue."
            )
        }
        let stack = try requireStack("Cd.transactAndWait")
        if useSerial(serial, queue) && !ThreadState.current.insideTransaction {
            return try (queue ?? stack.serialQueue).sync { try runTransaction(stack, operation) }
        }
        return try runTransaction(stack, operation)
    }

    /// `transactAndWait` with `object` moved into the transaction (nil if not available).
    @discardableResult
    public static func transactAndWaitWith<T: CdManagedObject, R>(
        _ object: T, serial: Bool? = nil, on queue: DispatchQueue? = nil,
        operation: (T?) throws -> R
    ) throws -> R {
        if ThreadState.isMain {
            throw Misuse.report(
                .f1,
                "Cd.transactAndWaitWith was called on the main thread, which must never wait for a "
                    + "transaction. Use Cd.transactWith(_:) { } instead, or call it from a background queue.")
        }
        return try transactAndWait(serial: serial, on: queue) { try operation(try useInCurrentContext(object)) }
    }

    /// `transactAndWait` with `objects` moved into the transaction; unavailable ones are dropped.
    @discardableResult
    public static func transactAndWaitWith<T: CdManagedObject, R>(
        _ objects: [T], serial: Bool? = nil, on queue: DispatchQueue? = nil,
        operation: ([T]) throws -> R
    ) throws -> R {
        if ThreadState.isMain {
            throw Misuse.report(
                .f1,
                "Cd.transactAndWaitWith was called on the main thread, which must never wait for a "
                    + "transaction. Use Cd.transactWith(_:) { } instead, or call it from a background queue.")
        }
        return try transactAndWait(serial: serial, on: queue) { try operation(try useInCurrentContext(objects)) }
    }

    /// A transaction for async code: runs `body` like `transactAndWait` on a background
    /// thread and returns its value once committed.
    ///
    /// ```swift
    /// let id = try await Cd.transaction { try Cd.create(Item.self).objectID }
    /// ```
    public static func transaction<R: Sendable>(
        serial: Bool? = nil, on queue: DispatchQueue? = nil,
        _ body: sending @escaping () throws -> R
    ) async throws -> R {
        let box = Unchecked(body)
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result { try transactAndWait(serial: serial, on: queue, operation: box.value) })
            }
        }
    }

    // MARK: - Inside a transaction

    /// The running transaction's context (check F3).
    public static func transactionContext() throws -> CdManagedObjectContext {
        try currentTransaction("Cd.transactionContext()", .f3)
    }

    /// Skips the implicit commit at the end of the running transaction body (check F2).
    public static func cancelImplicitCommit() throws {
        _ = try currentTransaction("Cd.cancelImplicitCommit()", .f2)
        ThreadState.current.noImplicitCommit = true
    }

    /// Commits the running transaction's changes now; returns when they are durable in the
    /// store (check F4). Throws validation failures as `CdError`.
    public static func commit() throws {
        try commit(try currentTransaction("Cd.commit()", .f4))
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

    // MARK: - Read snapshots

    /// Runs `body` with a read-only snapshot of the last commit as the thread's context, on any
    /// thread (for servers and tools without a main run loop). Fetches in `body` see that commit;
    /// objects are read-only and belong to the snapshot.
    ///
    /// ```swift
    /// let names = try Cd.read { try Cd.objects(Item.self).sorted("name").fetch().map(\.name) }
    /// ```
    public static func read<R>(_ body: () throws -> R) throws -> R {
        let stack = try requireStack("Cd.read")
        let snapshot = try stack.store.beginSnapshot()
        defer { snapshot.end() }
        let context = CdManagedObjectContext(kind: .snapshot, stack: stack, number: 0, snapshot: snapshot)
        let state = ThreadState.current
        let saved = state.context
        state.context = context
        defer { state.context = saved }
        return try body()
    }
}

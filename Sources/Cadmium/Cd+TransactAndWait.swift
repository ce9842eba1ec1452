// The waiting transactions (docs/CADMIUM-API.md §3): `transactAndWait` and `transactAndWaitWith`
// in Cadmium's non-throwing form, their throwing overloads, and `transaction` for async code.
//
// Three overloads per call, so that code written for Cadmium compiles unchanged and Swift code
// can still throw (docs/CADMIUM-API.md §3, "Overloads of the waiting forms"):
//
//   (a) operation: () -> Void                     Cadmium's signature; returns nothing
//   (b) operation: () -> R, returns R?            a non-throwing body with a value (nil: failed)
//   (c) operation: () throws -> R, throws -> R    a throwing body; throws its error or the commit's
//
// A non-throwing closure picks (a) or (b): a parameter of non-throwing function type is more
// specific than a throwing one, and (a) is not generic. A single-expression closure whose value is
// not Void (`{ item?.name = "x" }` is `Void?`) picks (b), not (c), so it needs no `try`. A closure
// that throws can only be (c). In (a) and (b) a failure of the implicit commit goes to
// `Cd.commitFailureHandler` (keeps TX3 of Cd+Transactions.swift).

import Foundation
import CdObjects

extension Cd {
    // MARK: - Running a waiting transaction

    /// Checks F1 and A1, then runs `operation` as a transaction and waits for its commit,
    /// serially when the rule says so (keeps TX1, TX2).
    static func waitingTransaction<R>(
        _ call: String, serial: Bool?, on queue: DispatchQueue?, operation: () throws -> R
    ) throws -> R {
        if ThreadState.isMain {
            throw Misuse.report(
                .f1,
                "\(call) was called on the main thread, which must never wait for a transaction. "
                    + "Use Cd.transact { } (asynchronous), or call it from a background queue.")
        }
        let container = try requireContainer(call)
        if useSerial(serial, queue, container) && !ThreadState.current.insideTransaction {
            return try runSerial(container, queue) { try runTransaction(container, operation) }
        }
        return try runTransaction(container, operation)
    }

    /// A waiting transaction for a non-throwing body: nil when it failed (the misuse went to
    /// the misuse handler, a commit failure to ``commitFailureHandler``).
    static func reportingTransaction<R>(
        _ call: String, serial: Bool?, on queue: DispatchQueue?, operation: () -> R
    ) -> R? {
        do {
            return try waitingTransaction(call, serial: serial, on: queue, operation: operation)
        } catch {
            reportUnthrown(error)
            return nil
        }
    }

    // MARK: - transactAndWait

    /// Runs `operation` in a new transaction on this thread and waits until it has run and its
    /// implicit commit is durable (Cadmium's signature). Not on the main thread (check F1).
    ///
    /// A misuse goes to ``misuseHandler``; a failure of the implicit commit goes to
    /// ``commitFailureHandler`` (by default both stop the program, as Cadmium did). For a body
    /// that throws, the throwing overload is chosen and throws instead.
    ///
    /// ```swift
    /// Cd.transactAndWait {
    ///     let item = try! Cd.objects(Item.self).filter("id = 1").fetchOne()
    ///     item?.name = "111"
    /// }
    /// ```
    public static func transactAndWait(
        serial: Bool? = nil, on serialQueue: DispatchQueue? = nil, operation: () -> Void
    ) {
        _ = reportingTransaction("Cd.transactAndWait", serial: serial, on: serialQueue, operation: operation)
    }

    /// `transactAndWait(serial:on:operation:)` for a non-throwing body with a
    /// value: the body's value, or nil when the transaction failed (misuse, commit failure).
    ///
    /// ```swift
    /// let count = Cd.transactAndWait { (try? Cd.objects(Item.self).count()) ?? 0 }   // Int?
    /// ```
    @discardableResult
    public static func transactAndWait<R>(
        serial: Bool? = nil, on serialQueue: DispatchQueue? = nil, operation: () -> R
    ) -> R? {
        reportingTransaction("Cd.transactAndWait", serial: serial, on: serialQueue, operation: operation)
    }

    /// The throwing form, for a body that throws: returns the body's value once committed, and
    /// throws what the body threw (nothing is committed) or what the commit threw (a validation
    /// failure is a `CdError`), or the misuse if the misuse handler returned.
    ///
    /// ```swift
    /// let count = try Cd.transactAndWait { try Cd.objects(Item.self).count() }
    /// try Cd.transactAndWait {
    ///     let item = try Cd.create(Item.self)
    ///     item.name = "F"
    /// }
    /// ```
    @discardableResult
    public static func transactAndWait<R>(
        serial: Bool? = nil, on serialQueue: DispatchQueue? = nil, operation: () throws -> R
    ) throws -> R {
        try waitingTransaction("Cd.transactAndWait", serial: serial, on: serialQueue, operation: operation)
    }

    // MARK: - transactAndWaitWith

    /// `transactAndWait` with `object` moved into the transaction (nil if it is not available
    /// there; Cadmium's signature).
    ///
    /// ```swift
    /// Cd.transactAndWaitWith(item) { item in item?.numberTaps += 1 }
    /// ```
    public static func transactAndWaitWith<T: CdManagedObject>(
        _ object: T, serial: Bool? = nil, on serialQueue: DispatchQueue? = nil, operation: (T?) -> Void
    ) {
        _ = reportingTransaction("Cd.transactAndWaitWith", serial: serial, on: serialQueue) {
            operation(useInCurrentContext(object))
        }
    }

    /// `transactAndWaitWith` for a non-throwing body with a value (nil when the transaction
    /// failed).
    @discardableResult
    public static func transactAndWaitWith<T: CdManagedObject, R>(
        _ object: T, serial: Bool? = nil, on serialQueue: DispatchQueue? = nil, operation: (T?) -> R
    ) -> R? {
        reportingTransaction("Cd.transactAndWaitWith", serial: serial, on: serialQueue) {
            operation(useInCurrentContext(object))
        }
    }

    /// `transactAndWaitWith` for a body that throws: throws the body's, the move's or the
    /// commit's error.
    @discardableResult
    public static func transactAndWaitWith<T: CdManagedObject, R>(
        _ object: T, serial: Bool? = nil, on serialQueue: DispatchQueue? = nil, operation: (T?) throws -> R
    ) throws -> R {
        try waitingTransaction("Cd.transactAndWaitWith", serial: serial, on: serialQueue) {
            try operation(try throwingUseInCurrentContext(object))
        }
    }

    /// `transactAndWait` with `objects` moved into the transaction; unavailable ones are dropped
    /// (Cadmium's signature).
    public static func transactAndWaitWith<T: CdManagedObject>(
        _ objects: [T], serial: Bool? = nil, on serialQueue: DispatchQueue? = nil, operation: ([T]) -> Void
    ) {
        _ = reportingTransaction("Cd.transactAndWaitWith", serial: serial, on: serialQueue) {
            operation(useInCurrentContext(objects))
        }
    }

    /// `transactAndWaitWith` of objects for a non-throwing body with a value (nil when the
    /// transaction failed).
    @discardableResult
    public static func transactAndWaitWith<T: CdManagedObject, R>(
        _ objects: [T], serial: Bool? = nil, on serialQueue: DispatchQueue? = nil, operation: ([T]) -> R
    ) -> R? {
        reportingTransaction("Cd.transactAndWaitWith", serial: serial, on: serialQueue) {
            operation(useInCurrentContext(objects))
        }
    }

    /// `transactAndWaitWith` of objects for a body that throws.
    @discardableResult
    public static func transactAndWaitWith<T: CdManagedObject, R>(
        _ objects: [T], serial: Bool? = nil, on serialQueue: DispatchQueue? = nil, operation: ([T]) throws -> R
    ) throws -> R {
        try waitingTransaction("Cd.transactAndWaitWith", serial: serial, on: serialQueue) {
            try operation(try throwingUseInCurrentContext(objects))
        }
    }

    // MARK: - async

    /// A transaction for async code: runs `body` like `transactAndWait` on a background
    /// thread and returns its value once committed; throws the body's, the commit's or a
    /// misuse's error.
    ///
    /// ```swift
    /// let id = try await Cd.transaction { try Cd.create(Item.self).objectID }
    /// ```
    public static func transaction<R: Sendable>(
        serial: Bool? = nil, on queue: DispatchQueue? = nil,
        _ body: sending @escaping () throws -> R
    ) async throws -> R {
        let box = Unchecked(body)
        let container = Cd.container  // carried to the queue (CN3)
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        try withContainer(ifAny: container) {
                            try waitingTransaction("Cd.transaction", serial: serial, on: queue, operation: box.value)
                        }
                    })
            }
        }
    }
}

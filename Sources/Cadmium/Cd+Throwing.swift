// `Cd.throwing`: the Swift-native, throwing twins of the calls that Cadmium declares non-throwing
// (docs/CADMIUM-API.md §3, "Cadmium's forms and the throwing forms"). Same names, same rules and
// checks; the difference is what happens when a handler returns: the Cadmium form does nothing
// and hands a store failure to `Cd.commitFailureHandler`, the throwing form throws the `CdMisuse`
// or the store's error to its caller.

import Foundation

/// The throwing forms of `Cd`'s non-throwing calls, reached through ``Cd/throwing``.
///
/// ```swift
/// try Cd.throwing.transactAndWait {            // a validation failure at the commit is thrown
///     let item = try Cd.throwing.useInCurrentContext(mainItem)
///     try Cd.throwing.delete(item!)
/// }
/// ```
public struct CdThrowing: Sendable {
    /// `Cd.transactAndWait(serial:on:operation:)` that throws the body's, the
    /// commit's or a misuse's error (for any body, throwing or not).
    @discardableResult
    public func transactAndWait<R>(
        serial: Bool? = nil, on serialQueue: DispatchQueue? = nil, operation: () throws -> R
    ) throws -> R {
        try Cd.waitingTransaction("Cd.transactAndWait", serial: serial, on: serialQueue, operation: operation)
    }

    /// `transactAndWaitWith(object)` that throws; the body gets `object` in the transaction
    /// (nil if it no longer exists).
    @discardableResult
    public func transactAndWaitWith<T: CdManagedObject, R>(
        _ object: T, serial: Bool? = nil, on serialQueue: DispatchQueue? = nil, operation: (T?) throws -> R
    ) throws -> R {
        try Cd.transactAndWaitWith(object, serial: serial, on: serialQueue, operation: operation)
    }

    /// `transactAndWaitWith(objects)` that throws; unavailable objects are dropped.
    @discardableResult
    public func transactAndWaitWith<T: CdManagedObject, R>(
        _ objects: [T], serial: Bool? = nil, on serialQueue: DispatchQueue? = nil, operation: ([T]) throws -> R
    ) throws -> R {
        try Cd.transactAndWaitWith(objects, serial: serial, on: serialQueue, operation: operation)
    }

    /// ``Cd/cancelImplicitCommit()`` that throws the misuse (F2).
    public func cancelImplicitCommit() throws { try Cd.throwingCancelImplicitCommit() }

    /// `Cd.insert(_:)` that throws the misuse (D1–D3) or the store's error.
    public func insert(_ object: CdManagedObject) throws { try Cd.throwingInsert(object) }

    /// `Cd.insert(_:)` of an array that throws; those before a failing one stay inserted.
    public func insert(_ objects: [CdManagedObject]) throws { try Cd.throwingInsert(objects) }

    /// `Cd.delete(_:)` that throws the misuse (E1–E4) or the store's error
    /// (a deny rule: `CdError` 1600).
    public func delete(_ object: CdManagedObject) throws { try Cd.throwingDelete(object) }

    /// `Cd.delete(_:)` of an array that throws; those before a failing one stay deleted.
    public func delete(_ objects: [CdManagedObject]) throws { try Cd.throwingDelete(objects) }

    /// `Cd.useInCurrentContext(_:)` that throws the misuse (G1–G3) or the store's error;
    /// nil when the object no longer exists.
    public func useInCurrentContext<T: CdManagedObject>(_ object: T) throws -> T? {
        try Cd.throwingUseInCurrentContext(object)
    }

    /// `Cd.useInCurrentContext(_:)` of an array that throws; objects that no longer exist are dropped.
    public func useInCurrentContext<T: CdManagedObject>(_ objects: [T]) throws -> [T] {
        try Cd.throwingUseInCurrentContext(objects)
    }
}

extension Cd {
    /// The throwing forms of the calls that Cadmium declares non-throwing: `transactAndWait`,
    /// `transactAndWaitWith`, `cancelImplicitCommit`, `insert`, `delete`, `useInCurrentContext`.
    ///
    /// ```swift
    /// do {
    ///     try Cd.throwing.delete(item)
    /// } catch let misuse as CdMisuse { … }   // when Cd.misuseHandler returns
    /// ```
    public static var throwing: CdThrowing { CdThrowing() }
}

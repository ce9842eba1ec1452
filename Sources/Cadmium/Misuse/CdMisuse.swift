// The value that describes one misuse of the `Cd` API, and the error a throwing call throws when
// `Cd.misuseHandler` returns. It belongs to this module, the layer that knows threads and
// contexts; the object store's `CdError` knows nothing of it.
//
// Misuse: a call that breaks Cadmium's confinement rules (checks A1 to K2, listed with their
// meaning in `Kind` below and in docs/CADMIUM-API.md §5). Every check reports at the offending
// call through `Cd.misuseHandler`; the default handler stops the program, as Cadmium's "Cadmium
// Exception" did. If a handler returns, a throwing call (and every `Cd.throwing` form) throws the
// `CdMisuse` itself, and a non-throwing one (Cadmium's forms, a property write) does nothing.

/// One misuse of the API, as reported to `Cd.misuseHandler`, and the error a throwing call
/// throws when the handler returns.
///
/// ```swift
/// Cd.misuseHandler = { misuse in log.error("\(misuse.kind): \(misuse.message)") }
/// do { try Cd.commit() } catch let misuse as CdMisuse { print(misuse.kind) }   // .f4
/// ```
public struct CdMisuse: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which check failed: one letter per area of the API, one number per situation.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A1: the API was used before `Cd.initWithStore`.
        case a1
        /// A2: `Cd.close()` inside a transaction body (it would wait for its own transaction).
        case a2
        /// B1: `Cd.create` of a class with no entity of that name.
        case b1
        /// B2: a non-transient `Cd.create` on the main thread.
        case b2
        /// B3: a non-transient `Cd.create` on a thread outside a transaction.
        case b3
        /// C1: `fetch()` or `count()` on a thread that has no context.
        case c1
        /// C2: a dictionary fetch groups by a property that is not in `onlyProperties`.
        case c2
        /// C3: an object fetch after `includeExpression`.
        case c3
        /// C4: an object fetch after `groupBy`.
        case c4
        /// D1: `Cd.insert` on the main thread.
        case d1
        /// D2: `Cd.insert` outside a transaction.
        case d2
        /// D3: `Cd.insert` of an object that belongs to another context.
        case d3
        /// E1: `Cd.delete` on the main thread.
        case e1
        /// E2: `Cd.delete` outside a transaction.
        case e2
        /// E3: `Cd.delete` of an object of another context.
        case e3
        /// E4: `Cd.delete` of an object that has no context (a transient object never inserted).
        case e4
        /// F1: `transactAndWait` (any form) on the main thread.
        case f1
        /// F2: `cancelImplicitCommit()` on the main thread or outside a transaction.
        case f2
        /// F3: `transactionContext()` on the main thread or outside a transaction.
        case f3
        /// F4: `commit()` on the main thread or outside a transaction.
        case f4
        /// F5: a transaction context attached to the main thread (internal).
        case f5
        /// G1: `useInCurrentContext` on a thread that has no context.
        case g1
        /// G2: `useInCurrentContext` of an object whose transaction has uncommitted changes.
        case g2
        /// G3: `useInCurrentContext` of an object that was never saved (a transient object).
        case g3
        /// H1: `updateHandler` set on an object that is not in the main context.
        case h1
        /// I1: a main-context object read from another thread.
        case i1
        /// I2: an object read on a thread that has no context.
        case i2
        /// I3: a transaction's object read on the main thread.
        case i3
        /// I4: a transaction's object read in another transaction.
        case i4
        /// I5: an editing context's object read off the main thread, or after its container closed.
        case i5
        /// J1: a property written on the main thread.
        case j1
        /// J3: a property written on a thread that has no context.
        case j3
        /// J4: a property written in a transaction the object does not belong to.
        case j4
        /// J5: an editing context's object written off the main thread.
        case j5
        /// K1: a to-many relationship changed where J1, J3, J4 or J5 forbid it.
        case k1
        /// K2: a to-many relationship given an object of another context.
        case k2
    }

    /// Which check failed.
    public let kind: Kind
    /// What happened, naming the object, the context and the thread, and what to do instead.
    public let message: String

    /// A misuse of `kind` described by `message`.
    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// "Cadmium misuse J1: …".
    public var description: String { "Cadmium misuse \(kind.rawValue.uppercased()): \(message)" }
}

// `Cd`: Cadmium's entry point, all static. This file holds the global state (the stack, the
// default serial mode, the misuse handler) and initialisation; queries, objects and transactions
// are in the `Cd+…` files.
//
// Confinement: the globals are behind `LockedState`; every member may be called from any thread
// (each one checks where it may run and reports misuse otherwise).

import Foundation
import CdObjects
import CdStore

/// Cadmium's API: initialisation, queries, object lifecycle and transactions.
///
/// ```swift
/// try Cd.initWithStore(model: model, storeURL: storeURL, serialTX: false)
/// try Cd.transactAndWait {
///     let bob = try Cd.create(Employee.self)
///     bob.name = "Bob"
/// }
/// let everyone = try Cd.objects(Employee.self).sorted("name").fetch()   // on main
/// ```
public enum Cd {
    struct Globals {
        var stack: CdStack?
        var defaultSerialTransactions = false
        var misuseHandler: @Sendable (CdMisuse) -> Void = Cd.defaultMisuseHandler
        var documentsDirectoryOverride: URL?
    }
    static let globals = LockedState(Globals())

    /// The stack, or nil before `initWithStore`.
    static var stack: CdStack? { globals.withLock { $0.stack } }

    /// Whether transactions are serial when a call passes `serial: nil` (set by `initWithStore`).
    static var defaultSerialTransactions: Bool {
        get { globals.withLock { $0.defaultSerialTransactions } }
        set { globals.withLock { $0.defaultSerialTransactions = newValue } }
    }

    // MARK: - Misuse

    /// Receives every misuse (checks A1 to K2) at the offending call. The default stops the
    /// program with the message, as Cadmium's exception did. If the handler returns, a throwing
    /// call throws the ``CdMisuse`` and a non-throwing one (a property write) does nothing.
    ///
    /// ```swift
    /// Cd.misuseHandler = { misuse in logger.error("\(misuse)") }   // log and carry on
    /// do { try Cd.commit() } catch let misuse as CdMisuse { … }      // F4 outside a transaction
    /// ```
    public static var misuseHandler: @Sendable (CdMisuse) -> Void {
        get { globals.withLock { $0.misuseHandler } }
        set { globals.withLock { $0.misuseHandler = newValue } }
    }

    /// The handler installed by default: stops the program with the misuse's message.
    public static let defaultMisuseHandler: @Sendable (CdMisuse) -> Void = { misuse in
        fatalError("\(misuse)")
    }

    static func currentMisuseHandler() -> @Sendable (CdMisuse) -> Void { misuseHandler }

    // MARK: - Initialisation

    /// Opens the store and creates the root and main contexts. Calling it again replaces them
    /// (and closes the previous store: finish its transactions first).
    ///
    /// - Parameters:
    ///   - model: the entity model with its classes.
    ///   - storeURL: the store file (created when missing); nil for an in-memory store.
    ///   - options: engine options, passed through (page size, durability, …). With the default
    ///     full durability, a commit is on disk when it returns.
    ///   - serialTX: the default for `serial: nil` in the transaction calls.
    /// - Throws: `CdError.incompatibleModel` when the file was written with another model's
    ///   stored shape, `CdError.store` for engine failures.
    /// ```swift
    /// try Cd.initWithStore(model: try CdModel(classes: [Item.self]), storeURL: nil)
    /// ```
    public static func initWithStore(
        model: CdModel, storeURL: URL?, options: StoreOptions = StoreOptions(),
        serialTX: Bool = false
    ) throws {
        let previous = stack
        try (previous?.store as? ObjectStore)?.close()
        let store = try ObjectStore.open(path: storeURL?.path, model: model.objectModel, options: options)
        let stack = CdStack(model: model, store: store)
        globals.withLock {
            $0.stack = stack
            $0.defaultSerialTransactions = serialTX
        }
    }

    /// Forgets the stack and closes its store (tests use it to start clean).
    static func reset() {
        let previous = globals.withLock { globals -> CdStack? in
            defer { globals.stack = nil }
            return globals.stack
        }
        try? (previous?.store as? ObjectStore)?.close()
    }
}

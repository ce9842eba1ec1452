// `Cd`: Cadmium's entry point, all static. This file holds the global state (the container, the
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
/// Cd.transactAndWait {                                    // on a background queue
///     let bob = try! Cd.create(Employee.self)
///     bob.name = "Bob"
/// }
/// let everyone = try Cd.objects(Employee.self).sorted("name").fetch()   // on main
/// ```
public enum Cd {
    struct Globals {
        /// The default container (`initWithStore`).
        var container: CdContainer?
        var misuseHandler: @Sendable (CdMisuse) -> Void = Cd.defaultMisuseHandler
        var commitFailureHandler: @Sendable (any Error) -> Void = Cd.defaultCommitFailureHandler
        var documentsDirectoryOverride: URL?
    }
    static let globals = LockedState(Globals())

    /// Whether transactions of the current container are serial when a call passes `serial: nil`
    /// (set by `initWithStore`); false with no container.
    static var defaultSerialTransactions: Bool {
        get { container?.defaultSerialTransactions.load(ordering: .relaxed) ?? false }
        set { container?.defaultSerialTransactions.store(newValue, ordering: .relaxed) }
    }

    // MARK: - Misuse

    /// Receives every misuse (checks A1 to K2) at the offending call. The default stops the
    /// program with the message, as Cadmium's exception did. If the handler returns, a call in
    /// Cadmium's non-throwing form does nothing (`useInCurrentContext` gives nil or `[]`, a
    /// property write is dropped), and a throwing call throws the ``CdMisuse``.
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

    // MARK: - Failures with no caller to throw to

    /// Receives the errors that a call in Cadmium's non-throwing form cannot throw, so that none
    /// is dropped: the failure of the implicit commit of `Cd.transactAndWait { }` and
    /// `Cd.transactAndWaitWith(_:) { }` with a non-throwing body (a validation failure, a
    /// store error), the error of a `Cd.transact { }` given no `completion`, and a store
    /// failure inside `Cd.insert`, `Cd.delete` or `Cd.useInCurrentContext` (a deny delete rule,
    /// a failed read), which Cadmium met at the commit. A misuse is not passed here: it went to
    /// ``misuseHandler``.
    ///
    /// The default stops the program with the error, as Cadmium's `try! commit()` did. If the
    /// handler returns, the failed transaction has committed nothing and the call returns
    /// (nil for a value). The throwing forms (``throwing``, a throwing body) throw instead.
    ///
    /// ```swift
    /// Cd.commitFailureHandler = { error in logger.error("transaction lost: \(error)") }
    /// ```
    public static var commitFailureHandler: @Sendable (any Error) -> Void {
        get { globals.withLock { $0.commitFailureHandler } }
        set { globals.withLock { $0.commitFailureHandler = newValue } }
    }

    /// The handler installed by default: stops the program with the error.
    public static let defaultCommitFailureHandler: @Sendable (any Error) -> Void = { error in
        fatalError("Cadmium: a transaction failed and no caller could be given the error: \(error)")
    }

    /// Passes `error` to ``commitFailureHandler`` unless it is a misuse, which was reported.
    static func reportUnthrown(_ error: any Error) {
        if error is CdMisuse { return }
        commitFailureHandler(error)
    }

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
    /// A file written with an older version of the model is migrated first (automatic,
    /// lightweight migration through the model file's versions; see
    /// ``initWithStore(model:storeURL:options:migration:serialTX:)`` to plan or turn it off).
    /// - Throws: `MigrationError` when such a file cannot be migrated (it is left as it was), or
    ///   `MigrationError.refused` when it was written by a newer build and migrating it to `model`
    ///   would drop data (docs/MIGRATION.md, "Stepping back"); `CdError.store` for engine failures
    ///   (`CdError.store(.locked(path:))` when another process has the file open).
    /// ```swift
    /// try Cd.initWithStore(model: try CdModel(classes: [Item.self]), storeURL: nil)
    /// ```
    public static func initWithStore(
        model: CdModel, storeURL: URL?, options: StoreOptions = StoreOptions(),
        serialTX: Bool = false
    ) throws {
        try initWithStore(model: model, storeURL: storeURL, options: options, migration: .automatic, serialTX: serialTX)
    }

    /// Opens the default container (the model's versions and `migration` decide how a store of an
    /// older version is migrated; Cd+Migration.swift), closing the previous one first.
    static func openDefaultContainer(
        model: CdModel, storeURL: URL?, options: StoreOptions, migration: MigrationOptions, serialTX: Bool
    ) throws {
        if let previous = defaultContainer {
            // Replacing a container closes it as `Cd.close()` does: not from inside one of its own
            // bodies (it would wait for itself), and only once its running bodies are done, so
            // that none of them fails half-way with "store is closed" (keeps MG1); its query
            // observations end with it (RW1).
            if ThreadState.current.insideTransaction || ThreadState.current.context?.kind == .snapshot {
                throw Misuse.report(
                    .a2,
                    "Cd.initWithStore was called inside a transaction or Cd.read body while a store is open; "
                        + "replacing the store would wait for that body forever. Open the new store from outside "
                        + "any transaction or read.")
            }
            try previous.close()
        }
        let container = try CdContainer(
            model: model, storeURL: storeURL, options: options, migration: migration, serialTX: serialTX)
        globals.withLock { $0.container = container }
    }

    /// Forgets the default container and closes it without waiting for its bodies (tests use it
    /// to start clean).
    static func reset() {
        let previous = globals.withLock { globals -> CdContainer? in
            defer { globals.container = nil }
            return globals.container
        }
        try? previous?.closeWithoutWaiting()
    }
}

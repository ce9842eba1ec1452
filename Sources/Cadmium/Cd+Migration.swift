// Opening a store with a migration plan: `Cd.initWithStore(model:storeURL:options:migration:serialTX:)`.
// The plain `initWithStore` migrates automatically through the model file's versions; this form
// names the versions and custom stages, reports progress, or turns migration off.

import Foundation
import CdObjects
import CdStore

extension Cd {
    /// Opens the store, first migrating a file written with another version of the model as
    /// `migration` says, and creates the root and main contexts.
    ///
    /// - Parameters:
    ///   - model: the entity model with its classes (the version the store ends in).
    ///   - storeURL: the store file (created when missing); nil for an in-memory store.
    ///   - options: engine options, passed through.
    ///   - migration: ``MigrationOptions/automatic`` infers each step (through the versions of the
    ///     model file, ``CdModel/versionHistory``, when the store's version is one of them);
    ///     a ``MigrationPlan`` adds custom stages (its versions, when given, replace the file's);
    ///     ``MigrationOptions/disabled`` refuses a store of another version with
    ///     `CdError.incompatibleModel`.
    ///   - serialTX: the default for `serial: nil` in the transaction calls.
    /// - Throws: `MigrationError` when the migration cannot be done (the file is left as it was),
    ///   `MigrationError.refused` (134100) when an older model would step a newer store back or
    ///   drop data it holds (``MigrationOptions/allowingDataLoss`` asks for that),
    ///   `CdError.incompatibleModel` with migration disabled, `CdError.store` for engine failures.
    /// ```swift
    /// let plan = MigrationPlan(versions: [], stages: [.custom(from: "Model", to: "Model 2") { step in … }])
    /// try Cd.initWithStore(model: model, storeURL: url,
    ///                      migration: MigrationOptions(plan: plan) { print($0) }, serialTX: false)
    /// ```
    public static func initWithStore(
        model: CdModel, storeURL: URL?, options: StoreOptions = StoreOptions(), migration: MigrationOptions,
        serialTX: Bool = false
    ) throws {
        try openDefaultContainer(
            model: model, storeURL: storeURL, options: options, migration: migration, serialTX: serialTX)
    }
}

extension MigrationOptions {
    /// These options with the versions of `history` when the plan lists none.
    func completed(with history: ModelVersionHistory) -> MigrationOptions {
        var options = self
        var plan = options.plan ?? MigrationPlan(versions: [])
        if plan.versions.isEmpty { plan.versions = history.versions }
        options.plan = plan
        return options
    }
}

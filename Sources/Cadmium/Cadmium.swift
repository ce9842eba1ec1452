// Module Cadmium: contexts, managed objects and the `Cd` API on top of the object store.
//
// What `import Cadmium` shows an app: this module's API (`Cd`, `CdModel`, `CdManagedObject`,
// `@Attribute`, `@Relationship`, `CdFetchRequest`, `CdFetchedResultsController`, `CdMisuse`, …)
// and, from the layers below, exactly the types that API names in its declarations — listed
// here, one scoped re-export each. Everything else in `CdObjects` and `CdStore` (the B+tree,
// pages, transactions, the engine's fetch request and sort key, the file systems) stays out of
// an app's namespace; a program that wants the engine or the object store itself imports
// `CdStore` or `CdObjects`. docs/CADMIUM-API.md ("What `import Cadmium` shows") lists the same
// set, and Tests/CadmiumTests/AppSurfaceTests.swift uses it the way an app does.

// Identity of a stored object (`CdManagedObject.objectID`).
@_exported import struct CdObjects.ObjectID
// Errors: the object store's (validation with Core Data's codes, model, store failures) and
// the payloads its cases carry.
@_exported import enum CdObjects.CdError
@_exported import struct CdObjects.ValidationFailure
@_exported import enum CdObjects.MergePolicy
@_exported import struct CdObjects.MergeConflict
@_exported import enum CdObjects.ModelError
@_exported import enum CdStore.StoreError
// Values and model vocabulary named by `CdAttributeValue`, `@Relationship`,
// `includeExpression(_:resultType:withFormat:)` and `CdModel.objectModel`.
@_exported import enum CdObjects.CdValue
@_exported import enum CdObjects.AttributeType
@_exported import enum CdObjects.DeleteRule
@_exported import struct CdObjects.ObjectModel
// Predicates for `CdFetchRequest.filter(_:)`, and the error a query with a malformed format throws.
@_exported import enum CdObjects.CdPredicate
@_exported import struct CdObjects.CdPredicateError
// Options of `Cd.initWithStore(model:storeURL:options:serialTX:)` and the initialisers.
@_exported import struct CdStore.StoreOptions
@_exported import enum CdStore.Durability
@_exported import enum CdStore.HistoryTracking
// Persistent history: `Cd.history(after:)` and `Cd.deleteHistory(before:)`.
@_exported import struct CdObjects.CdHistoryToken
@_exported import struct CdObjects.CdHistoryTransaction
@_exported import struct CdObjects.CdHistoryChange
@_exported import enum CdObjects.CdHistoryChangeKind
// Model versions and migration: `CdModel.versionHistory`, the `migration:` option of
// `Cd.initWithStore`, custom stages and their data, and why a migration failed.
@_exported import struct CdObjects.ModelVersion
@_exported import struct CdObjects.ModelVersionHistory
@_exported import struct CdObjects.MigrationOptions
@_exported import struct CdObjects.MigrationPlan
@_exported import struct CdObjects.MigrationStage
@_exported import class CdObjects.MigrationStageContext
@_exported import struct CdObjects.MigrationObject
@_exported import struct CdObjects.MigrationProgress
@_exported import enum CdObjects.MigrationError
@_exported import struct CdObjects.MigrationRefusal
@_exported import enum CdObjects.PropertyValue

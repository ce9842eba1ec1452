// Versioned schemas and migration plans, as SwiftData declares them. A plan's stages run on
// Cadmium's migration engine (CdObjects/Migration): each stage's lightweight step is the engine's
// inferred mapping from one version's entity model to the next (renames from `originalName`), and a
// custom stage runs `willMigrate` in a context on the old version before that step and
// `didMigrate` in a context on the new version after it.

import Foundation

/// One version of an app's schema: its models and version number.
///
/// ```swift
/// enum TripsV2: VersionedSchema {
///     static let versionIdentifier = Schema.Version(2, 0, 0)
///     static var models: [any PersistentModel.Type] { [Trip.self] }
///     @Model final class Trip { … }
/// }
/// ```
public protocol VersionedSchema {
    /// The version number.
    static var versionIdentifier: Schema.Version { get }
    /// The model classes of this version.
    static var models: [any PersistentModel.Type] { get }
}

extension Schema {
    /// The schema of a versioned schema.
    public convenience init(versionedSchema: any VersionedSchema.Type) {
        self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
    }
}

/// The versions of a schema, oldest first, and the stages from each to the next.
public protocol SchemaMigrationPlan {
    /// The versions, oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
    /// The stages; a version pair with no stage migrates lightweight.
    static var stages: [MigrationStage] { get }
}

/// One step of a migration plan.
public enum MigrationStage: @unchecked Sendable {
    /// The engine's inferred mapping from one version to the next.
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// The inferred mapping, with `willMigrate` run on the old version's models before it and
    /// `didMigrate` on the new version's models after it (each in a context that is then saved).
    case custom(
        fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
        willMigrate: ((ModelContext) throws -> Void)?, didMigrate: ((ModelContext) throws -> Void)?)

    var fromVersion: any VersionedSchema.Type {
        switch self {
        case let .lightweight(from, _), let .custom(from, _, _, _): return from
        }
    }

    var toVersion: any VersionedSchema.Type {
        switch self {
        case let .lightweight(_, to), let .custom(_, to, _, _): return to
        }
    }
}

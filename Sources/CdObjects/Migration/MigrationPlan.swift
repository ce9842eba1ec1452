// How a store written with an older model version becomes a store of the model it is opened
// with, after SwiftData's `SchemaMigrationPlan` / `MigrationStage`: the versions in order, and per
// step either a lightweight stage (inferred from the two models) or a custom one (the inferred
// mapping, then a closure that reads the old objects and writes the new ones). Steps with no
// stage listed are lightweight.

/// The versions a store moves through and what happens at each step.
///
/// ```swift
/// let plan = MigrationPlan(
///     versions: [v1, v2, v3],
///     stages: [.custom(from: "v1", to: "v2") { step in
///         for person in step.sourceObjects(of: "Person") {
///             let parts = (person.string("name") ?? "").split(separator: " ", maxSplits: 1)
///             let id = step.destinationID(for: person.id)!
///             try step.setValue(.attribute(.string(String(parts.first ?? ""))), forKey: "firstName", of: id)
///             let last = parts.count > 1 ? String(parts[1]) : ""
///             try step.setValue(.attribute(.string(last)), forKey: "lastName", of: id)
///         }
///     }])
/// ```
public struct MigrationPlan: Sendable {
    /// The versions, oldest first. A store whose hash is one of them migrates step by step from
    /// there to the version being opened (appended as the last step when it is not listed).
    public var versions: [ModelVersion]
    /// The stages that are not plain lightweight, by the names of their two versions.
    public var stages: [MigrationStage]

    /// A plan over `versions` (oldest first) with `stages`.
    public init(versions: [ModelVersion], stages: [MigrationStage] = []) {
        self.versions = versions
        self.stages = stages
    }

    /// The stage from `from` to `to`: the one listed, else lightweight.
    func stage(from: String, to: String) -> MigrationStage {
        stages.first { $0.from == from && $0.to == to } ?? .lightweight(from: from, to: to)
    }
}

/// One step of a migration plan: lightweight, or custom.
public struct MigrationStage: Sendable {
    /// The name of the version the step starts from.
    public let from: String
    /// The name of the version the step produces.
    public let to: String
    /// The custom part, run after the inferred mapping of the step; nil for a lightweight stage.
    let transform: (@Sendable (MigrationStageContext) throws -> Void)?

    /// A stage inferred from the two models (what is inferred: docs/MIGRATION.md).
    public static func lightweight(from: String, to: String) -> MigrationStage {
        MigrationStage(from: from, to: to, transform: nil)
    }

    /// A stage that first maps what can be inferred, then runs `transform`, which reads the old
    /// objects and changes, adds or deletes the new ones (``MigrationStageContext``).
    public static func custom(
        from: String, to: String, transform: @escaping @Sendable (MigrationStageContext) throws -> Void
    ) -> MigrationStage {
        MigrationStage(from: from, to: to, transform: transform)
    }

    /// Whether the stage runs a closure of its own.
    public var isCustom: Bool { transform != nil }
}

/// Whether and how a store is migrated when it is opened with another model than it was written with.
public struct MigrationOptions: Sendable {
    /// Migrate automatically (the default); off, such a store is `CdError.incompatibleModel`.
    public var isEnabled: Bool
    /// The versions and custom stages; nil infers one lightweight step from the store's own model.
    public var plan: MigrationPlan?
    /// Called as the migration goes (on the opening thread), for a progress display.
    public var progress: (@Sendable (MigrationProgress) -> Void)?
    /// Whether a migration nobody declared may drop data: step a store back to a version the
    /// model's versions put before the store's, or run an inferred step (the store's version not
    /// among the model's) that drops objects, values or links the store holds. Off (the default),
    /// such a migration is `MigrationError.refused` and the store is left as it was; declared
    /// forward steps (a model file's versions, a plan's) and steps with a custom stage run either
    /// way (docs/MIGRATION.md, "Stepping back").
    public var allowsDataLoss: Bool

    /// Options that migrate along `plan` (nil: one inferred step) and report to `progress`;
    /// `allowsDataLoss` asks for migrations that drop stored data nothing declared.
    public init(
        isEnabled: Bool = true, plan: MigrationPlan? = nil, allowsDataLoss: Bool = false,
        progress: (@Sendable (MigrationProgress) -> Void)? = nil
    ) {
        self.isEnabled = isEnabled
        self.plan = plan
        self.allowsDataLoss = allowsDataLoss
        self.progress = progress
    }

    /// Automatic migration, inferred (the default).
    public static var automatic: MigrationOptions { MigrationOptions() }
    /// No migration: a store of another model is `CdError.incompatibleModel`.
    public static var disabled: MigrationOptions { MigrationOptions(isEnabled: false) }
    /// Automatic migration that may also step a newer store back or drop stored data
    /// (``allowsDataLoss``): for the one open where that is meant.
    public static var allowingDataLoss: MigrationOptions { MigrationOptions(allowsDataLoss: true) }
}

/// Where a migration stands: its phase and, within it, how many of how many units are done.
public struct MigrationProgress: Sendable, Hashable, CustomStringConvertible {
    /// The phases, in order.
    public enum Phase: String, Sendable, Hashable {
        /// Objects are read from the old store.
        case reading
        /// A step maps the objects to the next version (`step` names it).
        case mapping
        /// The new store is written beside the old one.
        case writing
        /// The new store replaces the old one.
        case swapping
        /// Done: the store is in the new version.
        case finished
    }

    /// The phase.
    public var phase: Phase
    /// For `mapping`: "from → to".
    public var step: String?
    /// Units done in this phase (objects; 1 of 1 for `swapping` and `finished`).
    public var completed: Int
    /// Units in this phase.
    public var total: Int

    /// The fraction of this phase that is done, 0…1.
    public var fraction: Double { total == 0 ? 1 : Double(completed) / Double(total) }

    /// `mapping SampleModel → SampleModel2: 40/120`.
    public var description: String {
        "\(phase.rawValue)\(step.map { " \($0)" } ?? ""): \(completed)/\(total)"
    }
}

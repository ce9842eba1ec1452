// Why a migration could not run. Whatever the reason, the old store is left as it was: the new
// one is written beside it under another name and replaces it only once complete.

/// Why a store could not be migrated to the model it was opened with.
public enum MigrationError: Error, Sendable, CustomStringConvertible {
    /// The migrated objects break a uniqueness constraint of the new model: these objects (their
    /// IDs in the old store) share the values of `properties`.
    case constraintViolation(entity: String, properties: [String], objects: [ObjectID])
    /// A value cannot be carried over without a custom stage (a changed attribute type, a to-many
    /// with several objects becoming a to-one, an object of an entity that became abstract).
    case needsCustomStage(entity: String, key: String, object: ObjectID, reason: String)
    /// The migrated objects fail the new model's validation (a required value missing, …).
    case invalidObjects(CdError)
    /// The plan cannot be followed (a custom stage's closure changed a property the model lacks, …).
    case invalidPlan(String)

    /// What went wrong, naming the entity, the property and the objects.
    public var description: String {
        switch self {
        case let .constraintViolation(entity, properties, objects):
            return
                "MigrationError.constraintViolation: objects of \(entity) share \(properties.joined(separator: ", ")) "
                + "(unique in the new model): \(objects.map(\.description).joined(separator: ", "))"
        case let .needsCustomStage(entity, key, object, reason):
            return "MigrationError.needsCustomStage: \(entity).\(key) of \(object): \(reason)"
        case let .invalidObjects(error):
            return "MigrationError.invalidObjects: \(error)"
        case let .invalidPlan(message):
            return "MigrationError.invalidPlan: \(message)"
        }
    }
}

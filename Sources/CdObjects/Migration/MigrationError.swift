// Why a migration could not run. Whatever the reason, the old store is left as it was: the new
// one is written beside it under another name and replaces it only once complete.
//
// A description stays readable whatever the store holds: a list of objects is cut after
// `listedObjectLimit` entries and the rest are counted (the error keeps them all).

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
    /// The migration could run but was not asked for: it would step a newer store back, or drop
    /// data the store holds (``MigrationRefusal``; `MigrationOptions.allowsDataLoss` asks for it).
    case refused(MigrationRefusal)

    /// How many objects a description lists before it counts the rest.
    public static let listedObjectLimit = 10

    /// Core Data's `NSCocoaErrorDomain` code: 134111 (NSMigrationConstraintViolationError) for a
    /// violated constraint, 134100 (NSPersistentStoreIncompatibleVersionHashError) for a refused
    /// migration, the validation code of `invalidObjects`, else 134110 (NSMigrationError).
    public var code: Int {
        switch self {
        case .constraintViolation: return 134111
        case let .refused(refusal): return refusal.code
        case let .invalidObjects(error): return error.code ?? 134110
        case .needsCustomStage, .invalidPlan: return 134110
        }
    }

    /// What went wrong, naming the entity, the property and the objects.
    public var description: String {
        switch self {
        case let .constraintViolation(entity, properties, objects):
            return
                "MigrationError.constraintViolation: \(objects.count) objects of \(entity) share "
                + "\(properties.joined(separator: ", ")) (unique in the new model): \(Self.list(objects))"
        case let .needsCustomStage(entity, key, object, reason):
            return "MigrationError.needsCustomStage: \(entity).\(key) of \(object): \(reason)"
        case let .invalidObjects(error):
            return "MigrationError.invalidObjects: \(error)"
        case let .invalidPlan(message):
            return "MigrationError.invalidPlan: \(message)"
        case let .refused(refusal):
            return "MigrationError.refused: \(refusal)"
        }
    }

    /// The first ``listedObjectLimit`` IDs, then how many more there are.
    static func list(_ objects: [ObjectID]) -> String {
        let shown = objects.prefix(listedObjectLimit).map(\.description).joined(separator: ", ")
        let rest = objects.count - min(objects.count, listedObjectLimit)
        return rest == 0 ? shown : "\(shown) and \(rest) more"
    }
}

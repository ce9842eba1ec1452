// The error of dynamic access (`Cd.create(entityNamed:)`, `Cd.objects(entityNamed:)`,
// `CdManagedObject.value(forKey:)` / `setValue(_:forKey:)`): a name or a value that came from the
// caller's data and does not fit the model. Misuse of threads and contexts is not reported here;
// it goes through the same checks (B, C, I, J, K) as typed access.

import CdObjects

/// Why a dynamic access by name failed.
///
/// ```swift
/// do { try car.setValue(42, forKey: "model") } catch let error as CdDynamicAccessError { print(error) }
/// ```
public enum CdDynamicAccessError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The model has no entity of that name.
    case unknownEntity(String)
    /// The entity (declared or inherited) has no property of that name.
    case unknownKey(entity: String, key: String)
    /// The value does not fit the property: its Swift type, or for a relationship the kind of
    /// value (an object, a collection of objects) or the entity of an object.
    case wrongType(entity: String, key: String, expected: String, given: String)

    /// What went wrong, naming the entity and the key.
    public var description: String {
        switch self {
        case let .unknownEntity(name):
            return "CdDynamicAccessError.unknownEntity: the model has no entity named '\(name)'"
        case let .unknownKey(entity, key):
            return "CdDynamicAccessError.unknownKey: entity \(entity) has no property '\(key)'"
        case let .wrongType(entity, key, expected, given):
            return "CdDynamicAccessError.wrongType: \(entity).\(key) takes \(expected), not \(given)"
        }
    }
}

// The identity of a persisted model: its store and its object ID there (entity and primary key).
// Assigned when a model is inserted into a context and kept for the model's life, so that it is
// stable across launches and can be stored (Codable) and sent between isolation domains.
//
// Invariants:
//  PI1. Two identifiers are equal when they name the same object of the same store; the store is
//       identified by its file path (a container's in-memory store by a UUID of its own).

internal import CdObjects
import Foundation

/// The identity of a persisted model, stable across launches.
///
/// ```swift
/// let id = trip.persistentModelID
/// let again = context.model(for: id) as? Trip
/// ```
public struct PersistentIdentifier: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    /// The store holding the model: its file path, or `memory:UUID` for an in-memory store.
    public let storeIdentifier: String?
    /// The model's entity (its class name).
    public var entityName: String { objectID.entity }
    let objectID: ObjectID

    init(objectID: ObjectID, storeIdentifier: String) {
        self.objectID = objectID
        self.storeIdentifier = storeIdentifier
    }

    /// The identifier of the object with `primaryKey` of `entityName` in the store
    /// `storeIdentifier` (the `storeIdentifier` of an identifier of that store: its file path, or
    /// `memory:UUID`). Cadmium's primary keys are positive integers: an integer, or a string of
    /// one, is accepted; any other key is `SwiftDataError.unsupportedValue` naming it.
    ///
    /// ```swift
    /// let store = trip.persistentModelID.storeIdentifier!
    /// let id = try PersistentIdentifier.identifier(for: store, entityName: "Trip", primaryKey: 7)
    /// ```
    public static func identifier<PrimaryKey: Codable & Hashable & Sendable>(
        for storeIdentifier: String, entityName: String, primaryKey: PrimaryKey
    ) throws -> PersistentIdentifier {
        let key: Int64?
        switch primaryKey {
        case let integer as Int64: key = integer  // the common keys without the existential below
        case let integer as Int: key = Int64(integer)
        case let integer as any BinaryInteger: key = Int64(exactly: integer)
        case let text as String: key = Int64(text)
        default: key = nil
        }
        guard let key, key > 0, !entityName.isEmpty else {
            throw SwiftDataError(
                .unsupportedValue,
                "\(entityName)/\(primaryKey) is not a persistent identifier: an entity name and a positive integer "
                    + "primary key are needed")
        }
        return PersistentIdentifier(
            objectID: ObjectID(entity: entityName, primaryKey: key), storeIdentifier: storeIdentifier)
    }

    /// The identifier itself, as `Identifiable` wants it.
    public var id: PersistentIdentifier { self }

    /// Ordered by store, then by entity name and primary key.
    public static func < (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool {
        if lhs.storeIdentifier != rhs.storeIdentifier {
            return (lhs.storeIdentifier ?? "") < (rhs.storeIdentifier ?? "")
        }
        return lhs.objectID < rhs.objectID
    }

    public var description: String { "\(storeIdentifier ?? "")#\(objectID)" }

    private enum CodingKeys: String, CodingKey { case storeIdentifier, entityName, primaryKey }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let entity = try c.decode(String.self, forKey: .entityName)
        let key = try c.decode(Int64.self, forKey: .primaryKey)
        guard !entity.isEmpty, key > 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .primaryKey, in: c, debugDescription: "not a persistent identifier: \(entity)/\(key)")
        }
        storeIdentifier = try c.decodeIfPresent(String.self, forKey: .storeIdentifier)
        objectID = ObjectID(entity: entity, primaryKey: key)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(storeIdentifier, forKey: .storeIdentifier)
        try c.encode(objectID.entity, forKey: .entityName)
        try c.encode(objectID.primaryKey, forKey: .primaryKey)
    }
}

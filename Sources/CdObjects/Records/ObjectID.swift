/// The permanent identity of an object: its entity and a 64-bit primary key, assigned when the
/// object is created (before it is saved) and never reused.
///
/// ```swift
/// let id = ObjectID(entity: "Employee", primaryKey: 42)
/// print(id)   // Employee/42
/// ```
public struct ObjectID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The concrete entity of the object (a sub-entity's name for a sub-entity instance).
    public let entity: String
    /// The primary key, unique within the entity's inheritance hierarchy; 1 and up.
    public let primaryKey: Int64

    public init(entity: String, primaryKey: Int64) {
        self.entity = entity
        self.primaryKey = primaryKey
    }

    /// Equal when both fields are; the keys are compared first, the names only when they match.
    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        lhs.primaryKey == rhs.primaryKey && lhs.entity == rhs.entity
    }

    /// Hashes the primary key only. Keys are unique within a hierarchy, so only objects of
    /// different hierarchies with the same key share a hash, and the working sets of a change
    /// set and a query, which look identifiers up many times per object, never hash a name.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(primaryKey)
    }

    public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool {
        (lhs.entity, lhs.primaryKey) < (rhs.entity, rhs.primaryKey)
    }

    public var description: String { "\(entity)/\(primaryKey)" }
}

/// The permanent identity of an object: its entity and a 64-bit primary key, assigned when the
/// object is created (before it is saved) and never reused.
///
/// An identifier holds its entity as a process-wide integer code (`EntityNames`), not as a
/// String: it is trivially copyable, and equality and hashing are integer operations.
///
/// ```swift
/// let id = ObjectID(entity: "Employee", primaryKey: 42)
/// print(id)   // Employee/42
/// ```
public struct ObjectID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The primary key, unique within the entity's inheritance hierarchy; 1 and up.
    public let primaryKey: Int64
    /// The interned entity name (OI2: equal codes, equal names).
    package let entityCode: EntityNameCode

    /// The concrete entity of the object (a sub-entity's name for a sub-entity instance).
    public var entity: String { EntityNames.shared.name(of: entityCode) }

    /// The identifier of the object of `entity` with `primaryKey`.
    public init(entity: String, primaryKey: Int64) {
        self.init(entityCode: EntityNames.shared.code(for: entity), primaryKey: primaryKey)
    }

    /// The identifier from an interned entity name: what the store's paths use, never touching a
    /// string.
    @inline(__always)
    package init(entityCode: EntityNameCode, primaryKey: Int64) {
        self.primaryKey = primaryKey
        self.entityCode = entityCode
    }

    /// Equal when both fields are: two integer compares (OI2).
    @inline(__always)
    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        lhs.primaryKey == rhs.primaryKey && lhs.entityCode == rhs.entityCode
    }

    /// Hashes the key and the entity code, two integers.
    @inline(__always)
    public func hash(into hasher: inout Hasher) {
        hasher.combine(primaryKey)
        hasher.combine(entityCode.rawValue)
    }

    /// Ordered by entity name, then by key. Codes follow interning order, not names, so the names
    /// are compared only when the codes differ.
    public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool {
        lhs.entityCode == rhs.entityCode ? lhs.primaryKey < rhs.primaryKey : lhs.entity < rhs.entity
    }

    public var description: String { "\(entity)/\(primaryKey)" }
}

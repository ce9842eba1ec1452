// What the validator needs to know about a data model, and nothing more. The record layer adapts
// the entity model to this protocol; keeping it this small keeps the predicate layer independent
// of the model types.

/// The kind of an attribute, as far as predicates care.
public enum PredicateAttributeKind: String, Sendable, Hashable, CaseIterable {
    case integer, double, decimal, string, bool, date, data, uuid, uri
    /// Transformable and other opaque attributes: only `== nil` / `!= nil` apply.
    case opaque

    /// The kind of a runtime value; nil for `.null`.
    public init?(of value: CdValue) {
        switch value {
        case .null: return nil
        case .integer: self = .integer
        case .double: self = .double
        case .decimal: self = .decimal
        case .string: self = .string
        case .bool: self = .bool
        case .date: self = .date
        case .data: self = .data
        case .uuid: self = .uuid
        case .uri: self = .uri
        }
    }
}

/// What a key of an entity is.
public enum PredicateSchemaProperty: Sendable, Hashable {
    /// An attribute of that kind.
    case attribute(PredicateAttributeKind)
    /// A to-one relationship to objects of `entity`.
    case toOne(entity: String)
    /// A to-many relationship to objects of `entity`.
    case toMany(entity: String)
}

/// A model as seen by `CdPredicate.validate(entity:schema:)`.
///
/// ```swift
/// struct Schema: PredicateSchema {
///     func property(_ key: String, ofEntity entity: String) -> PredicateSchemaProperty? {
///         entity == "Person" && key == "name" ? .attribute(.string) : nil
///     }
/// }
/// ```
public protocol PredicateSchema {
    /// The property `key` of `entity`, or nil if the entity has no such key.
    func property(_ key: String, ofEntity entity: String) -> PredicateSchemaProperty?
}

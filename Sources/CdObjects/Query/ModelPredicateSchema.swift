// The entity model as the predicate validator sees it (`PredicateSchema`): stored attributes by
// kind, to-one and to-many relationships by destination. Transient properties are not stored,
// so queries cannot use them (as with Core Data's SQL store).

/// Adapts an `ObjectModel` to `PredicateSchema`.
///
/// ```swift
/// try predicate.validate(entity: "Employee", schema: ModelPredicateSchema(model))
/// ```
public struct ModelPredicateSchema: PredicateSchema, Sendable {
    /// The model whose entities the predicates name.
    public let model: ObjectModel

    /// The schema of `model`.
    public init(_ model: ObjectModel) { self.model = model }

    /// A stored attribute's kind, or a stored relationship's destination; nil for unknown or
    /// transient keys.
    public func property(_ key: String, ofEntity entity: String) -> PredicateSchemaProperty? {
        if let a = model.attribute(key, of: entity), !a.isTransient { return .attribute(Self.kind(of: a.type)) }
        if let r = model.relationship(key, of: entity), !r.isTransient {
            return r.isToMany ? .toMany(entity: r.destination) : .toOne(entity: r.destination)
        }
        return nil
    }

    /// The predicate kind of an attribute type.
    public static func kind(of type: AttributeType) -> PredicateAttributeKind {
        switch type {
        case .integer16, .integer32, .integer64: return .integer
        case .double, .float: return .double
        case .decimal: return .decimal
        case .string: return .string
        case .boolean: return .bool
        case .date: return .date
        case .binaryData: return .data
        case .uuid: return .uuid
        case .uri: return .uri
        case .transformable: return .opaque
        }
    }
}

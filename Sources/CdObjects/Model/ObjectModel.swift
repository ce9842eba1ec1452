// The resolved entity model: a set of entities whose names, inheritance, destinations and
// inverses have been checked, with the questions a query layer asks answered here (all
// sub-entities of X, all properties of X including inherited ones, the inverse of a relation).
//
// Invariants, established by `init(entities:)` and relied on by every accessor:
//  OM1. Entity names are non-empty and unique; property names are non-empty and unique within
//       an entity *including its ancestors* (Core Data forbids redeclaring an inherited name).
//  OM2. Every `parent` names an entity of the model, and following parents never loops.
//  OM3. Every relationship's destination is an entity of the model.
//  OM4. A relationship's inverse, if named, exists on the destination (declared or inherited),
//       points back at the source entity's hierarchy, and names the relationship as its inverse.
//  OM5. Uniqueness constraints and fetch indexes name existing properties of the entity
//       (constraints: attributes or to-one relationships).
//  OM6. Default values and validation bounds fit the attribute type; patterns compile.
//
// An ObjectModel is an immutable value; it is Sendable and may be shared freely.

/// A validated, resolved set of entities.
///
/// ```swift
/// let model = try ObjectModel(entities: [
///     EntityDescription(name: "Department", attributes: [.init(name: "name", type: .string)],
///                       relationships: [.toMany("employees", destination: "Employee", inverse: "department")]),
///     EntityDescription(name: "Employee",
///                       attributes: [.init(name: "salary", type: .integer64, defaultValue: .integer(0))],
///                       relationships: [.init(name: "department", destination: "Department", inverse: "employees")]),
/// ])
/// model.allAttributes(of: "Employee").map(\.name)  // ["salary"]
/// ```
public struct ObjectModel: Sendable, Hashable, Codable {
    /// The entities in declaration order.
    public let entities: [EntityDescription]
    private let indexByName: [String: Int]
    private let childrenByName: [String: [String]]

    /// Resolves and checks `entities` (invariants OM1–OM6); throws the first problem found, in
    /// declaration order.
    public init(entities: [EntityDescription]) throws(ModelError) {
        var index: [String: Int] = [:]
        for (i, entity) in entities.enumerated() {
            guard !entity.name.isEmpty else { throw .emptyName(entity: "") }
            guard index[entity.name] == nil else { throw .duplicateEntity(entity.name) }
            index[entity.name] = i
        }
        var children: [String: [String]] = [:]
        for entity in entities {
            if let parent = entity.parent {
                guard index[parent] != nil else { throw .unknownParentEntity(entity: entity.name, parent: parent) }
                children[parent, default: []].append(entity.name)
            }
        }
        self.entities = entities
        self.indexByName = index
        self.childrenByName = children
        try checkInheritanceIsAcyclic()
        for entity in entities {
            try checkProperties(of: entity)
        }
        for entity in entities {
            try checkRelationships(of: entity)
            try checkConstraintsAndIndexes(of: entity)
        }
    }

    // MARK: - Lookup

    /// Entity names in declaration order.
    public var entityNames: [String] { entities.map(\.name) }

    /// The entities keyed by name.
    public var entitiesByName: [String: EntityDescription] { indexByName.mapValues { entities[$0] } }

    /// The entity of that name.
    public func entity(named name: String) -> EntityDescription? {
        indexByName[name].map { entities[$0] }
    }

    /// The entity of that name (`model["Employee"]`).
    public subscript(entityName: String) -> EntityDescription? { entity(named: entityName) }

    /// The entity's ancestors, nearest (parent) first. Empty for a root entity or an unknown name.
    public func ancestors(of name: String) -> [EntityDescription] {
        var result: [EntityDescription] = []
        var next = entity(named: name)?.parent
        while let parentName = next, let parent = entity(named: parentName) {
            result.append(parent)
            next = parent.parent
        }
        return result
    }

    /// The top of the entity's hierarchy (itself when it has no parent).
    public func rootEntity(of name: String) -> EntityDescription? {
        ancestors(of: name).last ?? entity(named: name)
    }

    /// Direct sub-entities, in declaration order.
    public func directSubentities(of name: String) -> [EntityDescription] {
        (childrenByName[name] ?? []).compactMap(entity(named:))
    }

    /// All sub-entities, recursively, depth first in declaration order (the entity itself not
    /// included). A fetch with `includesSubentities` covers the entity plus these.
    public func allSubentities(of name: String) -> [EntityDescription] {
        var result: [EntityDescription] = []
        for child in directSubentities(of: name) {
            result.append(child)
            result.append(contentsOf: allSubentities(of: child.name))
        }
        return result
    }

    /// Whether `name` is `ancestor` or one of its sub-entities.
    public func isEntity(_ name: String, kindOf ancestor: String) -> Bool {
        name == ancestor || ancestors(of: name).contains { $0.name == ancestor }
    }

    /// All attributes, inherited ones first (root entity's first), each level in declaration order.
    public func allAttributes(of name: String) -> [AttributeDescription] {
        hierarchy(of: name).flatMap(\.attributes)
    }

    /// All relationships, inherited ones first, each level in declaration order.
    public func allRelationships(of name: String) -> [RelationshipDescription] {
        hierarchy(of: name).flatMap(\.relationships)
    }

    /// All uniqueness constraints that apply to the entity's objects, inherited ones first.
    public func allUniquenessConstraints(of name: String) -> [[String]] {
        hierarchy(of: name).flatMap(\.uniquenessConstraints)
    }

    /// The attribute of that name, declared or inherited.
    public func attribute(_ attribute: String, of entity: String) -> AttributeDescription? {
        allAttributes(of: entity).first { $0.name == attribute }
    }

    /// The relationship of that name, declared or inherited.
    public func relationship(_ relationship: String, of entity: String) -> RelationshipDescription? {
        allRelationships(of: entity).first { $0.name == relationship }
    }

    /// The inverse of a relationship, as declared on its destination.
    public func inverse(of relationship: String, in entity: String) -> RelationshipDescription? {
        guard let r = self.relationship(relationship, of: entity), let inverseName = r.inverse else { return nil }
        return self.relationship(inverseName, of: r.destination)
    }

    /// True when the relationship and its inverse are both to-many (a join table in storage).
    public func isManyToMany(_ relationship: String, in entity: String) -> Bool {
        guard let r = self.relationship(relationship, of: entity), r.isToMany,
            let inverse = inverse(of: relationship, in: entity)
        else { return false }
        return inverse.isToMany
    }

    /// The entity followed by its ancestors, root first.
    private func hierarchy(of name: String) -> [EntityDescription] {
        guard let e = entity(named: name) else { return [] }
        return ancestors(of: name).reversed() + [e]
    }

    // MARK: - Equality and coding (entities only; the rest is derived)

    public static func == (lhs: ObjectModel, rhs: ObjectModel) -> Bool { lhs.entities == rhs.entities }

    public func hash(into hasher: inout Hasher) { hasher.combine(entities) }

    private enum CodingKeys: String, CodingKey { case entities }

    /// Decodes the entities and resolves them again, so a decoded model holds OM1–OM6 too.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(entities: c.decode([EntityDescription].self, forKey: .entities))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(entities, forKey: .entities)
    }
}

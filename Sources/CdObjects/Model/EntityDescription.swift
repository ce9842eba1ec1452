// One entity of a model: its name, class, place in the inheritance tree, and the properties,
// uniqueness constraints and fetch indexes it declares itself. Inherited properties are not
// copied here; `ObjectModel` resolves them (see `ObjectModel.allAttributes(of:)`).

/// An entity as declared, in code or in a model file.
///
/// ```swift
/// let employee = EntityDescription(
///     name: "Employee",
///     attributes: [.init(name: "salary", type: .integer64, defaultValue: .integer(0))],
///     relationships: [.init(name: "department", destination: "Department",
///                           inverse: "employees", deleteRule: .nullify)],
///     uniquenessConstraints: [["badge"]])
/// ```
public struct EntityDescription: Sendable, Hashable, Codable {
    /// The entity name, unique in the model.
    public var name: String
    /// The class that represents the entity's objects (`representedClassName`); defaults to the
    /// entity name, as Xcode does.
    public var className: String
    /// Abstract entities have no instances of their own, only of sub-entities.
    public var isAbstract: Bool
    /// The parent entity's name; its properties are inherited.
    public var parent: String?
    /// Declared attributes, in declaration order (inherited ones not included).
    public var attributes: [AttributeDescription]
    /// Declared relationships, in declaration order (inherited ones not included).
    public var relationships: [RelationshipDescription]
    /// Each element is one constraint: a single property name, or several for a compound one.
    public var uniquenessConstraints: [[String]]
    /// Declared fetch indexes (not inherited).
    public var fetchIndexes: [FetchIndexDescription]
    /// Free-form key/value pairs from the model (not hashed).
    public var userInfo: [String: String]
    /// The `elementID` from the model file: the entity's previous name, for migration.
    public var renamingIdentifier: String?

    /// An entity; only `name` is required. `className` defaults to `name`.
    public init(
        name: String, className: String? = nil, isAbstract: Bool = false, parent: String? = nil,
        attributes: [AttributeDescription] = [], relationships: [RelationshipDescription] = [],
        uniquenessConstraints: [[String]] = [], fetchIndexes: [FetchIndexDescription] = [],
        userInfo: [String: String] = [:], renamingIdentifier: String? = nil
    ) {
        self.name = name
        self.className = className ?? name
        self.isAbstract = isAbstract
        self.parent = parent
        self.attributes = attributes
        self.relationships = relationships
        self.uniquenessConstraints = uniquenessConstraints
        self.fetchIndexes = fetchIndexes
        self.userInfo = userInfo
        self.renamingIdentifier = renamingIdentifier
    }

    /// The declared attribute of that name.
    public func attribute(named name: String) -> AttributeDescription? {
        attributes.first { $0.name == name }
    }

    /// The declared relationship of that name.
    public func relationship(named name: String) -> RelationshipDescription? {
        relationships.first { $0.name == name }
    }

    /// Names of declared attributes and relationships, attributes first.
    public var propertyNames: [String] {
        attributes.map(\.name) + relationships.map(\.name)
    }
}

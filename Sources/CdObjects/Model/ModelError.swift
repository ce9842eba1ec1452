// Errors in an entity model: found while resolving an `ObjectModel` (names, inheritance,
// inverses) or while reading a `.xcdatamodel` file (missing file, malformed XML, bad values).
// Every case names the entity and property involved, and file errors name the path.

/// Why a model could not be built or loaded.
///
/// ```swift
/// do { _ = try ObjectModel(entities: entities) }
/// catch let error { print(error) }  // entity Employee: relationship department: destination Departmnt does not exist
/// ```
public enum ModelError: Error, Sendable, Hashable, CustomStringConvertible {
    // MARK: - Resolution

    /// An entity or property name is empty (`entity` is "" when the entity itself has no name).
    case emptyName(entity: String)
    /// Two entities share a name.
    case duplicateEntity(String)
    /// Two properties of an entity (declared or inherited) share a name.
    case duplicateProperty(entity: String, property: String)
    /// `parent` names an entity that is not in the model.
    case unknownParentEntity(entity: String, parent: String)
    /// The entity is its own ancestor; `cycle` lists the entities on the cycle, in parent order.
    case inheritanceCycle(entity: String, cycle: [String])
    /// A relationship's destination entity is not in the model.
    case missingDestination(entity: String, relationship: String, destination: String)
    /// A relationship names an inverse that the destination entity does not have.
    case missingInverse(entity: String, relationship: String, destination: String, inverse: String)
    /// The inverse exists but does not point back (wrong destination or a different inverse).
    case inverseMismatch(entity: String, relationship: String, inverse: String, detail: String)
    /// A uniqueness constraint names a property the entity does not have (or a to-many one).
    case invalidConstraint(entity: String, property: String, detail: String)
    /// A fetch index names a property the entity does not have.
    case invalidFetchIndex(entity: String, index: String, property: String)
    /// A default value does not fit the attribute's type.
    case invalidDefaultValue(entity: String, attribute: String, detail: String)
    /// A validation rule cannot be used (a bad regular expression, bounds of the wrong type).
    case invalidValidationRule(entity: String, attribute: String, detail: String)
    /// Relationship count bounds are inconsistent (negative, min above max).
    case invalidCountBounds(entity: String, relationship: String, detail: String)
    /// A managed object class makes a managed object while its stored properties are initialised
    /// (a stored property whose initial value is one): that restarts the numbering of the outer
    /// object's property wrappers, so two of them would share one property's values.
    case managedObjectMadeDuringInitialisation(className: String)
    /// A managed object class made more `@Attribute` / `@Relationship` wrappers while initialised
    /// than it has wrapper stored properties (a wrapper inside a tuple or struct field): the
    /// others would be left out of the model, so their values would never be saved.
    case wrapperNotAStoredProperty(className: String, wrappers: Int, properties: Int)

    // MARK: - Files

    /// Nothing at the path, or not a model folder, bundle or `contents` file.
    case fileNotFound(path: String)
    /// The file could not be read.
    case unreadableFile(path: String, detail: String)
    /// The XML is not well formed.
    case malformedXML(path: String, line: Int?, detail: String)
    /// Well-formed XML that is not a Core Data model (wrong root, an element without its name).
    case invalidModelFile(path: String, line: Int?, detail: String)
    /// An `attributeType` this reader does not know.
    case unknownAttributeType(path: String, line: Int?, entity: String, attribute: String, typeName: String)
    /// An XML attribute's value could not be parsed (a default value, a count, a delete rule).
    case invalidXMLValue(
        path: String, line: Int?, entity: String, property: String?, xmlAttribute: String, value: String)
    /// A `.xcdatamodeld` bundle holds no `.xcdatamodel` version.
    case noModelVersion(path: String)
    /// `.xccurrentversion` (or the caller) names a version the bundle does not hold.
    case versionNotFound(path: String, version: String)

    public var description: String {
        switch self {
        case let .emptyName(entity):
            return entity.isEmpty ? "an entity has an empty name" : "entity \(entity): a property has an empty name"
        case let .duplicateEntity(name):
            return "entity \(name) is declared more than once"
        case let .duplicateProperty(entity, property):
            return "entity \(entity): property \(property) is declared more than once (or also by an ancestor)"
        case let .unknownParentEntity(entity, parent):
            return "entity \(entity): parent entity \(parent) does not exist"
        case let .inheritanceCycle(entity, cycle):
            return "entity \(entity): inheritance cycle \(cycle.joined(separator: " -> "))"
        case let .missingDestination(entity, relationship, destination):
            return "entity \(entity): relationship \(relationship): destination \(destination) does not exist"
        case let .missingInverse(entity, relationship, destination, inverse):
            return "entity \(entity): relationship \(relationship): inverse \(inverse) does not exist on \(destination)"
        case let .inverseMismatch(entity, relationship, inverse, detail):
            return "entity \(entity): relationship \(relationship): inverse \(inverse) \(detail)"
        case let .invalidConstraint(entity, property, detail):
            return "entity \(entity): uniqueness constraint on \(property): \(detail)"
        case let .invalidFetchIndex(entity, index, property):
            return "entity \(entity): fetch index \(index): property \(property) does not exist"
        case let .invalidDefaultValue(entity, attribute, detail):
            return "entity \(entity): attribute \(attribute): invalid default value: \(detail)"
        case let .invalidValidationRule(entity, attribute, detail):
            return "entity \(entity): attribute \(attribute): invalid validation rule: \(detail)"
        case let .invalidCountBounds(entity, relationship, detail):
            return "entity \(entity): relationship \(relationship): invalid count bounds: \(detail)"
        case let .managedObjectMadeDuringInitialisation(className):
            return "class \(className) makes a managed object while its stored properties are initialised; "
                + "make it lazily or in a method instead"
        case let .wrapperNotAStoredProperty(className, wrappers, properties):
            return "class \(className) makes \(wrappers) property wrappers while initialised but has \(properties) "
                + "wrapper properties; declare each @Attribute and @Relationship as a stored property of its own"
        case let .fileNotFound(path):
            return "\(path): no model file or folder here"
        case let .unreadableFile(path, detail):
            return "\(path): cannot read: \(detail)"
        case let .malformedXML(path, line, detail):
            return "\(Self.location(path, line)): malformed XML: \(detail)"
        case let .invalidModelFile(path, line, detail):
            return "\(Self.location(path, line)): not a valid Core Data model: \(detail)"
        case let .unknownAttributeType(path, line, entity, attribute, typeName):
            return
                "\(Self.location(path, line)): entity \(entity): attribute \(attribute): "
                + "unknown attributeType \"\(typeName)\""
        case let .invalidXMLValue(path, line, entity, property, xmlAttribute, value):
            let prop = property.map { " property \($0):" } ?? ""
            return "\(Self.location(path, line)): entity \(entity):\(prop) invalid \(xmlAttribute)=\"\(value)\""
        case let .noModelVersion(path):
            return "\(path): the bundle holds no .xcdatamodel version"
        case let .versionNotFound(path, version):
            return "\(path): version \(version) is not in the bundle"
        }
    }

    private static func location(_ path: String, _ line: Int?) -> String {
        line.map { "\(path):\($0)" } ?? path
    }
}

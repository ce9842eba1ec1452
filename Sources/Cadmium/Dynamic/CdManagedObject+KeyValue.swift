// Core Data's key-value access on a managed object: `value(forKey:)` and `setValue(_:forKey:)`,
// for objects of entities without a class, or properties reached by name. Reads run check I and
// writes checks J (attributes, to-one) and K (to-many), exactly as `@Attribute` and
// `@Relationship` do (they share `readAttribute` / `writeAttribute` / `readRelationship` /
// `writeRelationship`); a misuse goes to `Cd.misuseHandler` and, if that returns, a write is
// dropped as a typed write is. What only a name can get wrong — a key the entity lacks, a value
// of the wrong type — is a thrown `CdDynamicAccessError` and changes nothing.

import Foundation
import CdObjects

extension CdManagedObject {
    /// The value of the property `key`: an attribute's Swift value (`Int64` for every integer
    /// type, `Double` for Float and Double, `Decimal`, `String`, `Bool`, `Date`, `Data`, `UUID`,
    /// `URL`; nil when it has none), a to-one's object (or nil), a to-many's objects as
    /// `[CdManagedObject]` (in the list's order when it is ordered).
    ///
    /// - Throws: ``CdDynamicAccessError/unknownKey(entity:key:)`` when the entity has no such
    ///   property (declared or inherited).
    /// ```swift
    /// let plate = try car.value(forKey: "numberPlate") as? String
    /// let owner = try car.value(forKey: "owner") as? CdManagedObject
    /// ```
    public func value(forKey key: String) throws -> Any? {
        switch try property(named: key) {
        case .attribute:
            return readAttribute(key).anyValue
        case let .relationship(relationship):
            let objects = readRelationship(key)
            return relationship.isToMany ? objects : objects.first
        }
    }

    /// Sets the property `key`. An attribute takes nil, a ``CdValue``, or a value of a type an
    /// ``Attribute`` holds whose model type matches (an integer may set a Float, Double or
    /// Decimal attribute); a to-one takes a ``CdManagedObject`` of its destination (or nil); a
    /// to-many takes an array or a set of them (or nil for none).
    ///
    /// - Throws: ``CdDynamicAccessError/unknownKey(entity:key:)``,
    ///   ``CdDynamicAccessError/wrongType(entity:key:expected:given:)``; nothing changes then.
    /// ```swift
    /// try car.setValue("B-CD 42", forKey: "numberPlate")
    /// try car.setValue(person, forKey: "owner")
    /// ```
    public func setValue(_ value: Any?, forKey key: String) throws {
        let entity = withState { $0.entityName }
        switch try property(named: key) {
        case let .attribute(attribute):
            let stored = try Self.storedValue(value, for: attribute, entity: entity)
            writeAttribute(key, stored)
        case let .relationship(relationship):
            let model = (managedObjectContext?.container ?? Cd.container)?.model.objectModel
            let objects = try Self.relatedObjects(value, for: relationship, entity: entity, model: model)
            writeRelationship(key, objects, toMany: relationship.isToMany)
        }
    }

    // MARK: - Resolving the key

    /// A property of the object's entity, found by name.
    enum NamedProperty {
        case attribute(AttributeDescription)
        case relationship(RelationshipDescription)
    }

    /// The property `key` of the object's entity in the running container's model.
    func property(named key: String) throws -> NamedProperty {
        let entity = withState { $0.entityName }
        guard let model = managedObjectContext?.container.model ?? Cd.container?.model else {
            throw CdDynamicAccessError.unknownKey(entity: entity, key: key)
        }
        if let relationship = model.relationship(key, of: entity) { return .relationship(relationship) }
        if let attribute = model.objectModel.attribute(key, of: entity) { return .attribute(attribute) }
        throw CdDynamicAccessError.unknownKey(entity: entity, key: key)
    }

    // MARK: - Converting values

    /// `value` as the store holds it for `attribute`, or `wrongType`.
    static func storedValue(_ value: Any?, for attribute: AttributeDescription, entity: String) throws -> CdValue {
        func wrong() -> CdDynamicAccessError {
            .wrongType(
                entity: entity, key: attribute.name, expected: attribute.type.description,
                given: value.map { "\(type(of: $0))" } ?? "nil")
        }
        var stored: CdValue
        switch value {
        case nil, is NSNull: return .null
        case let v as CdValue: stored = v
        case let v as any CdAttributeValue: stored = v.cdValue
        default: throw wrong()
        }
        if case let .integer(n) = stored {
            switch attribute.type {
            case .double, .float: stored = .double(Double(n))
            case .decimal: stored = .decimal(Decimal(n))
            default: break
            }
        }
        if stored.isNull { return stored }
        guard attribute.type.accepts(stored) else { throw wrong() }
        if let range = attribute.type.integerRange, case let .integer(n) = stored, !range.contains(n) { throw wrong() }
        return stored
    }

    /// `value` as the objects of `relationship`, or `wrongType`.
    static func relatedObjects(
        _ value: Any?, for relationship: RelationshipDescription, entity: String, model: ObjectModel?
    ) throws -> [CdManagedObject] {
        let expected = relationship.isToMany ? "a collection of \(relationship.destination)" : relationship.destination
        func wrong(_ given: String) -> CdDynamicAccessError {
            .wrongType(entity: entity, key: relationship.name, expected: expected, given: given)
        }
        let objects: [CdManagedObject]
        switch value {
        case nil, is NSNull: objects = []
        case let object as CdManagedObject where !relationship.isToMany: objects = [object]
        case let list as [CdManagedObject] where relationship.isToMany: objects = list
        case let set as Set<CdManagedObject> where relationship.isToMany: objects = Array(set)
        default: throw wrong(value.map { "\(type(of: $0))" } ?? "nil")
        }
        for object in objects {
            let target = object.withState { $0.entityName }
            if let model, !model.isEntity(target, kindOf: relationship.destination) {
                throw wrong("an object of \(target)")
            }
        }
        return objects
    }
}

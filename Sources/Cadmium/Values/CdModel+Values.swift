// A model with entities derived from value types: each struct's Codable shape, probed without an
// instance (`ValueShapeProbe`), gives one entity (docs/VALUES.md has the mapping table).

import Foundation
import CdObjects

extension CdModel {
    /// The model declared by `classes` (as ``init(classes:)``) and by `values`: one entity per
    /// value type, named by its `entityName`, unless a class already declares that entity (the
    /// struct then maps onto the class's entity). Value types nested in listed ones are derived
    /// too.
    ///
    /// Scalars become attributes of their type (optional when the property is), RawRepresentable
    /// enums attributes of their raw value's type, nested `CdManagedStruct`s optional to-one
    /// relationships, arrays of them ordered to-many relationships (Nullify, no inverse), any
    /// other Codable type a Transformable attribute with the JSON transformer. A unique struct's
    /// identifier is indexed and gets a uniqueness constraint.
    ///
    /// ```swift
    /// let model = try CdModel(classes: [], values: [Shop.self, Employee.self, Author.self])
    /// ```
    public init(classes: [CdManagedObject.Type], values: [any CdManagedStruct.Type]) throws {
        var entities = classes.isEmpty ? [] : try CdModel(classes: classes).objectModel.entities
        var pending = values
        while !pending.isEmpty {
            let type = pending.removeFirst()
            if entities.contains(where: { $0.name == type.entityName }) { continue }
            let (entity, nested) = try Self.entity(for: type)
            entities.append(entity)
            pending += nested
        }
        try self.init(objectModel: ObjectModel(entities: entities), classes: classes)
    }

    /// The entity of `type`, and the value types its relationships lead to.
    static func entity(
        for type: any CdManagedStruct.Type
    ) throws -> (EntityDescription, [any CdManagedStruct.Type]) {
        let structName = String(describing: type)
        var entity = EntityDescription(name: type.entityName, className: "NSManagedObject")
        var nested: [any CdManagedStruct.Type] = []
        let identifier = (type as? any CdManagedUniqueStruct.Type)?.identifierName
        for property in try ValueShapeProbe.properties(of: type) {
            if property.name == "objectID", type is any CdManagedPersistentStruct.Type { continue }
            switch ValueTypes.kind(of: property.type) {
            case let .attribute(attributeType):
                entity.attributes.append(
                    AttributeDescription(
                        name: property.name, type: attributeType, isOptional: property.isOptional,
                        isIndexed: property.name == identifier))
            case let .toOne(target):
                entity.relationships.append(
                    RelationshipDescription(name: property.name, destination: target.entityName))
                nested.append(target)
            case let .toMany(target):
                entity.relationships.append(
                    .toMany(property.name, destination: target.entityName, ordered: true))
                nested.append(target)
            case .transformable:
                entity.attributes.append(
                    AttributeDescription(
                        name: property.name, type: .transformable(transformerName: CdValueTransformers.jsonName),
                        isOptional: property.isOptional))
            }
        }
        if let identifier {
            guard entity.attributes.contains(where: { $0.name == identifier }) else {
                throw CdValueError(
                    .unknownProperty, structName: structName, property: identifier, entity: entity.name,
                    message: "identifierName '\(identifier)' is not a scalar property of the struct.")
            }
            entity.uniquenessConstraints.append([identifier])
        }
        return (entity, nested)
    }
}

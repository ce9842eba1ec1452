// Boxing: a value's own Encodable conformance, run against an encoder that maps each coding key
// onto the entity's attribute or relationship of that name and builds a `ValueNode`. Nothing is
// written to any object here.
//
//   key `objectID` of a persistent value   → the node's identity, never an attribute
//   attribute, scalar type                 → the store value, converted to the attribute's type
//   attribute, Transformable               → the bytes of the named transformer
//   to-one relationship                    → the nested value's node
//   to-many relationship                   → the nodes of the array's elements, in order
//   nil optional (`encodeIfPresent`)       → `.null` / no target / no targets
//
// Any other key, or a Swift type that does not fit, is a `CdValueError` naming struct, property
// and entity.

import Foundation
import CdObjects

enum ValueBoxer {
    /// The node of `value`, with the nodes of the values nested in it, checked against `model`.
    static func box(_ value: any CdManagedStruct, model: ObjectModel) throws -> ValueNode {
        let type = type(of: value)
        let node = ValueNode(valueType: type, entity: type.entityName)
        guard model.entity(named: node.entity) != nil else {
            throw node.error(
                .unknownEntity, nil,
                "the model has no entity named '\(node.entity)'. Add the struct to CdModel(classes:values:) "
                    + "or set `static let entityName` to an entity of the model.")
        }
        let encoder = ValueBoxingEncoder(node: node, model: model)
        try value.encode(to: encoder)
        if let unique = type as? any CdManagedUniqueStruct.Type {
            let name = unique.identifierName
            guard let identifier = node.attributes[name], !identifier.isNull else {
                throw node.error(
                    .missingRequiredAttribute, name,
                    "a unique value needs its identifier '\(name)' (identifierName) to be an attribute with a value.")
            }
            node.identity = .unique(name: name, value: identifier)
        }
        return node
    }
}

/// The encoder a value encodes itself into (the top level, keyed).
final class ValueBoxingEncoder: Encoder {
    let node: ValueNode
    let model: ObjectModel
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(node: ValueNode, model: ObjectModel) {
        self.node = node
        self.model = model
    }

    var rejection: CdValueError {
        node.error(
            .unsupportedShape, nil,
            "its Encodable conformance must write one keyed container of the entity's property names "
                + "(the synthesised conformance does); nested and unkeyed containers have no entity to map onto.")
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(ValueBoxingContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { ShapeRejectingContainer(rejection: rejection) }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        ShapeRejectingContainer(rejection: rejection)
    }

    /// Maps `value` (nil: a nil optional) onto property `key`.
    func put(_ key: String, _ value: (any Encodable)?) throws {
        if key == "objectID", node.valueType is any CdManagedPersistentStruct.Type {
            if let id = value as? ObjectID { node.identity = .objectID(id) }
            return
        }
        if let attribute = model.attribute(key, of: node.entity) {
            node.attributes[key] = try storeValue(value, for: attribute)
        } else if let relationship = model.relationship(key, of: node.entity) {
            try putRelationship(relationship, value)
        } else {
            throw node.error(
                .unknownProperty, key,
                "entity '\(node.entity)' has no attribute or relationship named '\(key)'. Rename the property, "
                    + "add it to the model, or leave it out of the struct's CodingKeys.")
        }
    }

    private func storeValue(_ value: (any Encodable)?, for attribute: AttributeDescription) throws -> CdValue {
        guard let value else { return .null }
        if case let .transformable(name) = attribute.type {
            guard let transformer = CdValueTransformers.transformer(named: name) else {
                throw node.error(
                    .unknownTransformer, attribute.name,
                    "no transformer is registered as '\(name ?? "")': call CdValueTransformers.register(_:name:).")
            }
            do {
                return .data(try transformer.data(from: value))
            } catch {
                throw node.error(.typeMismatch, attribute.name, "transformer '\(name ?? "")' failed: \(error)")
            }
        }
        guard let raw = ValueTypes.storeValue(of: value), let stored = ValueTypes.coerce(raw, to: attribute.type)
        else {
            throw node.error(
                .typeMismatch, attribute.name,
                "a \(type(of: value)) (\(value)) does not fit the \(attribute.type) attribute '\(attribute.name)'.")
        }
        return stored
    }

    private func putRelationship(_ relationship: RelationshipDescription, _ value: (any Encodable)?) throws {
        let key = relationship.name
        if relationship.isToMany {
            guard let value else { node.toMany[key] = []; return }
            guard let array = value as? any CdManagedStructArray else {
                throw mismatch(relationship, value)
            }
            node.toMany[key] = try array.managedElements.map { try nested($0, relationship) }
        } else {
            guard let value else { node.toOne[key] = .some(nil); return }
            guard let element = value as? any CdManagedStruct else { throw mismatch(relationship, value) }
            node.toOne[key] = .some(try nested(element, relationship))
        }
    }

    private func nested(_ value: any CdManagedStruct, _ relationship: RelationshipDescription) throws -> ValueNode {
        let child = try ValueBoxer.box(value, model: model)
        guard
            child.entity == relationship.destination
                || model.isEntity(child.entity, kindOf: relationship.destination)
        else {
            throw node.error(
                .typeMismatch, relationship.name,
                "relationship '\(relationship.name)' leads to '\(relationship.destination)', "
                    + "but \(child.structName) maps onto '\(child.entity)'.")
        }
        return child
    }

    private func mismatch(_ relationship: RelationshipDescription, _ value: any Encodable) -> CdValueError {
        node.error(
            .typeMismatch, relationship.name,
            "a \(type(of: value)) does not fit the "
                + (relationship.isToMany ? "to-many" : "to-one")
                + " relationship '\(relationship.name)': use "
                + (relationship.isToMany ? "an array of" : "an optional")
                + " CdManagedStruct of entity '\(relationship.destination)'.")
    }
}

/// The keyed container of `ValueBoxingEncoder`: every write goes to `put`.
struct ValueBoxingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ValueBoxingEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { try encoder.put(key.stringValue, nil) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try encoder.put(key.stringValue, value) }
    mutating func encode(_ value: String, forKey key: Key) throws { try encoder.put(key.stringValue, value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try encoder.put(key.stringValue, value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try encoder.put(key.stringValue, value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try encoder.put(key.stringValue, value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try encoder.put(key.stringValue, value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try encoder.put(key.stringValue, value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try encoder.put(key.stringValue, value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try encoder.put(key.stringValue, value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try encoder.put(key.stringValue, value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try encoder.put(key.stringValue, value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try encoder.put(key.stringValue, value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try encoder.put(key.stringValue, value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try encoder.put(key.stringValue, value) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try encoder.put(key.stringValue, value) }

    // A nil optional is written as nil, so that saving it clears the property.
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try encoder.put(key.stringValue, value) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        try encoder.put(key.stringValue, value)
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        try encoder.put(key.stringValue, value)
    }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try encoder.put(key.stringValue, value) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try encoder.put(key.stringValue, value) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try encoder.put(key.stringValue, value) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try encoder.put(key.stringValue, value) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try encoder.put(key.stringValue, value) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try encoder.put(key.stringValue, value) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try encoder.put(key.stringValue, value) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try encoder.put(key.stringValue, value) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
        try encoder.put(key.stringValue, value)
    }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
        try encoder.put(key.stringValue, value)
    }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        try encoder.put(key.stringValue, value)
    }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        try encoder.put(key.stringValue, value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(RejectingKeyedContainer<NestedKey>(rejection: encoder.rejection))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        ShapeRejectingContainer(rejection: encoder.rejection)
    }
    mutating func superEncoder() -> any Encoder { RejectingCoder(rejection: encoder.rejection) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { RejectingCoder(rejection: encoder.rejection) }
}

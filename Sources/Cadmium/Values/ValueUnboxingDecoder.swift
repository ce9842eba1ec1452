// Unboxing: a value's own Decodable conformance, run against a decoder that reads each coding
// key from the managed object's attribute or relationship of that name (docs/VALUES.md).
//
//   key `objectID`                   → the object's ObjectID
//   attribute, scalar type           → the stored value as that Swift type
//   attribute, Transformable         → decoded by the named transformer
//   to-one relationship              → the nested value of the target (nil: no target)
//   to-many relationship             → the nested values of the targets, in the relationship's order
//
// Reads go through the object's property access, so its confinement checks apply (check I).
//
// Invariant:
//   CV5. A value never unboxes an object that is already being unboxed further up its chain of
//        nested values: such a chain is a cycle of relationships (an inverse read back), which no
//        tree of values can hold, and it is a CdValueError rather than endless recursion.

import Foundation
import CdObjects

/// The decoder a value decodes itself from (the top level, keyed).
final class ValueUnboxingDecoder: Decoder {
    let object: CdManagedObject
    let model: ObjectModel
    let entity: String
    let valueType: any CdManagedStruct.Type
    /// The objects being unboxed up the chain of nested values, outermost first (keeps CV5).
    let path: [ObjectID]
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(object: CdManagedObject, valueType: any CdManagedStruct.Type, path: [ObjectID]) throws {
        self.object = object
        self.valueType = valueType
        self.path = path
        entity = object.withState { $0.entityName }
        let container = object.managedObjectContext?.container ?? Cd.container
        guard let model = container?.model.objectModel else {
            throw CdValueError(
                .unknownEntity, structName: String(describing: valueType), entity: valueType.entityName,
                message: "no model: call Cd.initWithStore first.")
        }
        self.model = model
        let wanted = valueType.entityName
        guard entity == wanted || model.isEntity(entity, kindOf: wanted) else {
            throw error(
                .entityMismatch, nil,
                "the object \(object) is a '\(entity)', not a '\(wanted)' (or one of its sub-entities).")
        }
    }

    func error(_ kind: CdValueError.Kind, _ property: String?, _ message: String) -> CdValueError {
        CdValueError(
            kind, structName: String(describing: valueType), property: property, entity: entity, message: message)
    }

    var rejection: CdValueError {
        error(
            .unsupportedShape, nil,
            "its Decodable conformance must read one keyed container of the entity's property names "
                + "(the synthesised conformance does).")
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ValueUnboxingContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw rejection }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw rejection }

    // MARK: - Reading properties

    /// Whether `key` holds nil (an unknown key is thrown by `value`).
    func isNil(_ key: String) throws -> Bool {
        if key == "objectID" { return object.objectID == nil }
        if model.attribute(key, of: entity) != nil { return object.readAttribute(key).isNull }
        if let relationship = model.relationship(key, of: entity) {
            return relationship.isToMany ? false : object.readRelationship(key).isEmpty
        }
        throw unknown(key)
    }

    /// The value of type `type` that property `key` holds.
    func value<T: Decodable>(_ type: T.Type, _ key: String) throws -> T {
        if key == "objectID", let id = object.objectID as? T { return id }
        if let attribute = model.attribute(key, of: entity) {
            return try attributeValue(type, attribute)
        }
        if let relationship = model.relationship(key, of: entity) {
            return try relationshipValue(type, relationship)
        }
        throw unknown(key)
    }

    private func attributeValue<T: Decodable>(_ type: T.Type, _ attribute: AttributeDescription) throws -> T {
        let stored = object.readAttribute(attribute.name)
        if case let .transformable(name) = attribute.type {
            guard let transformer = CdValueTransformers.transformer(named: name) else {
                throw error(
                    .unknownTransformer, attribute.name,
                    "no transformer is registered as '\(name ?? "")': call CdValueTransformers.register(_:name:).")
            }
            guard case let .data(data) = stored else { throw missing(attribute.name, stored) }
            do {
                return try transformer.value(type, from: data)
            } catch {
                throw self.error(.typeMismatch, attribute.name, "transformer '\(name ?? "")' failed: \(error)")
            }
        }
        if let value = ValueTypes.swiftValue(type, from: stored) { return value }
        throw missing(attribute.name, stored)
    }

    private func relationshipValue<T: Decodable>(_ type: T.Type, _ relationship: RelationshipDescription) throws -> T {
        let targets = object.readRelationship(relationship.name)
        if relationship.isToMany, let array = type as? any CdManagedStructArray.Type {
            let values = try targets.map { try nested(array.elementType, $0, relationship) }
            if let typed = array.make(values) as? T { return typed }
        } else if !relationship.isToMany, let element = type as? any CdManagedStruct.Type {
            guard let target = targets.first else {
                throw error(
                    .missingRequiredAttribute, relationship.name,
                    "the to-one relationship '\(relationship.name)' has no target; make the property optional.")
            }
            if let typed = try nested(element, target, relationship) as? T { return typed }
        }
        throw error(
            .typeMismatch, relationship.name,
            "a \(T.self) does not fit the \(relationship.isToMany ? "to-many" : "to-one") relationship "
                + "'\(relationship.name)' to '\(relationship.destination)'.")
    }

    /// The value of type `type` of a related object (keeps CV5).
    private func nested(
        _ type: any CdManagedStruct.Type, _ target: CdManagedObject, _ relationship: RelationshipDescription
    ) throws -> any CdManagedStruct {
        let chain = path + (object.objectID.map { [$0] } ?? [])
        if let id = target.objectID, chain.contains(id) {
            throw error(
                .unsupportedShape, relationship.name,
                "'\(relationship.name)' leads back to \(id), which is being unboxed further up: the relationships "
                    + "form a cycle that no value can hold. Leave the back relationship out of the struct (its "
                    + "CodingKeys).")
        }
        return try type.init(from: ValueUnboxingDecoder(object: target, valueType: type, path: chain))
    }

    private func missing(_ key: String, _ stored: CdValue) -> CdValueError {
        stored.isNull
            ? error(.missingRequiredAttribute, key, "attribute '\(key)' is nil; make the property optional.")
            : error(.typeMismatch, key, "the stored value \(stored) of attribute '\(key)' does not fit the property.")
    }

    private func unknown(_ key: String) -> CdValueError {
        error(
            .unknownProperty, key,
            "entity '\(entity)' has no attribute or relationship named '\(key)'. Rename the property, add it "
                + "to the model, or leave it out of the struct's CodingKeys.")
    }
}

/// The keyed container of `ValueUnboxingDecoder`: every read goes to `value`.
struct ValueUnboxingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ValueUnboxingDecoder
    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] {
        let names =
            ["objectID"] + decoder.model.allAttributes(of: decoder.entity).map(\.name)
            + decoder.model.allRelationships(of: decoder.entity).map(\.name)
        return names.compactMap { Key(stringValue: $0) }
    }

    /// True for an unknown key too, so that `decodeIfPresent` goes on to `decodeNil`, which throws
    /// the key as unknown rather than reading it as nil.
    func contains(_ key: Key) -> Bool { (try? decoder.isNil(key.stringValue)).map { !$0 } ?? true }
    func decodeNil(forKey key: Key) throws -> Bool { try decoder.isNil(key.stringValue) }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.value(type, key.stringValue) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.value(type, key.stringValue) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.value(type, key.stringValue) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.value(type, key.stringValue) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder.value(type, key.stringValue) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder.value(type, key.stringValue) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder.value(type, key.stringValue) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder.value(type, key.stringValue) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder.value(type, key.stringValue) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder.value(type, key.stringValue) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder.value(type, key.stringValue) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder.value(type, key.stringValue) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder.value(type, key.stringValue) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder.value(type, key.stringValue) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.value(type, key.stringValue)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        throw decoder.rejection
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw decoder.rejection }
    func superDecoder() throws -> any Decoder { throw decoder.rejection }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw decoder.rejection }
}

// The model of a Cadmium app: an `ObjectModel` plus the class bound to each entity. Built from
// the classes themselves (reflection over one prototype instance of each: the wrappers tell the
// property types and options) or read from a Core Data model file and bound to classes by name.

import Foundation
import CdObjects

/// An entity model with its classes.
///
/// ```swift
/// let model = try CdModel(classes: [Department.self, Employee.self])
/// let fromFile = try CdModel(contentsOf: modelURL, classes: [Department.self, Employee.self])
/// ```
public struct CdModel: @unchecked Sendable {
    // @unchecked: the metatypes are immutable references to classes.
    /// The entity model.
    public let objectModel: ObjectModel
    private let classes: [String: CdManagedObject.Type]
    /// Entity → the keys a change set carries: stored properties, less the unordered to-many
    /// relationships whose inverse is a stored to-one (see `changeSetValues`).
    private let storedKeys: [String: Set<String>]
    /// Entity → relationship name → relationship, inherited ones included: property writes look
    /// relationships up by name, and the model's own lookup walks the hierarchy each time.
    private let relationshipsByName: [String: [String: RelationshipDescription]]
    /// Entity → its property slots: names resolved once, here, into the store's slot vocabulary.
    private let slotTables: [String: ObjectSlots]
    /// Entity → what a new instance needs, by the identifier's entity code (`newInstance(for:)`).
    private let instanceTemplates: EntityCodeMap<InstanceTemplate>
    /// Every version of the model file this model was read from, and its current one; empty for
    /// a model built in code (CdModel+Versions.swift).
    public internal(set) var versionHistory = ModelVersionHistory()

    /// The model declared by `classes`: one entity per class, named by ``CdManagedObject/entityName``,
    /// with a property per `@Attribute` and `@Relationship`. A class whose superclass is also
    /// listed becomes a sub-entity. An inverse named on one side only is completed on the other.
    public init(classes: [CdManagedObject.Type]) throws {
        var entities: [EntityDescription] = []
        let wrapperFields = try classes.map(WrapperFields.checked)
        for (cls, fields) in zip(classes, wrapperFields) {
            // `_typeName` is what `String(reflecting:)` prints for a class, without its casts.
            var entity = EntityDescription(name: cls.entityName, className: _typeName(cls, qualified: true))
            if let parent = superclassIfListed(cls, classes) { entity.parent = parent.entityName }
            for field in fields where !field.inherited {
                switch field.spec.property(name: field.name) {
                case let .attribute(description, unique):
                    entity.attributes.append(description)
                    if unique { entity.uniquenessConstraints.append([field.name]) }
                case let .relationship(description):
                    entity.relationships.append(description)
                }
            }
            entities.append(entity)
        }
        // Complete inverses named on one side only.
        for i in entities.indices {
            for r in entities[i].relationships.indices {
                let relationship = entities[i].relationships[r]
                guard relationship.inverse == nil else { continue }
                for other in entities where other.name == relationship.destination {
                    if let back = other.relationships.first(where: {
                        $0.destination == entities[i].name && $0.inverse == relationship.name
                    }) {
                        entities[i].relationships[r].inverse = back.name
                    }
                }
            }
        }
        try self.init(objectModel: try ObjectModel(entities: entities), classes: classes, wrapperFields: wrapperFields)
    }

    /// The model in a Core Data model file (`.xcdatamodel`, `.xcdatamodeld` or a `contents`
    /// file), with each entity bound to the class of the same name (or whose name is the last
    /// component of the entity's class name, as in `MyApp.Employee`). Entities without a class
    /// get plain ``CdManagedObject`` instances.
    public init(contentsOf url: URL, classes: [CdManagedObject.Type]) throws {
        try self.init(contentsOf: url, version: nil, classes: classes)
    }

    /// An existing entity model bound to `classes` by name.
    public init(objectModel: ObjectModel, classes: [CdManagedObject.Type]) throws {
        try self.init(objectModel: objectModel, classes: classes, wrapperFields: nil)
    }

    /// `objectModel` bound to `classes`; `wrapperFields[i]`, when given, holds the wrapper fields
    /// of `classes[i]` (read once by the caller, not again for the slot tables).
    private init(
        objectModel: ObjectModel, classes: [CdManagedObject.Type], wrapperFields: [[WrapperField]]?
    ) throws {
        self.objectModel = objectModel
        var bound: [String: CdManagedObject.Type] = [:]
        var boundFields: [String: [WrapperField]] = [:]
        for entity in objectModel.entities {
            let shortClass = entity.className.split(separator: ".").last.map(String.init) ?? entity.className
            if let i = classes.firstIndex(where: { $0.entityName == entity.name })
                ?? classes.firstIndex(where: { String(describing: $0) == shortClass })
            {
                bound[entity.name] = classes[i]
                boundFields[entity.name] = wrapperFields?[i]
            }
        }
        self.classes = bound
        var stored: [String: Set<String>] = [:]
        var relationships: [String: [String: RelationshipDescription]] = [:]
        for entity in objectModel.entities {
            for r in objectModel.allRelationships(of: entity.name) where relationships[entity.name]?[r.name] == nil {
                relationships[entity.name, default: [:]][r.name] = r
            }
            let attributes = objectModel.allAttributes(of: entity.name).filter { !$0.isTransient }.map(\.name)
            let relationships = objectModel.allRelationships(of: entity.name).filter { r in
                // Implied: an unordered to-many whose inverse is a stored to-one.
                let inverse = r.inverse.flatMap { objectModel.relationship($0, of: r.destination) }
                let implied = r.isToMany && !r.isOrdered && inverse.map { !$0.isToMany && !$0.isTransient } == true
                return !r.isTransient && !implied
            }.map(\.name)
            stored[entity.name] = Set(attributes + relationships)
        }
        self.storedKeys = stored
        self.relationshipsByName = relationships
        self.slotTables = try PropertySlots.tables(of: objectModel).mapValues { properties in
            let boundClass = bound[properties.entity]
            return ObjectSlots(
                properties: properties, model: objectModel, boundClass: boundClass,
                wrapperFields: try boundFields[properties.entity] ?? boundClass.map(WrapperFields.checked) ?? [])
        }
        let slotTables = self.slotTables
        self.instanceTemplates = EntityCodeMap(
            Dictionary(
                uniqueKeysWithValues: objectModel.entities.map {
                    ($0.name, InstanceTemplate(name: $0.name, cls: bound[$0.name], slots: slotTables[$0.name]))
                }))
    }

    /// The property slots of `entity`.
    func slots(of entity: String) -> ObjectSlots? { slotTables[entity] }

    /// The class bound to `entity`.
    func objectClass(for entity: String) -> CdManagedObject.Type? { classes[entity] }

    /// The entity of a class: its ``CdManagedObject/entityName`` if the model has it.
    func entity(for cls: CdManagedObject.Type) -> EntityDescription? { objectModel.entity(named: cls.cachedEntityName) }

    /// A new, context-less instance of the class of `id`'s entity; its entity's class and slots
    /// are found by the identifier's entity code, no name hashed.
    func newInstance(for id: ObjectID) -> CdManagedObject {
        let template = instanceTemplates[id]
        let entity = template?.name ?? id.entity
        let object = (template?.cls ?? CdManagedObject.self).init()
        let table = template?.slots
        object.withState { state in
            state.entityName = entity
            if let table {
                state.slots = table
                state.buffer = table.emptyValues
            }
        }
        return object
    }

    /// The relationship `key` of `entity`, declared or inherited (what `objectModel.relationship`
    /// answers, from a table).
    func relationship(_ key: String, of entity: String) -> RelationshipDescription? {
        relationshipsByName[entity]?[key]
    }

    /// The part of an object's `values` that goes into a change set: its stored properties,
    /// except an unordered to-many whose inverse is a stored to-one (`Department.employees` when
    /// `Employee.department` is its inverse). The context keeps both sides in step
    /// (`writeRelationship`), so every member added or removed also changed its to-one, and the
    /// store derives the list from those to-one values. Sent as a whole, the list would cost a
    /// check per member at every commit that adds one, and would overwrite members that
    /// another transaction linked since this one read the list. Usually every key is carried,
    /// and then `values` comes back as it is, not copied into a new dictionary.
    func changeSetValues(_ values: [String: PropertyValue], of entity: String) -> [String: PropertyValue] {
        guard let stored = storedKeys[entity] else { return [:] }
        if values.keys.allSatisfy({ stored.contains($0) }) { return values }
        return values.filter { stored.contains($0.key) }
    }

    /// `changeSetValues` of an object's slot buffer: the carried slots (`only`: of those, the
    /// given slots), by name.
    func changeSetValues(
        _ buffer: [PropertyValue?], slots table: ObjectSlots, only: SlotSet? = nil
    ) -> [String: PropertyValue] {
        var result: [String: PropertyValue] = [:]
        result.reserveCapacity(only == nil ? buffer.count : 4)
        for (slot, value) in buffer.enumerated() {
            guard let value, table.carried[slot], only?.contains(slot) ?? true else { continue }
            result[table.name(of: slot)] = value
        }
        return result
    }

}

/// The superclass of `cls` when it is one of the listed classes (a parent entity).
private func superclassIfListed(_ cls: CdManagedObject.Type, _ classes: [CdManagedObject.Type]) -> CdManagedObject.Type?
{
    guard let superclass = _getSuperclass(cls) else { return nil }
    return classes.first { ObjectIdentifier($0) == ObjectIdentifier(superclass) }
}

/// What `CdModel.newInstance(for:)` needs of an entity: its name, bound class and slots.
private struct InstanceTemplate {
    let name: String
    let cls: CdManagedObject.Type?
    let slots: ObjectSlots?
}

// The slots of one entity as a managed object uses them: `PropertySlots` (the store's slot
// vocabulary, EL1 and PS1–PS2) plus what the object layer needs per slot, resolved once when
// the `CdModel` is built:
//   - which slots a change set carries (stored, and not an unordered to-many whose inverse is a
//     stored to-one: see `CdModel.changeSetValues`);
//   - a new object's values (attribute defaults, empty relationships);
//   - for the entity's class, the slot of each `@Attribute` / `@Relationship` wrapper by its
//     ordinal: the wrappers of an object are numbered 0, 1, 2… in the order they are
//     initialised, which is the same for every instance of a class, so a property access finds
//     its slot with one array read instead of a name lookup.
//
// Invariants:
//  OSL1. `wrapperSlots[ordinal]` is the slot of the property whose wrapper has that ordinal in
//        every instance of `boundClass` (found by reflecting on one prototype), or -1.
//  OSL2. `relationships[slot]` is what `CdModel.relationship(name(of: slot), of: entity)`
//        answers, and `inverses[slot]` the description of its inverse in its destination (nil
//        when it has none), so that a relationship write resolves neither by name.

import CdObjects

/// The slots of one entity for managed objects (see OSL1). Immutable.
final class ObjectSlots: @unchecked Sendable {
    // @unchecked: immutable after init; `boundClass` is a metatype.
    let properties: PropertySlots
    /// Slot count (all properties, transient ones included).
    let count: Int
    /// Whether a change set carries the slot.
    let carried: [Bool]
    /// Whether every slot is carried (then a change set takes the values as they are).
    let carriesAll: Bool
    /// A new object's values.
    let newValues: [PropertyValue?]
    /// A fault's values: `count` nils, one array that every new fault shares until it is first
    /// written (copy on write), so that making a fault allocates no buffer of its own.
    let emptyValues: [PropertyValue?]
    /// The class the ordinals belong to.
    let boundClass: CdManagedObject.Type?
    /// Wrapper ordinal → slot (OSL1).
    let wrapperSlots: [Int]
    /// The relationship in each slot, nil for an attribute (OSL2).
    let relationships: [RelationshipDescription?]
    /// The inverse of the relationship in each slot (OSL2).
    let inverses: [RelationshipDescription?]

    init(
        properties: PropertySlots, model: ObjectModel, boundClass: CdManagedObject.Type?, wrapperFields: [WrapperField]
    ) {
        self.properties = properties
        count = properties.names.count
        let entity = properties.entity
        var carried = Array(repeating: false, count: count)
        var newValues = [PropertyValue?](repeating: nil, count: count)
        emptyValues = newValues
        // Keeps OSL2.
        var relationships = [RelationshipDescription?](repeating: nil, count: count)
        var inverses = [RelationshipDescription?](repeating: nil, count: count)
        for attribute in model.allAttributes(of: entity) {
            guard let slot = properties.slot(of: attribute.name) else { continue }
            newValues[slot] = .attribute(attribute.defaultValue ?? .null)
            carried[slot] = !attribute.isTransient
        }
        for r in model.allRelationships(of: entity) {
            guard let slot = properties.slot(of: r.name) else { continue }
            newValues[slot] = r.isToMany ? .toMany([]) : .toOne(nil)
            // Implied: an unordered to-many whose inverse is a stored to-one.
            let inverse = r.inverse.flatMap { model.relationship($0, of: r.destination) }
            if relationships[slot] == nil {  // the first of a name, as `CdModel.relationship`
                relationships[slot] = r
                inverses[slot] = inverse
            }
            let implied = r.isToMany && !r.isOrdered && inverse.map { !$0.isToMany && !$0.isTransient } == true
            carried[slot] = !r.isTransient && !implied
        }
        self.carried = carried
        self.relationships = relationships
        self.inverses = inverses
        carriesAll = !carried.contains(false)
        self.newValues = newValues
        self.boundClass = boundClass
        var wrapperSlots: [Int] = []
        if boundClass != nil {
            // Keeps OSL1: the prototype's wrappers carry the ordinals every instance gets.
            for field in wrapperFields where field.ordinal < 4096 {
                if wrapperSlots.count <= field.ordinal {
                    wrapperSlots += Array(repeating: -1, count: field.ordinal + 1 - wrapperSlots.count)
                }
                wrapperSlots[field.ordinal] = properties.slot(of: field.name) ?? -1
            }
        }
        self.wrapperSlots = wrapperSlots
    }

    /// The slot of property `name`.
    @inline(__always)
    func slot(of name: String) -> Int? { properties.slot(of: name) }

    /// The name of `slot`.
    func name(of slot: Int) -> String { properties.names[slot] }

    /// Values by name → a slot buffer (names the entity lacks are returned apart).
    func buffer(from values: [String: PropertyValue]) -> ([PropertyValue?], extra: [String: PropertyValue]) {
        var buffer = [PropertyValue?](repeating: nil, count: count)
        var extra: [String: PropertyValue] = [:]
        for (key, value) in values {
            if let slot = slot(of: key) { buffer[slot] = value } else { extra[key] = value }
        }
        return (buffer, extra)
    }
}

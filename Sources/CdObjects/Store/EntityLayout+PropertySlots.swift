// The slot vocabulary of `EntityLayout`, shared with the object layer: each property of an
// entity gets one slot index, so a managed object keeps its values in an array and a change
// set carries them in that array's order. The stored part of the numbering is exactly the
// record's (EL1): stored attributes sorted by name, then stored to-one relationships sorted by
// name (so attribute slot `s` is record field `s` and to-one `i` is record field
// `attributes.count + i`). After them come the stored to-many relationships sorted by name, then
// the transient properties sorted by name, which records never hold.
//
// Invariants:
//  PS1. `names[slot]` and `slot(of:)` are inverse: every property of the entity (inherited ones
//       included) has exactly one slot, and slots are 0..<names.count.
//  PS2. Slots below `storedCount` are the entity's stored properties in `EntityLayout` order
//       (attributes, to-ones, to-manys); record field `f < attributeCount + toOneCount` is slot `f`.

/// The properties of one entity by slot (see PS1, PS2). Immutable.
package final class PropertySlots: Sendable {
    /// What a slot holds.
    package enum Kind: Sendable, Equatable {
        case attribute, toOne, toMany
    }

    /// The entity.
    package let entity: String
    /// Property name per slot.
    package let names: [String]
    /// Kind per slot.
    package let kinds: [Kind]
    /// Stored attributes: slots `0..<attributeCount`.
    package let attributeCount: Int
    /// Stored to-one relationships: the next `toOneCount` slots.
    package let toOneCount: Int
    /// Stored to-many relationships: the next `toManyCount` slots.
    package let toManyCount: Int
    /// Slots of stored properties: `0..<storedCount`; the rest are transient.
    package var storedCount: Int { attributeCount + toOneCount + toManyCount }
    private let slotsByName: [String: Int]

    init(_ layout: EntityLayout, model: ObjectModel) {
        func byName(_ a: String, _ b: String) -> Bool { Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) }
        let transientAttributes = model.allAttributes(of: layout.name).filter(\.isTransient)
        let transientRelationships = model.allRelationships(of: layout.name).filter(\.isTransient)
        let transients =
            (transientAttributes.map { ($0.name, Kind.attribute) }
            + transientRelationships.map { ($0.name, $0.isToMany ? Kind.toMany : Kind.toOne) })
            .sorted { byName($0.0, $1.0) }
        entity = layout.name
        attributeCount = layout.attributes.count
        toOneCount = layout.toOnes.count
        toManyCount = layout.toManys.count
        names =
            layout.attributes.map(\.name) + layout.toOnes.map(\.name) + layout.toManys.map(\.name)
            + transients.map(\.0)
        kinds =
            Array(repeating: .attribute, count: layout.attributes.count)
            + Array(repeating: .toOne, count: layout.toOnes.count)
            + Array(repeating: .toMany, count: layout.toManys.count) + transients.map(\.1)
        slotsByName = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
    }

    /// The slot of property `name`, or nil when the entity has no such property (PS1).
    package func slot(of name: String) -> Int? { slotsByName[name] }

    /// The slot tables of every entity of `model`, by entity name: the vocabulary the object
    /// layer resolves names into once, where its model is built.
    package static func tables(of model: ObjectModel) -> [String: PropertySlots] {
        let layout = StoreLayout(model: model)
        return layout.entities.mapValues { PropertySlots($0, model: model) }
    }
}

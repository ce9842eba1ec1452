// Which entities and properties a replica syncs, and the model rules a synced entity must keep
// (checked when sync starts, docs/SYNC.md, Model rules).
//
// Invariants:
//  SY1. Each relationship pair travels on one side only (its owner): the to-one side of a
//       one-to-many, else the side whose (entity, name) sorts first. The store keeps the other
//       side in step (inverses), so every replica derives the same inverse from the same owner.
//  SY2. A synced entity's relationships are optional, have an inverse, have no deny rule and lead
//       to synced entities; its required attributes have defaults. An object that arrives with
//       some properties missing (from an older or newer model) can then always be stored.

import CdObjects
import Foundation

/// The synced part of a model.
struct SyncSchema: Sendable {
    struct Entity: Sendable {
        var name: String
        var root: String
        var attributes: [String]
        /// Owned relationships (SY1): name → (to-many, ordered).
        var relationships: [String: (toMany: Bool, ordered: Bool)]
        /// The first uniqueness constraint's properties, when the entity has one (GI2).
        var uniqueness: [String]?
        var synced: Set<String> { Set(attributes).union(relationships.keys) }
    }

    /// By entity name: every synced concrete and abstract entity (sub-entities of a named one too).
    let entities: [String: Entity]

    /// The synced part of `model` for the named entities; throws `unknownEntity` or `modelRule`
    /// naming the entity and the rule (SY2).
    init(model: ObjectModel, entities names: [String]) throws {
        var family: Set<String> = []
        for name in names {
            guard model.entity(named: name) != nil else {
                throw CdSyncError(
                    .unknownEntity, "\(name) is not an entity of the model (it has \(model.entityNames.sorted()))")
            }
            family.insert(name)
            family.formUnion(model.allSubentities(of: name).map(\.name))
        }
        var result: [String: Entity] = [:]
        for name in family.sorted() {
            let root = model.rootEntity(of: name)?.name ?? name
            var attributes: [String] = []
            for a in model.allAttributes(of: name) where !a.isTransient {
                if !a.isOptional && a.defaultValue == nil {
                    throw Self.rule(name, "attribute \(a.name) is required and has no default value")
                }
                attributes.append(a.name)
            }
            var relationships: [String: (Bool, Bool)] = [:]
            for r in model.allRelationships(of: name) where !r.isTransient {
                guard family.contains(r.destination) else {
                    throw Self.rule(name, "relationship \(r.name) leads to \(r.destination), which is not synced")
                }
                guard r.isOptional, r.minCount == 0 else {
                    throw Self.rule(name, "relationship \(r.name) is required; synced relationships are optional")
                }
                guard r.deleteRule != .deny else {
                    throw Self.rule(name, "relationship \(r.name) has the deny rule, which a remote delete cannot obey")
                }
                guard let inverse = model.inverse(of: r.name, in: name) else {
                    throw Self.rule(name, "relationship \(r.name) has no inverse")
                }
                if Self.owns(r, in: name, inverse: inverse, model: model) {
                    relationships[r.name] = (r.isToMany, r.isOrdered)
                }
            }
            let unique = model.allUniquenessConstraints(of: name).first
            result[name] = Entity(
                name: name, root: root, attributes: attributes,
                relationships: relationships.mapValues { (toMany: $0.0, ordered: $0.1) }, uniqueness: unique)
        }
        self.entities = result
    }

    /// Whether `r` of `entity` is its pair's owner (SY1).
    private static func owns(
        _ r: RelationshipDescription, in entity: String, inverse: RelationshipDescription, model: ObjectModel
    ) -> Bool {
        if r.isToMany != inverse.isToMany { return !r.isToMany }
        let here = (model.rootEntity(of: entity)?.name ?? entity, r.name)
        let there = (model.rootEntity(of: r.destination)?.name ?? r.destination, inverse.name)
        return here <= there
    }

    private static func rule(_ entity: String, _ message: String) -> CdSyncError {
        CdSyncError(.modelRule, "synced entity \(entity): \(message)")
    }
}

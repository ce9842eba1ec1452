// Lightweight migration: the mapping from one model version to the next that can be inferred from
// the two models alone, as Core Data infers a mapping model.
//
// Entities and properties are matched by, in order: the destination's `renamingIdentifier`
// (Xcode's elementID / renaming ID) naming the source's name; both having the same
// `renamingIdentifier`; the same name. Then per object:
//   - an entity without a match in the destination is dropped (its objects, and links to them);
//   - an object keeps its primary key unless its new hierarchy already uses it (entities that
//     changed hierarchy), when it gets the next free key;
//   - an attribute keeps its value when the destination type takes it (integers widen to
//     floating point and decimal); a nil that became required takes the default; a new
//     attribute takes its default;
//   - a relationship keeps its objects (those that survive), to-one ↔ to-many included; a to-many
//     holding several objects cannot become a to-one without a custom stage;
//   - a relationship whose inverse has no source is rebuilt from the side that has one (MG3).
// What cannot be carried over throws `MigrationError.needsCustomStage` naming object and key.

import Foundation

/// The mapping inferred from `source` to `destination`.
struct LightweightMapping {
    let source: ObjectModel
    let destination: ObjectModel

    /// The destination entity of each source entity that has one.
    let entityMap: [String: String]

    init(source: ObjectModel, destination: ObjectModel) {
        self.source = source
        self.destination = destination
        var map: [String: String] = [:]
        for target in destination.entities {
            if let match = Self.match(
                target.name, target.renamingIdentifier, among: source.entities.map { ($0.name, $0.renamingIdentifier) },
                taken: Set(map.keys))
            {
                map[match] = target.name
            }
        }
        entityMap = map
    }

    /// The source name matched by a destination element named `name` with `renaming`.
    static func match(
        _ name: String, _ renaming: String?, among candidates: [(name: String, renaming: String?)], taken: Set<String>
    ) -> String? {
        let free = candidates.filter { !taken.contains($0.name) }
        if let renaming {
            if let hit = free.first(where: { $0.name == renaming }) { return hit.name }
            if let hit = free.first(where: { $0.renaming == renaming }) { return hit.name }
        }
        return free.first { $0.name == name }?.name
    }

    /// The source property of each destination property of `target`, for objects of `sourceEntity`.
    func propertyMap(sourceEntity: String, target: String) -> [String: String] {
        let sourceProperties =
            source.allAttributes(of: sourceEntity).filter { !$0.isTransient }.map { ($0.name, $0.renamingIdentifier) }
            + source.allRelationships(of: sourceEntity).filter { !$0.isTransient }.map {
                ($0.name, $0.renamingIdentifier)
            }
        let targetProperties =
            destination.allAttributes(of: target).filter { !$0.isTransient }.map { ($0.name, $0.renamingIdentifier) }
            + destination.allRelationships(of: target).filter { !$0.isTransient }.map {
                ($0.name, $0.renamingIdentifier)
            }
        var map: [String: String] = [:]
        var taken: Set<String> = []
        for (name, renaming) in targetProperties {
            if let match = Self.match(name, renaming, among: sourceProperties, taken: taken) {
                map[name] = match
                taken.insert(match)
            }
        }
        return map
    }

    /// `data` (of `source`) mapped to `destination`, with the destination ID of each source ID.
    func apply(
        to data: MigrationData, progress: (Int) -> Void
    ) throws -> (data: MigrationData, ids: [ObjectID: ObjectID]) {
        // 1. New IDs: the same key in the new hierarchy when it is free there.
        var result = MigrationData(model: destination, objects: [:], nextKeys: [:])
        for (root, next) in data.nextKeys {
            guard let target = entityMap[root] else { continue }
            let newRoot = result.root(of: target)
            result.nextKeys[newRoot] = max(result.nextKeys[newRoot, default: 1], next)
        }
        var ids: [ObjectID: ObjectID] = [:]
        var used: [String: Set<Int64>] = [:]
        var moved: [ObjectID] = []
        for id in data.objects.keys.sorted() {
            guard let target = entityMap[id.entity] else { continue }
            guard let entity = destination.entity(named: target), !entity.isAbstract else {
                throw MigrationError.needsCustomStage(
                    entity: id.entity, key: "entity", object: id,
                    reason: "its entity maps to \(target), which is abstract in the new model")
            }
            if used[result.root(of: target), default: []].insert(id.primaryKey).inserted {
                ids[id] = ObjectID(entity: target, primaryKey: id.primaryKey)
            } else {
                moved.append(id)
            }
        }
        result.raiseNextKeys(over: ids.values)
        for id in moved {
            let target = entityMap[id.entity]!
            ids[id] = ObjectID(entity: target, primaryKey: result.newKey(root: result.root(of: target)))
        }
        // 2. Values.
        var maps: [String: [String: String]] = [:]
        var done = 0
        for (old, new) in ids {
            let map = maps[old.entity] ?? propertyMap(sourceEntity: old.entity, target: new.entity)
            maps[old.entity] = map
            result.objects[new] = try values(of: old, data.objects[old] ?? [:], to: new, map: map, ids: ids)
            done += 1
            if done % 1000 == 0 { progress(done) }
        }
        progress(done)
        rebuildOneSidedInverses(&result, maps: maps)
        return (result, ids)
    }

    /// The destination values of one object.
    private func values(
        of old: ObjectID, _ values: [String: PropertyValue], to new: ObjectID, map: [String: String],
        ids: [ObjectID: ObjectID]
    ) throws -> [String: PropertyValue] {
        var out: [String: PropertyValue] = [:]
        for attribute in destination.allAttributes(of: new.entity) where !attribute.isTransient {
            var value = attribute.defaultValue ?? .null
            if let from = map[attribute.name] {
                guard case let .attribute(v) = values[from] ?? .attribute(.null) else {
                    throw MigrationError.needsCustomStage(
                        entity: old.entity, key: from, object: old,
                        reason: "a relationship became the attribute \(attribute.name)")
                }
                value = try convert(v, to: attribute, old: old, key: from)
            }
            out[attribute.name] = .attribute(value)
        }
        for relationship in destination.allRelationships(of: new.entity) where !relationship.isTransient {
            var targets: [ObjectID] = []
            if let from = map[relationship.name] {
                switch values[from] {
                case let .toOne(t)?: targets = t.map { [$0] } ?? []
                case let .toMany(list)?: targets = list
                case .attribute?:
                    throw MigrationError.needsCustomStage(
                        entity: old.entity, key: from, object: old,
                        reason: "an attribute became the relationship \(relationship.name)")
                case nil: targets = []
                }
                targets = targets.compactMap { ids[$0] }
                for t in targets where !destination.isEntity(t.entity, kindOf: relationship.destination) {
                    throw MigrationError.needsCustomStage(
                        entity: old.entity, key: from, object: old,
                        reason: "\(t) is not a \(relationship.destination), the new destination")
                }
            }
            if relationship.isToMany {
                out[relationship.name] = .toMany(targets)
            } else {
                guard targets.count <= 1 else {
                    throw MigrationError.needsCustomStage(
                        entity: old.entity, key: relationship.name, object: old,
                        reason: "\(targets.count) objects cannot become one to-one target")
                }
                out[relationship.name] = .toOne(targets.first)
            }
        }
        return out
    }

    /// `value` as `attribute` of the destination holds it.
    private func convert(
        _ value: CdValue, to attribute: AttributeDescription, old: ObjectID, key: String
    ) throws -> CdValue {
        if value.isNull { return attribute.isOptional ? .null : attribute.defaultValue ?? .null }
        if attribute.type.accepts(value) { return value }
        switch (value, attribute.type) {
        case let (.integer(n), .double), let (.integer(n), .float): return .double(Double(n))
        case let (.integer(n), .decimal): return .decimal(Decimal(n))
        default:
            throw MigrationError.needsCustomStage(
                entity: old.entity, key: key, object: old,
                reason: "the value \(value) does not fit the new type \(attribute.type)")
        }
    }

    /// Where one side of a relationship pair had a source and the other did not (a new inverse
    /// of an existing relationship), rebuilds the new side from the other (keeps MG3).
    private func rebuildOneSidedInverses(_ data: inout MigrationData, maps: [String: [String: String]]) {
        let mappedEntities = Set(maps.keys.compactMap { entityMap[$0] })
        for entity in destination.entities where mappedEntities.contains(entity.name) {
            for r in entity.relationships where !r.isTransient {
                guard let inverseName = r.inverse,
                    let inverse = destination.relationship(inverseName, of: r.destination)
                else { continue }
                let sourceOf = { (entity: String, name: String) -> Bool in
                    maps.contains {
                        self.entityMap[$0.key].map { self.destination.isEntity($0, kindOf: entity) } == true
                            && $0.value[name] != nil
                    }
                }
                guard sourceOf(entity.name, r.name), !sourceOf(r.destination, inverseName) else { continue }
                // Clear the inverse side, then set it from `r`.
                for id in data.ids(of: r.destination) {
                    data.objects[id]?[inverseName] = inverse.isToMany ? .toMany([]) : .toOne(nil)
                }
                for id in data.ids(of: entity.name) {
                    let targets: [ObjectID]
                    switch data.objects[id]?[r.name] {
                    case let .toOne(t)?: targets = t.map { [$0] } ?? []
                    case let .toMany(list)?: targets = list
                    default: targets = []
                    }
                    for t in targets {
                        if inverse.isToMany {
                            if case var .toMany(list)? = data.objects[t]?[inverseName] {
                                list.append(id)
                                data.objects[t]?[inverseName] = .toMany(list)
                            }
                        } else {
                            data.objects[t]?[inverseName] = .toOne(id)
                        }
                    }
                }
            }
        }
    }
}

extension MigrationData {
    /// Raises each root's next key above the keys of `ids` (keeps MG4).
    mutating func raiseNextKeys(over ids: Dictionary<ObjectID, ObjectID>.Values) {
        for id in ids {
            let root = root(of: id.entity)
            if nextKeys[root, default: 1] <= id.primaryKey { nextKeys[root] = id.primaryKey + 1 }
        }
    }
}

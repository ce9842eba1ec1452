// What an inferred step would drop of the data a store holds: the objects of entities the new model
// lacks, and the values of properties no new property takes. Computed before the step runs, so
// that a step nobody declared is refused before anything is written (MigrationRefusal, MR1).
//
// What counts as held data: a non-nil attribute value (a default counts: it was stored), a to-one
// with a target, a to-many with at least one object. A link is not dropped when only one side of
// its relationship goes and the other side's inverse is kept: the mapping rebuilds the lost side
// from the kept one (MG3).

extension LightweightMapping {
    /// What mapping `data` (of ``source``) to ``destination`` would drop, entity by entity (in
    /// name order, whole entities before their keys), empty when it drops nothing.
    func droppedData(in data: MigrationData) -> [MigrationRefusal.DroppedData] {
        var lostObjects: [String: Int] = [:]
        var lostValues: [String: [String: Int]] = [:]
        var kept: [String: Set<String>] = [:]
        func keptProperties(of entity: String) -> Set<String>? {
            if let known = kept[entity] { return known }
            guard let target = entityMap[entity] else { return nil }
            let names = Set(propertyMap(sourceEntity: entity, target: target).values)
            kept[entity] = names
            return names
        }
        for (id, values) in data.objects {
            guard let keptHere = keptProperties(of: id.entity) else {
                lostObjects[id.entity, default: 0] += 1
                continue
            }
            for (key, value) in values where !keptHere.contains(key) && Self.holdsData(value) {
                if linkSurvives(key, of: id.entity, keptProperties: keptProperties) { continue }
                lostValues[id.entity, default: [:]][key, default: 0] += 1
            }
        }
        var dropped: [MigrationRefusal.DroppedData] = []
        for entity in Set(lostObjects.keys).union(lostValues.keys).sorted() {
            if let count = lostObjects[entity] {
                dropped.append(.init(entity: entity, key: nil, objects: count))
            }
            for (key, count) in (lostValues[entity] ?? [:]).sorted(by: { $0.key < $1.key }) {
                dropped.append(.init(entity: entity, key: key, objects: count))
            }
        }
        return dropped
    }

    /// Whether the links of relationship `key` of `entity` are carried over by its inverse, which
    /// the new model keeps (MG3 rebuilds this side from it).
    private func linkSurvives(
        _ key: String, of entity: String, keptProperties: (String) -> Set<String>?
    ) -> Bool {
        guard let relationship = source.relationship(key, of: entity), let inverse = relationship.inverse else {
            return false
        }
        return keptProperties(relationship.destination)?.contains(inverse) ?? false
    }

    /// Whether a stored value is data a step would lose by dropping its property.
    static func holdsData(_ value: PropertyValue) -> Bool {
        switch value {
        case let .attribute(v): return v != .null
        case let .toOne(target): return target != nil
        case let .toMany(targets): return !targets.isEmpty
        }
    }
}

// `QueryReadSet`: which entities a query's results depend on, so that an observer can skip
// commits that cannot change them. A request reads its entity (and sub-entities), and, for each
// key path of its predicate, sort keys and section key path that goes through relationships,
// every entity on the way (with their sub-entities). Anything the analysis cannot follow
// (SUBQUERY, variables, a key path on something other than the evaluated object) makes the
// read set "every entity", which is always safe.

import CdObjects

/// The entities whose commits can change a query's results.
struct QueryReadSet {
    /// The entities read, or nil for "any entity" (the analysis gave up: never wrong, only slower).
    private(set) var entities: Set<String>?
    /// The entities whose objects can be results (the request's entity and its sub-entities).
    let resultEntities: Set<String>
    /// Whether some key path leaves the result's own record (a relationship is followed), so a
    /// change to another object can change a result's membership or place.
    private(set) var crossesRelationships = false
    /// The entities reached through relationships (with their sub-entities), or nil for any.
    private(set) var relatedEntities: Set<String>? = []

    /// The read set of `request` plus the `extraKeyPaths` (a section key path) in `model`.
    init(_ request: FetchRequest, extraKeyPaths: [String] = [], model: ObjectModel) {
        var results: Set<String> = [request.entity]
        if request.includesSubentities {
            results.formUnion(model.allSubentities(of: request.entity).map(\.name))
        }
        resultEntities = results
        entities = results
        if let predicate = request.predicate { add(predicate, from: request.entity, model) }
        for keyPath in request.sortDescriptors.map(\.key) + extraKeyPaths {
            add(keys: keyPath.split(separator: ".").map(String.init), from: request.entity, model)
        }
    }

    /// Whether a commit that touched objects of `touched` can change the results.
    func isAffected(byEntities touched: some Sequence<String>) -> Bool {
        guard let entities else { return true }
        return touched.contains { entities.contains($0) }
    }

    /// Whether the commit `applied` can change the results.
    func isAffected(by applied: AppliedChanges) -> Bool {
        guard let entities else { return true }
        for set in [applied.inserted, applied.updated, applied.deleted] {
            if set.contains(where: { entities.contains($0.entity) }) { return true }
        }
        return false
    }

    private mutating func add(_ predicate: CdPredicate, from entity: String, _ model: ObjectModel) {
        switch predicate {
        case .constant: return
        case let .comparison(c):
            add(c.left, from: entity, model)
            add(c.right, from: entity, model)
        case let .and(a, b), let .or(a, b):
            add(a, from: entity, model)
            add(b, from: entity, model)
        case let .not(p): add(p, from: entity, model)
        }
    }

    private mutating func add(_ expression: CdPredicateExpression, from entity: String, _ model: ObjectModel) {
        switch expression {
        case .constant, .object, .evaluatedObject: return
        case let .aggregate(items): for item in items { add(item, from: entity, model) }
        case let .function(_, inner): add(inner, from: entity, model)
        case let .keyPath(.evaluatedObject, keys): add(keys: keys, from: entity, model)
        case .keyPath, .variable, .subquery: giveUp()
        }
    }

    /// Follows `keys` from `entity`: each relationship adds its destination (and sub-entities).
    private mutating func add(keys: [String], from entity: String, _ model: ObjectModel) {
        var current = entity
        for key in keys {
            guard let relationship = model.relationship(key, of: current) else {
                // An attribute ends the path; a name the model does not know is left to the fetch
                // to report, but the analysis cannot say what it reads.
                if model.attribute(key, of: current) == nil && !key.hasPrefix("@") { giveUp() }
                return
            }
            crossesRelationships = true
            current = relationship.destination
            let reached = [current] + model.allSubentities(of: current).map(\.name)
            entities?.formUnion(reached)
            relatedEntities?.formUnion(reached)
        }
    }

    private mutating func giveUp() {
        entities = nil
        relatedEntities = nil
        crossesRelationships = true
    }
}

// The relationship access paths of the planner (QueryPlan.swift): conditions on a relationship
// answered from the relationship trees, where the store keeps each to-many link as an entry,
// instead of a scan of the entity.
//
//   RELATIONSHIP  the condition names one object X through a relationship r whose inverse is a
//                 stored to-many: the candidates are X's inverse list.
//                   toOne == X            (the existing form)
//                   ANY toMany == X, toMany CONTAINS X, X IN toMany
//   RELATED       the condition is on the far side: the candidates are the inverse lists of every
//                 destination object a fetch of that condition finds (planned on its own, so it
//                 reads the destination's indexes).
//                   ANY toMany.p op v           far side: p op v
//                   toOne.p op v                far side: p op v (only ops nil never satisfies)
//                   SUBQUERY(toMany, $m, P).@count > 0 (or >= 1, != 0)
//                                               far side: P with $m as SELF (when P names only $m)
//
// Invariants:
//  RA1. Candidates are a superset of the matches: every object for which the condition holds has
//       a link to some target the path reads (an ANY / SUBQUERY match has a member that passes;
//       a to-one match has a target that passes, which is why a to-one far side excludes the
//       operators and constants a missing target satisfies: `!=`, comparisons with nil). The
//       executor still evaluates the whole predicate on each candidate (Q1).
//  RA2. A path is used only when the inverse is a stored to-many with a relationship tree on the
//       target's entity; anything else keeps the scan.
//  RA3. The far-side fetch sees what the query sees (the same reader, so the same snapshot and
//       overlay); its order does not matter, the executor sorts the union by primary key.
//  RA4. Without an overlay, the conjunct that chose the path is not tested on the stored
//       candidates: each is in the inverse list of the named object, or of a far-side object that
//       meets the far-side condition, and the store keeps inverses agreeing (OV5), so the
//       candidate's own link to that object makes the conjunct hold (the candidates are exactly
//       its matches, more than RA1 needs). Testing it read every candidate's own list: a query
//       for a tag with 1,500 notes read 1,500 lists. With an overlay, whose changes may not touch
//       a stored candidate's record while changing its links, every conjunct is tested.

extension QueryPlanner {
    /// RELATIONSHIP: one named object through a relationship with a stored to-many inverse (RA2).
    static func relationshipAccess(
        _ c: PredicateComparison, _ entity: EntityLayout, _ layout: StoreLayout
    ) -> AccessPath? {
        let name: String
        let object: CdPredicateExpression
        switch (c.quantifier, c.op, c.left, c.right) {
        case let (.direct, .equal, .keyPath(.evaluatedObject, path), right) where path.count == 1:
            guard entity.relationships[path[0]]?.isToMany == false else { return nil }
            (name, object) = (path[0], right)
        case let (.any, .equal, .keyPath(.evaluatedObject, path), right) where path.count == 1,
            let (.direct, .contains, .keyPath(.evaluatedObject, path), right) where path.count == 1,
            let (.direct, .in, right, .keyPath(.evaluatedObject, path)) where path.count == 1:
            guard entity.relationships[path[0]]?.isToMany == true else { return nil }
            (name, object) = (path[0], right)
        default:
            return nil
        }
        guard case let .object(o) = object, let target = o.identity.base as? ObjectID,
            let inverse = layout.model.inverse(of: name, in: entity.name), inverse.isToMany,
            let targetLayout = layout.entities[target.entity], let tree = targetLayout.toManyTrees[inverse.name]
        else { return nil }
        return .relationship(target: target, inverse: inverse, tree: tree)
    }

    /// RELATED: a condition on the far side of a relationship with a stored to-many inverse
    /// (RA1, RA2).
    static func farSideAccess(_ c: PredicateComparison, _ entity: EntityLayout, _ layout: StoreLayout) -> AccessPath? {
        if let (name, far) = subqueryCondition(c) { return related(name, far, entity, layout) }
        guard case let .keyPath(.evaluatedObject, path) = c.left, path.count >= 2,
            let r = entity.relationships[path[0]], !mentionsEvaluatedObject(c.right),
            let destination = layout.entities[r.destination],
            isSingleValued(Array(path.dropFirst()), from: destination, layout)
        else { return nil }
        var far = c
        far.left = .keyPath(.evaluatedObject, Array(path.dropFirst()))
        switch (r.isToMany, c.quantifier) {
        case (true, .any):
            far.quantifier = .direct
        case (false, .direct):
            guard missingTargetFails(c) else { return nil }
        default:
            return nil
        }
        return related(r.name, .comparison(far), entity, layout)
    }

    /// The path reading the inverse lists of the objects of `name`'s destination matching `far`.
    private static func related(
        _ name: String, _ far: CdPredicate, _ entity: EntityLayout, _ layout: StoreLayout
    ) -> AccessPath? {
        guard let r = entity.relationships[name], let inverse = layout.model.inverse(of: name, in: entity.name),
            inverse.isToMany, let destination = layout.entities[r.destination],
            let tree = destination.toManyTrees[inverse.name]
        else { return nil }
        var targets = FetchRequest(entity: r.destination)
        targets.predicate = far
        // The far side must be a valid fetch of the destination on its own (a key path the
        // destination does not have is left to the scan, which reports it as it always did).
        guard (try? far.validate(entity: r.destination, schema: layout.predicateSchema)) != nil else { return nil }
        return .related(targets: targets, inverse: inverse, tree: tree)
    }

    /// Whether `path` is to-ones ending at an attribute or a to-one: one value per object, so
    /// that the far-side comparison means what the quantified one means for each member.
    private static func isSingleValued(_ path: [String], from entity: EntityLayout, _ layout: StoreLayout) -> Bool {
        var current = entity
        for (i, step) in path.enumerated() {
            if i == path.count - 1 { return current.attributeSlots[step] != nil || current.toOneSlots[step] != nil }
            guard let slot = current.toOneSlots[step], let next = layout.entities[current.toOnes[slot].destination]
            else { return false }
            current = next
        }
        return false
    }

    /// `SUBQUERY(toMany, $m, P).@count > 0` (or `>= 1`, `!= 0`): the to-many and P with `$m` as SELF,
    /// when P names nothing but `$m` and constants.
    private static func subqueryCondition(_ c: PredicateComparison) -> (String, CdPredicate)? {
        guard c.quantifier == .direct,
            case let .function(.count, .subquery(.keyPath(.evaluatedObject, path), variable, inner)) = c.left,
            path.count == 1, case let .constant(.integer(n)) = c.right,
            (c.op == .greaterThan && n == 0) || (c.op == .greaterThanOrEqual && n == 1)
                || (c.op == .notEqual && n == 0),
            let far = asEvaluatedObject(inner, variable)
        else { return nil }
        return (path[0], far)
    }

    /// Whether a missing to-one target makes `c` false, so that objects without one are never
    /// matches (RA1): an ordering or string operator against non-nil constants.
    private static func missingTargetFails(_ c: PredicateComparison) -> Bool {
        func nonNilConstants(_ e: CdPredicateExpression) -> Bool {
            switch e {
            case let .constant(v): return !v.isNull
            case let .aggregate(items): return items.allSatisfy(nonNilConstants)
            case .object: return true
            default: return false
            }
        }
        switch c.op {
        case .notEqual: return false
        default: return nonNilConstants(c.right)
        }
    }

    /// Whether `e` reads the evaluated object (SELF), directly or through a key path.
    private static func mentionsEvaluatedObject(_ e: CdPredicateExpression) -> Bool {
        switch e {
        case .evaluatedObject: return true
        case let .keyPath(base, _), let .function(_, base): return mentionsEvaluatedObject(base)
        case let .aggregate(items): return items.contains(where: mentionsEvaluatedObject)
        case .subquery: return true
        case .constant, .object, .variable: return false
        }
    }

    /// `p` with `$variable` read as SELF; nil when it reads SELF itself, another variable or a
    /// nested subquery.
    private static func asEvaluatedObject(_ p: CdPredicate, _ variable: String) -> CdPredicate? {
        func expression(_ e: CdPredicateExpression) -> CdPredicateExpression? {
            switch e {
            case .constant, .object: return e
            case let .variable(v): return v == variable ? .evaluatedObject : nil
            case let .keyPath(base, path):
                guard case .variable(variable) = base else { return nil }
                return .keyPath(.evaluatedObject, path)
            case let .function(f, base): return expression(base).map { .function(f, $0) }
            case let .aggregate(items):
                let mapped = items.compactMap(expression)
                return mapped.count == items.count ? .aggregate(mapped) : nil
            case .evaluatedObject, .subquery: return nil
            }
        }
        switch p {
        case .constant: return p
        case let .and(a, b):
            guard let a = asEvaluatedObject(a, variable), let b = asEvaluatedObject(b, variable) else { return nil }
            return .and(a, b)
        case let .or(a, b):
            guard let a = asEvaluatedObject(a, variable), let b = asEvaluatedObject(b, variable) else { return nil }
            return .or(a, b)
        case let .not(a): return asEvaluatedObject(a, variable).map { .not($0) }
        case let .comparison(c):
            guard let left = expression(c.left), let right = expression(c.right) else { return nil }
            var c = c
            c.left = left
            c.right = right
            return .comparison(c)
        }
    }
}

// `$VARIABLE` substitution, as NSPredicate's `withSubstitutionVariables`. Variables bound by a
// SUBQUERY are not free inside it and are never substituted there.

import Foundation

extension CdPredicate {
    /// A copy with each free `$NAME` in `variables` replaced by that value as a constant.
    /// Variables without a value stay; evaluating them throws `.unknownVariable`.
    ///
    /// ```swift
    /// let template = try CdPredicate(format: "age >= $MIN AND department.name IN $DEPTS")
    /// let p = try template.withSubstitutionVariables(["MIN": 30, "DEPTS": ["Sales", "R&D"]])
    /// ```
    public func withSubstitutionVariables(_ variables: [String: Any]) throws -> CdPredicate {
        var bound: [String: CdPredicateExpression] = [:]
        for (name, value) in variables {
            bound[name] = try PredicateArgument.expression(value, source: .variable(name))
        }
        return substituting { bound[$0] }
    }

    /// The names of the free variables, sorted.
    public var variableNames: [String] {
        var names = Set<String>()
        collectVariables(into: &names, bound: [])
        return names.sorted()
    }

    /// A copy with each free variable for which `bound` has a value replaced by it.
    package func substituting(_ bound: (String) -> CdPredicateExpression?) -> CdPredicate {
        switch self {
        case .constant: return self
        case let .comparison(c):
            var copy = c
            copy.left = c.left.substituting(bound)
            copy.right = c.right.substituting(bound)
            return .comparison(copy)
        case let .and(l, r): return .and(l.substituting(bound), r.substituting(bound))
        case let .or(l, r): return .or(l.substituting(bound), r.substituting(bound))
        case let .not(p): return .not(p.substituting(bound))
        }
    }

    func collectVariables(into names: inout Set<String>, bound: Set<String>) {
        switch self {
        case .constant: break
        case let .comparison(c):
            c.left.collectVariables(into: &names, bound: bound)
            c.right.collectVariables(into: &names, bound: bound)
        case let .and(l, r), let .or(l, r):
            l.collectVariables(into: &names, bound: bound)
            r.collectVariables(into: &names, bound: bound)
        case let .not(p): p.collectVariables(into: &names, bound: bound)
        }
    }
}

extension CdPredicateExpression {
    /// A copy with each free variable for which `bound` has a value replaced by it.
    package func substituting(_ bound: (String) -> CdPredicateExpression?) -> CdPredicateExpression {
        switch self {
        case .constant, .object, .evaluatedObject: return self
        case let .variable(name): return bound(name) ?? self
        case let .aggregate(elements): return .aggregate(elements.map { $0.substituting(bound) })
        case let .keyPath(base, keys): return .keyPath(base.substituting(bound), keys)
        case let .function(f, inner): return .function(f, inner.substituting(bound))
        case let .subquery(collection, variable, predicate):
            // The subquery's variable is not free inside it.
            return .subquery(
                collection: collection.substituting(bound), variable: variable,
                predicate: predicate.substituting { $0 == variable ? nil : bound($0) })
        }
    }

    func collectVariables(into names: inout Set<String>, bound: Set<String>) {
        switch self {
        case .constant, .object, .evaluatedObject: break
        case let .variable(name): if !bound.contains(name) { names.insert(name) }
        case let .aggregate(elements): for e in elements { e.collectVariables(into: &names, bound: bound) }
        case let .keyPath(base, _), let .function(_, base): base.collectVariables(into: &names, bound: bound)
        case let .subquery(collection, variable, predicate):
            collection.collectVariables(into: &names, bound: bound)
            predicate.collectVariables(into: &names, bound: bound.union([variable]))
        }
    }
}

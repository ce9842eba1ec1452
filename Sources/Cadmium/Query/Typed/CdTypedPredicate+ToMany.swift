// Typed predicates over to-many relationships: `any`, `all` and `none` of a predicate on the
// members, and the aggregates `count`, `sum`, `min`, `max` and `average` of a to-many, compared
// with values (`count(\.employees) > 3`, `sum(\.employees, \.salary) > 1_000_000`). Only a to-many
// key path (`Set<Member>` or `[Member]`) is accepted, so a to-one used as a to-many does not
// compile.
//
// A member predicate that is one comparison of a member's key path with constants becomes the
// format's quantified comparison (`ANY employees.salary > 100000`), exactly what the format
// string gives; any other member predicate becomes `SUBQUERY(employees, $m, …).@count`, with the
// member's key paths read from the subquery's variable.

import Foundation
import CdObjects

/// The Swift type of a to-many relationship: `Set<Member>` or `[Member]`.
public protocol CdToManyValue {
    /// The type of the related objects.
    associatedtype Member
}

extension Set: CdToManyValue where Element: CdManagedObject {
    public typealias Member = Element
}

extension Array: CdToManyValue where Element: CdManagedObject {
    public typealias Member = Element
}

/// A value computed from `Root` that a typed predicate compares: an aggregate of a to-many
/// relationship, of Swift type `Value`.
///
/// ```swift
/// let big: CdTypedPredicate<Department> = count(\.employees) > 3
/// ```
public struct CdTypedExpression<Root, Value>: Sendable {
    /// The store's expression, or why there is none.
    let result: Result<CdPredicateExpression, CdQueryError>
}

// MARK: - Quantifiers

/// Some member of the to-many satisfies `predicate` (`ANY`).
public func any<Root, Many: CdToManyValue>(
    _ keyPath: KeyPath<Root, Many>, _ predicate: CdTypedPredicate<Many.Member>
) -> CdTypedPredicate<Root> {
    quantified(keyPath, predicate, .any)
}

/// Every member of the to-many satisfies `predicate` (`ALL`; true when there are none).
public func all<Root, Many: CdToManyValue>(
    _ keyPath: KeyPath<Root, Many>, _ predicate: CdTypedPredicate<Many.Member>
) -> CdTypedPredicate<Root> {
    quantified(keyPath, predicate, .all)
}

/// No member of the to-many satisfies `predicate` (`NONE`, which is `NOT ANY`).
public func none<Root, Many: CdToManyValue>(
    _ keyPath: KeyPath<Root, Many>, _ predicate: CdTypedPredicate<Many.Member>
) -> CdTypedPredicate<Root> {
    !quantified(keyPath, predicate, .any)
}

/// `ANY` / `ALL` of `member` over the to-many at `keyPath`.
private func quantified<Root, Member>(
    _ keyPath: AnyKeyPath, _ member: CdTypedPredicate<Member>, _ quantifier: PredicateQuantifier
) -> CdTypedPredicate<Root> {
    let result = CdKeyPathNames.resolve(keyPath).flatMap { many in
        member.result.map { inner in MemberPredicates.quantify(inner, over: many, quantifier) }
    }
    return CdTypedPredicate(result)
}

/// Rewrites member predicates into predicates on the owner.
enum MemberPredicates {
    /// `quantifier` of `inner` (a predicate on a member) over the to-many `many`.
    static func quantify(_ inner: CdPredicate, over many: [String], _ quantifier: PredicateQuantifier) -> CdPredicate {
        if case let .comparison(c) = inner, c.quantifier == .direct, case let .keyPath(.evaluatedObject, keys) = c.left,
            !mentionsSelf(c.right)
        {
            var lifted = c
            lifted.quantifier = quantifier
            lifted.left = .keyPath(.evaluatedObject, many + keys)
            return .comparison(lifted)
        }
        let variable = "m\(many.joined(separator: "_"))"
        let collection = CdPredicateExpression.keyPath(.evaluatedObject, many)
        if quantifier == .all {
            // Every member satisfies it: no member fails it.
            let failing = CdPredicateExpression.subquery(
                collection: collection, variable: variable, predicate: .not(rebase(inner, on: variable)))
            return .comparison(PredicateComparison(.function(.count, failing), .equal, .constant(.integer(0))))
        }
        let matching = CdPredicateExpression.subquery(
            collection: collection, variable: variable, predicate: rebase(inner, on: variable))
        return .comparison(PredicateComparison(.function(.count, matching), .greaterThan, .constant(.integer(0))))
    }

    /// `predicate` with `SELF` replaced by `$variable`.
    static func rebase(_ predicate: CdPredicate, on variable: String) -> CdPredicate {
        switch predicate {
        case .constant: return predicate
        case let .and(l, r): return .and(rebase(l, on: variable), rebase(r, on: variable))
        case let .or(l, r): return .or(rebase(l, on: variable), rebase(r, on: variable))
        case let .not(p): return .not(rebase(p, on: variable))
        case let .comparison(c):
            var c = c
            c.left = rebase(c.left, on: variable)
            c.right = rebase(c.right, on: variable)
            return .comparison(c)
        }
    }

    /// `expression` with `SELF` replaced by `$variable`.
    static func rebase(_ expression: CdPredicateExpression, on variable: String) -> CdPredicateExpression {
        switch expression {
        case .evaluatedObject: return .variable(variable)
        case .constant, .object, .variable: return expression
        case let .aggregate(items): return .aggregate(items.map { rebase($0, on: variable) })
        case let .keyPath(base, keys): return .keyPath(rebase(base, on: variable), keys)
        case let .function(f, inner): return .function(f, rebase(inner, on: variable))
        case let .subquery(collection, v, p):
            return .subquery(
                collection: rebase(collection, on: variable), variable: v, predicate: rebase(p, on: variable))
        }
    }

    /// Whether `expression` reads the evaluated object.
    static func mentionsSelf(_ expression: CdPredicateExpression) -> Bool {
        switch expression {
        case .evaluatedObject: return true
        case .constant, .object, .variable: return false
        case let .aggregate(items): return items.contains(where: mentionsSelf)
        case let .keyPath(base, _): return mentionsSelf(base)
        case let .function(_, inner): return mentionsSelf(inner)
        case .subquery: return true
        }
    }
}

// MARK: - Aggregates

/// The number of related objects (`key.@count`).
public func count<Root, Many: CdToManyValue>(_ keyPath: KeyPath<Root, Many>) -> CdTypedExpression<Root, Int> {
    CdTypedExpression(result: keyPathExpression(keyPath).map { .function(.count, $0) })
}

/// The sum of a member attribute (`key.@sum.attribute`).
public func sum<Root, Many: CdToManyValue, Value: CdAttributeValue & Comparable>(
    _ keyPath: KeyPath<Root, Many>, _ attribute: KeyPath<Many.Member, Value>
) -> CdTypedExpression<Root, Value> {
    CdTypedExpression(result: memberAggregate(.sum, keyPath, attribute))
}

/// The smallest value of a member attribute (`key.@min.attribute`).
public func min<Root, Many: CdToManyValue, Value: CdAttributeValue & Comparable>(
    _ keyPath: KeyPath<Root, Many>, _ attribute: KeyPath<Many.Member, Value>
) -> CdTypedExpression<Root, Value> {
    CdTypedExpression(result: memberAggregate(.min, keyPath, attribute))
}

/// The largest value of a member attribute (`key.@max.attribute`).
public func max<Root, Many: CdToManyValue, Value: CdAttributeValue & Comparable>(
    _ keyPath: KeyPath<Root, Many>, _ attribute: KeyPath<Many.Member, Value>
) -> CdTypedExpression<Root, Value> {
    CdTypedExpression(result: memberAggregate(.max, keyPath, attribute))
}

/// The mean of a member attribute (`key.@avg.attribute`), compared as a `Double`.
public func average<Root, Many: CdToManyValue, Value: CdAttributeValue & Comparable>(
    _ keyPath: KeyPath<Root, Many>, _ attribute: KeyPath<Many.Member, Value>
) -> CdTypedExpression<Root, Double> {
    CdTypedExpression(result: memberAggregate(.avg, keyPath, attribute))
}

/// `.function(function, many + attribute)`.
private func memberAggregate(
    _ function: PredicateAggregateFunction, _ many: AnyKeyPath, _ attribute: AnyKeyPath
) -> Result<CdPredicateExpression, CdQueryError> {
    CdKeyPathNames.resolve(many).flatMap { owner in
        CdKeyPathNames.resolve(attribute).map { member in
            .function(function, .keyPath(.evaluatedObject, owner + member))
        }
    }
}

// MARK: - Comparing aggregates

/// `aggregate == value`.
public func == <Root, Value: CdAttributeValue & Comparable>(
    lhs: CdTypedExpression<Root, Value>, rhs: Value
) -> CdTypedPredicate<Root> {
    .comparison(lhs.result, .equal, .constant(rhs.cdValue))
}

/// `aggregate != value`.
public func != <Root, Value: CdAttributeValue & Comparable>(
    lhs: CdTypedExpression<Root, Value>, rhs: Value
) -> CdTypedPredicate<Root> {
    .comparison(lhs.result, .notEqual, .constant(rhs.cdValue))
}

/// `aggregate < value`.
public func < <Root, Value: CdAttributeValue & Comparable>(
    lhs: CdTypedExpression<Root, Value>, rhs: Value
) -> CdTypedPredicate<Root> {
    .comparison(lhs.result, .lessThan, .constant(rhs.cdValue))
}

/// `aggregate <= value`.
public func <= <Root, Value: CdAttributeValue & Comparable>(
    lhs: CdTypedExpression<Root, Value>, rhs: Value
) -> CdTypedPredicate<Root> {
    .comparison(lhs.result, .lessThanOrEqual, .constant(rhs.cdValue))
}

/// `aggregate > value`.
public func > <Root, Value: CdAttributeValue & Comparable>(
    lhs: CdTypedExpression<Root, Value>, rhs: Value
) -> CdTypedPredicate<Root> {
    .comparison(lhs.result, .greaterThan, .constant(rhs.cdValue))
}

/// `aggregate >= value`.
public func >= <Root, Value: CdAttributeValue & Comparable>(
    lhs: CdTypedExpression<Root, Value>, rhs: Value
) -> CdTypedPredicate<Root> {
    .comparison(lhs.result, .greaterThanOrEqual, .constant(rhs.cdValue))
}

/// `aggregate BETWEEN {lower, upper}`.
public func ~= <Root, Value: CdAttributeValue & Comparable>(
    range: ClosedRange<Value>, aggregate: CdTypedExpression<Root, Value>
) -> CdTypedPredicate<Root> {
    .comparison(
        aggregate.result, .between,
        .aggregate([.constant(range.lowerBound.cdValue), .constant(range.upperBound.cdValue)]))
}

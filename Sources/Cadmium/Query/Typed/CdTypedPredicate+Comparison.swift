// The comparison operators of typed predicates: a key path on the left, a value of its type on
// the right (`\.salary > 100_000`, `\.email != nil`), and `range ~= \.key` for BETWEEN. A value of
// another type does not compile, and neither does a comparison with no key path on its left.

import Foundation
import CdObjects

// MARK: - Equality

/// `key == value` (`\.email == nil` for an optional attribute with no value).
public func == <Root, Value: CdAttributeValue & Equatable>(
    lhs: KeyPath<Root, Value>, rhs: Value
) -> CdTypedPredicate<Root> {
    .comparison(keyPathExpression(lhs), .equal, .constant(rhs.cdValue))
}

/// `key != value` (`\.email != nil`: the attribute has a value).
public func != <Root, Value: CdAttributeValue & Equatable>(
    lhs: KeyPath<Root, Value>, rhs: Value
) -> CdTypedPredicate<Root> {
    .comparison(keyPathExpression(lhs), .notEqual, .constant(rhs.cdValue))
}

// MARK: - Order

/// `key < value`.
public func < <Root, Value: CdAttributeValue & Comparable>(
    lhs: KeyPath<Root, Value>, rhs: Value
) -> CdTypedPredicate<Root> {
    .comparison(keyPathExpression(lhs), .lessThan, .constant(rhs.cdValue))
}

/// `key <= value`.
public func <= <Root, Value: CdAttributeValue & Comparable>(
    lhs: KeyPath<Root, Value>, rhs: Value
) -> CdTypedPredicate<Root> {
    .comparison(keyPathExpression(lhs), .lessThanOrEqual, .constant(rhs.cdValue))
}

/// `key > value`.
public func > <Root, Value: CdAttributeValue & Comparable>(
    lhs: KeyPath<Root, Value>, rhs: Value
) -> CdTypedPredicate<Root> {
    .comparison(keyPathExpression(lhs), .greaterThan, .constant(rhs.cdValue))
}

/// `key >= value`.
public func >= <Root, Value: CdAttributeValue & Comparable>(
    lhs: KeyPath<Root, Value>, rhs: Value
) -> CdTypedPredicate<Root> {
    .comparison(keyPathExpression(lhs), .greaterThanOrEqual, .constant(rhs.cdValue))
}

// MARK: - Order of optional attributes (no value sorts first, as in the store)

/// `key < value` for an optional attribute.
public func < <Root, Value: CdAttributeValue & Comparable>(
    lhs: KeyPath<Root, Value?>, rhs: Value
) -> CdTypedPredicate<Root> {
    .comparison(keyPathExpression(lhs), .lessThan, .constant(rhs.cdValue))
}

/// `key <= value` for an optional attribute.
public func <= <Root, Value: CdAttributeValue & Comparable>(
    lhs: KeyPath<Root, Value?>, rhs: Value
) -> CdTypedPredicate<Root> {
    .comparison(keyPathExpression(lhs), .lessThanOrEqual, .constant(rhs.cdValue))
}

/// `key > value` for an optional attribute.
public func > <Root, Value: CdAttributeValue & Comparable>(
    lhs: KeyPath<Root, Value?>, rhs: Value
) -> CdTypedPredicate<Root> {
    .comparison(keyPathExpression(lhs), .greaterThan, .constant(rhs.cdValue))
}

/// `key >= value` for an optional attribute.
public func >= <Root, Value: CdAttributeValue & Comparable>(
    lhs: KeyPath<Root, Value?>, rhs: Value
) -> CdTypedPredicate<Root> {
    .comparison(keyPathExpression(lhs), .greaterThanOrEqual, .constant(rhs.cdValue))
}

// MARK: - BETWEEN

/// `key BETWEEN {lower, upper}`: `50_000...90_000 ~= \.salary`.
public func ~= <Root, Value: CdAttributeValue & Comparable>(
    range: ClosedRange<Value>, keyPath: KeyPath<Root, Value>
) -> CdTypedPredicate<Root> {
    .comparison(
        keyPathExpression(keyPath), .between,
        .aggregate([.constant(range.lowerBound.cdValue), .constant(range.upperBound.cdValue)]))
}

/// `key BETWEEN {lower, upper}` for an optional attribute (no value is outside every range).
public func ~= <Root, Value: CdAttributeValue & Comparable>(
    range: ClosedRange<Value>, keyPath: KeyPath<Root, Value?>
) -> CdTypedPredicate<Root> {
    .comparison(
        keyPathExpression(keyPath), .between,
        .aggregate([.constant(range.lowerBound.cdValue), .constant(range.upperBound.cdValue)]))
}

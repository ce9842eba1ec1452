// Typed predicates on enums stored as their raw value (`enum CarType: String`, an attribute of
// the raw value's type, as value types and `@Attribute` wrappers of such enums store them):
// `\.type == .sedan`, `\.previous != nil`, `isIn(\.type, [.sedan, .pickup])`. The constant is the
// case's raw value, so the predicate is the one the format string `type == "sedan"` gives.

import Foundation
import CdObjects

/// `key == case`: the attribute holds the case's raw value.
///
/// ```swift
/// let sedans = try Cd.values(Car.self).filter(\.type == .sedan).fetch()
/// ```
public func == <Root, Value: RawRepresentable & Equatable>(
    lhs: KeyPath<Root, Value>, rhs: Value
) -> CdTypedPredicate<Root> where Value.RawValue: CdAttributeValue {
    .comparison(keyPathExpression(lhs), .equal, .constant(rhs.rawValue.cdValue))
}

/// `key != case`.
public func != <Root, Value: RawRepresentable & Equatable>(
    lhs: KeyPath<Root, Value>, rhs: Value
) -> CdTypedPredicate<Root> where Value.RawValue: CdAttributeValue {
    .comparison(keyPathExpression(lhs), .notEqual, .constant(rhs.rawValue.cdValue))
}

/// `key == case` for an optional enum attribute (`\.previous == nil`: it has no value).
public func == <Root, Value: RawRepresentable & Equatable>(
    lhs: KeyPath<Root, Value?>, rhs: Value?
) -> CdTypedPredicate<Root> where Value.RawValue: CdAttributeValue {
    .comparison(keyPathExpression(lhs), .equal, .constant(rhs.map { $0.rawValue.cdValue } ?? .null))
}

/// `key != case` for an optional enum attribute (`\.previous != nil`: it has a value).
public func != <Root, Value: RawRepresentable & Equatable>(
    lhs: KeyPath<Root, Value?>, rhs: Value?
) -> CdTypedPredicate<Root> where Value.RawValue: CdAttributeValue {
    .comparison(keyPathExpression(lhs), .notEqual, .constant(rhs.map { $0.rawValue.cdValue } ?? .null))
}

/// `key IN cases`: the attribute holds the raw value of one of `values`.
public func isIn<Root, Value: RawRepresentable & Equatable>(
    _ keyPath: KeyPath<Root, Value>, _ values: some Sequence<Value>
) -> CdTypedPredicate<Root> where Value.RawValue: CdAttributeValue {
    .comparison(keyPathExpression(keyPath), .in, .aggregate(values.map { .constant($0.rawValue.cdValue) }))
}

// Typed predicates on related objects themselves: `\.department == nil`, `\.department != nil`,
// `\.department == someDepartment`, and `contains(\.friends, someone)` for a to-many (compared by
// object identity, as `department == %@` and `friends CONTAINS %@` with an object argument are).

import Foundation
import CdObjects

/// The store's expression for a related object, or `nil`.
private func objectExpression(_ object: CdManagedObject?) -> CdPredicateExpression {
    guard let object else { return .constant(.null) }
    return .object(PredicateObjectID(object.predicateIdentity))
}

/// `toOne == object` (`\.department == nil`: no related object).
public func == <Root, Object: CdManagedObject>(lhs: KeyPath<Root, Object?>, rhs: Object?) -> CdTypedPredicate<Root> {
    .comparison(keyPathExpression(lhs), .equal, objectExpression(rhs))
}

/// `toOne != object` (`\.department != nil`: some related object).
public func != <Root, Object: CdManagedObject>(lhs: KeyPath<Root, Object?>, rhs: Object?) -> CdTypedPredicate<Root> {
    .comparison(keyPathExpression(lhs), .notEqual, objectExpression(rhs))
}

/// `toMany CONTAINS object`: `object` is one of the related objects.
///
/// ```swift
/// let friendsOfAnn = try Cd.objects(Person.self).filter(contains(\.friends, ann)).fetch()
/// ```
public func contains<Root, Many: CdToManyValue>(
    _ keyPath: KeyPath<Root, Many>, _ member: Many.Member
) -> CdTypedPredicate<Root> where Many.Member: CdManagedObject {
    .comparison(keyPathExpression(keyPath), .contains, objectExpression(member))
}

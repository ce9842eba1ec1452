// Typed predicates on a to-one relationship itself: `\.department == nil`, `\.department != nil`,
// and `\.department == someDepartment` (compared by object identity, as `department == %@` with
// an object argument is).

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

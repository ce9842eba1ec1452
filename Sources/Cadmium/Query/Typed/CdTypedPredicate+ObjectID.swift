// Typed predicates on an object's own ID: `\.objectID == id` and `ids.contains(\.objectID)`, the
// key-path forms of `SELF == %@` and `SELF IN %@`. They build the very predicate the format
// strings build, so the store reads the objects by primary key (QueryPlan's PRIMARY KEY path)
// instead of scanning the entity.

import Foundation
import CdObjects

/// The store's expression for an object ID argument, as `%@` with an `ObjectID` makes it.
private func idExpression(_ id: ObjectID) -> CdPredicateExpression {
    .object(PredicateObjectID(id.predicateIdentity))
}

/// The predicate `SELF <op> right` when `keyPath` is `\.objectID`, else an unresolved key path.
private func selfComparison<Root: CdManagedObject>(
    _ keyPath: KeyPath<Root, ObjectID?>, _ op: PredicateOperator, _ right: CdPredicateExpression
) -> CdTypedPredicate<Root> {
    guard keyPath == \Root.objectID else {
        return CdTypedPredicate(
            .failure(
                CdQueryError(
                    .unresolvedKeyPath, part: "\(keyPath)",
                    message: "only \\.objectID compares with an ObjectID; use a relationship's key path for others")))
    }
    return CdTypedPredicate(.success(.comparison(PredicateComparison(.evaluatedObject, op, right))))
}

/// `\.objectID == id`: the object whose ID is `id` (`SELF == %@`), read by its primary key.
///
/// ```swift
/// let id = ObjectID(entity: "Employee", primaryKey: 42)
/// let bob = try Cd.objects(Employee.self).filter(\.objectID == id).fetchOne()
/// ```
public func == <Root: CdManagedObject>(lhs: KeyPath<Root, ObjectID?>, rhs: ObjectID) -> CdTypedPredicate<Root> {
    selfComparison(lhs, .equal, idExpression(rhs))
}

extension Sequence where Element == ObjectID {
    /// `ids.contains(\.objectID)`: the objects whose IDs are among these (`SELF IN %@`), read by
    /// their primary keys.
    ///
    /// ```swift
    /// let picked = try Cd.objects(Employee.self).filter(ids.contains(\.objectID)).fetch()
    /// ```
    public func contains<Root: CdManagedObject>(_ keyPath: KeyPath<Root, ObjectID?>) -> CdTypedPredicate<Root> {
        selfComparison(keyPath, .in, .aggregate(map(idExpression)))
    }
}

// Foundation's `#Predicate` in the request's `filter`, `and` and `or`: translated into the store's
// `CdPredicate` when the request is built (Typed/FoundationPredicateTranslation.swift), so it runs
// with the same planner and indexes as the format string. A part with no store equivalent is a
// `CdQueryError` kept in the request and thrown by its terminals (TQ6), never evaluated in memory.

import Foundation
import CdObjects

extension CdFetchRequest {
    /// ANDs a Foundation predicate with the existing predicate (or sets it).
    ///
    /// ```swift
    /// let p = #Predicate<Employee> { $0.salary > 100_000 && $0.name.starts(with: "A") }
    /// let same = try Cd.objects(Employee.self).filter(p).fetch()
    /// ```
    public func filter(_ predicate: Predicate<T>) -> CdFetchRequest<T> { filter(CdTypedPredicate(predicate)) }

    /// A synonym of ``filter(_:)-(Predicate<T>)``.
    public func and(_ predicate: Predicate<T>) -> CdFetchRequest<T> { filter(CdTypedPredicate(predicate)) }

    /// ORs a Foundation predicate with the whole existing predicate (or sets it).
    public func or(_ predicate: Predicate<T>) -> CdFetchRequest<T> { or(CdTypedPredicate(predicate)) }
}
